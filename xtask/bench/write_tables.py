"""Writes the benchmark matrix's tables with pyarrow, DuckDB and Polars.

Run by `cargo xtask bench-data` in the bench venv (target/bench-venv), after
xtask-datagen has written the logical tables to DIR/source/TABLE.arrow (Arrow
IPC) and the arrow-rs files. Every writer reads the same IPC source, so the
files of one table differ only in how they are written:

    DIR/TABLE.WRITER.SETTING.parquet

with SETTING one of `default` (the writer's own defaults), `plain` (PLAIN
values, uncompressed) and `zstd_v2` (ZSTD with data page v2), where the
writer can be asked for it (Polars cannot: it writes `uncompressed`, its
dictionaries kept, and no `zstd_v2`). A file newer than its source is kept unless
--force is given.

usage: write_tables.py DIR [--force]
"""

import os
import sys
from pathlib import Path

import duckdb
import polars as pl
import pyarrow as pa
import pyarrow.ipc
import pyarrow.parquet as pq


def write_pyarrow(table, path, setting):
    if setting == "default":
        pq.write_table(table, path)
    elif setting == "plain":
        pq.write_table(table, path, compression="none", use_dictionary=False)
    else:
        pq.write_table(table, path, compression="zstd", data_page_version="2.0")


# DuckDB has no switch for dictionary encoding, but a dictionary of at most
# one entry's worth of bytes always overflows, and then it writes PLAIN.
DUCKDB_OPTIONS = {
    "default": "",
    "plain": ", COMPRESSION uncompressed, STRING_DICTIONARY_PAGE_SIZE_LIMIT 1, DICTIONARY_SIZE_LIMIT 1",
    "zstd_v2": ", COMPRESSION zstd, PARQUET_VERSION v2",
}


def write_duckdb(table, path, setting):
    con = duckdb.connect()
    con.execute("SET threads = 1")
    con.register("source", table)
    quoted = str(path).replace("'", "''")
    con.execute(f"COPY source TO '{quoted}' (FORMAT parquet{DUCKDB_OPTIONS[setting]})")
    con.close()


def write_polars(table, path, setting):
    frame = pl.from_arrow(table)
    if setting == "default":
        frame.write_parquet(path)
    else:
        frame.write_parquet(path, compression="uncompressed")


# Per writer: how it writes, and the settings it cannot be asked for (why).
# Polars writes `uncompressed` (its dictionaries kept) in place of `plain`.
WRITERS = {
    "pyarrow": (write_pyarrow, ["default", "plain", "zstd_v2"], {}),
    "duckdb": (write_duckdb, ["default", "plain", "zstd_v2"], {}),
    "polars": (
        write_polars,
        ["default", "uncompressed"],
        {
            "plain": "Polars has no switch for dictionary encoding; "
            "written as `uncompressed`, dictionaries kept",
            "zstd_v2": "Polars has no switch for data page v2",
        },
    ),
}


def main():
    args = sys.argv[1:]
    force = "--force" in args
    dirs = [a for a in args if a != "--force"]
    if len(dirs) != 1:
        sys.exit("usage: write_tables.py DIR [--force]")
    out = Path(dirs[0])
    sources = sorted((out / "source").glob("*.arrow"))
    if not sources:
        sys.exit(f"no source table in {out / 'source'}: run `cargo xtask bench-data`")
    for name, (_, _, unsupported) in WRITERS.items():
        for setting, why in unsupported.items():
            print(f"{name} {setting}: not written ({why})", file=sys.stderr)
    for source in sources:
        table = None
        for name, (write, settings, _) in WRITERS.items():
            for setting in settings:
                path = out / f"{source.stem}.{name}.{setting}.parquet"
                if (
                    not force
                    and path.exists()
                    and path.stat().st_mtime >= source.stat().st_mtime
                ):
                    print(f"{path} exists", file=sys.stderr)
                    continue
                if table is None:
                    with pa.memory_map(str(source)) as f:
                        table = pa.ipc.open_file(f).read_all()
                tmp = path.with_suffix(".tmp")
                write(table, tmp, setting)
                os.replace(tmp, path)
                print(f"wrote {path} ({path.stat().st_size / 1e6:.1f} MB)", file=sys.stderr)


if __name__ == "__main__":
    main()
