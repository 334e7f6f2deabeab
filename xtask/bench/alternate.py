"""Times whole commands against each other: two or more builds of `pq`,
or `pq sql` against `datafusion_parquet_sql`, run one after another in
each round so that a change of machine load hits all of them alike; each
round starts one command later than the round before, so that every
command runs after every other equally often.

For each command: the median wall time, user + system CPU time and peak
resident memory (from `wait4`), the CPU time the host took from this
machine's cores while it ran (`steal` in `/proc/stat`: a virtual
machine's cores lent to others, which slows two threads more than one),
and the median of the rounds' own ratios
to the first command. Every command must exit 0, and whether they all
printed the same standard output is reported (the same CSV, for queries).

usage: alternate.py [--placement COMMAND] ROUNDS NAME=COMMAND [NAME=COMMAND ...]

Each COMMAND is split as a shell would split it (`shlex`); a word
`@FILE` stands for the contents of FILE (a query, whose quotes then need
no escaping):

    alternate.py 9 \\
        "df=target/release/examples/datafusion_parquet_sql F.parquet @q1.sql" \\
        "pq=target/release/pq sql --threads 1 --format csv --table lineitem=F.parquet @q1.sql"

With `--placement COMMAND` (`target/release/xtask core-round-trip`), that
command runs before each round and the last number it prints is taken as
the round's core round trip in nanoseconds; the figures are then given
again for the rounds below and at or above `FAR_NS`. On a virtual
machine the host moves its cores near each other and apart for minutes
at a time, and threads sharing memory are slower while they are apart
(see `cargo xtask core-round-trip`), so a comparison of one thread with
two should not mix the two kinds of rounds unawares.
"""

import os
import re
import shlex
import statistics
import subprocess
import sys
import time

# A core round trip at or above this is a round with the cores apart
# (76-160 ns near, 430-520 ns apart on the machine of BENCHMARKS.md).
FAR_NS = 250


def expand(word):
    """`@FILE` as FILE's contents, any other word as it is."""
    if word.startswith("@") and os.path.isfile(word[1:]):
        with open(word[1:], encoding="utf-8") as f:
            return f.read().strip()
    return word


def stolen():
    """CPU time the host gave to others while this machine's cores wanted
    it (the `steal` column of `/proc/stat`, all cores), in seconds; 0
    where the kernel does not say."""
    try:
        with open("/proc/stat", encoding="ascii") as f:
            fields = f.readline().split()
        return int(fields[8]) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return 0.0


def run(argv):
    steal = stolen()
    start = time.perf_counter()
    child = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    out = child.stdout.read()
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - start
    steal = stolen() - steal
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        sys.exit(f"alternate.py: {shlex.join(argv)[:200]} exited with {code}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, steal, out


def round_trip(argv):
    """The last number `argv` prints: the core round trip, in ns."""
    out = subprocess.run(argv, capture_output=True, text=True, check=True).stdout
    numbers = re.findall(r"\d+(?:\.\d+)?", out)
    if not numbers:
        sys.exit(f"alternate.py: {shlex.join(argv)} printed no number")
    return float(numbers[-1])


def report(commands, rounds, wall, cpu, peak, steal, label=""):
    """Medians over `rounds` (indices), and ratios to the first command."""
    first = commands[0][0]
    med = statistics.median
    for name, _ in commands:
        w = [wall[name][r] for r in rounds]
        c = [cpu[name][r] for r in rounds]
        m = [peak[name][r] for r in rounds]
        s = [steal[name][r] for r in rounds]
        line = (
            f"{label}{name}: {med(w) * 1000:.0f} ms wall, "
            f"{med(c) * 1000:.0f} ms CPU, peak {med(m):.1f} MB, "
            f"stolen {med(s) * 1000:.0f} ms (most {max(s) * 1000:.0f})"
        )
        if name != first:
            ratio_wall = med([wall[name][r] / wall[first][r] for r in rounds])
            ratio_cpu = med([cpu[name][r] / cpu[first][r] for r in rounds])
            line += f"; / {first}: {ratio_wall:.2f} wall ({ratio_cpu:.2f} CPU)"
        print(line)


def main():
    args = sys.argv[1:]
    placement = None
    if args[:1] == ["--placement"]:
        if len(args) < 2:
            sys.exit(__doc__)
        placement = shlex.split(args[1])
        args = args[2:]
    if len(args) < 3:
        sys.exit(__doc__)
    rounds = int(args[0])
    commands = []
    for spec in args[1:]:
        name, sep, command = spec.partition("=")
        if not sep or not command:
            sys.exit(f"alternate.py: expected NAME=COMMAND, got {spec!r}")
        commands.append((name, [expand(word) for word in shlex.split(command)]))
    wall = {n: [] for n, _ in commands}
    cpu = {n: [] for n, _ in commands}
    peak = {n: [] for n, _ in commands}
    steal = {n: [] for n, _ in commands}
    outputs = {}
    trips = []
    for r in range(rounds):
        if placement:
            trips.append(round_trip(placement))
        k = r % len(commands)
        for name, argv in commands[k:] + commands[:k]:
            w, c, m, st, out = run(argv)
            wall[name].append(w)
            cpu[name].append(c)
            peak[name].append(m)
            steal[name].append(st)
            outputs[name] = out
    report(commands, range(rounds), wall, cpu, peak, steal)
    if placement:
        for label, chosen in (
            ("near", [r for r in range(rounds) if trips[r] < FAR_NS]),
            ("apart", [r for r in range(rounds) if trips[r] >= FAR_NS]),
        ):
            if not chosen:
                print(f"0 rounds with the cores {label}")
                continue
            trip = statistics.median([trips[r] for r in chosen])
            print(f"{len(chosen)} rounds with the cores {label} (round trip {trip:.0f} ns):")
            report(commands, chosen, wall, cpu, peak, steal, label=f"  {label} ")
    same = len(set(outputs.values())) == 1
    print(f"same output: {'yes' if same else 'NO'}; {rounds} rounds")


if __name__ == "__main__":
    main()
