//! Every Parquet value encoding, in both directions.
//!
//! This is the bottom layer of pq. It turns encoded bytes into values and
//! values into encoded bytes, and nothing else: it knows nothing of Thrift,
//! files, IO, compression or Arrow. It is `#![no_std]` with `alloc`; the
//! default `std` feature only adds `std::error::Error` impls and runtime CPU
//! feature detection.
//!
//! # Map
//!
//! | Encoding | Module | Decode | Encode |
//! |---|---|---|---|
//! | PLAIN (all types; INT96 as `[u32; 3]`) | [`plain`] | [`plain::PlainDecoder`], [`plain::BooleanDecoder`], [`plain::ByteArrayDecoder`], [`plain::FixedLenDecoder`] | [`plain::encode`], [`plain::encode_bool`], [`plain::encode_byte_array`] |
//! | RLE / bit-packing hybrid (levels, indices, booleans) | [`rle`] | [`rle::RleDecoder`] | [`rle::encode`], [`rle::encode_length_prefixed`] |
//! | BIT_PACKED (deprecated, MSB first) | [`bit_pack`] | [`bit_pack::unpack_msb`] | [`bit_pack::pack_msb`] |
//! | Dictionary (PLAIN_DICTIONARY, RLE_DICTIONARY) | [`dictionary`] | [`dictionary::indices_decoder`], [`dictionary::gather`], [`dictionary::gather_byte_array`], [`dictionary::gather_fixed`] | [`dictionary::FixedDict`], [`dictionary::BytesDict`] |
//! | DELTA_BINARY_PACKED | [`delta_binary_packed`] | [`delta_binary_packed::DeltaBitPackDecoder`] | [`delta_binary_packed::DeltaBitPackEncoder`] |
//! | DELTA_LENGTH_BYTE_ARRAY, DELTA_BYTE_ARRAY | [`delta_byte_array`] | [`delta_byte_array::DeltaLengthDecoder`], [`delta_byte_array::DeltaByteArrayDecoder`] | [`delta_byte_array::encode_delta_length`], [`delta_byte_array::encode_delta_byte_array`] |
//! | BYTE_STREAM_SPLIT | [`byte_stream_split`] | [`byte_stream_split::ByteStreamSplitDecoder`] | [`byte_stream_split::encode`], [`byte_stream_split::encode_bytes`] |
//! | GROUP_VAR_INT (early drafts) | [`group_var_int`] | [`group_var_int::GroupVarIntDecoder32`], [`group_var_int::GroupVarIntDecoder64`] | [`group_var_int::encode_i32`], [`group_var_int::encode_i64`] |
//! | ALP (preview) | [`alp`] | [`alp::AlpDecoder`] | [`alp::encode`] |
//!
//! # Conventions
//!
//! * Decoders borrow the page body and stream: `decode(&mut [T]) ->
//!   Result<usize>` fills a caller buffer (fewer values only at the end of
//!   the data), `decode_into(&mut Vec<T>, n)` appends exactly `n` or fails,
//!   `skip(n)` skips.
//! * Byte-array decoders append to an Arrow offsets + values pair
//!   (`Vec<O>` with `O` = `i32` or `i64`, see [`OffsetSize`], and `Vec<u8>`),
//!   pushing the leading `0`-th offset when the offsets vector is empty, with
//!   no allocation per value. FIXED_LEN_BYTE_ARRAY decoders append to one
//!   flat `Vec<u8>`.
//! * Encoders append to a `Vec<u8>`.
//! * Every failure is an [`Error`]; no input makes a decoder panic, and
//!   counts and lengths are checked against the bytes that remain before
//!   anything is allocated for them.
//!
//! ```
//! use pq_encoding::{rle, dictionary};
//! // Definition levels of a data page v2 (no length prefix), into i16.
//! let mut page = Vec::new();
//! rle::encode(&[1i16, 1, 0, 1, 1, 1, 1, 1, 1, 1], 1, &mut page);
//! let mut levels = [0i16; 10];
//! rle::RleDecoder::new(&page, 1).unwrap().decode(&mut levels).unwrap();
//! assert_eq!(levels.iter().filter(|&&l| l == 1).count(), 9);
//! # let _ = dictionary::gather::<i32>(&[], &[], &mut Vec::new());
//! ```
//!
//! # CPU features
//!
//! Only the BYTE_STREAM_SPLIT transposes use SIMD intrinsics; everything else
//! is portable code the compiler vectorises. On x86_64 the transposes use
//! SSE2, which every x86_64 CPU has, and for 8-byte values AVX2 when it is
//! available: with the `std` feature that is detected at run time
//! (`std::is_x86_feature_detected!`, which caches its answer), without it
//! only when the build enables AVX2 (`-C target-feature=+avx2`, or a
//! `target-cpu` that has it). Other targets use a portable 8 × 8 byte
//! transpose. All paths give identical bytes; the portable one also finishes
//! the values a SIMD kernel leaves over.
//!
//! Dev-dependencies only: `parquet` (arrow-rs, with `experimental` for its
//! raw decoders) for cross-checks and benchmarks, `bytes` to hand it
//! in-memory files, `proptest`, `criterion`.
#![no_std]
#![cfg_attr(test, allow(clippy::unwrap_used, clippy::expect_used))]

#[cfg(feature = "std")]
extern crate std;

extern crate alloc;

pub mod alp;
pub mod bit_pack;
pub mod byte_stream_split;
pub mod delta_binary_packed;
pub mod delta_byte_array;
pub mod dictionary;
pub mod error;
pub mod group_var_int;
pub mod offsets;
pub mod plain;
pub mod rle;
mod stream;
mod transpose;
pub mod varint;

pub use error::{Error, Result};
pub use offsets::{ByteArrayDecode, OffsetSize};
