"""Times pyarrow, Polars and DuckDB reading whole Parquet files into memory,
each on one thread, for `cargo xtask bench-read`.

Every reader materialises every column of every row: pyarrow into a Table,
Polars into a DataFrame, DuckDB into an Arrow table (its own vectors turned
into Arrow, as a caller of DuckDB gets them). After one untimed read by each reader, the readers alternate within
each round, so that a change of machine load hits all three alike; the
median of the rounds is printed, one line per file and reader:

    FILE<TAB>READER<TAB>MEDIAN_SECONDS<TAB>ROWS

(MEDIAN_SECONDS is `-` and ROWS the error's first line when a reader fails.)

usage: read_tables.py ROUNDS FILE...
"""

import os
import sys
import time

# Polars reads its thread count once, when it is imported.
os.environ["POLARS_MAX_THREADS"] = "1"

import duckdb  # noqa: E402
import polars as pl  # noqa: E402
import pyarrow as pa  # noqa: E402
import pyarrow.parquet as pq  # noqa: E402

pa.set_cpu_count(1)
pa.set_io_thread_count(1)
DUCKDB = duckdb.connect()
DUCKDB.execute("SET threads = 1")


def read_pyarrow(path):
    return pq.read_table(path, use_threads=False).num_rows


def read_polars(path):
    return pl.read_parquet(path).height


def read_duckdb(path):
    return DUCKDB.sql("SELECT * FROM read_parquet($1)", params=[path]).to_arrow_table().num_rows


READERS = {"pyarrow": read_pyarrow, "polars": read_polars, "duckdb": read_duckdb}


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: read_tables.py ROUNDS FILE...")
    rounds = max(1, int(sys.argv[1]))
    # The first read of each reader loads code and fills caches that every
    # later read finds ready: done once, untimed.
    for read in READERS.values():
        try:
            read(sys.argv[2])
        except Exception:
            pass
    for path in sys.argv[2:]:
        times = {name: [] for name in READERS}
        rows = {}
        for _ in range(rounds):
            for name, read in READERS.items():
                if name in rows and isinstance(rows[name], str):
                    continue
                start = time.perf_counter()
                try:
                    n = read(path)
                except Exception as e:  # a reader that cannot read the file
                    rows[name] = str(e).splitlines()[0] if str(e) else type(e).__name__
                    continue
                times[name].append(time.perf_counter() - start)
                rows[name] = n
        for name in READERS:
            t = sorted(times[name])
            median = f"{t[len(t) // 2]:.6f}" if t else "-"
            print(f"{path}\t{name}\t{median}\t{rows.get(name, '')}", flush=True)


if __name__ == "__main__":
    main()
