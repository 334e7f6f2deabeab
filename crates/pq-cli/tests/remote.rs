//! Inputs in object stores: every reading command on an http:// object of
//! a loopback `RangeServer`, on an s3:// object of moto, an az:// one of
//! Azurite and a gs:// one (GCS's client sent to a `RangeServer`) gives the
//! output it gives for the same local file; `scan` reports the requests
//! the server counted; faults are retried, and silence ends within the
//! timeout.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::process::Output;
use std::time::{Duration, Instant};

use pq_testkit::{AzuriteServer, FaultProxy, MotoServer, RangeServer};

mod common;
use common::{assert_no_panic, data, dir, pq, s};

/// The fixtures read remotely: a small file, and one with many columns.
const FILES: &[&str] = &["sample.parquet", "all_types_plain_v1.parquet"];

/// A column of the fixture `name`, for `--columns`.
fn a_column(name: &str) -> &'static str {
    if name == "sample.parquet" {
        "id"
    } else {
        "int32"
    }
}

/// Runs pq with `args` and `env`.
fn run(args: &[&str], env: &[(&str, String)]) -> Output {
    let mut cmd = pq();
    for (k, _) in std::env::vars() {
        if k.starts_with("AWS_") || k.starts_with("GOOGLE_") || k.starts_with("AZURE_") {
            cmd.env_remove(k);
        }
    }
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.args(args).output().unwrap();
    assert_no_panic(&String::from_utf8_lossy(&out.stderr));
    out
}

/// Stdout of a successful run.
fn ok(args: &[&str], env: &[(&str, String)]) -> String {
    let out = run(args, env);
    assert!(
        out.status.success(),
        "pq {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The one line of stderr of a run that fails with `code`.
fn fails(args: &[&str], env: &[(&str, String)], code: i32) -> String {
    let out = run(args, env);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(code), "pq {args:?}: {stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    stderr
}

/// `scan`'s output without its timings and its line of bytes read.
fn scan_figures(out: &str) -> Vec<String> {
    out.lines()
        .filter(|l| l.starts_with("rows:") || l.starts_with("bytes decoded:"))
        .map(str::to_owned)
        .collect()
}

/// Every reading command on `url` prints what it prints for the local
/// fixture `name` (the path replaced by the URL); `pre` comes before the
/// command (global flags).
fn same_as_local(name: &str, url: &str, pre: &[&str], env: &[(&str, String)]) {
    let local = data(name);
    let local = s(&local);
    let commands: &[&[&str]] = &[
        &["cat", "--format", "jsonl"],
        &[
            "cat",
            "--columns",
            a_column(name),
            "--offset",
            "5",
            "--limit",
            "7",
        ],
        &["head", "-n", "3", "--format", "csv"],
        &["tail", "-n", "3", "--format", "jsonl"],
        &["count", "--per-file"],
        &["schema"],
        &["schema", "--json"],
        &["meta"],
        &["meta", "--json"],
        &["pages"],
        &["stats"],
        &["stats", "--exact", "--format", "csv"],
    ];
    for command in commands {
        // Timestamps in named zones stop `stats --exact` on any input
        // (arrow's chrono-tz feature is off).
        if name != "sample.parquet" && command.contains(&"--exact") {
            continue;
        }
        let (verb, rest) = command.split_first().unwrap();
        let with = |input: &str| {
            let mut a: Vec<&str> = pre.to_vec();
            a.push(verb);
            a.push(input);
            a.extend_from_slice(rest);
            a.iter().map(|s| s.to_string()).collect::<Vec<_>>()
        };
        let (la, ra) = (with(local), with(url));
        let la: Vec<&str> = la.iter().map(String::as_str).collect();
        let ra: Vec<&str> = ra.iter().map(String::as_str).collect();
        let expected = ok(&la, &[]).replace(local, url);
        let got = ok(&ra, env);
        assert!(!got.is_empty(), "{ra:?}");
        assert_eq!(
            got, expected,
            "pq {ra:?} differs from the local file's output"
        );
    }
    // scan: the same rows and decoded bytes.
    let scanned = ok(&[pre, &["scan", url]].concat(), env);
    assert_eq!(
        scan_figures(&scanned),
        scan_figures(&ok(&["scan", local], &[]))
    );
    // convert: the same output file.
    // A directory per store as well as per file: the S3 and Azure tests run
    // at once and convert the same fixtures.
    let scheme = url.split("://").next().unwrap_or_default();
    let d = dir(&format!("convert-{scheme}-{}", name.replace('.', "-")));
    for ext in ["jsonl", "csv", "parquet"] {
        let (l, r) = (d.join(format!("l.{ext}")), d.join(format!("r.{ext}")));
        ok(&["convert", local, s(&l)], &[]);
        ok(&[pre, &["convert", url, s(&r)]].concat(), env);
        assert_eq!(
            std::fs::read(&l).unwrap(),
            std::fs::read(&r).unwrap(),
            "{ext}"
        );
    }
}

/// A RangeServer holding the fixtures.
fn range_server() -> RangeServer {
    let server = RangeServer::start().unwrap();
    for name in FILES {
        server.put(&format!("t/{name}"), std::fs::read(data(name)).unwrap());
    }
    server
}

#[test]
fn http_inputs_read_as_local_files() {
    let server = range_server();
    for name in FILES {
        same_as_local(name, &format!("{}/t/{name}", server.url()), &[], &[]);
    }
}

#[test]
fn missing_objects_and_bad_urls_are_one_line() {
    let server = range_server();
    let url = format!("{}/t/missing.parquet", server.url());
    for command in [
        "cat", "scan", "meta", "schema", "pages", "count", "stats", "head",
    ] {
        let e = fails(&[command, &url], &[], 1);
        assert!(
            e.contains(&url) && e.contains("no such object"),
            "{command}: {e}"
        );
    }
    let e = fails(&["cat", "ftp://host/f.parquet"], &[], 1);
    assert!(e.contains("does not read ftp://"), "{e}");
    let e = fails(&["cat", "s3:///f.parquet"], &[], 1);
    assert!(e.contains("no bucket"), "{e}");
    let e = fails(&["cat", "http://[::1/f.parquet"], &[], 1);
    assert!(e.contains("not a valid URL"), "{e}");
    let glob = format!("{}/t/*.parquet", server.url());
    let e = fails(&["cat", &glob], &[], 2);
    assert!(e.contains("globs of URLs are not expanded"), "{e}");
    let prefix = format!("{}/t/", server.url());
    let e = fails(&["count", &prefix], &[], 2);
    assert!(e.contains("directories"), "{e}");
    // pq writes no objects.
    let local = data("sample.parquet");
    let e = fails(&["convert", s(&local), "s3://bucket/out.parquet"], &[], 2);
    assert!(e.contains("local files only"), "{e}");
    // Not a Parquet object.
    server.put("t/text.parquet", b"not parquet at all".to_vec());
    let text = format!("{}/t/text.parquet", server.url());
    let e = fails(&["cat", &text], &[], 1);
    assert!(e.contains(&text), "{e}");
}

/// The number after `label` in `line`.
fn number_after(line: &str, label: &str) -> u64 {
    let at = line.find(label).unwrap() + label.len();
    line[at..]
        .split(|c: char| !c.is_ascii_digit())
        .find(|w| !w.is_empty())
        .unwrap()
        .parse()
        .unwrap()
}

/// `(bytes fetched, object bytes, requests)` of scan's report.
fn fetched(out: &str) -> (u64, u64, u64) {
    let line = out
        .lines()
        .find(|l| l.starts_with("fetched: "))
        .unwrap_or_else(|| panic!("no fetched line: {out}"));
    assert!(!out.contains("bytes read:"), "{out}");
    (
        number_after(line, "fetched: "),
        number_after(line, " of "),
        number_after(line, " in "),
    )
}

#[test]
fn scan_reports_what_the_server_counted() {
    let server = range_server();
    let name = "all_types_plain_v1.parquet";
    let size = std::fs::metadata(data(name)).unwrap().len();
    let url = format!("{}/t/{name}", server.url());
    let mut figures = Vec::new();
    for columns in [None, Some(a_column(name))] {
        server.reset_stats();
        let mut args = vec!["scan", url.as_str()];
        if let Some(c) = columns {
            args.extend(["--columns", c]);
        }
        let out = ok(&args, &[]);
        let (bytes, of, requests) = fetched(&out);
        let stats = server.stats();
        assert_eq!(of, size);
        assert_eq!(requests, stats.requests.total(), "{out} {stats:?}");
        assert_eq!(bytes, stats.body_bytes, "{out} {stats:?}");
        figures.push((bytes, requests));
        eprintln!(
            "scan {args:?}: {bytes} of {size} bytes in {requests} requests: {:?}",
            stats.ranges
        );
    }
    let (whole, one) = (figures[0], figures[1]);
    assert!(whole.0 >= size * 9 / 10, "{whole:?}");
    assert!(
        one.0 < whole.0 / 2,
        "one column {one:?}, whole file {whole:?}"
    );
    // A local file keeps its wording.
    let out = ok(&["scan", s(&data(name))], &[]);
    assert!(
        out.contains("(footers not counted)") && !out.contains("fetched:"),
        "{out}"
    );
}

#[test]
fn faults_are_retried() {
    let server = range_server();
    let proxy = FaultProxy::start(server.addr()).unwrap();
    let name = "all_types_plain_v1.parquet";
    let url = format!("{}/t/{name}", proxy.url());
    let expected = ok(&["cat", s(&data(name)), "--format", "jsonl"], &[]);
    let faults = proxy.faults();

    faults.fail_next(2, 503);
    assert_eq!(ok(&["cat", &url, "--format", "jsonl"], &[]), expected);
    assert_eq!(faults.pending().statuses, 0);

    faults.clear();
    server.reset_stats();
    // The size asked for has no body: the first two GETs (the leading
    // magic's bytes and the footer's) are reset mid-body.
    faults.reset_next(2);
    assert_eq!(ok(&["cat", &url, "--format", "jsonl"], &[]), expected);
    assert_eq!(faults.pending().resets, 0);

    faults.clear();
    faults.truncate_next(1);
    assert_eq!(ok(&["cat", &url, "--format", "jsonl"], &[]), expected);

    // Too many failures: one line naming the URL, after the retries asked.
    faults.clear();
    faults.fail_next(10, 503);
    let e = fails(&["--retries", "1", "cat", &url], &[], 1);
    assert!(e.contains(&url) && e.contains("2 attempts"), "{e}");
}

#[test]
fn silence_ends_within_the_timeout() {
    let server = range_server();
    let proxy = FaultProxy::start(server.addr()).unwrap();
    let name = "all_types_plain_v1.parquet";
    let url = format!("{}/t/{name}", proxy.url());
    proxy.faults().silence_all();
    let start = Instant::now();
    let e = fails(&["--timeout", "1", "--retries", "1", "cat", &url], &[], 1);
    let took = start.elapsed();
    assert!(took < Duration::from_secs(8), "took {took:?}: {e}");
    // The first request: the size and the footer's window together.
    assert!(
        e.contains(&url) && e.contains("the last 65536 bytes"),
        "{e}"
    );

    // Silence after the footer: the data's request names its range. The
    // server has answered the footer's window (with the size) and the
    // leading magic when it counts two GETs; the proxy holds each answer 300 ms more, time enough to silence
    // it before the data is asked for.
    proxy.faults().clear();
    proxy.faults().set_latency(Duration::from_millis(300));
    let start = Instant::now();
    let silenced = std::thread::scope(|scope| {
        let faults = proxy.faults();
        let server = &server;
        let watcher = scope.spawn(move || {
            let deadline = Instant::now() + Duration::from_secs(10);
            while server.requests().get < 2 && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(1));
            }
            faults.silence_all();
        });
        let e = fails(&["--timeout", "1", "--retries", "0", "cat", &url], &[], 1);
        watcher.join().unwrap();
        e
    });
    assert!(start.elapsed() < Duration::from_secs(8), "{silenced}");
    assert_eq!(server.requests().get, 2, "{silenced}");
    // The first row group's bytes, as the local reader reads them.
    assert!(silenced.contains(&url), "{silenced}");
    assert!(
        silenced.contains("fetching bytes 4..396324 of"),
        "{silenced}"
    );
}

#[test]
fn bad_flags_are_usage_errors() {
    for args in [
        &["--timeout", "0", "cat", "x.parquet"][..],
        &["--timeout", "soon", "cat", "x.parquet"][..],
        &["--retries", "-1", "cat", "x.parquet"][..],
    ] {
        let out = run(args, &[]);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
    }
}

#[test]
fn help_documents_url_inputs() {
    let help = ok(&["--help"], &[]);
    for word in [
        "s3://",
        "gs://",
        "az://",
        "https://",
        "AWS_ACCESS_KEY_ID",
        "AWS_SECRET_ACCESS_KEY",
        "AWS_REGION",
        "AWS_ENDPOINT_URL",
        "AWS_ALLOW_HTTP",
        "GOOGLE_APPLICATION_CREDENTIALS",
        "GOOGLE_SERVICE_ACCOUNT",
        "AZURE_STORAGE_ACCOUNT_NAME",
        "AZURE_STORAGE_ACCOUNT_KEY",
        "--timeout",
        "--retries",
        "--endpoint",
        "--no-sign-request",
        "globs",
    ] {
        assert!(help.contains(word), "--help lacks {word}");
    }
}

#[test]
fn s3_inputs_read_as_local_files() {
    let Some(moto) = MotoServer::start_or_skip().unwrap() else {
        return;
    };
    moto.create_bucket("pq-data").unwrap();
    for name in FILES {
        let bytes = std::fs::read(data(name)).unwrap();
        moto.put_object("pq-data", &format!("t/{name}"), &bytes)
            .unwrap();
    }
    let env: Vec<(&str, String)> = moto.client_env();
    for name in FILES {
        same_as_local(name, &format!("s3://pq-data/t/{name}"), &[], &env);
    }
    // --endpoint instead of AWS_ENDPOINT.
    let flag_env: Vec<(&str, String)> = env
        .iter()
        .filter(|(k, _)| *k != "AWS_ENDPOINT")
        .cloned()
        .collect();
    let endpoint = moto.endpoint();
    same_as_local(
        "sample.parquet",
        "s3://pq-data/t/sample.parquet",
        &["--endpoint", &endpoint],
        &flag_env,
    );
    // AWS_ENDPOINT_URL, with and without AWS_ALLOW_HTTP.
    let url_env = |allow: bool| -> Vec<(&str, String)> {
        let mut e: Vec<(&str, String)> = flag_env
            .iter()
            .filter(|(k, _)| allow || *k != "AWS_ALLOW_HTTP")
            .cloned()
            .collect();
        e.push(("AWS_ENDPOINT_URL", endpoint.clone()));
        e
    };
    let local = ok(&["count", s(&data("sample.parquet"))], &[]);
    for allow in [true, false] {
        let got = ok(&["count", "s3://pq-data/t/sample.parquet"], &url_env(allow));
        assert_eq!(got, local, "AWS_ALLOW_HTTP {allow}");
    }
    // Missing objects and buckets: one line naming the URL.
    for url in [
        "s3://pq-data/t/missing.parquet",
        "s3://no-bucket/t/a.parquet",
    ] {
        let e = fails(&["cat", url], &env, 1);
        assert!(e.contains(url) && e.contains("no such object"), "{e}");
    }
    // scan counts what it fetched; one column fetches less.
    let whole = fetched(&ok(
        &["scan", "s3://pq-data/t/all_types_plain_v1.parquet"],
        &env,
    ));
    let one = fetched(&ok(
        &[
            "scan",
            "s3://pq-data/t/all_types_plain_v1.parquet",
            "--columns",
            "int32",
        ],
        &env,
    ));
    eprintln!("s3 scan (bytes, of, requests): whole file {whole:?}, one column {one:?}");
    assert!(one.0 < whole.0 / 2, "{one:?} {whole:?}");
}

/// az:// inputs (Azurite, the emulator, reached as object_store's Azure
/// client reads it from the environment): every command prints what it
/// prints for the local file, and `pq sql` reads them as tables. Azure
/// takes no suffix range, so the footer costs a size request first.
#[test]
fn azure_inputs_read_as_local_files() {
    let Some(azurite) = AzuriteServer::start_or_skip().unwrap() else {
        return;
    };
    for name in FILES {
        let bytes = std::fs::read(data(name)).unwrap();
        azurite
            .put("pq-data", &format!("t/{name}"), &bytes)
            .unwrap();
    }
    let env = azurite.client_env();
    for name in FILES {
        same_as_local(name, &format!("az://pq-data/t/{name}"), &[], &env);
    }
    sql_same_as_local("az://pq-data/t/sample.parquet", &env);
    let e = fails(&["cat", "az://pq-data/t/missing.parquet"], &env, 1);
    assert!(
        e.contains("az://pq-data/t/missing.parquet") && e.contains("no such object"),
        "{e}"
    );
    let e = fails(&["cat", "az://no-container/a.parquet"], &env, 1);
    assert!(e.contains("az://no-container/a.parquet"), "{e}");
}

/// `gs://` through object_store's GCS client, sent by the service-account
/// file's `gcs_base_url` (with `disable_oauth`: no token) to a RangeServer
/// holding the objects as `/<bucket>/<key>`, which is how GCS's XML API
/// names them (the client percent-encodes the key, the server decodes it).
/// No GCS emulator is packaged where the tests install from: the PyPI one
/// answers a suffix range with the whole object, which pq refuses.
#[test]
fn gcs_inputs_read_as_local_files() {
    let server = RangeServer::start().unwrap();
    for name in FILES {
        server.put(
            &format!("pq-data/t/{name}"),
            std::fs::read(data(name)).unwrap(),
        );
    }
    let key = dir("gcs-key").join("service-account.json");
    std::fs::write(
        &key,
        format!(
            r#"{{"gcs_base_url": "{}", "disable_oauth": true, "client_email": "", "private_key": "", "private_key_id": ""}}"#,
            server.url()
        ),
    )
    .unwrap();
    let env = vec![("GOOGLE_SERVICE_ACCOUNT", s(&key).to_string())];
    for name in FILES {
        same_as_local(name, &format!("gs://pq-data/t/{name}"), &[], &env);
    }
    sql_same_as_local("gs://pq-data/t/sample.parquet", &env);
    // The footer in one suffix request, as on S3.
    server.reset_stats();
    let out = ok(&["scan", "gs://pq-data/t/sample.parquet"], &env);
    assert!(out.contains("rows: "), "{out}");
    let ranges = server.ranges();
    assert!(
        !ranges.is_empty()
            && ranges
                .iter()
                .all(|(name, r)| name == "pq-data/t/sample.parquet" && r.is_some()),
        "{ranges:?}"
    );
    let e = fails(&["cat", "gs://pq-data/t/missing.parquet"], &env, 1);
    assert!(e.contains("gs://pq-data/t/missing.parquet"), "{e}");
}

/// `pq sql` over object-store URLs, quoted in FROM and named with
/// `--table`: the rows it prints for the local file.
fn sql_same_as_local(url: &str, env: &[(&str, String)]) {
    let local = data("sample.parquet");
    let query = |from: &str| format!("SELECT id, city, population FROM {from} ORDER BY id");
    let want = ok(
        &[
            "sql",
            &query(&format!("'{}'", s(&local))),
            "--format",
            "csv",
        ],
        &[],
    );
    assert!(want.lines().count() > 1, "{want}");
    let quoted = ok(
        &["sql", &query(&format!("'{url}'")), "--format", "csv"],
        env,
    );
    assert_eq!(quoted, want, "{url}");
    let named = ok(
        &[
            "sql",
            &query("t"),
            "--table",
            &format!("t={url}"),
            "--format",
            "csv",
        ],
        env,
    );
    assert_eq!(named, want, "--table t={url}");
    let e = fails(&["sql", &format!("SELECT * FROM '{url}.missing'")], env, 1);
    assert!(e.contains("missing"), "{e}");
}

#[test]
fn sql_reads_object_store_tables() {
    let server = range_server();
    sql_same_as_local(&format!("{}/t/sample.parquet", server.url()), &[]);
    let Some(moto) = MotoServer::start_or_skip().unwrap() else {
        return;
    };
    moto.create_bucket("pq-sql").unwrap();
    let bytes = std::fs::read(data("sample.parquet")).unwrap();
    moto.put_object("pq-sql", "t/sample.parquet", &bytes)
        .unwrap();
    sql_same_as_local("s3://pq-sql/t/sample.parquet", &moto.client_env());
    // A prefix or a glob is a table of every object listed under it.
    for part in ["a", "b"] {
        moto.put_object("pq-sql", &format!("lake/part-{part}.parquet"), &bytes)
            .unwrap();
    }
    let count = |from: &str, env: &[(&str, String)]| {
        ok(
            &[
                "sql",
                &format!("SELECT count(*) AS n FROM '{from}'"),
                "--format",
                "csv",
            ],
            env,
        )
    };
    let one: u64 = count(s(&data("sample.parquet")), &[])
        .lines()
        .nth(1)
        .and_then(|l| l.trim().parse().ok())
        .unwrap();
    for from in ["s3://pq-sql/lake/", "s3://pq-sql/lake/*.parquet"] {
        let got = count(from, &moto.client_env());
        assert_eq!(
            got.lines().nth(1),
            Some((2 * one).to_string().as_str()),
            "{from}: {got}"
        );
    }
}
