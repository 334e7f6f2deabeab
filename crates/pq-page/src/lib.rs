//! The pages of one Parquet column chunk.
//!
//! From the bytes of a column chunk to decompressed pages with their
//! repetition and definition levels split off, checksums verified on request
//! and every header checked against the chunk. This layer knows nothing of
//! Arrow or of how values assemble into records; it does not decode values
//! (that is pq-encoding's work, called by the layer above).
//!
//! One kernel uses a CPU feature: [`Bitmap::extend_selected`] packs bits
//! with BMI2's `pext` on x86_64 when the CPU has it (detected at run
//! time); elsewhere portable code gives the same bits.
//!
//! ```
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use pq_page::{column_chunk_range, ChunkContext, Page, PageOptions, PageReader};
//!
//! let bytes = bytes::Bytes::from(std::fs::read(concat!(
//!     env!("CARGO_MANIFEST_DIR"),
//!     "/../../data/sample.parquet"
//! ))?);
//! let meta = pq_format::read_metadata_from_bytes(&bytes, &pq_format::Limits::default())?;
//! let chunk = &meta.row_groups[0].columns[0];
//! let cmd = chunk.meta_data.as_ref().ok_or("no column metadata")?;
//! let range = column_chunk_range(cmd, bytes.len() as u64, meta.created_by.as_deref())?;
//! let ctx = ChunkContext {
//!     codec: pq_compress::Codec::from_thrift(cmd.codec.0)?,
//!     num_values: cmd.num_values as u64,
//!     max_def_level: 0,
//!     max_rep_level: 0,
//!     file_offset: range.start,
//!     column: cmd.path_in_schema.join("."),
//! };
//! let chunk_bytes = bytes.slice(range.start as usize..range.end as usize);
//! let mut values = 0;
//! for page in PageReader::new(chunk_bytes, ctx, &PageOptions::default()) {
//!     if let Page::Data(data) = page? {
//!         values += data.num_values;
//!     }
//! }
//! assert_eq!(values as i64, cmd.num_values);
//! # Ok(())
//! # }
//! ```

mod bitmap;
pub mod bloom;
mod chunk;
mod compact;
mod error;
mod levels;
mod page;
mod reader;
mod writer;

pub use bitmap::Bitmap;
pub use chunk::column_chunk_range;
pub use compact::{CompactLevels, LevelForm, LevelShape};
pub use error::{Error, ErrorKind, Location, Result};
pub use levels::{LevelDecoder, LevelEncoding, Levels, bit_width};
pub use page::{DataPage, DictionaryPage, Page};
pub use reader::{ChunkContext, PageOptions, PageReader, PageStep};
pub use writer::{DataPageV1Parts, DataPageV2Parts, PageWriteError, PageWriter, WrittenPage};
