//! Every Parquet value encoding, in both directions.
//!
//! This is the bottom layer of pq. It turns encoded bytes into values and
//! values into encoded bytes, and nothing else: it knows nothing of Thrift,
//! files, IO, compression or Arrow. It is `#![no_std]` with `alloc`; the
//! default `std` feature only adds `std::error::Error` impls and runtime CPU
//! feature detection.
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
pub mod varint;

pub use error::{Error, Result};
pub use offsets::OffsetSize;
