//! The loopback servers, driven by the real client (object_store's HTTP and
//! S3 stores) and, where the protocol itself is checked, by raw HTTP.

// clippy.toml allows unwrap inside #[test] functions only; the raw-HTTP
// helpers here are test code too, and a failure there should fail the test.
#![allow(clippy::unwrap_used)]

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::ops::Range;
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use object_store::aws::AmazonS3Builder;
use object_store::http::HttpBuilder;
use object_store::path::Path;
use object_store::{
    BackoffConfig, ClientOptions, ObjectStore, ObjectStoreExt, PutPayload, RetryConfig,
};
use pq_testkit::{FaultProxy, MotoServer, RangeServer, Rng};

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
    assert_eq!(stats.connections, 1);
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
    // reqwest keeps its connections alive and the server lets it.
    assert!(stats.connections < stats.requests.total(), "{stats:?}");
    Ok(())
}

/// A RangeServer with one object behind a FaultProxy.
fn proxied(len: usize) -> Result<(RangeServer, FaultProxy, Bytes)> {
    let server = RangeServer::start()?;
    let body = data(len, 3);
    server.put("f", body.clone());
    let proxy = FaultProxy::start(server.addr())?;
    Ok((server, proxy, body))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn proxy_adds_latency() -> Result {
    let (_server, proxy, body) = proxied(10_000)?;
    let store = http_store(&proxy.url(), 0)?;
    let path = Path::from("f");
    // A first request opens the connection, so the timings below are of
    // requests alone.
    assert_eq!(store.get_range(&path, 0..10).await?, body.slice(0..10));
    for ms in [20, 100] {
        proxy.faults().set_latency(Duration::from_millis(ms));
        let start = Instant::now();
        assert_eq!(store.get_range(&path, 10..20).await?, body.slice(10..20));
        let took = start.elapsed();
        assert!(
            took >= Duration::from_millis(ms),
            "{ms} ms latency: {took:?}"
        );
    }
    proxy.faults().clear();
    assert_eq!(proxy.stats().requests, 3);
    assert_eq!(proxy.stats().response_bytes, 30);
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn proxy_error_statuses_are_retried() -> Result {
    let (server, proxy, body) = proxied(10_000)?;
    let path = Path::from("f");
    for status in [503, 500] {
        proxy.faults().fail_next(2, status);
        let store = http_store(&proxy.url(), 3)?;
        assert_eq!(
            store.get_range(&path, 100..200).await?,
            body.slice(100..200)
        );
        assert_eq!(proxy.faults().pending().statuses, 0);

        proxy.faults().fail_next(1, status);
        let err = http_store(&proxy.url(), 0)?.get_range(&path, 0..10).await;
        assert!(err.is_err(), "{status} without retries: {err:?}");
    }
    // Three tries each with retries, one without, for both statuses; the
    // upstream saw them all.
    assert_eq!(proxy.stats().requests, 8);
    assert_eq!(server.requests().get, 8);
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn proxy_resets_and_truncations_never_give_wrong_bytes() -> Result {
    let (_server, proxy, body) = proxied(200_000)?;
    let path = Path::from("f");
    let range = 1000..151_000u64;
    let want = body.slice(1000..151_000);
    for fault in ["reset", "truncate"] {
        let arm = |n| match fault {
            "reset" => proxy.faults().reset_next(n),
            _ => proxy.faults().truncate_next(n),
        };
        // Without retries the client must fail.
        arm(1);
        let got = http_store(&proxy.url(), 0)?
            .get_range(&path, range.clone())
            .await;
        assert!(
            got.is_err(),
            "{fault} without retries gave {} bytes",
            got.map_or(0, |b| b.len())
        );

        // With retries it may recover; any bytes it returns are right.
        for whole in [false, true] {
            arm(2);
            let store = http_store(&proxy.url(), 3)?;
            let got = if whole {
                match store.get(&path).await {
                    Ok(result) => result.bytes().await,
                    Err(e) => Err(e),
                }
            } else {
                store.get_range(&path, range.clone()).await
            };
            match got {
                Ok(bytes) if whole => assert_eq!(bytes, body, "{fault}: whole object"),
                Ok(bytes) => assert_eq!(bytes, want, "{fault}: range"),
                Err(e) => eprintln!("{fault} (whole {whole}) with retries: an error: {e}"),
            }
            proxy.faults().clear();
        }
    }
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn proxy_silence_ends_in_a_client_timeout() -> Result {
    let (_server, proxy, body) = proxied(1000)?;
    let path = Path::from("f");
    let store: Arc<dyn ObjectStore> = Arc::new(
        HttpBuilder::new()
            .with_url(proxy.url())
            .with_client_options(
                ClientOptions::new()
                    .with_allow_http(true)
                    .with_timeout(Duration::from_secs(1)),
            )
            .with_retry(retries(0))
            .build()?,
    );
    proxy.faults().silence_all();
    let start = Instant::now();
    let got = store.get_range(&path, 0..10).await;
    let took = start.elapsed();
    assert!(got.is_err(), "{got:?}");
    assert!(took >= Duration::from_millis(900), "{took:?}");
    assert!(took < Duration::from_secs(10), "{took:?}");

    proxy.faults().clear();
    proxy.faults().silence_next(1);
    assert!(store.get_range(&path, 0..10).await.is_err());
    assert_eq!(store.get_range(&path, 0..10).await?, body.slice(0..10));
    assert_eq!(
        proxy.stats().requests,
        1,
        "silenced requests are not forwarded"
    );
    Ok(())
}

/// An upstream that answers each connection's one request with `response`.
fn canned_upstream(response: &'static [u8]) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        // Bounded: the test makes two requests.
        for stream in listener.incoming().take(2) {
            let mut stream = stream.unwrap();
            let mut head = Vec::new();
            let mut byte = [0u8; 1];
            while !head.ends_with(b"\r\n\r\n") && stream.read_exact(&mut byte).is_ok() {
                head.push(byte[0]);
            }
            let _ = stream.write_all(response);
        }
    });
    addr
}

#[test]
fn proxy_dechunks_and_frames_responses() {
    for response in [
        &b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nX-Kept: yes\r\n\r\n5\r\nhello\r\n7;ext=1\r\n, world\r\n0\r\nTrailer: t\r\n\r\n"[..],
        &b"HTTP/1.1 200 OK\r\nX-Kept: yes\r\nConnection: close\r\n\r\nhello, world"[..],
    ] {
        let upstream = canned_upstream(response);
        let proxy = FaultProxy::start(upstream).unwrap();
        let mut c = connect(proxy.addr());
        // Twice on one connection: the proxy keeps the client's alive.
        for _ in 0..2 {
            let (head, body) = exchange(&mut c, "GET /x HTTP/1.1\r\nHost: x\r\n\r\n");
            assert!(head.contains("Content-Length: 12"), "{head}");
            assert!(head.contains("X-Kept: yes"), "{head}");
            assert!(!head.to_ascii_lowercase().contains("chunked"), "{head}");
            assert_eq!(body, b"hello, world");
        }
        assert_eq!(proxy.stats().requests, 2);
        assert_eq!(proxy.stats().response_bytes, 24);
    }
}

/// An upstream that answers one request with a head announcing a body of
/// ten bytes, sends the first five, then waits for `release`: sends the
/// rest when given `true`, closes when given `false`.
fn paused_upstream(release: std::sync::mpsc::Receiver<bool>) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        let (mut stream, _) = listener.accept().unwrap();
        let mut head = Vec::new();
        let mut byte = [0u8; 1];
        while !head.ends_with(b"\r\n\r\n") && stream.read_exact(&mut byte).is_ok() {
            head.push(byte[0]);
        }
        let _ = stream.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nhello");
        if release.recv_timeout(Duration::from_secs(10)) == Ok(true) {
            let _ = stream.write_all(b"world");
        }
    });
    addr
}

#[test]
fn proxy_passes_a_body_on_as_it_arrives() {
    for finish in [true, false] {
        let (release, wait) = std::sync::mpsc::channel();
        let proxy = FaultProxy::start(paused_upstream(wait)).unwrap();
        proxy.faults().set_latency(Duration::from_millis(20));
        let mut c = connect(proxy.addr());
        c.write_all(b"GET /x HTTP/1.1\r\nHost: x\r\n\r\n").unwrap();
        // The head and the first half arrive while the upstream still holds
        // the second: a proxy that held the body whole would send nothing
        // (and the read would time out).
        let mut got = vec![0u8; 0];
        let mut byte = [0u8; 1];
        while !got.ends_with(b"hello") {
            c.read_exact(&mut byte).unwrap();
            got.push(byte[0]);
        }
        let head = String::from_utf8_lossy(&got).into_owned();
        assert!(head.contains("Content-Length: 10"), "{head}");
        release.send(finish).unwrap();
        if finish {
            let mut rest = [0u8; 5];
            c.read_exact(&mut rest).unwrap();
            assert_eq!(&rest, b"world");
            assert_eq!(proxy.stats().response_bytes, 10);
        } else {
            let mut rest = Vec::new();
            let end = c.read_to_end(&mut rest);
            // The upstream stopped inside the body: the client is left with
            // a short body and a closed connection, never a hang.
            assert!(rest.is_empty() && end.is_ok(), "{rest:?} {end:?}");
        }
    }
}

#[test]
fn servers_stop_on_drop() {
    let server = RangeServer::start().unwrap();
    let proxy = FaultProxy::start(server.addr()).unwrap();
    proxy.faults().silence_all();
    // A connection held silent must not keep the proxy from stopping.
    let mut held = connect(proxy.addr());
    held.write_all(b"GET /x HTTP/1.1\r\nHost: x\r\n\r\n")
        .unwrap();
    std::thread::sleep(Duration::from_millis(50));
    let (server_addr, proxy_addr) = (server.addr(), proxy.addr());
    let start = Instant::now();
    drop(proxy);
    drop(server);
    assert!(start.elapsed() < Duration::from_secs(2));
    let mut buf = [0u8; 1];
    assert!(matches!(held.read(&mut buf), Ok(0) | Err(_)));
    assert!(TcpStream::connect(server_addr).is_err());
    assert!(TcpStream::connect(proxy_addr).is_err());
}

/// An S3 store for `bucket` at `endpoint` (moto, or a proxy in front).
fn s3_store(endpoint: &str, bucket: &str, max_retries: usize) -> Result<Arc<dyn ObjectStore>> {
    Ok(Arc::new(
        AmazonS3Builder::new()
            .with_endpoint(endpoint)
            .with_allow_http(true)
            .with_bucket_name(bucket)
            .with_region(MotoServer::REGION)
            .with_access_key_id(MotoServer::ACCESS_KEY_ID)
            .with_secret_access_key(MotoServer::SECRET_ACCESS_KEY)
            .with_virtual_hosted_style_request(false)
            .with_retry(retries(max_retries))
            .build()?,
    ))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn moto_serves_s3() -> Result {
    let Some(moto) = MotoServer::start_or_skip()? else {
        return Ok(());
    };
    moto.create_bucket("pq-test")?;
    let body = data(300_000, 4);
    moto.put_object("pq-test", "t/part 0.parquet", &body)?;
    let path = Path::from("t/part 0.parquet");

    let store = s3_store(&moto.endpoint(), "pq-test", 0)?;
    assert_eq!(store.head(&path).await?.size, 300_000);
    assert_eq!(store.get_range(&path, 5..105).await?, body.slice(5..105));
    assert!(matches!(
        store.head(&Path::from("nothing")).await,
        Err(object_store::Error::NotFound { .. })
    ));

    // The same through the proxy, which also carries a signed upload.
    let proxy = FaultProxy::start(moto.addr())?;
    let via = s3_store(&proxy.url(), "pq-test", 3)?;
    assert_eq!(via.head(&path).await?.size, 300_000);
    assert_eq!(
        via.get_range(&path, 1000..201_000).await?,
        body.slice(1000..201_000)
    );
    let small = data(5000, 5);
    via.put(&Path::from("t/up"), PutPayload::from(small.clone()))
        .await?;
    assert_eq!(store.get(&Path::from("t/up")).await?.bytes().await?, small);

    proxy.faults().fail_next(1, 503);
    assert_eq!(via.get_range(&path, 0..10).await?, body.slice(0..10));
    proxy.faults().truncate_next(1);
    match via.get_range(&path, 0..100_000).await {
        Ok(bytes) => assert_eq!(bytes, body.slice(0..100_000)),
        Err(e) => eprintln!("truncated with retries: an error: {e}"),
    }
    proxy.faults().reset_next(1);
    let got = s3_store(&proxy.url(), "pq-test", 0)?
        .get_range(&path, 0..100_000)
        .await;
    assert!(got.is_err(), "a reset without retries must fail");
    assert!(proxy.stats().requests >= 7, "{:?}", proxy.stats());

    let env = moto.client_env();
    assert!(env.contains(&("AWS_REGION", "us-east-1".into())));
    assert!(env.contains(&("AWS_ENDPOINT", moto.endpoint())));
    Ok(())
}
