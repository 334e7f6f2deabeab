//! Locating and decoding the footer of a Parquet file.
//!
//! A Parquet file is `PAR1 <data> <FileMetaData> <len: u32 le> PAR1`. The
//! functions here check both magic numbers, read the metadata length, decode
//! the `FileMetaData` and refuse encrypted files.
//!
//! [`FooterDecoder`] does so without IO: it says which byte ranges it needs
//! and is given them; the `read_metadata*` functions are loops over it.

use std::io::{Read, Seek, SeekFrom};
use std::ops::Range;
use std::path::Path;

use bytes::Bytes;

use crate::compact::{CompactReader, ThriftDecode};
use crate::error::{FileEnd, FormatError, Result};
use crate::{FileMetaData, Limits};

/// The magic number at both ends of a plaintext Parquet file.
pub const MAGIC: [u8; 4] = *b"PAR1";
/// The magic number at both ends of a file with an encrypted footer.
pub const ENCRYPTED_MAGIC: [u8; 4] = *b"PARE";
/// Length of the footer tail: metadata length and magic.
pub const FOOTER_TAIL_LEN: usize = 8;

/// Check the last 8 bytes of a file of `file_len` bytes and return the
/// metadata length they declare, checked against the file and the limits.
///
/// Useful to readers that fetch the footer themselves (e.g. over a network):
/// fetch the last 8 bytes, call this, fetch the metadata, call
/// [`decode_metadata`].
///
/// ```
/// let mut tail = [0u8; 8];
/// tail[..4].copy_from_slice(&100u32.to_le_bytes());
/// tail[4..].copy_from_slice(b"PAR1");
/// assert_eq!(pq_format::parse_footer_tail(&tail, 1000, &Default::default()).unwrap(), 100);
/// assert!(pq_format::parse_footer_tail(&tail, 50, &Default::default()).is_err());
/// ```
pub fn parse_footer_tail(tail: &[u8; 8], file_len: u64, limits: &Limits) -> Result<usize> {
    if file_len < 12 {
        return Err(FormatError::FileTooShort { len: file_len });
    }
    let [l0, l1, l2, l3, m0, m1, m2, m3] = *tail;
    let magic = [m0, m1, m2, m3];
    if magic == ENCRYPTED_MAGIC {
        return Err(FormatError::Encrypted {
            detail: "encrypted footer, magic \"PARE\"",
        });
    }
    if magic != MAGIC {
        return Err(FormatError::BadMagic {
            end: FileEnd::End,
            found: magic,
        });
    }
    let len = u64::from(u32::from_le_bytes([l0, l1, l2, l3]));
    let available = file_len - 12;
    if len > available {
        return Err(FormatError::MetadataBeyondFile { len, available });
    }
    if len > limits.max_metadata_size as u64 {
        return Err(FormatError::MetadataTooLarge {
            len,
            limit: limits.max_metadata_size as u64,
        });
    }
    usize::try_from(len).map_err(|_| FormatError::MetadataTooLarge {
        len,
        limit: limits.max_metadata_size as u64,
    })
}

fn check_head(head: [u8; 4]) -> Result<()> {
    if head == MAGIC {
        Ok(())
    } else if head == ENCRYPTED_MAGIC {
        Err(FormatError::Encrypted {
            detail: "encrypted footer, magic \"PARE\"",
        })
    } else {
        Err(FormatError::BadMagic {
            end: FileEnd::Start,
            found: head,
        })
    }
}

/// Decode serialized `FileMetaData` (just the Thrift bytes) and refuse
/// encrypted files. `file_offset` is where `buf` starts in the file, so that
/// errors report file offsets.
///
/// ```
/// use pq_format::{FileMetaData, SchemaElement, ThriftEncode};
/// let md = FileMetaData {
///     version: 2,
///     schema: vec![SchemaElement { name: "root".into(), num_children: Some(0), ..Default::default() }],
///     ..Default::default()
/// };
/// let back = pq_format::decode_metadata(&md.encode(), 0, &Default::default()).unwrap();
/// assert_eq!(back, md);
/// ```
pub fn decode_metadata(buf: &[u8], file_offset: u64, limits: &Limits) -> Result<FileMetaData> {
    decode_with(CompactReader::with_limits(buf, limits), file_offset)
}

/// Like [`decode_metadata`], with `binary` values (statistics, ...) as
/// zero-copy slices of `buf`.
pub fn decode_metadata_bytes(
    buf: &Bytes,
    file_offset: u64,
    limits: &Limits,
) -> Result<FileMetaData> {
    decode_with(CompactReader::with_bytes(buf, limits), file_offset)
}

fn decode_with(mut r: CompactReader<'_>, file_offset: u64) -> Result<FileMetaData> {
    let md = FileMetaData::read_from(&mut r).map_err(|source| FormatError::Thrift {
        offset: file_offset + source.offset() as u64,
        source,
    })?;
    check_not_encrypted(&md)?;
    Ok(md)
}

/// Fail with [`FormatError::Encrypted`] if the metadata describes an
/// encrypted file (an encryption algorithm, or columns with crypto metadata).
pub fn check_not_encrypted(md: &FileMetaData) -> Result<()> {
    if md.encryption_algorithm.is_some() || md.footer_signing_key_metadata.is_some() {
        return Err(FormatError::Encrypted {
            detail: "plaintext footer with an encryption algorithm",
        });
    }
    let encrypted_column = md
        .row_groups
        .iter()
        .any(|rg| rg.columns.iter().any(crate::ColumnChunk::is_encrypted));
    if encrypted_column {
        return Err(FormatError::Encrypted {
            detail: "encrypted columns",
        });
    }
    Ok(())
}

/// Bytes of the file's end a [`FooterDecoder`] asks for first, by
/// default: 64 KiB, which holds the footer of most files, so that one read
/// is enough.
pub const DEFAULT_FOOTER_PREFETCH: u64 = 64 << 10;

/// What [`FooterDecoder::try_decode`] found.
#[derive(Debug)]
pub enum FooterStep {
    /// Push these byte ranges of the file (absolute offsets, in order),
    /// then call [`FooterDecoder::try_decode`] again.
    NeedsData(Vec<Range<u64>>),
    /// The decoded metadata (boxed: it is large next to a request).
    Metadata(Box<FileMetaData>),
}

/// Decodes a file's footer without performing IO: it asks for byte
/// ranges and is given them.
///
/// The first request is for the magic at the start of the file and a
/// speculative read of its end ([`DEFAULT_FOOTER_PREFETCH`] bytes, or
/// [`with_prefetch`](Self::with_prefetch)), merged into one range when they
/// touch; only when the metadata is longer than that read is there a second
/// request, for exactly the rest of the metadata. The checks and errors
/// are those of [`read_metadata`]: the file's length, the footer's magic and
/// metadata length (against the file and [`Limits::max_metadata_size`]), the
/// leading magic, then the metadata itself.
///
/// ```
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// use pq_format::{FooterDecoder, FooterStep};
/// let file = bytes::Bytes::from(std::fs::read(concat!(
///     env!("CARGO_MANIFEST_DIR"),
///     "/../../data/sample.parquet"
/// ))?);
/// let mut decoder = FooterDecoder::new(file.len() as u64, &Default::default());
/// let mut requests = 0;
/// let metadata = loop {
///     match decoder.try_decode()? {
///         FooterStep::NeedsData(ranges) => {
///             requests += 1;
///             for r in ranges {
///                 let data = file.slice(r.start as usize..r.end as usize);
///                 decoder.push_range(r, data)?;
///             }
///         }
///         FooterStep::Metadata(m) => break m,
///     }
/// };
/// assert_eq!(requests, 1);
/// assert!(metadata.num_rows > 0);
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone)]
pub struct FooterDecoder {
    file_len: u64,
    limits: Limits,
    prefetch: u64,
    /// Whether the magic at the start of the file is read and checked.
    check_head: bool,
    head: Option<[u8; 4]>,
    /// Bytes from this offset to the end of the file.
    tail: Option<(u64, Bytes)>,
    /// The metadata's range, once the footer's length is read.
    metadata_range: Option<Range<u64>>,
    /// Bytes covering the metadata, when the tail did not.
    metadata: Option<(u64, Bytes)>,
}

impl FooterDecoder {
    /// A decoder of the footer of a file of `file_len` bytes.
    pub fn new(file_len: u64, limits: &Limits) -> Self {
        FooterDecoder {
            file_len,
            limits: limits.clone(),
            prefetch: DEFAULT_FOOTER_PREFETCH,
            check_head: true,
            head: None,
            tail: None,
            metadata_range: None,
            metadata: None,
        }
    }

    /// Asks first for the last `bytes` bytes of the file (at least the 8 of
    /// the footer's tail) instead of [`DEFAULT_FOOTER_PREFETCH`].
    pub fn with_prefetch(mut self, bytes: u64) -> Self {
        self.prefetch = bytes.max(FOOTER_TAIL_LEN as u64);
        self
    }

    /// Whether to read and check the magic at the start of the file
    /// (default yes). Without it, a file whose footer ends within the
    /// prefetch is read in one request, not two, where each request costs a
    /// round trip (an object store); the footer's own magic, lengths and
    /// metadata are checked all the same.
    pub fn with_head_check(mut self, check: bool) -> Self {
        self.check_head = check;
        self
    }

    /// Gives the decoder the bytes `range` of the file. Bytes that cover
    /// nothing it needs are ignored; `data` must be as long as `range`.
    pub fn push_range(&mut self, range: Range<u64>, data: Bytes) -> Result<()> {
        if range.end.saturating_sub(range.start) != data.len() as u64 || range.end > self.file_len {
            return Err(FormatError::Io(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                format!(
                    "{} bytes pushed for the range {}..{} of a file of {} bytes",
                    data.len(),
                    range.start,
                    range.end,
                    self.file_len
                ),
            )));
        }
        if range.start == 0
            && let Some(head) = data.first_chunk::<4>()
        {
            self.head = Some(*head);
        }
        if range.end == self.file_len
            && data.len() >= FOOTER_TAIL_LEN
            && self.tail.as_ref().is_none_or(|(s, _)| range.start < *s)
        {
            self.tail = Some((range.start, data.clone()));
        }
        if let Some(m) = &self.metadata_range
            && range.start <= m.start
            && range.end >= m.end
        {
            self.metadata = Some((range.start, data));
        }
        Ok(())
    }

    /// The decoded metadata, or the byte ranges still needed.
    pub fn try_decode(&mut self) -> Result<FooterStep> {
        let file_len = self.file_len;
        if file_len < 12 {
            return Err(FormatError::FileTooShort { len: file_len });
        }
        let head = match self.head {
            Some(h) => Some(h),
            None if !self.check_head => Some(MAGIC),
            None => None,
        };
        let (Some(head), Some((tail_start, tail))) = (head, &self.tail) else {
            let tail_start = file_len.saturating_sub(self.prefetch);
            let mut ranges = Vec::with_capacity(2);
            match (head.is_none(), self.tail.is_none()) {
                // The head and the tail read touch: one read.
                (true, true) if tail_start <= 4 => ranges.push(0..file_len),
                (need_head, need_tail) => {
                    if need_head {
                        ranges.push(0..4);
                    }
                    if need_tail {
                        ranges.push(tail_start..file_len);
                    }
                }
            }
            return Ok(FooterStep::NeedsData(ranges));
        };
        let tail_start = *tail_start;
        let Some(last) = tail.last_chunk::<FOOTER_TAIL_LEN>() else {
            return Err(FormatError::FileTooShort { len: file_len });
        };
        let len = parse_footer_tail(last, file_len, &self.limits)?;
        check_head(head)?;
        // `parse_footer_tail` checked `len <= file_len - 12`.
        let end = file_len - FOOTER_TAIL_LEN as u64;
        let start = end - len as u64;
        let held = if start >= tail_start {
            Some((tail_start, tail))
        } else {
            self.metadata_range = Some(start..end);
            self.metadata
                .as_ref()
                .filter(|(at, d)| *at <= start && at + d.len() as u64 >= end)
                .map(|(at, d)| (*at, d))
        };
        let Some((at, data)) = held else {
            return Ok(FooterStep::NeedsData(std::iter::once(start..end).collect()));
        };
        let from = usize::try_from(start - at).unwrap_or(usize::MAX);
        let Some(to) = from.checked_add(len).filter(|&t| t <= data.len()) else {
            return Ok(FooterStep::NeedsData(std::iter::once(start..end).collect()));
        };
        let buf = data.slice(from..to);
        decode_metadata_bytes(&buf, start, &self.limits).map(|m| FooterStep::Metadata(Box::new(m)))
    }
}

/// Runs `decoder` to the end, reading each range it asks for with `read`.
fn drive(
    mut decoder: FooterDecoder,
    mut read: impl FnMut(Range<u64>) -> Result<Bytes>,
) -> Result<FileMetaData> {
    loop {
        match decoder.try_decode()? {
            FooterStep::NeedsData(ranges) => {
                for r in ranges {
                    let data = read(r.clone())?;
                    decoder.push_range(r, data)?;
                }
            }
            FooterStep::Metadata(m) => return Ok(*m),
        }
    }
}

/// The bytes `range` of a file held in memory (the decoder asking checked
/// the range against the file's length).
fn slice_of(file: &[u8], range: Range<u64>) -> Result<&[u8]> {
    let (Ok(start), Ok(end)) = (usize::try_from(range.start), usize::try_from(range.end)) else {
        return Err(FormatError::FileTooShort {
            len: file.len() as u64,
        });
    };
    file.get(start..end).ok_or(FormatError::FileTooShort {
        len: file.len() as u64,
    })
}

/// Decode the metadata of a whole Parquet file held in [`Bytes`]; binary
/// values are zero-copy slices of `file`.
///
/// ```
/// let file = bytes::Bytes::from_static(b"PAR1 not parquet");
/// let err = pq_format::read_metadata_from_bytes(&file, &Default::default()).unwrap_err();
/// assert!(err.to_string().contains("bad magic at the end"));
/// ```
pub fn read_metadata_from_bytes(file: &Bytes, limits: &Limits) -> Result<FileMetaData> {
    // The whole file is at hand: one "read" of all of it, sliced.
    let len = file.len() as u64;
    drive(FooterDecoder::new(len, limits).with_prefetch(len), |r| {
        slice_of(file, r.clone())?;
        Ok(file.slice(r.start as usize..r.end as usize))
    })
}

/// Decode the metadata of a whole Parquet file held in a slice (binary
/// values are copied).
///
/// ```
/// let err = pq_format::read_metadata_from_slice(b"PAR1", &Default::default()).unwrap_err();
/// assert!(err.to_string().contains("shorter than the 12 bytes"));
/// ```
pub fn read_metadata_from_slice(file: &[u8], limits: &Limits) -> Result<FileMetaData> {
    drive(FooterDecoder::new(file.len() as u64, limits), |r| {
        slice_of(file, r).map(Bytes::copy_from_slice)
    })
}

/// Decode the metadata of a file through `Read + Seek`, reading only the
/// magic at the start and the footer (never the whole file), and nothing
/// more: the 8 bytes of the footer's tail, then exactly the metadata. A
/// seek costs little here, so no speculative read is made (that is for
/// sources where a request costs more: [`FooterDecoder`]).
pub fn read_metadata<R: Read + Seek>(reader: &mut R, limits: &Limits) -> Result<FileMetaData> {
    let file_len = reader.seek(SeekFrom::End(0))?;
    let decoder = FooterDecoder::new(file_len, limits).with_prefetch(FOOTER_TAIL_LEN as u64);
    drive(decoder, |r| {
        reader.seek(SeekFrom::Start(r.start))?;
        let len = usize::try_from(r.end - r.start).unwrap_or(usize::MAX);
        let mut buf = vec![0u8; len];
        reader.read_exact(&mut buf)?;
        Ok(Bytes::from(buf))
    })
}

/// Decode the metadata of the file at `path`, reading only its footer.
pub fn read_metadata_from_path(path: impl AsRef<Path>, limits: &Limits) -> Result<FileMetaData> {
    let mut f = std::fs::File::open(path)?;
    read_metadata(&mut f, limits)
}
