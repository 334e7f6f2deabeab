//! The [`Codec`] enum and its mapping to Parquet's Thrift `CompressionCodec`.

use std::fmt;

use crate::{Error, Result};

/// A Parquet compression codec.
///
/// The discriminants are the values of the Parquet Thrift enum
/// `CompressionCodec`, so upper layers map between the two with
/// [`Codec::from_thrift`] and [`Codec::thrift_id`].
///
/// ```
/// use pq_compress::Codec;
///
/// assert_eq!(Codec::from_thrift(6)?, Codec::Zstd);
/// assert_eq!(Codec::Lz4Raw.thrift_id(), 7);
/// assert_eq!(Codec::Gzip.to_string(), "GZIP");
/// # Ok::<(), pq_compress::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Codec {
    /// `UNCOMPRESSED` (0): the body is the data.
    Uncompressed = 0,
    /// `SNAPPY` (1): raw Snappy (no framing).
    Snappy = 1,
    /// `GZIP` (2): gzip, possibly several concatenated members.
    Gzip = 2,
    /// `LZO` (3): not supported by this crate.
    Lzo = 3,
    /// `BROTLI` (4).
    Brotli = 4,
    /// `LZ4` (5): deprecated; the Hadoop LZ4 framing, with fallbacks.
    Lz4 = 5,
    /// `ZSTD` (6): one or more zstd frames.
    Zstd = 6,
    /// `LZ4_RAW` (7): one raw LZ4 block.
    Lz4Raw = 7,
}

impl Codec {
    /// Every codec, in Thrift order.
    ///
    /// ```
    /// use pq_compress::Codec;
    ///
    /// assert_eq!(Codec::ALL.len(), 8);
    /// for (i, c) in Codec::ALL.iter().enumerate() {
    ///     assert_eq!(c.thrift_id(), i as i32);
    /// }
    /// ```
    pub const ALL: [Codec; 8] = [
        Codec::Uncompressed,
        Codec::Snappy,
        Codec::Gzip,
        Codec::Lzo,
        Codec::Brotli,
        Codec::Lz4,
        Codec::Zstd,
        Codec::Lz4Raw,
    ];

    /// Maps a Thrift `CompressionCodec` value to a codec.
    ///
    /// Unknown values give [`Error::UnknownCodec`].
    ///
    /// ```
    /// use pq_compress::{Codec, Error};
    ///
    /// assert_eq!(Codec::from_thrift(1)?, Codec::Snappy);
    /// assert!(matches!(Codec::from_thrift(42), Err(Error::UnknownCodec(42))));
    /// # Ok::<(), Error>(())
    /// ```
    pub fn from_thrift(value: i32) -> Result<Codec> {
        Ok(match value {
            0 => Codec::Uncompressed,
            1 => Codec::Snappy,
            2 => Codec::Gzip,
            3 => Codec::Lzo,
            4 => Codec::Brotli,
            5 => Codec::Lz4,
            6 => Codec::Zstd,
            7 => Codec::Lz4Raw,
            other => return Err(Error::UnknownCodec(other)),
        })
    }

    /// The Thrift `CompressionCodec` value of this codec.
    ///
    /// ```
    /// use pq_compress::Codec;
    ///
    /// assert_eq!(Codec::Uncompressed.thrift_id(), 0);
    /// assert_eq!(Codec::Brotli.thrift_id(), 4);
    /// ```
    pub fn thrift_id(self) -> i32 {
        self as i32
    }

    /// The codec's name as the Parquet specification spells it.
    ///
    /// ```
    /// use pq_compress::Codec;
    ///
    /// assert_eq!(Codec::Lz4Raw.name(), "LZ4_RAW");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            Codec::Uncompressed => "UNCOMPRESSED",
            Codec::Snappy => "SNAPPY",
            Codec::Gzip => "GZIP",
            Codec::Lzo => "LZO",
            Codec::Brotli => "BROTLI",
            Codec::Lz4 => "LZ4",
            Codec::Zstd => "ZSTD",
            Codec::Lz4Raw => "LZ4_RAW",
        }
    }

    /// The cargo feature of this crate that provides the codec, if one is
    /// needed (`None` for `UNCOMPRESSED` and `LZO`).
    ///
    /// ```
    /// use pq_compress::Codec;
    ///
    /// assert_eq!(Codec::Lz4Raw.cargo_feature(), Some("lz4"));
    /// assert_eq!(Codec::Uncompressed.cargo_feature(), None);
    /// ```
    pub fn cargo_feature(self) -> Option<&'static str> {
        match self {
            Codec::Uncompressed | Codec::Lzo => None,
            Codec::Snappy => Some("snappy"),
            Codec::Gzip => Some("gzip"),
            Codec::Brotli => Some("brotli"),
            Codec::Lz4 | Codec::Lz4Raw => Some("lz4"),
            Codec::Zstd => Some("zstd"),
        }
    }

    /// Whether this build can compress and decompress the codec: `false` for
    /// `LZO` and for codecs whose cargo feature is disabled.
    ///
    /// ```
    /// use pq_compress::Codec;
    ///
    /// assert!(Codec::Uncompressed.is_available());
    /// assert!(!Codec::Lzo.is_available());
    /// ```
    pub fn is_available(self) -> bool {
        match self {
            Codec::Uncompressed => true,
            Codec::Lzo => false,
            Codec::Snappy => cfg!(feature = "snappy"),
            Codec::Gzip => cfg!(feature = "gzip"),
            Codec::Brotli => cfg!(feature = "brotli"),
            Codec::Lz4 | Codec::Lz4Raw => cfg!(feature = "lz4"),
            Codec::Zstd => cfg!(feature = "zstd"),
        }
    }

    /// The accepted compression levels `(min, max)` and the level used when
    /// none is given, or `None` if the codec takes no level.
    ///
    /// | codec | range | default |
    /// |---|---|---|
    /// | GZIP | 0..=9 | 6 |
    /// | BROTLI | 0..=11 | 1 |
    /// | ZSTD | -131072..=22 (what libzstd reports) | 1 |
    /// | others | no level | |
    ///
    /// The defaults follow arrow-rs's parquet writer, favouring speed.
    ///
    /// ```
    /// use pq_compress::Codec;
    ///
    /// assert_eq!(Codec::Gzip.levels(), Some(((0, 9), 6)));
    /// assert_eq!(Codec::Snappy.levels(), None);
    /// ```
    pub fn levels(self) -> Option<((i32, i32), i32)> {
        match self {
            Codec::Gzip => Some(((0, 9), 6)),
            Codec::Brotli => Some(((0, 11), 1)),
            Codec::Zstd => Some((zstd_range(), 1)),
            _ => None,
        }
    }

    /// The level [`compress`](crate::compress) uses for `level`: the one
    /// given if in [`levels`](Self::levels)' range, else the default (0 for
    /// codecs without levels, where it is ignored). A level outside the
    /// range is [`Error::InvalidLevel`](crate::Error::InvalidLevel); one
    /// given to a codec without levels is
    /// [`Error::LevelNotSupported`](crate::Error::LevelNotSupported).
    /// Callers check a level from a user here before any data is written.
    ///
    /// ```
    /// use pq_compress::{Codec, Error};
    ///
    /// assert_eq!(Codec::Gzip.check_level(None).unwrap(), 6);
    /// assert_eq!(Codec::Gzip.check_level(Some(9)).unwrap(), 9);
    /// assert!(matches!(Codec::Gzip.check_level(Some(10)), Err(Error::InvalidLevel { max: 9, .. })));
    /// assert!(matches!(Codec::Snappy.check_level(Some(1)), Err(Error::LevelNotSupported { .. })));
    /// ```
    pub fn check_level(self, level: Option<i32>) -> crate::Result<i32> {
        use crate::Error;
        match (self.levels(), level) {
            (None, None) => Ok(0),
            (None, Some(level)) => Err(Error::LevelNotSupported { codec: self, level }),
            (Some((_, default)), None) => Ok(default),
            (Some(((min, max), _)), Some(level)) if (min..=max).contains(&level) => Ok(level),
            (Some(((min, max), _)), Some(level)) => Err(Error::InvalidLevel {
                codec: self,
                level,
                min,
                max,
            }),
        }
    }
}

#[cfg(feature = "zstd")]
fn zstd_range() -> (i32, i32) {
    let r = zstd::compression_level_range();
    (*r.start(), *r.end())
}

#[cfg(not(feature = "zstd"))]
fn zstd_range() -> (i32, i32) {
    (-131_072, 22)
}

impl fmt::Display for Codec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl TryFrom<i32> for Codec {
    type Error = Error;

    /// Same as [`Codec::from_thrift`].
    fn try_from(value: i32) -> Result<Codec> {
        Codec::from_thrift(value)
    }
}

impl From<Codec> for i32 {
    /// Same as [`Codec::thrift_id`].
    fn from(codec: Codec) -> i32 {
        codec.thrift_id()
    }
}
