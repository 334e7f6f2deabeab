//! The pages of one Parquet column chunk.
//!
//! From the bytes of a column chunk to decompressed pages with their
//! repetition and definition levels decoded and checksums verified. This
//! layer knows nothing of Arrow or of how values assemble into records.
