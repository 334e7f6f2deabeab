//! `cargo xtask bench-csv [--rows N] [--threads N] [--rounds N]`: CSV to
//! Parquet, by pq, DuckDB and Polars.
//!
//! A deterministic CSV (13 M rows, about 1.6 GB, unless `--rows`) is
//! generated into `target/bench-data/bench-ROWS.csv`: timestamps with offsets,
//! decimals, quoted fields holding commas and newlines, unicode text and
//! empty fields. It is then converted to Parquet by `pq convert` (release
//! build), by DuckDB (`COPY (SELECT * FROM read_csv(...)) TO ...`) and by
//! Polars (`scan_csv().sink_parquet()`), each writer a process of its own
//! measured from outside (wall time and peak resident memory, `wait4`);
//! with `--rounds N` the writers alternate N times and the medians are
//! shown. `--threads N` is passed to `pq convert`.
//!
//! The Python writers run from the bench venv: `$PQ_BENCH_VENV` (its
//! directory) when set, else `target/bench-venv`, made as `bench-data` does.

use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::bench_read::{build, flag_value, positive_flag};
use crate::{child, setup};

/// Rows when `--rows` is not given: about 1.6 GB of CSV.
const DEFAULT_ROWS: u64 = 13_000_000;

/// Generates the CSV when missing (or of another size), converts it with
/// each writer and prints the table.
pub fn run(root: &Path, args: &[String]) -> crate::Result<()> {
    let rows = positive_flag(args, "--rows", "rows", DEFAULT_ROWS)?;
    let threads = flag_value(args, "--threads");
    let rounds = positive_flag(args, "--rounds", "rounds", 1usize)?;
    let dir = root.join("target").join("bench-data");
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let csv = dir.join(format!("bench-{rows}.csv"));
    if !csv.exists() {
        eprintln!("writing {} ({rows} rows)", csv.display());
        generate(&csv, rows)?;
    }
    let size = std::fs::metadata(&csv)
        .map_err(|e| format!("{}: {e}", csv.display()))?
        .len();
    let pq = build(root, &[])?.join("pq");
    let python = match std::env::var_os("PQ_BENCH_VENV") {
        Some(v) => PathBuf::from(v).join("bin").join("python3"),
        None => setup::bench_venv(root)?.join("python3"),
    };

    let out = |name: &str| dir.join(format!("bench-{rows}.{name}.parquet"));
    let mut pq_cmd = Command::new(&pq);
    pq_cmd.arg("convert").arg(&csv).arg(out("pq"));
    if let Some(t) = &threads {
        pq_cmd.args(["--threads", t]);
    }
    let duckdb = format!(
        "import duckdb; duckdb.sql(\"COPY (SELECT * FROM read_csv('{}')) TO '{}' (FORMAT parquet)\")",
        csv.display(),
        out("duckdb").display()
    );
    let polars = format!(
        "import polars as pl; pl.scan_csv('{}').sink_parquet('{}')",
        csv.display(),
        out("polars").display()
    );
    let mut duck_cmd = Command::new(&python);
    duck_cmd.args(["-c", &duckdb]);
    let mut polars_cmd = Command::new(&python);
    polars_cmd.args(["-c", &polars]);

    // Other work on the machine slows every writer: the writers alternate
    // round by round, the medians are shown, and the load is printed.
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    let mut runs: [Vec<child::Run>; 3] = Default::default();
    for round in 1..=rounds {
        eprintln!("round {round} of {rounds}");
        let commands = &mut [&mut pq_cmd, &mut duck_cmd, &mut polars_cmd];
        child::run_round(commands, round, &mut runs, |_| Ok(()))?;
    }

    println!(
        "\nCSV to Parquet: {} ({rows} rows, {:.2} GB), one process per writer, {} cores, \
         median of {rounds} alternating rounds, load average before: {}\n",
        csv.display(),
        size as f64 / 1e9,
        std::thread::available_parallelism().map_or(1, |n| n.get()),
        load.split_whitespace()
            .take(3)
            .collect::<Vec<_>>()
            .join(" ")
    );
    println!(
        "| writer | wall (s) | peak RSS (MB) | pq time ratio | pq memory ratio |\n|---|---|---|---|---|"
    );
    let [pq_runs, ..] = &runs;
    for (name, other) in ["pq", "DuckDB", "Polars"].into_iter().zip(&runs) {
        // The ratios are the medians of the rounds' own ratios.
        let time_ratios = pq_runs
            .iter()
            .zip(other)
            .map(|(p, o)| p.wall.as_secs_f64() / o.wall.as_secs_f64().max(1e-9))
            .collect();
        let memory_ratios = pq_runs
            .iter()
            .zip(other)
            .filter_map(|(p, o)| Some(p.peak_rss? as f64 / o.peak_rss.filter(|&m| m > 0)? as f64))
            .collect();
        println!(
            "| {name} | {:.2} | {} | {} | {} |",
            median(other.iter().map(|r| r.wall.as_secs_f64()).collect()).unwrap_or(0.0),
            median(
                other
                    .iter()
                    .filter_map(|r| r.peak_rss)
                    .map(|b| b as f64 / 1e6)
                    .collect()
            )
            .map_or_else(|| "?".into(), |m| format!("{m:.0}")),
            median(time_ratios).map_or_else(|| "?".into(), |r| format!("{r:.2}")),
            median(memory_ratios).map_or_else(|| "?".into(), |r| format!("{r:.2}")),
        );
    }
    Ok(())
}

/// The middle value (the mean of the two middle ones for an even count).
fn median(mut v: Vec<f64>) -> Option<f64> {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    match (v.get((n.max(1) - 1) / 2), v.get(n / 2)) {
        (Some(a), Some(b)) => Some((a + b) / 2.0),
        _ => None,
    }
}

/// SplitMix64: the same rows on every machine, without a dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    fn pick<'a>(&mut self, from: &[&'a str]) -> &'a str {
        from.get(self.below(from.len() as u64) as usize)
            .copied()
            .unwrap_or_default()
    }
}

const CITIES: &[&str] = &[
    "Paris",
    "Zürich",
    "São Paulo",
    "Kraków",
    "東京",
    "Москва",
    "İstanbul",
    "Reykjavík",
    "Cork",
    "Oslo",
    "Łódź",
    "Málaga",
];
const WORDS: &[&str] = &[
    "alpha",
    "beta",
    "gamma",
    "delta",
    "naïve",
    "café",
    "smörgåsbord",
    "fjord",
    "piñata",
    "über",
    "crème",
    "résumé",
];

/// Writes `rows` rows: id, a timestamp with an offset, a decimal amount, a
/// city (unicode), a free-text note (quoted, with commas, doubled quotes and
/// newlines, or empty), a quantity (sometimes empty), a ratio, a flag
/// (sometimes empty), a customer name, a decimal discount and a hex code.
fn generate(path: &Path, rows: u64) -> crate::Result<()> {
    let tmp = path.with_extension("csv.tmp");
    let file = std::fs::File::create(&tmp).map_err(|e| format!("{}: {e}", tmp.display()))?;
    let mut w = BufWriter::with_capacity(1 << 20, file);
    let mut rng = Rng(0x5eed_c5f0);
    let err = |e: std::io::Error| format!("{}: {e}", tmp.display());
    writeln!(
        w,
        "id,ts,amount,city,note,qty,ratio,flag,customer,discount,code"
    )
    .map_err(err)?;
    for id in 0..rows {
        let secs = 1_600_000_000 + id * 7 + rng.below(7);
        let (date, time) = civil(secs);
        let offset = rng.pick(&["+00:00", "+02:00", "-05:00", "+05:30", "Z"]);
        let amount = rng.below(10_000_000);
        write!(
            w,
            "{id},{date}T{time}{offset},{}.{:02},{},",
            amount / 100,
            amount % 100,
            rng.pick(CITIES)
        )
        .map_err(err)?;
        match rng.below(5) {
            0 => {}
            1 => write!(
                w,
                "\"{}, {} and {}\"",
                rng.pick(WORDS),
                rng.pick(WORDS),
                rng.pick(WORDS)
            )
            .map_err(err)?,
            2 => write!(
                w,
                "\"line one: {}\nline two: \"\"{}\"\"\"",
                rng.pick(WORDS),
                rng.pick(WORDS)
            )
            .map_err(err)?,
            _ => write!(w, "{} {}", rng.pick(WORDS), rng.pick(WORDS)).map_err(err)?,
        }
        w.write_all(b",").map_err(err)?;
        if rng.below(10) != 0 {
            write!(w, "{}", rng.below(1000)).map_err(err)?;
        }
        let ratio = rng.below(1_000_000) as f64 / 997.0;
        let flag = rng.pick(&["true", "false", ""]);
        let customer = rng.pick(WORDS);
        let number = rng.below(100_000);
        let discount = rng.below(100_000);
        let code = rng.next() & 0xffff_ffff_ffff;
        writeln!(
            w,
            ",{ratio:.4},{flag},{customer}-{number},0.{discount:05},{code:012x}"
        )
        .map_err(err)?;
    }
    w.into_inner()
        .map_err(|e| format!("{}: {}", tmp.display(), e.error()))?
        .sync_all()
        .map_err(err)?;
    std::fs::rename(&tmp, path).map_err(|e| format!("{}: {e}", path.display()))
}

/// Seconds since the epoch as `YYYY-MM-DD` and `hh:mm:ss` (UTC).
fn civil(secs: u64) -> (String, String) {
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    // Days to a civil date (proleptic Gregorian).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    (
        format!("{y:04}-{m:02}-{d:02}"),
        format!("{:02}:{:02}:{:02}", rem / 3600, rem / 60 % 60, rem % 60),
    )
}
