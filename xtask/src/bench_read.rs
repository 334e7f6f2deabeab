//! `cargo xtask bench-read [--rounds N] [--only TEXT]`: every file of the
//! benchmark matrix read by whole processes, and by the Python readers.
//!
//! - Whole process: `pq scan FILE` against the `arrow_rs_scan` example of
//!   pq-arrow (the same work with the arrow-rs `parquet` crate: every column,
//!   batches of 8192 rows, one thread), both built in release. The two
//!   alternate, N rounds; the table shows the median wall time of each, the
//!   median of the rounds' time ratios, and the median peak resident memory
//!   of each (the child's own, from `wait4`).
//! - pyarrow, Polars and DuckDB reading the file in one Python process, one
//!   thread each (`xtask/bench/read_tables.py` in the bench venv), and pq's
//!   whole-process time against the best of the three. Their times count
//!   no process start-up and pq's does, so that ratio is a little against
//!   pq.
//!
//! The in-process modes (from a path, from `Bytes`) are criterion benches:
//! `cargo bench -p pq-arrow --bench read`.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::{child, setup};

/// Reads every file of the matrix as the module says and prints the table.
pub fn run(root: &Path, args: &[String]) -> crate::Result<()> {
    let rounds = positive_flag(args, "--rounds", "rounds", 5)?;
    let only = flag_value(args, "--only").unwrap_or_default();
    let files = matrix_files(root, &only)?;
    let release = build(root, &["arrow_rs_scan"])?;
    let (pq, arrow_rs) = (release.join("pq"), release.join("examples/arrow_rs_scan"));
    let python = python_times(root, rounds, &files)?;
    println!(
        "\nwhole-process reads, median of {rounds} alternating rounds; Python readers in process, one thread\n"
    );
    println!(
        "| file | MB | pq scan ms | arrow-rs ms | ratio | pq peak MB | arrow-rs peak MB | peak ratio | pyarrow ms | Polars ms | DuckDB ms | pq / best of 3 |"
    );
    println!("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|");
    for file in &files {
        let name = file.file_name().map(|n| n.to_string_lossy().into_owned());
        let name = name.unwrap_or_default();
        let size = std::fs::metadata(file).map(|m| m.len()).unwrap_or(0) as f64 / 1e6;
        // A file one side cannot read is a finding: its row says why, and
        // the other files are still measured.
        let p = match process_times(&pq, &arrow_rs, file, rounds) {
            Ok(p) => p,
            Err(e) => {
                // The error without the command line that precedes it.
                let e = e.split_once(" failed: ").map_or(e.as_str(), |(_, m)| m);
                println!(
                    "| {name} | {size:.1} | fails: {} | | | | | | | | | |",
                    e.replace('|', "/")
                );
                continue;
            }
        };
        let py = |reader: &str| python.get(&(file.clone(), reader.to_string())).copied();
        let best = ["pyarrow", "polars", "duckdb"]
            .iter()
            .filter_map(|r| py(r).flatten())
            .fold(f64::INFINITY, f64::min);
        let ms = |t: Option<Option<f64>>| match t {
            Some(Some(s)) => format!("{:.1}", s * 1e3),
            Some(None) => "fails".into(),
            None => "-".into(),
        };
        let mb = |b: Option<f64>| b.map_or("-".into(), |b| format!("{:.1}", b / 1e6));
        let peak_ratio = match (p.pq_rss, p.arrow_rs_rss) {
            (Some(a), Some(b)) if b > 0.0 => format!("{:.2}", a / b),
            _ => "-".into(),
        };
        println!(
            "| {name} | {size:.1} | {:.1} | {:.1} | {:.2} | {} | {} | {peak_ratio} | {} | {} | {} | {} |",
            p.pq * 1e3,
            p.arrow_rs * 1e3,
            p.ratio,
            mb(p.pq_rss),
            mb(p.arrow_rs_rss),
            ms(py("pyarrow")),
            ms(py("polars")),
            ms(py("duckdb")),
            if best.is_finite() {
                format!("{:.2}", p.pq / best)
            } else {
                "-".into()
            },
        );
    }
    Ok(())
}

pub(crate) fn flag_value(args: &[String], flag: &str) -> Option<String> {
    let i = args.iter().position(|a| a == flag)?;
    args.get(i + 1).cloned()
}

/// The number after `flag` (at least 1; `what` names it in the error), or
/// `default` when the flag is absent.
pub(crate) fn positive_flag<N: std::str::FromStr + PartialOrd + From<u8>>(
    args: &[String],
    flag: &str,
    what: &str,
    default: N,
) -> crate::Result<N> {
    match flag_value(args, flag) {
        None => Ok(default),
        Some(v) => v
            .parse::<N>()
            .ok()
            .filter(|n| *n >= N::from(1))
            .ok_or_else(|| format!("{flag} needs a number of {what}, at least 1")),
    }
}

/// The Parquet files of the matrix whose name contains `only`, by name.
pub(crate) fn matrix_files(root: &Path, only: &str) -> crate::Result<Vec<PathBuf>> {
    let dir = match std::env::var_os("PQ_BENCH_DATA") {
        Some(d) => PathBuf::from(d),
        None => root.join("target").join("bench-data"),
    };
    let entries = std::fs::read_dir(&dir).map_err(|e| {
        format!(
            "reading {}: {e}; run `cargo xtask bench-data` first",
            dir.display()
        )
    })?;
    let mut files: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "parquet"))
        .filter(|p| p.to_string_lossy().contains(only))
        .collect();
    files.sort();
    if files.is_empty() {
        return Err(format!(
            "no Parquet file in {} matches {only:?}; run `cargo xtask bench-data` first",
            dir.display()
        ));
    }
    Ok(files)
}

/// Builds `pq` and pq-arrow's arrow-rs `examples` in release; returns the
/// directory that holds `pq` (the examples are in its `examples/`).
///
/// One cargo invocation for all of them, with the packages the SQL bench's
/// binaries are built with: cargo resolves features over the packages
/// selected, so building `pq-cli` alone and then pq-arrow's example gave
/// two feature sets and rebuilt the shared dependencies (DataFusion among
/// them, a quarter of an hour on two cores) for each.
pub(crate) fn build(root: &Path, examples: &[&str]) -> crate::Result<PathBuf> {
    let mut args = vec!["build", "--release"];
    for package in ["pq-cli", "pq-arrow", "pq-datafusion"] {
        args.extend(["-p", package]);
    }
    args.extend(["--bin", "pq"]);
    for example in examples {
        args.extend(["--example", example]);
    }
    setup::run(
        crate::cargo().current_dir(root).args(&args),
        &format!("cargo {}", args.join(" ")),
    )?;
    let target = match std::env::var_os("CARGO_TARGET_DIR") {
        Some(d) => PathBuf::from(d),
        None => root.join("target"),
    };
    Ok(target.join("release"))
}

/// Medians of one file's whole-process reads.
struct Process {
    pq: f64,
    arrow_rs: f64,
    ratio: f64,
    pq_rss: Option<f64>,
    arrow_rs_rss: Option<f64>,
}

fn process_times(pq: &Path, arrow_rs: &Path, file: &Path, rounds: usize) -> crate::Result<Process> {
    let mut pq_scan = Command::new(pq);
    pq_scan.arg("scan").arg(file);
    let mut rs_scan = Command::new(arrow_rs);
    rs_scan.arg(file);
    // Both must have read every row: their first lines are `rows: N`.
    let rows = |out: &str| out.lines().next().unwrap_or_default().to_string();
    let mut runs: [Vec<child::Run>; 2] = Default::default();
    for round in 0..rounds {
        let commands = &mut [&mut rs_scan, &mut pq_scan];
        child::run_round(commands, round, &mut runs, |_| Ok(()))?;
    }
    let [rs_runs, pq_runs] = &runs;
    for (a, b) in rs_runs.iter().zip(pq_runs) {
        if rows(&a.stdout) != rows(&b.stdout) {
            return Err(format!(
                "{}: arrow-rs read {:?}, pq {:?}",
                file.display(),
                rows(&a.stdout),
                rows(&b.stdout)
            ));
        }
    }
    let (mut t_rs, mut t_pq) = (child::walls(rs_runs), child::walls(pq_runs));
    let mut ratios: Vec<f64> = t_pq.iter().zip(&t_rs).map(|(b, a)| b / a).collect();
    let (mut m_rs, mut m_pq) = (child::peaks(rs_runs), child::peaks(pq_runs));
    Ok(Process {
        pq: median(&mut t_pq).unwrap_or(f64::NAN),
        arrow_rs: median(&mut t_rs).unwrap_or(f64::NAN),
        ratio: median(&mut ratios).unwrap_or(f64::NAN),
        pq_rss: median(&mut m_pq),
        arrow_rs_rss: median(&mut m_rs),
    })
}

pub(crate) fn median(v: &mut [f64]) -> Option<f64> {
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied()
}

/// Seconds of each Python reader on each file (`None` where it fails).
type PythonTimes = HashMap<(PathBuf, String), Option<f64>>;

fn python_times(root: &Path, rounds: usize, files: &[PathBuf]) -> crate::Result<PythonTimes> {
    let bin = setup::bench_venv(root)?;
    let mut command = Command::new(bin.join("python3"));
    command
        .arg(root.join("xtask").join("bench").join("read_tables.py"))
        .arg(rounds.to_string())
        .args(files);
    let out = child::run(&mut command)?;
    let mut times = HashMap::new();
    for line in out.stdout.lines() {
        let fields: Vec<&str> = line.split('\t').collect();
        if let [file, reader, seconds, rows] = fields[..] {
            let seconds = seconds.parse::<f64>().ok();
            if seconds.is_none() {
                eprintln!("{reader} cannot read {file}: {rows}");
            }
            times.insert((PathBuf::from(file), reader.to_string()), seconds);
        }
    }
    Ok(times)
}
