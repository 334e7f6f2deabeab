"""Times Polars and DuckDB running a filtered read of a Parquet file, each
on one thread, for the predicate benchmark (`cargo bench -p pq-arrow
--bench filter`).

Each reader returns every column of the matching rows in memory: Polars as
a DataFrame (`scan_parquet(...).filter(pl.sql_expr(PREDICATE)).collect()`),
DuckDB as an Arrow table (`SELECT * ... WHERE PREDICATE`). After one untimed
run by each, the two alternate within each round; the median of the rounds
is printed, one line per reader:

    READER<TAB>MEDIAN_SECONDS<TAB>ROWS

(MEDIAN_SECONDS is `-` and ROWS the error's first line when a reader fails.)

usage: filter_queries.py ROUNDS FILE PREDICATE
"""

import os
import sys
import time

# Polars reads its thread count once, when it is imported.
os.environ["POLARS_MAX_THREADS"] = "1"

import duckdb  # noqa: E402
import polars as pl  # noqa: E402

DUCKDB = duckdb.connect()
DUCKDB.execute("SET threads = 1")


def polars(path, predicate):
    return pl.scan_parquet(path).filter(pl.sql_expr(predicate)).collect().height


def duck(path, predicate):
    q = f"SELECT * FROM read_parquet($1) WHERE {predicate}"
    return DUCKDB.sql(q, params=[path]).to_arrow_table().num_rows


READERS = {"polars": polars, "duckdb": duck}


def main():
    if len(sys.argv) != 4:
        sys.exit("usage: filter_queries.py ROUNDS FILE PREDICATE")
    rounds, path, predicate = max(1, int(sys.argv[1])), sys.argv[2], sys.argv[3]
    times = {name: [] for name in READERS}
    rows = {}
    for name, run in READERS.items():
        try:
            rows[name] = run(path, predicate)
        except Exception as e:
            rows[name] = str(e).splitlines()[0] if str(e) else type(e).__name__
    for _ in range(rounds):
        for name, run in READERS.items():
            if isinstance(rows[name], str):
                continue
            start = time.perf_counter()
            run(path, predicate)
            times[name].append(time.perf_counter() - start)
    for name in READERS:
        t = sorted(times[name])
        median = f"{t[len(t) // 2]:.6f}" if t else "-"
        print(f"{name}\t{median}\t{rows[name]}", flush=True)


if __name__ == "__main__":
    main()
