//! `--where` on `cat`, `head` and `tail`: the rows a predicate keeps, with
//! offsets and limits counted among them, and its errors.

mod common;

use common::{data, fails_with, ok};

/// The rows of `data/sample.parquet` as CSV lines (header first).
fn csv(extra: &[&str]) -> Vec<String> {
    let path = data("sample.parquet");
    let mut args = vec![
        "cat",
        path.to_str().unwrap_or_default(),
        "--format",
        "csv",
        "--columns",
        "id,city,population",
    ];
    args.extend_from_slice(extra);
    ok(&args).lines().map(str::to_owned).collect()
}

/// The data lines (no header) whose `keep` holds, by id and population.
fn expected(keep: impl Fn(i64, &str, i64) -> bool) -> Vec<String> {
    csv(&[])
        .into_iter()
        .skip(1)
        .filter(|line| {
            let f: Vec<&str> = line.split(',').collect();
            let id = f[0].parse().unwrap_or(-1);
            let population = f[2].parse().unwrap_or(-1);
            keep(id, f[1], population)
        })
        .collect()
}

#[test]
fn cat_keeps_the_rows_the_predicate_keeps() {
    type Keep = fn(i64, &str, i64) -> bool;
    let cases: [(&str, Keep); 4] = [
        ("population > 5000000", |_, _, p| p > 5_000_000),
        ("city LIKE 'B%' OR id IN (1, 2)", |id, c, _| {
            c.starts_with('B') || id == 1 || id == 2
        }),
        ("NOT (id BETWEEN 3 AND 10)", |id, _, _| {
            !(3..=10).contains(&id)
        }),
        ("id < 0", |_, _, _| false),
    ];
    for (text, keep) in cases {
        let got = csv(&["--where", text]);
        assert_eq!(got[1..], expected(keep)[..], "{text}");
        assert!(got[0].starts_with("id,"), "{text}: header");
    }
}

#[test]
fn offsets_and_limits_count_matching_rows() {
    let all = expected(|id, _, _| id > 2);
    assert!(all.len() > 4);
    let got = csv(&["--where", "id > 2", "--offset", "1", "--limit", "2"]);
    assert_eq!(got[1..], all[1..3]);
    let path = data("sample.parquet");
    let p = path.to_str().unwrap_or_default();
    // The ids `head` or `tail` prints of the matching rows.
    let ends = |command: &str| {
        let args = [
            command,
            p,
            "-n",
            "2",
            "--where",
            "id > 2",
            "--columns",
            "id",
            "--format",
            "csv",
        ];
        ok(&args)
    };
    let head = ends("head");
    let ids: Vec<&str> = all
        .iter()
        .map(|l| l.split(',').next().unwrap_or(""))
        .collect();
    assert_eq!(head.lines().skip(1).collect::<Vec<_>>(), ids[..2]);
    let tail = ends("tail");
    assert_eq!(
        tail.lines().skip(1).collect::<Vec<_>>(),
        ids[ids.len() - 2..]
    );
}

#[test]
fn bad_predicates_are_one_line_errors() {
    let path = data("sample.parquet");
    let p = path.to_str().unwrap_or_default();
    // A predicate that does not parse is a usage error.
    let e = fails_with(&["cat", p, "--where", "population >"], 2);
    assert!(e.contains("--where") && e.contains("position"), "{e}");
    // One that does not fit the file: an error about the file, before any
    // row is printed.
    for (text, want) in [
        ("nope = 1", "no column nope"),
        ("population = 'x'", "cannot be compared"),
        ("id = 1.5", "fraction"),
    ] {
        let e = fails_with(&["cat", p, "--where", text], 1);
        assert!(
            e.contains(want) && e.contains("sample.parquet"),
            "{text}: {e}"
        );
        assert_eq!(e.trim().lines().count(), 1, "{text}: {e}");
    }
}

#[test]
fn convert_writes_the_bloom_filters_asked_for() {
    use parquet::file::reader::FileReader;
    use parquet::file::serialized_reader::{ReadOptionsBuilder, SerializedFileReader};
    let dir = common::dir("convert_bloom_filters");
    let out = dir.join("out.parquet");
    let input = data("sample.parquet");
    ok(&[
        "convert",
        input.to_str().unwrap_or_default(),
        out.to_str().unwrap_or_default(),
        "--bloom-filter",
        "city",
        "--bloom-filter",
        "id=1000",
    ]);
    let options = ReadOptionsBuilder::new()
        .with_reader_properties(
            parquet::file::properties::ReaderProperties::builder()
                .set_read_bloom_filter(true)
                .build(),
        )
        .build();
    let file = std::fs::File::open(&out).unwrap_or_else(|e| panic!("{e}"));
    let reader =
        SerializedFileReader::new_with_options(file, options).unwrap_or_else(|e| panic!("{e}"));
    let group = reader.get_row_group(0).unwrap_or_else(|e| panic!("{e}"));
    let schema = reader.metadata().file_metadata().schema_descr_ptr();
    for (i, column) in schema.columns().iter().enumerate() {
        let has = group.get_column_bloom_filter(i).is_some();
        let want = matches!(column.path().string().as_str(), "city" | "id");
        assert_eq!(has, want, "{}", column.path());
    }
    // arrow-rs finds the values written in them.
    let city = schema
        .columns()
        .iter()
        .position(|c| c.path().string() == "city")
        .unwrap_or(0);
    let filter = group
        .get_column_bloom_filter(city)
        .unwrap_or_else(|| panic!("no filter"));
    let first = ok(&[
        "cat",
        input.to_str().unwrap_or_default(),
        "--columns",
        "city",
        "--format",
        "csv",
        "--limit",
        "1",
    ]);
    let name = first.lines().nth(1).unwrap_or_default();
    assert!(filter.check(name), "{name}");
    // A count that is not one is a usage error.
    let e = fails_with(
        &[
            "convert",
            input.to_str().unwrap_or_default(),
            out.to_str().unwrap_or_default(),
            "--bloom-filter",
            "id=0",
        ],
        2,
    );
    assert!(e.contains("--bloom-filter"), "{e}");
}

#[test]
fn scan_reports_the_matching_rows_and_what_was_pruned() {
    let path = data("sample.parquet");
    let p = path.to_str().unwrap_or_default();
    let want = expected(|id, _, _| id < 5).len();
    let out = ok(&["scan", p, "--where", "id < 5"]);
    assert!(out.contains(&format!("rows: {want}\n")), "{out}");
    assert!(out.contains("row groups pruned: 0 of 1"), "{out}");
    assert!(out.contains(&format!("matched: {want}")), "{out}");
    // The columns the predicate does not read are read late: only the
    // matching rows of them are decoded.
    let late: u64 = out
        .split("values of columns read late not decoded: ")
        .nth(1)
        .and_then(|s| s.lines().next())
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(0);
    assert!(late > 0, "{out}");
    // A predicate no row group can satisfy reads no data pages.
    let out = ok(&["scan", p, "--where", "id > 1000000"]);
    assert!(
        out.contains("rows: 0\n") && out.contains("row groups pruned: 1 of 1 (statistics 1"),
        "{out}"
    );
    assert!(out.contains("bytes read: 0 of"), "{out}");
    // One every row satisfies is read untested.
    let all = expected(|_, _, _| true).len();
    let out = ok(&["scan", p, "--where", "id >= -1"]);
    assert!(out.contains(&format!("rows: {all}\n")), "{out}");
    assert!(out.contains("matched whole by statistics: 1"), "{out}");
    assert!(out.contains("rows tested: 0,"), "{out}");
}
