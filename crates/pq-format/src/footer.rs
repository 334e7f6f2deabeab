//! Locating and decoding the footer of a Parquet file.
//!
//! A Parquet file is `PAR1 <data> <FileMetaData> <len: u32 le> PAR1`. The
//! functions here check both magic numbers, read the metadata length, decode
//! the `FileMetaData` and refuse encrypted files.

use std::io::{Read, Seek, SeekFrom};
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

/// Locate the metadata in a whole file held in memory: its byte range.
fn locate(file: &[u8], limits: &Limits) -> Result<std::ops::Range<usize>> {
    let file_len = file.len() as u64;
    let (Some(head), Some(tail)) = (
        file.first_chunk::<4>(),
        file.last_chunk::<FOOTER_TAIL_LEN>(),
    ) else {
        return Err(FormatError::FileTooShort { len: file_len });
    };
    let len = parse_footer_tail(tail, file_len, limits)?;
    check_head(*head)?;
    // `parse_footer_tail` checked `len <= file.len() - 12`.
    let end = file.len() - FOOTER_TAIL_LEN;
    Ok(end - len..end)
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
    let range = locate(file, limits)?;
    let start = range.start as u64;
    decode_metadata_bytes(&file.slice(range), start, limits)
}

/// Decode the metadata of a whole Parquet file held in a slice (binary
/// values are copied).
///
/// ```
/// let err = pq_format::read_metadata_from_slice(b"PAR1", &Default::default()).unwrap_err();
/// assert!(err.to_string().contains("shorter than the 12 bytes"));
/// ```
pub fn read_metadata_from_slice(file: &[u8], limits: &Limits) -> Result<FileMetaData> {
    let range = locate(file, limits)?;
    let start = range.start as u64;
    let buf = file.get(range).ok_or(FormatError::FileTooShort {
        len: file.len() as u64,
    })?;
    decode_metadata(buf, start, limits)
}

/// Decode the metadata of a file through `Read + Seek`, reading only the
/// magic at the start and the footer (never the whole file).
pub fn read_metadata<R: Read + Seek>(reader: &mut R, limits: &Limits) -> Result<FileMetaData> {
    let file_len = reader.seek(SeekFrom::End(0))?;
    if file_len < 12 {
        return Err(FormatError::FileTooShort { len: file_len });
    }
    let mut tail = [0u8; FOOTER_TAIL_LEN];
    reader.seek(SeekFrom::Start(file_len - FOOTER_TAIL_LEN as u64))?;
    reader.read_exact(&mut tail)?;
    let len = parse_footer_tail(&tail, file_len, limits)?;
    let mut head = [0u8; 4];
    reader.seek(SeekFrom::Start(0))?;
    reader.read_exact(&mut head)?;
    check_head(head)?;
    let start = file_len - FOOTER_TAIL_LEN as u64 - len as u64;
    reader.seek(SeekFrom::Start(start))?;
    let mut buf = vec![0u8; len];
    reader.read_exact(&mut buf)?;
    decode_metadata_bytes(&Bytes::from(buf), start, limits)
}

/// Decode the metadata of the file at `path`, reading only its footer.
pub fn read_metadata_from_path(path: impl AsRef<Path>, limits: &Limits) -> Result<FileMetaData> {
    let mut f = std::fs::File::open(path)?;
    read_metadata(&mut f, limits)
}
