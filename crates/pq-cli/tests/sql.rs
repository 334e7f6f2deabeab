//! `pq sql`: queries over files, globs, directories and named tables, in
//! each output format, checked against what `pq cat` and `pq count` read;
//! bad SQL, bad tables and corrupt files end in one line.

mod common;

use common::{DATA, data, dir, fails, fails_with, ok, s};

#[test]
fn select_star_is_what_cat_prints() {
    let file = data("sample.parquet");
    let cat = ok(&[
        "cat",
        s(&file),
        "--format",
        "csv",
        "--columns",
        "id,city,population",
    ]);
    let sql = ok(&[
        "sql",
        &format!("SELECT id, city, population FROM '{}'", s(&file)),
        "--format",
        "csv",
        "--threads",
        "1",
    ]);
    assert_eq!(sql, cat);
    let jsonl = ok(&[
        "sql",
        &format!("SELECT id, city FROM '{}' ORDER BY id LIMIT 2", s(&file)),
        "--format",
        "jsonl",
    ]);
    assert_eq!(jsonl.lines().count(), 2, "{jsonl}");
    assert!(jsonl.starts_with("{\"id\":"), "{jsonl}");
}

#[test]
fn globs_directories_and_named_tables() {
    let count: u64 = ok(&["count", &format!("{DATA}/*.parquet")])
        .trim()
        .parse()
        .unwrap_or(0);
    assert!(count > 0);
    let by_glob = ok(&[
        "sql",
        &format!("SELECT count(*) AS n FROM '{DATA}/codec_*.parquet'"),
        "--format",
        "csv",
    ]);
    let codecs: u64 = ok(&["count", &format!("{DATA}/codec_*.parquet")])
        .trim()
        .parse()
        .unwrap_or(0);
    assert_eq!(by_glob, format!("n\n{codecs}\n"));
    // A directory of copies, as a named table, joined with itself.
    let d = dir("sql-dir");
    for name in ["a.parquet", "b.parquet"] {
        std::fs::copy(data("sample.parquet"), d.join(name)).unwrap();
    }
    std::fs::write(d.join("notes.txt"), "not parquet").unwrap();
    let rows: u64 = ok(&["count", s(&data("sample.parquet"))])
        .trim()
        .parse()
        .unwrap_or(0);
    let out = ok(&[
        "sql",
        "SELECT count(*) AS n FROM t JOIN u ON t.id = u.id",
        "--table",
        &format!("t={}/", s(&d)),
        "--table",
        &format!("u={}", s(&data("sample.parquet"))),
        "--format",
        "csv",
    ]);
    // Every row of u matches two rows of t (two copies).
    assert_eq!(out, format!("n\n{}\n", 2 * rows));
}

#[test]
fn a_table_prints_with_borders() {
    let out = ok(&[
        "sql",
        &format!(
            "SELECT country, count(*) AS cities FROM '{}' GROUP BY country ORDER BY country",
            s(&data("sample.parquet"))
        ),
    ]);
    assert!(out.contains("country"), "{out}");
    assert!(out.contains("cities"), "{out}");
}

#[test]
fn errors_are_one_line() {
    let file = data("sample.parquet");
    let e = fails(&["sql", &format!("SELEC * FROM '{}'", s(&file))]);
    assert!(e.starts_with("pq: sql: "), "{e}");
    let e = fails(&["sql", &format!("SELECT nope FROM '{}'", s(&file))]);
    assert!(e.contains("nope"), "{e}");
    let e = fails_with(&["sql", "SELECT 1", "--table", "t"], 2);
    assert!(e.contains("NAME=LOCATION"), "{e}");
    // A corrupt file: pq's message, once.
    let d = dir("sql-corrupt");
    let bytes = std::fs::read(&file).unwrap();
    let mut cut = bytes.clone();
    // Damage the first data page's bytes, keep the footer.
    for b in cut.iter_mut().skip(8).take(64) {
        *b ^= 0x5a;
    }
    let bad = d.join("bad.parquet");
    std::fs::write(&bad, cut).unwrap();
    let alone = fails(&["cat", s(&bad)]);
    let e = fails(&["sql", &format!("SELECT * FROM '{}'", s(&bad))]);
    let core = alone.trim().rsplit(": ").next().unwrap_or_default();
    assert!(e.contains(core), "{e} / {alone}");
}
