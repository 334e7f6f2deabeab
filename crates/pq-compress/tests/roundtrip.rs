//! Round trips per codec and level, exact-size enforcement, fallbacks and
//! robustness against arbitrary input.

#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: failures should panic

use pq_compress::{Codec, Decompressor, Error, Limits, compress, decompress};
use proptest::prelude::*;

fn available() -> impl Iterator<Item = Codec> {
    Codec::ALL.into_iter().filter(|c| c.is_available())
}

/// Levels worth trying for each codec: none, the extremes and the default.
fn levels(codec: Codec) -> Vec<Option<i32>> {
    match codec.levels() {
        None => vec![None],
        // zstd's most negative levels are equivalent; cap the slow top level.
        Some(((min, max), default)) if codec == Codec::Zstd => {
            vec![
                None,
                Some(min.max(-7)),
                Some(0),
                Some(default),
                Some(max.min(19)),
            ]
        }
        Some(((min, max), default)) => vec![None, Some(min), Some(default), Some(max)],
    }
}

fn page_like() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        proptest::collection::vec(any::<u8>(), 0..2048),
        (proptest::collection::vec(any::<u8>(), 1..16), 0..300usize)
            .prop_map(|(unit, n)| unit.repeat(n)),
        proptest::collection::vec(0u8..4, 0..4096),
    ]
}

fn roundtrip(codec: Codec, level: Option<i32>, data: &[u8]) {
    let mut body = b"prefix".to_vec();
    compress(codec, data, &mut body, level).unwrap();
    assert!(body.starts_with(b"prefix"), "compress must append");
    let mut out = vec![9; 3];
    decompress(codec, &body[6..], data.len(), &mut out, &Limits::default())
        .unwrap_or_else(|e| panic!("{codec} level {level:?}: {e}"));
    assert_eq!(out, data, "{codec} level {level:?}");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn every_codec_and_level_round_trips(data in page_like()) {
        for codec in available() {
            for level in levels(codec) {
                roundtrip(codec, level, &data);
            }
        }
    }

    #[test]
    fn random_bytes_never_panic(
        input in proptest::collection::vec(any::<u8>(), 0..512),
        size in 0usize..4096,
    ) {
        let mut dec = Decompressor::new(Limits::new().with_max_uncompressed_size(1 << 20));
        let mut out = Vec::new();
        for codec in Codec::ALL {
            if dec.decompress(codec, &input, size, &mut out).is_ok() {
                prop_assert_eq!(out.len(), size);
            }
        }
    }

    #[test]
    fn damaged_streams_never_panic(
        data in page_like(),
        flips in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..4),
        cut in any::<prop::sample::Index>(),
        size_delta in -2i64..3,
    ) {
        let mut dec = Decompressor::default();
        let mut out = Vec::new();
        for codec in available() {
            let mut body = Vec::new();
            compress(codec, &data, &mut body, None).unwrap();
            if body.is_empty() {
                continue;
            }
            for (i, b) in &flips {
                let i = i.index(body.len());
                body[i] ^= b | 1;
            }
            let size = usize::try_from(data.len() as i64 + size_delta).unwrap_or(0);
            let _ = dec.decompress(codec, &body, size, &mut out);
            let _ = dec.decompress(codec, &body[..cut.index(body.len())], data.len(), &mut out);
        }
    }
}

fn sample() -> Vec<u8> {
    (0..10_000u32)
        .flat_map(|i| (i % 97).to_le_bytes())
        .collect()
}

#[test]
fn output_shorter_or_longer_than_declared_is_an_error() {
    let data = sample();
    let n = data.len();
    for codec in available() {
        let mut body = Vec::new();
        compress(codec, &data, &mut body, None).unwrap();
        let mut out = Vec::new();

        let err = decompress(codec, &body, n + 1, &mut out, &Limits::default()).unwrap_err();
        assert!(
            matches!(err, Error::SizeMismatch { declared, actual, .. } if declared == n + 1 && actual == n),
            "{codec}: {err}"
        );
        let msg = err.to_string();
        assert!(
            msg.contains(&n.to_string()) && msg.contains(&(n + 1).to_string()),
            "{msg}"
        );

        let err = decompress(codec, &body, n - 1, &mut out, &Limits::default()).unwrap_err();
        match err {
            Error::OutputTooLarge { declared, .. } => assert_eq!(declared, n - 1, "{codec}"),
            Error::SizeMismatch {
                declared, actual, ..
            } => {
                assert_eq!((declared, actual), (n - 1, n), "{codec}")
            }
            other => panic!("{codec}: unexpected {other}"),
        }
        assert!(out.is_empty(), "{codec}: output left behind on error");
    }
}

#[test]
fn decompressor_reuses_its_buffer() {
    let data = sample();
    let mut dec = Decompressor::default();
    let mut out = Vec::new();
    for codec in available() {
        let mut body = Vec::new();
        compress(codec, &data, &mut body, None).unwrap();
        for _ in 0..3 {
            dec.decompress(codec, &body, data.len(), &mut out).unwrap();
            assert_eq!(out, data);
        }
    }
    let cap = out.capacity();
    dec.decompress(Codec::Uncompressed, &data, data.len(), &mut out)
        .unwrap();
    assert_eq!(out.capacity(), cap);
}

#[test]
fn levels_are_validated() {
    let mut out = Vec::new();
    for codec in Codec::ALL {
        match codec.levels() {
            None if codec != Codec::Lzo => {
                let err = compress(codec, b"x", &mut out, Some(1)).unwrap_err();
                assert!(matches!(err, Error::LevelNotSupported { .. }), "{err}");
            }
            Some(((min, max), _)) if codec.is_available() => {
                for bad in [min - 1, max + 1] {
                    let err = compress(codec, b"x", &mut out, Some(bad)).unwrap_err();
                    assert!(matches!(err, Error::InvalidLevel { level, .. } if level == bad));
                }
            }
            _ => {}
        }
    }
}

#[test]
fn lzo_is_a_clear_error_both_ways() {
    let mut out = Vec::new();
    let err = compress(Codec::Lzo, b"abc", &mut out, None).unwrap_err();
    assert!(err.to_string().contains("LZO is not supported"), "{err}");
    assert!(out.is_empty());
}

#[cfg(feature = "gzip")]
mod gzip {
    use super::*;
    use std::io::Write;

    #[test]
    fn multi_member_stream() {
        let parts: [&[u8]; 3] = [b"first member ", b"", b"third member, a bit longer"];
        let mut body = Vec::new();
        for p in parts {
            compress(Codec::Gzip, p, &mut body, None).unwrap();
        }
        let expected = parts.concat();
        let mut out = Vec::new();
        decompress(
            Codec::Gzip,
            &body,
            expected.len(),
            &mut out,
            &Limits::default(),
        )
        .unwrap();
        assert_eq!(out, expected);
    }

    #[test]
    fn zlib_wrapped_data_is_accepted() {
        let data = sample();
        let mut enc = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::fast());
        enc.write_all(&data).unwrap();
        let body = enc.finish().unwrap();
        let mut out = Vec::new();
        decompress(Codec::Gzip, &body, data.len(), &mut out, &Limits::default()).unwrap();
        assert_eq!(out, data);
    }

    #[test]
    fn trailing_garbage_is_an_error() {
        let mut body = Vec::new();
        compress(Codec::Gzip, b"hello", &mut body, None).unwrap();
        body.extend_from_slice(b"junk");
        let err =
            decompress(Codec::Gzip, &body, 5, &mut Vec::new(), &Limits::default()).unwrap_err();
        assert!(matches!(err, Error::Corrupt { .. }), "{err}");
    }
}

#[cfg(feature = "zstd")]
#[test]
fn zstd_multiple_frames_and_no_content_size() {
    use std::io::Write;
    let data = sample();
    let mut enc = zstd::stream::Encoder::new(Vec::new(), 3).unwrap();
    enc.include_contentsize(false).unwrap();
    enc.write_all(&data[..1000]).unwrap();
    let mut body = enc.finish().unwrap();
    compress(Codec::Zstd, &data[1000..], &mut body, None).unwrap();
    let mut out = Vec::new();
    decompress(Codec::Zstd, &body, data.len(), &mut out, &Limits::default()).unwrap();
    assert_eq!(out, data);
}

#[cfg(feature = "lz4")]
mod lz4 {
    use super::*;

    #[test]
    fn hadoop_framing_is_written_and_read() {
        let data = sample();
        let mut body = Vec::new();
        compress(Codec::Lz4, &data, &mut body, None).unwrap();
        assert_eq!(
            &body[..4],
            &u32::try_from(data.len()).unwrap().to_be_bytes()
        );
        assert_eq!(
            u32::from_be_bytes(body[4..8].try_into().unwrap()) as usize,
            body.len() - 8
        );
    }

    #[test]
    fn several_hadoop_frames() {
        let data = sample();
        let mut body = Vec::new();
        for chunk in data.chunks(7000) {
            let block = lz4_flex::block::compress(chunk);
            body.extend_from_slice(&(chunk.len() as u32).to_be_bytes());
            body.extend_from_slice(&(block.len() as u32).to_be_bytes());
            body.extend_from_slice(&block);
        }
        let mut out = Vec::new();
        decompress(Codec::Lz4, &body, data.len(), &mut out, &Limits::default()).unwrap();
        assert_eq!(out, data);
    }

    #[test]
    fn raw_block_fallback() {
        let data = sample();
        let mut body = Vec::new();
        compress(Codec::Lz4Raw, &data, &mut body, None).unwrap();
        let mut out = Vec::new();
        decompress(Codec::Lz4, &body, data.len(), &mut out, &Limits::default()).unwrap();
        assert_eq!(out, data);
    }

    #[test]
    fn frame_format_fallback() {
        use std::io::Write;
        let data = sample();
        let mut enc = lz4_flex::frame::FrameEncoder::new(Vec::new());
        enc.write_all(&data).unwrap();
        let body = enc.finish().unwrap();
        let mut out = Vec::new();
        decompress(Codec::Lz4, &body, data.len(), &mut out, &Limits::default()).unwrap();
        assert_eq!(out, data);
        let err = decompress(
            Codec::Lz4,
            &body,
            data.len() - 1,
            &mut out,
            &Limits::default(),
        )
        .unwrap_err();
        assert!(matches!(err, Error::OutputTooLarge { .. }), "{err}");
    }
}

/// One output buffer reused across pages, as the page reader does: the
/// previous page's bytes are output space, never output. A smaller page
/// after a larger one comes back exact, and a failed decode leaves the
/// buffer empty.
#[test]
fn reused_output_buffer_holds_only_the_new_page() {
    let big: Vec<u8> = (0..100_000u32).map(|i| (i % 251) as u8).collect();
    let small = b"the second page, shorter than the first".repeat(3);
    for codec in available().filter(|&c| c != Codec::Uncompressed) {
        let (mut zbig, mut zsmall) = (Vec::new(), Vec::new());
        compress(codec, &big, &mut zbig, None).unwrap();
        compress(codec, &small, &mut zsmall, None).unwrap();
        let mut dec = Decompressor::default();
        let mut out = Vec::new();
        dec.decompress(codec, &zbig, big.len(), &mut out).unwrap();
        assert_eq!(out, big, "{codec:?}");
        dec.decompress(codec, &zsmall, small.len(), &mut out)
            .unwrap();
        assert_eq!(out, small, "{codec:?}: stale bytes after a smaller page");
        dec.decompress(codec, &zbig, big.len(), &mut out).unwrap();
        assert_eq!(out, big, "{codec:?}");
        // Truncated input: an error, and nothing of the old page left.
        let cut = &zsmall[..zsmall.len() / 2];
        assert!(
            dec.decompress(codec, cut, small.len(), &mut out).is_err(),
            "{codec:?}"
        );
        assert!(out.is_empty(), "{codec:?}: output kept after an error");
        // A wrong declared size over a warm buffer: an error too.
        dec.decompress(codec, &zbig, big.len(), &mut out).unwrap();
        assert!(
            dec.decompress(codec, &zsmall, small.len() + 1, &mut out)
                .is_err(),
            "{codec:?}"
        );
        assert!(out.is_empty(), "{codec:?}");
    }
}
