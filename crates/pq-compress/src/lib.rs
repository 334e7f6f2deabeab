//! Every Parquet compression codec behind one bounded API.
//!
//! This layer turns compressed page bodies into bytes of a declared size and
//! back. It knows nothing of Thrift, pages, encodings or Arrow: callers pass
//! the codec and the sizes they read from the metadata.
