//! The loopback servers, driven by the real client (object_store's HTTP
//! store) and, where the protocol itself is checked, by raw HTTP.

// clippy.toml allows unwrap inside #[test] functions only; the raw-HTTP
// helpers here are test code too, and a failure there should fail the test.
#![allow(clippy::unwrap_used)]

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::ops::Range;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use object_store::http::HttpBuilder;
use object_store::path::Path;
use object_store::{BackoffConfig, ClientOptions, ObjectStore, ObjectStoreExt, RetryConfig};
use pq_testkit::{RangeServer, Rng};

type Result<T = ()> = std::result::Result<T, Box<dyn std::error::Error>>;

/// `len` pseudo-random bytes.
fn data(len: usize, seed: u64) -> Bytes {
    let mut rng = Rng(seed);
    (0..len)
        .map(|_| rng.next() as u8)
        .collect::<Vec<_>>()
        .into()
}

/// Retries quick enough for tests.
fn retries(max_retries: usize) -> RetryConfig {
    RetryConfig {
        backoff: BackoffConfig {
            init_backoff: Duration::from_millis(10),
            max_backoff: Duration::from_millis(50),
            base: 2.0,
        },
        max_retries,
        retry_timeout: Duration::from_secs(20),
    }
}

/// An HTTP store on `url` with `max_retries` retries.
fn http_store(url: &str, max_retries: usize) -> Result<Arc<dyn ObjectStore>> {
    Ok(Arc::new(
        HttpBuilder::new()
            .with_url(url)
            .with_client_options(ClientOptions::new().with_allow_http(true))
            .with_retry(retries(max_retries))
            .build()?,
    ))
}

/// One raw HTTP/1.1 exchange on `stream`: the head as text and the body,
/// read by `Content-Length` (so the connection can serve another).
fn exchange(stream: &mut TcpStream, request: &str) -> (String, Vec<u8>) {
    stream.write_all(request.as_bytes()).unwrap();
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        stream.read_exact(&mut byte).unwrap();
        head.push(byte[0]);
    }
    let head = String::from_utf8(head).unwrap();
    let len: usize = head
        .lines()
        .find_map(|l| {
            let (name, value) = l.split_once(':')?;
            name.eq_ignore_ascii_case("content-length")
                .then(|| value.trim().parse().unwrap())
        })
        .unwrap_or(0);
    let mut body = vec![0u8; if request.starts_with("HEAD") { 0 } else { len }];
    stream.read_exact(&mut body).unwrap();
    (head, body)
}

fn connect(addr: SocketAddr) -> TcpStream {
    let stream = TcpStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    stream
}

fn get(name: &str, range: Option<&str>) -> String {
    let range = range.map_or(String::new(), |r| format!("Range: {r}\r\n"));
    format!("GET /{name} HTTP/1.1\r\nHost: x\r\n{range}\r\n")
}

#[test]
fn range_server_speaks_http_ranges() {
    let server = RangeServer::start().unwrap();
    let body = data(1000, 1);
    server.put("a/b c.bin", body.clone());
    // One keep-alive connection for every request below.
    let mut c = connect(server.addr());

    let (head, got) = exchange(&mut c, &get("a/b%20c.bin", None));
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    for h in [
        "Content-Length: 1000",
        "Accept-Ranges: bytes",
        "ETag: \"",
        "Last-Modified: ",
    ] {
        assert!(head.contains(h), "{h} missing in {head}");
    }
    assert_eq!(got, body);

    let cases: [(&str, Range<usize>); 4] = [
        ("bytes=10-19", 10..20),
        ("bytes=990-5000", 990..1000),
        ("bytes=900-", 900..1000),
        ("bytes=-30", 970..1000),
    ];
    for (range, want) in cases {
        let (head, got) = exchange(&mut c, &get("a/b%20c.bin", Some(range)));
        assert!(head.starts_with("HTTP/1.1 206"), "{range}: {head}");
        let content_range = format!("Content-Range: bytes {}-{}/1000", want.start, want.end - 1);
        assert!(head.contains(&content_range), "{range}: {head}");
        assert_eq!(got, body[want], "{range}");
    }

    let (head, _) = exchange(&mut c, &get("a/b%20c.bin", Some("bytes=1000-")));
    assert!(head.starts_with("HTTP/1.1 416"), "{head}");
    assert!(head.contains("Content-Range: bytes */1000"), "{head}");
    let (head, _) = exchange(&mut c, &get("missing", None));
    assert!(head.starts_with("HTTP/1.1 404"), "{head}");
    let (head, got) = exchange(&mut c, "HEAD /a/b%20c.bin HTTP/1.1\r\nHost: x\r\n\r\n");
    assert!(head.starts_with("HTTP/1.1 200") && head.contains("Content-Length: 1000"));
    assert!(got.is_empty());
    let (head, _) = exchange(&mut c, "DELETE /a/b%20c.bin HTTP/1.1\r\nHost: x\r\n\r\n");
    assert!(head.starts_with("HTTP/1.1 405"), "{head}");

    let stats = server.stats();
    assert_eq!(stats.requests.get, 7);
    assert_eq!(stats.requests.head, 1);
    assert_eq!(stats.requests.other, 1);
    assert_eq!(stats.body_bytes, 1000 + 10 + 10 + 100 + 30);
    let name = "a/b c.bin".to_owned();
    assert_eq!(
        stats.ranges,
        vec![
            (name.clone(), None),
            (name.clone(), Some(10..20)),
            (name.clone(), Some(990..1000)),
            (name.clone(), Some(900..1000)),
            (name, Some(970..1000)),
        ]
    );
    server.reset_stats();
    assert_eq!(server.stats(), Default::default());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn range_server_serves_object_store() -> Result {
    let server = RangeServer::start()?;
    let body = data(100_000, 2);
    server.put("dir/part-0.parquet", body.clone());
    let store = http_store(&server.url(), 0)?;
    let path = Path::from("dir/part-0.parquet");

    assert_eq!(store.head(&path).await?.size, 100_000);
    assert_eq!(
        store.get_range(&path, 1000..1100).await?,
        body.slice(1000..1100)
    );
    let ranges = [0..8, 50_000..50_100, 99_992..100_000];
    let got = store.get_ranges(&path, &ranges).await?;
    for (range, got) in ranges.iter().zip(got) {
        assert_eq!(got, body.slice(range.start as usize..range.end as usize));
    }
    assert_eq!(store.get(&path).await?.bytes().await?, body);
    let missing = store.get(&Path::from("dir/nothing")).await;
    assert!(
        matches!(missing, Err(object_store::Error::NotFound { .. })),
        "{missing:?}"
    );

    let stats = server.stats();
    assert_eq!(stats.requests.head, 1);
    // get_ranges may merge nearby ranges into fewer requests.
    assert!(stats.requests.get >= 4, "{stats:?}");
    assert!(
        stats
            .ranges
            .contains(&("dir/part-0.parquet".into(), Some(1000..1100)))
    );
    let logged: u64 = stats
        .ranges
        .iter()
        .map(|(_, r)| r.as_ref().map_or(100_000, |r| r.end - r.start))
        .sum();
    assert_eq!(stats.body_bytes, logged);
    // The client keeps its connection: several requests, few connections
    // (not observable here), and every byte counted once.
    Ok(())
}
