"""Checks Parquet files written by pq against pyarrow.

The interop test (crates/pq-arrow/tests/write_interop.rs) writes a matrix
of Parquet files and, next to them, `expected.arrow`: the same data as an
Arrow IPC file. For every `*.parquet` in the directory this script

* reads the file with pyarrow (page checksums verified) and compares it,
  schema and values, with `expected.arrow`;
* checks that pyarrow sees a column index and an offset index on every
  column chunk where pq says it wrote one;
* has pyarrow write the expected table itself and compares the chunk
  statistics (min, max, null count) pyarrow reports for both files.

It prints one line per file and a summary, and exits 1 on any mismatch.

Usage: python3 pyarrow_check_write.py DIR
"""

import os
import sys

import pyarrow as pa
import pyarrow.parquet as pq


def stats_of(md, i, j):
    col = md.row_group(i).column(j)
    s = col.statistics
    if s is None:
        return None
    out = {"null_count": s.null_count if s.has_null_count else None}
    if s.has_min_max:
        out["min"] = s.min
        out["max"] = s.max
    return out


def main() -> int:
    d = sys.argv[1]
    with pa.memory_map(os.path.join(d, "expected.arrow")) as src:
        expected = pa.ipc.open_file(src).read_all()
    files = sorted(f for f in os.listdir(d) if f.endswith(".parquet") and f.startswith("pq-"))
    # pyarrow writes the same row groups as pq did.
    rows = pq.ParquetFile(os.path.join(d, files[0])).metadata.row_group(0).num_rows
    reference = os.path.join(d, "reference-pyarrow.parquet")
    pq.write_table(expected, reference, write_page_index=True, row_group_size=rows)
    ref_md = pq.ParquetFile(reference).metadata
    failures = 0
    for name in files:
        path = os.path.join(d, name)
        problems = []
        try:
            table = pq.read_table(path, page_checksum_verification=True)
            if not table.schema.equals(expected.schema):
                problems.append(f"schema {table.schema} != {expected.schema}")
            else:
                for c in expected.column_names:
                    got, want = table[c], expected[c]
                    if pa.types.is_dictionary(want.type):
                        # Dictionaries differ per row group; compare values.
                        got = got.cast(want.type.value_type)
                        want = want.cast(want.type.value_type)
                    if not got.equals(want):
                        problems.append(f"column {c} differs")
            md = pq.ParquetFile(path).metadata
            if md.num_row_groups != ref_md.num_row_groups:
                problems.append("row group count differs from pyarrow's")
            for i in range(md.num_row_groups):
                for j in range(md.num_columns):
                    col = md.row_group(i).column(j)
                    if not (col.has_column_index and col.has_offset_index):
                        problems.append(f"no page index for {col.path_in_schema}")
                    ours = stats_of(md, i, j)
                    theirs = stats_of(ref_md, i, j)
                    if ours != theirs:
                        problems.append(
                            f"statistics of {col.path_in_schema}: pq {ours} pyarrow {theirs}"
                        )
        except Exception as e:  # noqa: BLE001 - report every failure
            problems.append(f"{type(e).__name__}: {e}")
        if problems:
            failures += 1
            print(f"FAIL {name}: " + "; ".join(problems))
        else:
            print(f"ok   {name}")
    print(f"{len(files) - failures} of {len(files)} files read by pyarrow {pa.__version__} as written")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
