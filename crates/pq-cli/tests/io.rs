//! What `pq` reads and writes besides regular files, and what it leaves
//! behind: standard input, pipes and FIFOs as input; standard output,
//! FIFOs, devices, symbolic links and existing files as output; signals
//! during `convert`; one-line errors.
#![cfg(unix)]
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::ffi::CString;
use std::fs::File;
use std::io::{Read, Write};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{FileTypeExt, PermissionsExt};
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

mod common;
use common::{dir, s};

const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../data");

fn data(name: &str) -> String {
    format!("{DATA}/{name}")
}

fn pq() -> Command {
    Command::new(assert_cmd::cargo::cargo_bin("pq"))
}

/// Runs `pq args` with `stdin` written to its standard input through a pipe.
fn with_stdin(args: &[&str], stdin: Vec<u8>) -> Output {
    let mut child = pq()
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut pipe = child.stdin.take().unwrap();
    // A writer of its own: the command may answer before it has read all.
    let writer = std::thread::spawn(move || {
        let _ = pipe.write_all(&stdin);
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    out
}

fn ok(out: &Output, what: &str) -> String {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{what} failed: {stderr}");
    String::from_utf8(out.stdout.clone()).unwrap()
}

/// One line on stderr, starting with `pq: `, exit status 1.
fn one_line_error(out: &Output, what: &str) -> String {
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(1), "{what}: {stderr}");
    assert!(stderr.starts_with("pq: "), "{what}: {stderr}");
    assert_eq!(stderr.lines().count(), 1, "{what}: {stderr}");
    assert!(!stderr.contains("panicked"), "{what}: {stderr}");
    stderr
}

fn run(args: &[&str]) -> Output {
    pq().args(args).output().unwrap()
}

fn mkfifo(path: &Path) {
    let c = CString::new(path.as_os_str().as_bytes()).unwrap();
    // SAFETY: a valid C string; mkfifo only creates the node.
    let r = unsafe { libc::mkfifo(c.as_ptr(), 0o644) };
    assert_eq!(r, 0, "mkfifo {}", path.display());
}

/// The output of every reading command on `path`, with `scan`'s timings
/// left out.
fn reading_outputs(path: &str, stdin: Option<&[u8]>) -> Vec<String> {
    let commands: [&[&str]; 7] = [
        &["cat", path, "--format", "jsonl"],
        &["cat", path],
        &["schema", path],
        &["meta", path, "--json"],
        &["pages", path],
        &["scan", path],
        &["verify", path],
    ];
    commands
        .iter()
        .map(|args| {
            let out = match stdin {
                Some(bytes) => with_stdin(args, bytes.to_vec()),
                None => run(args),
            };
            let text = ok(&out, &format!("{args:?}"));
            if args[0] == "scan" {
                text.lines().next().unwrap().to_string()
            } else {
                text
            }
        })
        .collect()
}

#[test]
fn reading_commands_read_standard_input() {
    let path = data("sample.parquet");
    let bytes = std::fs::read(&path).unwrap();
    let expected = reading_outputs(&path, None);
    assert!(expected[5].starts_with("rows: "), "{}", expected[5]);
    // `-` and /dev/stdin on a pipe: read into memory first.
    assert_eq!(reading_outputs("-", Some(&bytes)), expected);
    assert_eq!(reading_outputs("/dev/stdin", Some(&bytes)), expected);
    // `-` on a regular file (`pq cat - < f`): read in place.
    let out = pq()
        .args(["cat", "-", "--format", "jsonl"])
        .stdin(File::open(&path).unwrap())
        .output()
        .unwrap();
    assert_eq!(ok(&out, "cat - < file"), expected[0]);
}

#[test]
fn reading_commands_read_a_fifo() {
    let d = dir("fifo-in");
    let fifo = d.join("in.parquet");
    mkfifo(&fifo);
    let bytes = std::fs::read(data("sample.parquet")).unwrap();
    let expected = run(&["cat", &data("sample.parquet"), "--format", "csv"]);
    let feeder = {
        let fifo = fifo.clone();
        std::thread::spawn(move || {
            let mut f = std::fs::OpenOptions::new().write(true).open(fifo).unwrap();
            f.write_all(&bytes).unwrap();
        })
    };
    let out = run(&["cat", s(&fifo), "--format", "csv"]);
    // Checked before joining: a command that never opened the FIFO leaves
    // the feeder waiting for a reader.
    assert_eq!(ok(&out, "cat FIFO"), ok(&expected, "cat file"));
    feeder.join().unwrap();
}

#[test]
fn empty_inputs_are_named_for_what_they_are() {
    let err = one_line_error(&with_stdin(&["cat", "-"], Vec::new()), "cat empty stdin");
    assert!(
        err.contains("standard input") && err.contains("is empty"),
        "{err}"
    );

    let d = dir("empty-csv");
    let csv = d.join("empty.csv");
    std::fs::write(&csv, b"").unwrap();
    let out = d.join("out.parquet");
    let err = one_line_error(&run(&["convert", s(&csv), s(&out)]), "convert empty CSV");
    assert!(err.contains("empty") && err.contains("CSV"), "{err}");
    assert!(!err.contains("not a Parquet file"), "{err}");
    assert!(!out.exists());

    // A header and no rows: columns and no rows.
    std::fs::write(&csv, b"id,name\n").unwrap();
    ok(
        &run(&["convert", s(&csv), s(&out)]),
        "convert header-only CSV",
    );
    let reader = pq_arrow::ParquetReader::open(&out).unwrap();
    assert_eq!(reader.num_rows(), 0);
    assert_eq!(reader.arrow_schema().fields().len(), 2);
}

#[test]
fn convert_reads_standard_input() {
    let d = dir("convert-stdin");
    let path = data("sample.parquet");
    let csv_out = d.join("out.csv");
    let out = with_stdin(
        &["convert", "-", s(&csv_out)],
        std::fs::read(&path).unwrap(),
    );
    ok(&out, "convert - out.csv");
    let expected = ok(&run(&["cat", &path, "--format", "csv"]), "cat csv");
    assert_eq!(std::fs::read_to_string(&csv_out).unwrap(), expected);

    // CSV through a pipe: not Parquet's magic, so CSV.
    let back = d.join("back.parquet");
    let out = with_stdin(&["convert", "-", s(&back)], b"id,name\n1,a\n2,b\n".to_vec());
    ok(&out, "convert CSV on stdin");
    let rows = ok(&run(&["cat", s(&back), "--format", "csv"]), "cat back");
    assert_eq!(rows, "id,name\n1,a\n2,b\n");

    // Standard input on a regular file, Parquet or CSV.
    let csv_in = d.join("in.csv");
    std::fs::write(&csv_in, b"id,name\n1,a\n2,b\n").unwrap();
    let from_file = d.join("from-file.parquet");
    let out = pq()
        .args(["convert", "-", s(&from_file)])
        .stdin(File::open(&csv_in).unwrap())
        .output()
        .unwrap();
    ok(&out, "convert - < in.csv");
    let rows = ok(&run(&["cat", s(&from_file), "--format", "csv"]), "cat");
    assert_eq!(rows, "id,name\n1,a\n2,b\n");
    let out = pq()
        .args(["convert", "-", s(&csv_out)])
        .stdin(File::open(&path).unwrap())
        .output()
        .unwrap();
    ok(&out, "convert - < sample.parquet");
    assert_eq!(std::fs::read_to_string(&csv_out).unwrap(), expected);
}

#[test]
fn convert_to_a_closed_standard_output_stops_quietly() {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let out = pq()
        .args(["convert", &data("sample.parquet"), "-", "--to", "csv"])
        .stdout(writer)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert_eq!(stderr, "");
}

#[test]
fn errors_on_standard_input_and_csv_are_one_line() {
    let err = one_line_error(
        &with_stdin(
            &["cat", "-"],
            b"not parquet at all, not even close".to_vec(),
        ),
        "cat garbage",
    );
    assert!(err.contains("standard input"), "{err}");
    let d = dir("csv-errors");
    let out = d.join("out.parquet");
    // The last one's message quotes a value holding a line break.
    let cases: [(&str, &[u8]); 4] = [
        ("ragged", b"a,b\n1,2\n3,4,5\n"),
        ("bad utf-8", b"a,b\n1,\xff\xfe\n"),
        ("bad type", b"a,b\n1,2\nx,3\n"),
        ("bad type", b"a,b\n1,2\n\"x\ny\",3\n"),
    ];
    for (what, csv) in cases {
        let input = d.join("in.csv");
        std::fs::write(&input, csv).unwrap();
        let dtypes: &[&str] = if what == "bad type" {
            &["--dtypes", "a=int64"]
        } else {
            &[]
        };
        let mut args = vec!["convert", s(&input), s(&out)];
        args.extend(dtypes);
        let err = one_line_error(&run(&args), what);
        assert!(err.contains("in.csv"), "{what}: {err}");
        let mut args = vec!["convert", "-", s(&out)];
        args.extend(dtypes);
        let err = one_line_error(&with_stdin(&args, csv.to_vec()), what);
        assert!(err.contains("standard input"), "{what}: {err}");
        assert!(!out.exists(), "{what}");
    }
}

/// Entries in `d` whose name starts with `.` (temporary files).
fn hidden(d: &Path) -> Vec<String> {
    std::fs::read_dir(d)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('.'))
        .collect()
}

/// A CSV of `rows` rows, whose conversion with one row per page lasts.
fn slow_csv(path: &Path, rows: usize) {
    let mut w = std::io::BufWriter::new(File::create(path).unwrap());
    writeln!(w, "id,name,score").unwrap();
    for i in 0..rows {
        writeln!(w, "{i},name{},{}.5", i % 1000, i % 77).unwrap();
    }
    w.flush().unwrap();
}

/// Starts a long conversion into `d`, waits for its temporary file, sends
/// `signal`, and gives the exit status.
fn interrupt_convert(d: &Path, signal: libc::c_int) -> std::process::ExitStatus {
    let status = signal_convert(d, signal);
    assert!(
        !d.join("out.parquet").exists(),
        "output from an interrupted run"
    );
    assert_eq!(hidden(d), Vec::<String>::new(), "temporary file left");
    status
}

/// Starts a long conversion into `d`, waits for its temporary file and
/// sends `signal`; gives the exit status.
fn signal_convert(d: &Path, signal: libc::c_int) -> std::process::ExitStatus {
    let input = d.join("in.csv");
    slow_csv(&input, 200_000);
    let out = d.join("out.parquet");
    let mut child = pq()
        .args(["convert", s(&input), s(&out), "--rows-per-page", "1"])
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while hidden(d).is_empty() {
        assert!(
            child.try_wait().unwrap().is_none(),
            "convert ended before its temporary file was seen"
        );
        assert!(
            start.elapsed() < Duration::from_secs(120),
            "no temporary file"
        );
        std::thread::sleep(Duration::from_millis(2));
    }
    let pid = libc::pid_t::try_from(child.id()).unwrap();
    // SAFETY: sends a signal to our own child.
    assert_eq!(unsafe { libc::kill(pid, signal) }, 0);
    child.wait().unwrap()
}

#[test]
fn convert_interrupted_leaves_nothing() {
    let status = interrupt_convert(&dir("sigterm"), libc::SIGTERM);
    assert_eq!(status.code(), Some(143), "{status:?}");
    let status = interrupt_convert(&dir("sigint"), libc::SIGINT);
    assert_eq!(status.code(), Some(130), "{status:?}");
}

#[test]
fn convert_after_a_kill_removes_its_temporary() {
    let d = dir("sigkill");
    let status = signal_convert(&d, libc::SIGKILL);
    assert_eq!(status.code(), None, "{status:?}");
    assert_eq!(hidden(&d).len(), 1, "a killed run leaves its file");
    let out = d.join("out.parquet");
    ok(
        &run(&["convert", &data("sample.parquet"), s(&out)]),
        "convert again",
    );
    assert_eq!(hidden(&d), Vec::<String>::new(), "stale file kept");
    assert!(pq_arrow::ParquetReader::open(&out).unwrap().num_rows() > 0);
}

#[test]
fn convert_removes_stale_temporaries_only() {
    let d = dir("stale");
    let out = d.join("out.parquet");
    // A process that has ended: its id names a stale file.
    let mut gone = Command::new("true").spawn().unwrap();
    let gone_pid = gone.id();
    gone.wait().unwrap();
    let stale = d.join(format!(".out.parquet.pq-tmp-{gone_pid}"));
    std::fs::write(&stale, vec![7u8; 4096]).unwrap();
    // This test process runs: its file may be in use and stays.
    let live = d.join(format!(".out.parquet.pq-tmp-{}", std::process::id()));
    std::fs::write(&live, b"in use").unwrap();
    // Another destination's temporary file is none of this run's business.
    let other = d.join(format!(".other.parquet.pq-tmp-{gone_pid}"));
    std::fs::write(&other, b"other").unwrap();
    ok(
        &run(&["convert", &data("sample.parquet"), s(&out)]),
        "convert",
    );
    assert!(!stale.exists(), "stale temporary file kept");
    assert!(live.exists(), "a running process's temporary file removed");
    assert!(other.exists(), "another destination's file removed");
    assert!(pq_arrow::ParquetReader::open(&out).unwrap().num_rows() > 0);
}

#[test]
fn convert_keeps_the_destination_mode() {
    let d = dir("mode");
    let out = d.join("out.parquet");
    for mode in [0o600, 0o640, 0o604] {
        std::fs::write(&out, b"old").unwrap();
        std::fs::set_permissions(&out, std::fs::Permissions::from_mode(mode)).unwrap();
        ok(
            &run(&["convert", &data("sample.parquet"), s(&out)]),
            "convert",
        );
        let now = std::fs::metadata(&out).unwrap().permissions().mode() & 0o777;
        assert_eq!(now, mode, "mode {now:o}, was {mode:o}");
        assert!(pq_arrow::ParquetReader::open(&out).unwrap().num_rows() > 0);
    }
}

#[test]
fn convert_through_a_symlink_replaces_its_target() {
    let d = dir("symlink");
    let target = d.join("real.parquet");
    std::fs::write(&target, b"old").unwrap();
    let link = d.join("link.parquet");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    ok(
        &run(&["convert", &data("sample.parquet"), s(&link)]),
        "convert",
    );
    assert!(std::fs::symlink_metadata(&link).unwrap().is_symlink());
    assert!(pq_arrow::ParquetReader::open(&target).unwrap().num_rows() > 0);
    assert_eq!(hidden(&d), Vec::<String>::new());
}

#[test]
fn convert_writes_through_a_fifo() {
    let d = dir("fifo-out");
    let fifo = d.join("x.parquet");
    mkfifo(&fifo);
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            File::open(fifo).unwrap().read_to_end(&mut bytes).unwrap();
            bytes
        })
    };
    let out = run(&["convert", &data("sample.parquet"), s(&fifo)]);
    ok(&out, "convert into a FIFO");
    assert!(
        std::fs::metadata(&fifo).unwrap().file_type().is_fifo(),
        "the FIFO was replaced by a regular file"
    );
    let bytes = reader.join().unwrap();
    let written = pq_arrow::ParquetReader::from_bytes(bytes.into()).unwrap();
    let original = pq_arrow::ParquetReader::open(data("sample.parquet")).unwrap();
    assert_eq!(written.num_rows(), original.num_rows());
    assert_eq!(hidden(&d), Vec::<String>::new());
}

#[test]
fn convert_writes_to_standard_output_and_devices() {
    let path = data("sample.parquet");
    let expected = ok(&run(&["cat", &path, "--format", "csv"]), "cat csv");
    let out = run(&["convert", &path, "-", "--to", "csv"]);
    assert_eq!(ok(&out, "convert to -"), expected);
    let out = run(&["convert", &path, "-", "--to", "parquet"]);
    let bytes = ok_bytes(&out, "convert to - as parquet");
    let back = pq_arrow::ParquetReader::from_bytes(bytes.into()).unwrap();
    assert!(back.num_rows() > 0);
    ok(
        &run(&["convert", &path, "/dev/null", "--to", "parquet"]),
        "convert to /dev/null",
    );
    assert!(
        std::fs::metadata("/dev/null")
            .unwrap()
            .file_type()
            .is_char_device()
    );
    // Without a format, a name with no extension is a usage mistake.
    let out = run(&["convert", &path, "-"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("standard output") && err.contains("--to"),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "{err}");
}

fn ok_bytes(out: &Output, what: &str) -> Vec<u8> {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{what} failed: {stderr}");
    out.stdout.clone()
}

#[test]
fn convert_refuses_to_replace_a_socket() {
    let d = dir("socket");
    let sock = d.join("x.parquet");
    let _listener = std::os::unix::net::UnixListener::bind(&sock).unwrap();
    let err = one_line_error(
        &run(&["convert", &data("sample.parquet"), s(&sock)]),
        "convert onto a socket",
    );
    assert!(err.contains("x.parquet"), "{err}");
    assert!(std::fs::metadata(&sock).unwrap().file_type().is_socket());
    assert_eq!(hidden(&d), Vec::<String>::new());
}

/// The codec of every column chunk of `path`.
fn codecs(path: &Path) -> Vec<String> {
    let meta: serde_json::Value =
        serde_json::from_str(&ok(&run(&["meta", s(path), "--json"]), "meta")).unwrap();
    meta["row_groups"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|rg| rg["columns"].as_array().unwrap().iter())
        .map(|c| c["codec"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn convert_compresses_with_snappy_unless_told() {
    let d = dir("codec");
    let input = data("all_types_plain_v1.parquet");
    let snappy = d.join("default.parquet");
    ok(&run(&["convert", &input, s(&snappy)]), "convert");
    let found = codecs(&snappy);
    assert!(!found.is_empty());
    assert!(found.iter().all(|c| c == "SNAPPY"), "{found:?}");
    let plain = d.join("none.parquet");
    ok(
        &run(&["convert", &input, s(&plain), "--compression", "none"]),
        "convert --compression none",
    );
    let found = codecs(&plain);
    assert!(found.iter().all(|c| c == "UNCOMPRESSED"), "{found:?}");
    assert!(
        std::fs::metadata(&snappy).unwrap().len() < std::fs::metadata(&plain).unwrap().len(),
        "snappy output is not smaller"
    );
    let help = ok(&run(&["convert", "--help"]), "help");
    assert!(help.contains("snappy"), "{help}");
}
