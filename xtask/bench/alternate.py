"""Times whole commands against each other: two or more builds of `pq`,
or `pq sql` against `datafusion_parquet_sql`, run one after another in
each round so that a change of machine load hits all of them alike; each
round starts one command later than the round before, so that every
command runs after every other equally often.

For each command: the median wall time, user + system CPU time and peak
resident memory (from `wait4`), and the median of the rounds' own ratios
to the first command. Every command must exit 0, and whether they all
printed the same standard output is reported (the same CSV, for queries).

usage: alternate.py ROUNDS NAME=COMMAND [NAME=COMMAND ...]

Each COMMAND is split as a shell would split it (`shlex`); a word
`@FILE` stands for the contents of FILE (a query, whose quotes then need
no escaping):

    alternate.py 9 \\
        "df=target/release/examples/datafusion_parquet_sql F.parquet @q1.sql" \\
        "pq=target/release/pq sql --threads 1 --format csv --table lineitem=F.parquet @q1.sql"
"""

import os
import shlex
import statistics
import subprocess
import sys
import time


def expand(word):
    """`@FILE` as FILE's contents, any other word as it is."""
    if word.startswith("@") and os.path.isfile(word[1:]):
        with open(word[1:], encoding="utf-8") as f:
            return f.read().strip()
    return word


def run(argv):
    start = time.perf_counter()
    child = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    out = child.stdout.read()
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - start
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        sys.exit(f"alternate.py: {shlex.join(argv)[:200]} exited with {code}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, out


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    rounds = int(sys.argv[1])
    commands = []
    for spec in sys.argv[2:]:
        name, sep, command = spec.partition("=")
        if not sep or not command:
            sys.exit(f"alternate.py: expected NAME=COMMAND, got {spec!r}")
        commands.append((name, [expand(word) for word in shlex.split(command)]))
    wall = {n: [] for n, _ in commands}
    cpu = {n: [] for n, _ in commands}
    peak = {n: [] for n, _ in commands}
    outputs = {}
    for r in range(rounds):
        k = r % len(commands)
        for name, argv in commands[k:] + commands[:k]:
            w, c, m, out = run(argv)
            wall[name].append(w)
            cpu[name].append(c)
            peak[name].append(m)
            outputs[name] = out
    first = commands[0][0]
    med = statistics.median
    for name, _ in commands:
        line = (
            f"{name}: {med(wall[name]) * 1000:.0f} ms wall, "
            f"{med(cpu[name]) * 1000:.0f} ms CPU, peak {med(peak[name]):.1f} MB"
        )
        if name != first:
            ratio_wall = med([a / b for a, b in zip(wall[name], wall[first])])
            ratio_cpu = med([a / b for a, b in zip(cpu[name], cpu[first])])
            line += f"; / {first}: {ratio_wall:.2f} wall ({ratio_cpu:.2f} CPU)"
        print(line)
    same = len(set(outputs.values())) == 1
    print(f"same output: {'yes' if same else 'NO'}; {rounds} rounds")


if __name__ == "__main__":
    main()
