//! Repetition and definition levels of one data page.

use bytes::Bytes;
use pq_encoding::rle::RleDecoder;

/// How a page's levels are encoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LevelEncoding {
    /// The RLE / bit-packing hybrid (the length prefix already removed).
    Rle,
    /// The deprecated MSB-first BIT_PACKED encoding (data page v1 only).
    BitPacked,
}

/// The encoded repetition or definition levels of one data page.
///
/// Levels of a column whose max level is 0 are absent from the page; they
/// decode as all zeros.
#[derive(Debug, Clone)]
pub struct Levels {
    bytes: Bytes,
    encoding: LevelEncoding,
    max_level: i16,
    num_values: usize,
}

/// The number of bits a level up to `max_level` takes.
pub fn bit_width(max_level: i16) -> u8 {
    // A level is never negative; 0 needs no bits.
    let max = u16::try_from(max_level).unwrap_or(0);
    (16 - max.leading_zeros()) as u8
}

impl Levels {
    /// Levels read from `bytes` (without any length prefix).
    pub fn new(bytes: Bytes, encoding: LevelEncoding, max_level: i16, num_values: usize) -> Self {
        Levels {
            bytes,
            encoding,
            max_level,
            num_values,
        }
    }

    /// The highest level the column allows; 0 means the levels are absent.
    pub fn max_level(&self) -> i16 {
        self.max_level
    }

    /// The bit width each level is encoded with.
    pub fn bit_width(&self) -> u8 {
        bit_width(self.max_level)
    }

    /// How the levels are encoded.
    pub fn encoding(&self) -> LevelEncoding {
        self.encoding
    }

    /// The encoded bytes.
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// How many levels the page holds (its `num_values`).
    pub fn len(&self) -> usize {
        self.num_values
    }

    /// Whether the page holds no levels.
    pub fn is_empty(&self) -> bool {
        self.num_values == 0
    }

    /// A streaming decoder over these levels, for decoding in pieces.
    pub fn decoder(&self) -> Result<LevelDecoder<'_>, pq_encoding::Error> {
        LevelDecoder::new(self)
    }

    /// Appends all the page's levels to `out`, checking each is at most the
    /// max level.
    pub fn decode_into(&self, out: &mut Vec<i16>) -> Result<(), pq_encoding::Error> {
        let start = out.len();
        out.resize(start + self.num_values, 0);
        let mut decoder = self.decoder()?;
        decoder.decode(&mut out[start..])?;
        Ok(())
    }
}

/// Decodes a page's levels in pieces, so the reader can go batch by batch.
#[derive(Debug)]
pub struct LevelDecoder<'a> {
    inner: Inner<'a>,
    max_level: i16,
    remaining: usize,
}

#[derive(Debug)]
enum Inner<'a> {
    /// Max level 0: every level is 0.
    Zeros,
    Rle(RleDecoder<'a>),
    BitPacked {
        bytes: &'a [u8],
        done: usize,
    },
}

impl<'a> LevelDecoder<'a> {
    fn new(levels: &'a Levels) -> Result<Self, pq_encoding::Error> {
        let inner = if levels.max_level == 0 {
            Inner::Zeros
        } else {
            match levels.encoding {
                LevelEncoding::Rle => Inner::Rle(
                    RleDecoder::new(&levels.bytes, levels.bit_width())?
                        .with_count(levels.num_values),
                ),
                LevelEncoding::BitPacked => Inner::BitPacked {
                    bytes: &levels.bytes,
                    done: 0,
                },
            }
        };
        Ok(LevelDecoder {
            inner,
            max_level: levels.max_level,
            remaining: levels.num_values,
        })
    }

    /// Levels not yet decoded.
    pub fn remaining(&self) -> usize {
        self.remaining
    }

    /// Fills `out` (up to the levels that remain) and returns how many were
    /// written. Levels above the max level are an error, and so are RLE
    /// runs that do not fit the page: a run longer than the levels that
    /// remain (a last bit-packed group may be padded, up to 7 values), or,
    /// once the last level is decoded, bytes left after the last run.
    pub fn decode(&mut self, out: &mut [i16]) -> Result<usize, pq_encoding::Error> {
        let n = out.len().min(self.remaining);
        let out = &mut out[..n];
        match &mut self.inner {
            Inner::Zeros => out.fill(0),
            Inner::Rle(rle) => {
                let got = rle.decode(out)?;
                if got < n {
                    return Err(pq_encoding::Error::NotEnoughValues {
                        what: "levels",
                        expected: n,
                        found: got,
                    });
                }
            }
            Inner::BitPacked { bytes, done } => {
                // BIT_PACKED is MSB-first across the whole page, so decode
                // from the start of the next value's bit position.
                let width = usize::from(bit_width(self.max_level));
                decode_bit_packed_at(bytes, width, *done, out)?;
                *done += n;
            }
        }
        // One pass with no early exit vectorises; errors are rare.
        let max = out.iter().fold(0i16, |m, &l| m.max(l));
        let min = out.iter().fold(0i16, |m, &l| m.min(l));
        if max > self.max_level || min < 0 {
            let found = if min < 0 { min } else { max };
            return Err(pq_encoding::Error::Invalid {
                what: "level",
                expected: "at most the column's max level",
                found: found.into(),
            });
        }
        self.remaining -= n;
        // The levels' length is known (a v1 length prefix, a v2 declared
        // length): runs left after the page's last level mean the headers
        // and that length disagree.
        if self.remaining == 0
            && let Inner::Rle(rle) = &self.inner
        {
            rle.check_end()?;
        }
        Ok(n)
    }
}

/// MSB-first bit-packed levels starting at value index `first`.
fn decode_bit_packed_at(
    bytes: &[u8],
    width: usize,
    first: usize,
    out: &mut [i16],
) -> Result<(), pq_encoding::Error> {
    let needed_bits = (first + out.len()) * width;
    if needed_bits.div_ceil(8) > bytes.len() {
        return Err(pq_encoding::Error::Eof {
            what: "BIT_PACKED levels",
            expected: needed_bits.div_ceil(8),
            found: bytes.len(),
        });
    }
    let mut bit = first * width;
    for o in out.iter_mut() {
        let mut v = 0i16;
        for _ in 0..width {
            let byte = bytes.get(bit / 8).copied().unwrap_or(0);
            v = (v << 1) | i16::from((byte >> (7 - bit % 8)) & 1);
            bit += 1;
        }
        *o = v;
    }
    Ok(())
}
