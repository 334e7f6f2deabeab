"""Reads a Parquet file with pyarrow and writes it as an Arrow IPC file.

The conformance test (tests/tests/read_conformance.rs) uses it as the
reference for the files where the arrow-rs reader fails or is wrong.

Usage: python3 pyarrow_to_ipc.py INPUT.parquet OUTPUT.arrow
"""

import sys

import pyarrow as pa
import pyarrow.parquet as pq


def main() -> None:
    src, dst = sys.argv[1], sys.argv[2]
    table = pq.read_table(src)
    with pa.OSFile(dst, "wb") as sink:
        with pa.ipc.new_file(sink, table.schema) as writer:
            writer.write_table(table)


if __name__ == "__main__":
    main()
