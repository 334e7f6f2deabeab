//! Entry points for arbitrary input, shared by the fuzz targets in `fuzz/`
//! and the stable replay of the regressions they found
//! (`tests/regressions/<target>/*`, run by `tests/tests/regressions.rs`).
//!
//! Each takes any bytes and must return; a panic, abort, hang or oversized
//! allocation inside is the bug being hunted. The leading bytes of an input
//! choose what to exercise (a decoder, a codec, a bit width), so one target
//! covers a whole layer.

use bytes::Bytes;
use pq_encoding as enc;
use pq_encoding::ByteArrayDecode;
use pq_format::{
    ColumnIndex, FileMetaData, Limits, OffsetIndex, PageHeader, ParquetMetaData, ThriftDecode,
};

/// A fuzz target: takes any bytes, must return.
pub type Target = fn(&[u8]);

/// Every target, by name, for the replay test and `cargo xtask fuzz`.
pub const TARGETS: &[(&str, Target)] = &[
    ("footer", footer),
    ("thrift", thrift),
    ("encodings", encodings),
    ("decompress", decompress),
    ("page_reader", page_reader),
    ("read_file", read_file),
];

/// A whole file's footer: magic, length, `FileMetaData`, schema tree.
pub fn footer(data: &[u8]) {
    let _ = ParquetMetaData::from_slice(data, &Limits::default());
}

/// Raw Thrift structures: the page header and the page index structures,
/// and `FileMetaData` without the footer framing.
pub fn thrift(data: &[u8]) {
    let limits = Limits::default();
    let _ = PageHeader::decode_prefix(data, &limits);
    let _ = FileMetaData::decode_prefix(data, &limits);
    let _ = ColumnIndex::decode_prefix(data, &limits);
    let _ = OffsetIndex::decode_prefix(data, &limits);
}

/// Values a decoder is asked for per call; several calls drain the input.
const CHUNK: usize = 1024;
/// Calls per decoder at most, so a decoder that never ends is caught as a
/// hang rather than looping forever.
const MAX_CALLS: usize = 1 << 12;

/// Drains `decode` (which returns values produced) until it produces none or errors.
fn drain(mut decode: impl FnMut() -> enc::Result<usize>) {
    for _ in 0..MAX_CALLS {
        match decode() {
            Ok(0) | Err(_) => return,
            Ok(_) => {}
        }
    }
}

/// Every decoder of pq-encoding. Byte 0 picks the decoder, byte 1 its
/// parameter (bit width, type length), the rest is its input.
pub fn encodings(data: &[u8]) {
    let [which, param, input @ ..] = data else {
        return;
    };
    let param = *param;
    let mut offsets: Vec<i32> = Vec::new();
    let mut values: Vec<u8> = Vec::new();
    match which % 20 {
        0 => drain_fixed::<i32>(input),
        1 => drain_fixed::<i64>(input),
        2 => drain_fixed::<f32>(input),
        3 => drain_fixed::<f64>(input),
        4 => drain_fixed::<[u32; 3]>(input),
        5 => {
            let mut d = enc::plain::BooleanDecoder::new(input);
            let mut out = [false; CHUNK];
            drain(|| d.decode(&mut out));
        }
        6 => {
            let mut d = enc::plain::ByteArrayDecoder::new(input);
            drain(|| {
                offsets.clear();
                values.clear();
                d.decode(&mut offsets, &mut values, CHUNK)
            });
        }
        7 => {
            if let Ok(mut d) = enc::plain::FixedLenDecoder::new(input, usize::from(param)) {
                drain(|| {
                    values.clear();
                    d.decode(&mut values, CHUNK)
                });
            }
        }
        8 => {
            if let Ok(mut d) = enc::rle::RleDecoder::new(input, param) {
                let mut out = [0u32; CHUNK];
                drain(|| d.decode(&mut out));
            }
        }
        9 => {
            if let Ok((mut d, _)) = enc::rle::RleDecoder::new_length_prefixed(input, param % 17) {
                let mut out = [0i16; CHUNK];
                drain(|| d.decode(&mut out));
            }
        }
        10 => {
            let n = input.len().min(CHUNK);
            let mut out = vec![0u32; n];
            let _ = enc::bit_pack::unpack_msb(input, usize::from(param), &mut out);
        }
        11 => {
            if let Ok(mut d) = enc::delta_binary_packed::DeltaBitPackDecoder::<i32>::new(input) {
                let mut out = [0i32; CHUNK];
                drain(|| d.decode(&mut out));
            }
        }
        12 => {
            if let Ok(mut d) = enc::delta_binary_packed::DeltaBitPackDecoder::<i64>::new(input) {
                let mut out = [0i64; CHUNK];
                drain(|| d.decode(&mut out));
            }
        }
        13 => {
            if let Ok(mut d) = enc::delta_byte_array::DeltaLengthDecoder::new(input) {
                drain(|| {
                    offsets.clear();
                    values.clear();
                    d.decode(&mut offsets, &mut values, CHUNK)
                });
            }
        }
        14 => {
            if let Ok(mut d) = enc::delta_byte_array::DeltaByteArrayDecoder::new(input) {
                drain(|| {
                    offsets.clear();
                    values.clear();
                    d.decode(&mut offsets, &mut values, CHUNK)
                });
            }
        }
        15 => {
            let widths = [4usize, 8, 4, 8, 1, 2, 3, 16];
            let width = widths[usize::from(param) % widths.len()];
            if let Ok(mut d) = enc::byte_stream_split::ByteStreamSplitDecoder::new(input, width) {
                match width {
                    4 => {
                        let mut out = [0f32; CHUNK];
                        drain(|| d.decode(&mut out));
                    }
                    8 => {
                        let mut out = [0i64; CHUNK];
                        drain(|| d.decode(&mut out));
                    }
                    _ => {}
                }
            }
        }
        16 => {
            let mut d = enc::group_var_int::GroupVarIntDecoder32::new(input);
            let mut out = [0i32; CHUNK];
            drain(|| d.decode(&mut out));
            let mut d = enc::group_var_int::GroupVarIntDecoder64::new(input);
            let mut out = [0i64; CHUNK];
            drain(|| d.decode(&mut out));
        }
        17 => {
            if let Ok(mut d) = enc::alp::AlpDecoder::<f32>::new(input) {
                let mut out = [0f32; CHUNK];
                drain(|| d.decode(&mut out));
            }
        }
        18 => {
            if let Ok(mut d) = enc::alp::AlpDecoder::<f64>::new(input) {
                let mut out = [0f64; CHUNK];
                drain(|| d.decode(&mut out));
            }
        }
        _ => {
            // Dictionary indices gathered from a small dictionary.
            if let Ok(mut d) = enc::dictionary::indices_decoder(input) {
                let dict: Vec<i64> = (0..i64::from(param)).collect();
                let mut idx = [0u32; CHUNK];
                let mut out = Vec::new();
                drain(|| {
                    let n = d.decode(&mut idx)?;
                    out.clear();
                    enc::dictionary::gather(&dict, &idx[..n], &mut out)?;
                    Ok(n)
                });
            }
        }
    }
}

fn drain_fixed<T: enc::plain::FixedWidth + Default + Copy>(input: &[u8]) {
    let mut d = enc::plain::PlainDecoder::<T>::new(input);
    let mut out = [T::default(); CHUNK];
    drain(|| d.decode(&mut out));
}

/// Every codec. Byte 0 picks the codec, bytes 1..4 the declared size (kept
/// under 16 MiB so the fuzzer's memory limit catches only real overuse).
pub fn decompress(data: &[u8]) {
    let [which, a, b, c, input @ ..] = data else {
        return;
    };
    let size = usize::from(*a) | usize::from(*b) << 8 | usize::from(*c & 0xF) << 16;
    let size = size * 16;
    let Ok(codec) = pq_compress::Codec::from_thrift(i32::from(which % 8)) else {
        return;
    };
    let mut out = Vec::new();
    let limits = pq_compress::Limits::default().with_max_uncompressed_size(16 << 20);
    let _ = pq_compress::decompress(codec, input, size, &mut out, &limits);
}

/// The page reader over an arbitrary column chunk. Byte 0 picks the codec,
/// bytes 1 and 2 the max levels, bytes 3..6 the chunk's value count.
pub fn page_reader(data: &[u8]) {
    let [codec, def, rep, n0, n1, n2, chunk @ ..] = data else {
        return;
    };
    let Ok(codec) = pq_compress::Codec::from_thrift(i32::from(codec % 8)) else {
        return;
    };
    let ctx = pq_page::ChunkContext {
        codec,
        num_values: u64::from(*n0) | u64::from(*n1) << 8 | u64::from(*n2) << 16,
        max_def_level: i16::from(def % 8),
        max_rep_level: i16::from(rep % 4),
        file_offset: 0,
        column: "fuzz".into(),
    };
    let options = pq_page::PageOptions::default()
        .with_verify_checksums((codec as u8).is_multiple_of(2))
        .with_compress_limits(pq_compress::Limits::default().with_max_uncompressed_size(16 << 20));
    let mut levels = Vec::new();
    for page in
        pq_page::PageReader::new(Bytes::copy_from_slice(chunk), ctx, &options).take(MAX_CALLS)
    {
        let Ok(pq_page::Page::Data(p)) = page else {
            continue;
        };
        levels.clear();
        let _ = p.rep_levels.decode_into(&mut levels);
        let _ = p.def_levels.decode_into(&mut levels);
    }
}

/// A whole file through the Arrow reader: every batch of every column,
/// with pages, dictionaries and values per page capped at what a fuzzer
/// can get through (16 MiB, 1 Mi values).
///
/// A real page may hold 1 GiB (the corpus has one), which takes the reader
/// a minute to decompress under the sanitizer: libFuzzer calls that a
/// timeout although the file justifies it, and stops. With the caps such
/// inputs end in a limit error at once and the fuzzer's time goes to the
/// decoding paths. [`read_bytes`] keeps the reader's defaults.
///
/// Inputs of odd length are read on two decoding threads, so the sanitizer
/// also watches the shared tasks and the buffers coming back to the pool
/// from another thread.
pub fn read_file(data: &[u8]) {
    let options = pq_page::PageOptions::default()
        .with_compress_limits(pq_compress::Limits::default().with_max_uncompressed_size(16 << 20))
        .with_max_dictionary_size(16 << 20)
        .with_max_page_values(1 << 20);
    let threads = 1 + data.len() % 2;
    read_bytes_with(Bytes::copy_from_slice(data), Some(options), threads);
}

/// [`read_file`] over bytes the caller already holds, without a copy, with
/// the reader's default limits.
pub fn read_bytes(data: Bytes) {
    read_bytes_with(data, None, 1);
}

fn read_bytes_with(data: Bytes, options: Option<pq_page::PageOptions>, threads: usize) {
    let Ok(mut reader) = pq_arrow::ParquetReader::from_bytes(data) else {
        return;
    };
    if let Some(options) = options {
        reader = reader.with_page_options(options);
    }
    let Ok(batches) = reader.with_batch_size(1024).with_threads(threads).build() else {
        return;
    };
    for batch in batches.take(MAX_CALLS) {
        if batch.is_err() {
            return;
        }
    }
}
