//! `cargo xtask bench-write [--rounds N] [--only TEXT] [--setting NAME]`: every file of the
//! benchmark matrix rewritten by whole processes, as a user converts a file.
//!
//! `pq convert --threads 1 FILE OUT.parquet` against the `arrow_rs_convert`
//! example of pq-arrow (the arrow-rs `parquet` crate reading the file and
//! writing it with `ArrowWriter`, one thread), both built in release, in
//! the write bench's four settings: each writer's defaults (pq SNAPPY,
//! arrow-rs uncompressed), SNAPPY with dictionaries (data page v1), ZSTD
//! level 1 with data page v2, and `as_written`: what the file records of
//! its own writer's settings (codec, dictionaries, page version, rows per
//! row group), read by `arrow_rs_convert --pq-flags` and given to both. Each process reads the whole file and writes
//! it to a new file in `target/bench-write/` (the last round's output is
//! removed first: replacing a file, `pq convert` also waits for the disk
//! to hold the new one, which `arrow_rs_convert` does not); the two
//! alternate, N rounds. The table shows
//! the median wall time of each, the median of the rounds' ratios, the
//! median peak resident memory of each (from `wait4`), the sizes written,
//! and `pq convert` with its default of one encoding thread per core.
//! Both outputs must hold the input's rows (`pq count`). `--setting NAME`
//! keeps one of the four (`defaults`, `snappy_dict`, `zstd_v2`,
//! `as_written`): at 4 M rows each takes about half an hour.
//!
//! The in-process comparison of the writers alone, on batches already in
//! memory, is the criterion bench `cargo bench -p pq-arrow --bench write`.

use std::path::Path;
use std::process::Command;

use crate::bench_read::{build, flag_value, matrix_files, median, positive_flag};
use crate::child;

/// The settings, with `pq convert`'s flags for each.
const SETTINGS: [(&str, &[&str]); 3] = [
    ("defaults", &[]),
    ("snappy_dict", &["--compression", "snappy", "--dictionary"]),
    ("zstd_v2", &["--compression", "zstd", "--page-version", "2"]),
];

/// Rewrites every file of the matrix as the module says and prints the table.
pub fn run(root: &Path, args: &[String]) -> crate::Result<()> {
    let rounds = positive_flag(args, "--rounds", "rounds", 5)?;
    let only = flag_value(args, "--only").unwrap_or_default();
    let kept = flag_value(args, "--setting");
    let names = SETTINGS.iter().map(|(s, _)| *s).chain(["as_written"]);
    if let Some(k) = &kept
        && !names.clone().any(|n| n == k)
    {
        let names: Vec<&str> = names.collect();
        return Err(format!(
            "no setting `{k}`: the settings are {}",
            names.join(", ")
        ));
    }
    let files = matrix_files(root, &only)?;
    let release = build(root, &["arrow_rs_convert"])?;
    let (pq, arrow_rs) = (
        release.join("pq"),
        release.join("examples/arrow_rs_convert"),
    );
    let out_dir = root.join("target").join("bench-write");
    std::fs::create_dir_all(&out_dir)
        .map_err(|e| format!("creating {}: {e}", out_dir.display()))?;
    println!("\nwhole-process rewrites, median of {rounds} alternating rounds\n");
    println!(
        "| file | setting | pq ms | arrow-rs ms | ratio | pq peak MB | arrow-rs peak MB | peak ratio | pq MB out | arrow-rs MB out | size ratio | pq, a thread per core, ms |"
    );
    println!("|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|");
    for file in &files {
        let name = file.file_name().map(|n| n.to_string_lossy().into_owned());
        let name = name.unwrap_or_default();
        let as_written = child::run(Command::new(&arrow_rs).arg("--pq-flags").arg(file))
            .map(|o| o.stdout.split_whitespace().map(String::from).collect());
        let settings = SETTINGS
            .iter()
            .map(|(s, f)| (*s, Ok(f.iter().map(|f| f.to_string()).collect())))
            .chain([("as_written", as_written)])
            .filter(|(s, _)| kept.as_ref().is_none_or(|k| k == s));
        for (setting, flags) in settings {
            let times = flags.and_then(|flags: Vec<String>| {
                rewrite_times(&pq, &arrow_rs, file, setting, &flags, &out_dir, rounds)
            });
            match times {
                Ok(r) => println!(
                    "| {name} | {setting} | {:.1} | {:.1} | {:.2} | {:.1} | {:.1} | {:.2} | {:.1} | {:.1} | {:.4} | {:.1} |",
                    r.pq * 1e3,
                    r.arrow_rs * 1e3,
                    r.ratio,
                    r.pq_rss / 1e6,
                    r.arrow_rs_rss / 1e6,
                    r.pq_rss / r.arrow_rs_rss,
                    r.pq_size / 1e6,
                    r.arrow_rs_size / 1e6,
                    r.pq_size / r.arrow_rs_size,
                    r.pq_threads * 1e3,
                ),
                // A file one side cannot rewrite is a finding: its row says
                // why, and the others are still measured.
                Err(e) => {
                    let e = e.split_once(" failed: ").map_or(e.as_str(), |(_, m)| m);
                    println!(
                        "| {name} | {setting} | fails: {} | | | | | | | | | |",
                        e.replace('|', "/")
                    );
                }
            }
        }
    }
    // The outputs are only for the runs: up to three copies of the largest
    // file, not worth keeping.
    let _ = std::fs::remove_dir_all(&out_dir);
    Ok(())
}

/// Medians of one file's whole-process rewrites in one setting.
struct Rewrite {
    pq: f64,
    arrow_rs: f64,
    ratio: f64,
    pq_rss: f64,
    arrow_rs_rss: f64,
    pq_size: f64,
    arrow_rs_size: f64,
    pq_threads: f64,
}

fn rewrite_times(
    pq: &Path,
    arrow_rs: &Path,
    file: &Path,
    setting: &str,
    flags: &[String],
    out_dir: &Path,
    rounds: usize,
) -> crate::Result<Rewrite> {
    let (out_pq, out_rs) = (out_dir.join("pq.parquet"), out_dir.join("arrow-rs.parquet"));
    let mut pq_one = Command::new(pq);
    pq_one
        .args(["convert", "--threads", "1"])
        .args(flags)
        .arg(file)
        .arg(&out_pq);
    let mut pq_all = Command::new(pq);
    pq_all.arg("convert").args(flags).arg(file).arg(&out_pq);
    let mut rs = Command::new(arrow_rs);
    rs.arg(setting).arg(file).arg(&out_rs);
    // Each process writes a new file (see the module's comment).
    let fresh = |p: &Path| match std::fs::remove_file(p) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            Err(format!("cannot remove {}: {e}", p.display()))
        }
        _ => Ok(()),
    };
    // arrow-rs, pq on one thread, pq on all.
    let mut runs: [Vec<child::Run>; 3] = Default::default();
    for round in 0..rounds {
        let commands = &mut [&mut rs, &mut pq_one, &mut pq_all];
        child::run_round(commands, round, &mut runs, |k| {
            fresh(if k == 0 { &out_rs } else { &out_pq })
        })?;
    }
    let [rs_runs, pq_runs, all_runs] = &runs;
    let (mut t_rs, mut t_pq, mut t_all) = (
        child::walls(rs_runs),
        child::walls(pq_runs),
        child::walls(all_runs),
    );
    let mut ratios: Vec<f64> = t_pq.iter().zip(&t_rs).map(|(b, a)| b / a).collect();
    let (mut m_rs, mut m_pq) = (child::peaks(rs_runs), child::peaks(pq_runs));
    // Both wrote every row of the input.
    let rows = |path: &Path| -> crate::Result<String> {
        let out = child::run(Command::new(pq).arg("count").arg(path))?;
        Ok(out.stdout.trim().to_string())
    };
    let (want, got_pq, got_rs) = (rows(file)?, rows(&out_pq)?, rows(&out_rs)?);
    if got_pq != want || got_rs != want {
        return Err(format!(
            "{}: {want} rows in, pq wrote {got_pq}, arrow-rs {got_rs}",
            file.display()
        ));
    }
    let size = |p: &Path| std::fs::metadata(p).map_or(f64::NAN, |m| m.len() as f64);
    let nan = |v: Option<f64>| v.unwrap_or(f64::NAN);
    Ok(Rewrite {
        pq: nan(median(&mut t_pq)),
        arrow_rs: nan(median(&mut t_rs)),
        ratio: nan(median(&mut ratios)),
        pq_rss: nan(median(&mut m_pq)),
        arrow_rs_rss: nan(median(&mut m_rs)),
        pq_size: size(&out_pq),
        arrow_rs_size: size(&out_rs),
        pq_threads: nan(median(&mut t_all)),
    })
}
