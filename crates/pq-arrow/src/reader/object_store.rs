//! [`ObjectStoreReader`]: an [`AsyncRangeReader`] over the `object_store`
//! crate, so that files on S3, GCS, Azure, HTTP servers (and local disks,
//! and memory) are read with ranged GETs.
//!
//! pq depends on `object_store` 0.13: the version DataFusion 55 hands its
//! file openers (`Arc<dyn ObjectStore>`), so that a store from a
//! DataFusion session is read without conversion. The crate is taken
//! without its cloud features: the caller (an application, pq's CLI)
//! enables the stores it needs; with `fs` (object_store's default, and
//! DataFusion's), so that a local store's answer is told from a stream
//! and read in pieces of a megabyte.

use std::io;
use std::ops::Range;
use std::sync::Arc;

use bytes::Bytes;
use futures::future::BoxFuture;
use futures::stream::BoxStream;
use futures::{Stream, StreamExt, TryStreamExt};
use object_store::path::Path;
use object_store::{
    GetOptions, GetRange, GetResultPayload, ObjectMeta, ObjectStore, ObjectStoreExt,
};

use super::range_reader::AsyncRangeReader;

/// One object of an `object_store` store, read by ranges.
///
/// Its requests are single attempts: the stream's
/// [`FetchOptions`](super::FetchOptions) time them out and retry them
/// (configure the store's own `RetryConfig` and `ClientOptions` timeouts to
/// taste as well; they apply inside each attempt).
///
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// use std::sync::Arc;
/// use futures::TryStreamExt;
/// use object_store::{memory::InMemory, path::Path, ObjectStore, ObjectStoreExt};
/// use pq_arrow::{ObjectStoreReader, ParquetRecordBatchStreamBuilder};
///
/// let store = Arc::new(InMemory::new());
/// let bytes = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/sample.parquet"))?;
/// store.put(&Path::from("t/sample.parquet"), bytes.into()).await?;
///
/// let reader = ObjectStoreReader::new(store, Path::from("t/sample.parquet"));
/// let stream = ParquetRecordBatchStreamBuilder::new(reader).await?.build()?;
/// let batches: Vec<_> = stream.try_collect().await?;
/// assert!(!batches.is_empty());
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone)]
pub struct ObjectStoreReader {
    store: Arc<dyn ObjectStore>,
    path: Path,
    size: Option<u64>,
    name: String,
}

impl ObjectStoreReader {
    /// The object at `path` in `store`; its size is asked for (a `HEAD`)
    /// when the reader opens.
    pub fn new(store: Arc<dyn ObjectStore>, path: Path) -> Self {
        let name = path.to_string();
        ObjectStoreReader {
            store,
            path,
            size: None,
            name,
        }
    }

    /// The object a listing or `head` described: its size is known, so no
    /// request asks for it.
    pub fn from_meta(store: Arc<dyn ObjectStore>, meta: &ObjectMeta) -> Self {
        Self::new(store, meta.location.clone()).with_size(meta.size)
    }

    /// Takes the object's size as known.
    pub fn with_size(mut self, size: u64) -> Self {
        self.size = Some(size);
        self
    }

    /// Names the object in errors (default: its path in the store), e.g.
    /// with the URL it was opened from.
    pub fn with_name(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self
    }
}

/// A chunk at least this long is kept as it came.
const KEEP_CHUNK: usize = 128 << 10;
/// Smaller chunks are joined into pieces of about this length.
const JOINED_PIECE: usize = 1 << 20;

/// The chunks of an answer of `len` bytes as they come: chunks of
/// [`KEEP_CHUNK`] bytes or more as they are, runs of smaller ones joined
/// into pieces of [`JOINED_PIECE`] bytes. An HTTP client hands on a body in
/// chunks of a few hundred kilobytes, which the reader uses without a
/// copy; some stores stream far smaller ones, and thousands of pieces a
/// row group would cost more to look through than one copy of them.
fn join_small_chunks<'a>(
    chunks: impl Stream<Item = io::Result<Bytes>> + Send + Unpin + 'a,
    len: u64,
) -> BoxStream<'a, io::Result<Bytes>> {
    struct Joining<S> {
        chunks: S,
        joining: Vec<u8>,
        seen: u64,
        /// A large chunk that came behind a run of small ones: handed on
        /// after them.
        next: Option<Bytes>,
        done: bool,
    }
    let start = Joining {
        chunks,
        joining: Vec::new(),
        seen: 0,
        next: None,
        done: false,
    };
    futures::stream::unfold(start, move |mut j| async move {
        if let Some(chunk) = j.next.take() {
            return Some((Ok(chunk), j));
        }
        if j.done {
            return None;
        }
        loop {
            let chunk = match j.chunks.try_next().await {
                Ok(Some(chunk)) => chunk,
                Ok(None) => {
                    j.done = true;
                    if j.joining.is_empty() {
                        return None;
                    }
                    return Some((Ok(Bytes::from(std::mem::take(&mut j.joining))), j));
                }
                Err(e) => {
                    j.done = true;
                    return Some((Err(e), j));
                }
            };
            j.seen = j.seen.saturating_add(chunk.len() as u64);
            // A body longer than asked for is not held to its end (it may
            // never end); the reader's length check fails it.
            if j.seen > len {
                j.done = true;
                return Some((
                    Err(io::Error::new(
                        io::ErrorKind::InvalidData,
                        format!("the answer held more than the {len} bytes asked for"),
                    )),
                    j,
                ));
            }
            if chunk.len() >= KEEP_CHUNK {
                if j.joining.is_empty() {
                    return Some((Ok(chunk), j));
                }
                j.next = Some(chunk);
                return Some((Ok(Bytes::from(std::mem::take(&mut j.joining))), j));
            }
            if j.joining.is_empty() {
                // No more than the answer still to come: the length is the
                // one asked for, not one the source declared.
                let rest = usize::try_from(len.saturating_sub(j.seen)).unwrap_or(usize::MAX);
                j.joining
                    .reserve_exact(chunk.len().saturating_add(rest).min(JOINED_PIECE));
            }
            j.joining.extend_from_slice(&chunk);
            // The answer's last bytes go on at once, not when the body's
            // end is signalled.
            if j.joining.len() >= JOINED_PIECE || j.seen == len {
                return Some((Ok(Bytes::from(std::mem::take(&mut j.joining))), j));
            }
        }
    })
    .boxed()
}

/// `len` bytes of `file` from `start`, in pieces of [`JOINED_PIECE`]
/// bytes. Pieces, not one buffer: a buffer the size of a row group is
/// fresh memory from the system each time, every page of it faulted in
/// (a 35 MB row group read from a local store took a third longer than
/// the same bytes over HTTP on loopback), where pieces of a megabyte come
/// back from the allocator's free lists.
#[cfg(not(target_arch = "wasm32"))]
fn read_pieces(mut file: std::fs::File, start: u64, len: u64) -> io::Result<Vec<Bytes>> {
    use std::io::{Read, Seek, SeekFrom};
    file.seek(SeekFrom::Start(start))?;
    let mut pieces = Vec::new();
    let mut left = len;
    while left > 0 {
        let n = left.min(JOINED_PIECE as u64);
        let mut piece = Vec::with_capacity(usize::try_from(n).unwrap_or(JOINED_PIECE));
        let got = (&mut file).take(n).read_to_end(&mut piece)?;
        if got as u64 != n {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                format!(
                    "the file ended {} bytes into the {len} asked for from {start}",
                    len - left + got as u64
                ),
            ));
        }
        pieces.push(Bytes::from(piece));
        left -= n;
    }
    Ok(pieces)
}

/// An `object_store` error as an I/O error whose kind says whether a
/// retry may help (see [`AsyncRangeReader`]).
fn io_error(e: object_store::Error) -> io::Error {
    use object_store::Error as E;
    let kind = match &e {
        E::NotFound { .. } => io::ErrorKind::NotFound,
        E::PermissionDenied { .. } | E::Unauthenticated { .. } => io::ErrorKind::PermissionDenied,
        E::InvalidPath { .. } | E::UnknownConfigurationKey { .. } => io::ErrorKind::InvalidInput,
        E::NotSupported { .. } | E::NotImplemented { .. } => io::ErrorKind::Unsupported,
        // The object changed while it was read: another attempt would mix
        // two versions.
        E::Precondition { .. } | E::NotModified { .. } => io::ErrorKind::InvalidData,
        _ => io::ErrorKind::Other,
    };
    io::Error::new(kind, e)
}

impl AsyncRangeReader for ObjectStoreReader {
    fn size(&self) -> BoxFuture<'_, io::Result<u64>> {
        Box::pin(async move {
            match self.size {
                Some(s) => Ok(s),
                None => Ok(self.store.head(&self.path).await.map_err(io_error)?.size),
            }
        })
    }

    fn get_range(&self, range: Range<u64>) -> BoxFuture<'_, io::Result<Bytes>> {
        Box::pin(async move {
            self.store
                .get_range(&self.path, range)
                .await
                .map_err(io_error)
        })
    }

    fn get_range_stream(&self, range: Range<u64>) -> BoxStream<'_, io::Result<Bytes>> {
        let answer = async move {
            let options = GetOptions {
                range: Some(GetRange::Bounded(range.clone())),
                ..GetOptions::default()
            };
            let got = self
                .store
                .get_opts(&self.path, options)
                .await
                .map_err(io_error)?;
            if got.range != range {
                return Err(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    format!(
                        "asked for bytes {}..{}, the answer is of {}..{}",
                        range.start, range.end, got.range.start, got.range.end
                    ),
                ));
            }
            let len = range.end.saturating_sub(range.start);
            // A local file is read here, in pieces of a megabyte (its
            // stream would be of 8 KiB reads).
            #[cfg(not(target_arch = "wasm32"))]
            if let GetResultPayload::File(file, _) = got.payload {
                let read = move || read_pieces(file, range.start, len);
                let pieces = match tokio::runtime::Handle::try_current() {
                    Ok(rt) => rt.spawn_blocking(read).await.map_err(io::Error::other)?,
                    Err(_) => read(),
                }?;
                return Ok(futures::stream::iter(pieces.into_iter().map(Ok)).boxed());
            }
            Ok(join_small_chunks(got.into_stream().map_err(io_error), len))
        };
        futures::stream::once(answer).try_flatten().boxed()
    }

    fn get_ranges(&self, ranges: Vec<Range<u64>>) -> BoxFuture<'_, io::Result<Vec<Bytes>>> {
        Box::pin(async move {
            self.store
                .get_ranges(&self.path, &ranges)
                .await
                .map_err(io_error)
        })
    }

    fn get_suffix(&self, n: u64) -> BoxFuture<'_, io::Result<(u64, Bytes)>> {
        Box::pin(async move {
            if let Some(len) = self.size {
                let tail = self.get_range(len.saturating_sub(n)..len).await?;
                return Ok((len, tail));
            }
            // One request gives the size (in `Content-Range`) and the tail.
            let options = GetOptions {
                range: Some(GetRange::Suffix(n)),
                ..GetOptions::default()
            };
            let got = match self.store.get_opts(&self.path, options).await {
                Ok(got) => got,
                // Azure's blob service takes no suffix range: the size
                // first, then the bytes.
                Err(object_store::Error::NotSupported { .. }) => {
                    let len = self.size().await?;
                    let tail = self.get_range(len.saturating_sub(n)..len).await?;
                    return Ok((len, tail));
                }
                Err(e) => return Err(io_error(e)),
            };
            let (len, range) = (got.meta.size, got.range.clone());
            let tail = got.bytes().await.map_err(io_error)?;
            if range.end != len || tail.len() as u64 != range.end.saturating_sub(range.start) {
                return Err(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    format!(
                        "asked for the last {n} bytes of {len}, the answer held {} bytes for {}..{}",
                        tail.len(),
                        range.start,
                        range.end
                    ),
                ));
            }
            Ok((len, tail))
        })
    }

    fn name(&self) -> String {
        self.name.clone()
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::{JOINED_PIECE, KEEP_CHUNK, join_small_chunks};
    use bytes::Bytes;
    use futures::{StreamExt, TryStreamExt};

    /// Every piece of a joined answer, or its error.
    fn collect(
        stream: futures::stream::BoxStream<'_, std::io::Result<Bytes>>,
    ) -> std::io::Result<Vec<Bytes>> {
        futures::executor::block_on(stream.try_collect())
    }

    fn chunks(sizes: &[usize]) -> (Vec<std::io::Result<Bytes>>, Vec<u8>) {
        let total: usize = sizes.iter().sum();
        let file: Vec<u8> = (0..total).map(|i| (i * 7 + i / 251) as u8).collect();
        let mut at = 0;
        let chunks: Vec<std::io::Result<Bytes>> = sizes
            .iter()
            .map(|&n| {
                at += n;
                Ok(Bytes::copy_from_slice(&file[at - n..at]))
            })
            .collect();
        (chunks, file)
    }

    fn run(sizes: &[usize]) -> (Vec<usize>, Vec<u8>, Vec<u8>) {
        let (chunks, file) = chunks(sizes);
        let got = collect(join_small_chunks(
            futures::stream::iter(chunks),
            file.len() as u64,
        ))
        .unwrap();
        let lens = got.iter().map(Bytes::len).collect();
        (lens, got.concat(), file)
    }

    #[test]
    fn a_local_file_is_read_in_pieces_of_a_megabyte_and_a_short_one_is_an_error() {
        let file: Vec<u8> = (0..(5 << 19) + 10).map(|i| (i % 251) as u8).collect();
        let path = std::env::temp_dir().join(format!("pq-read-pieces-{}", std::process::id()));
        std::fs::write(&path, &file).unwrap();
        let open = || std::fs::File::open(&path).unwrap();
        let len = (5 << 19) as u64;
        let got = super::read_pieces(open(), 7, len).unwrap();
        let lens: Vec<usize> = got.iter().map(Bytes::len).collect();
        assert_eq!(lens, vec![JOINED_PIECE, JOINED_PIECE, JOINED_PIECE / 2]);
        assert_eq!(got.concat(), &file[7..7 + len as usize]);
        assert!(super::read_pieces(open(), 0, 0).unwrap().is_empty());
        // Past the end: an error saying where the file ended.
        let err = super::read_pieces(open(), 20, len).unwrap_err();
        std::fs::remove_file(&path).unwrap();
        assert!(
            err.to_string()
                .contains(&format!("{} bytes into", len - 10)),
            "{err}"
        );
    }

    #[test]
    fn an_answer_longer_than_asked_is_refused_at_the_first_byte_too_many() {
        // A body far longer than asked (it could go on for ever): refused
        // at the chunk that passes the length, the rest not taken.
        let mut taken = 0;
        let long = futures::stream::repeat_with(|| {
            taken += 1;
            Ok(Bytes::from_static(&[7; 1000]))
        })
        .take(100_000);
        let err = collect(join_small_chunks(long, 10_500)).unwrap_err();
        assert_eq!(taken, 11);
        assert!(
            err.to_string().contains("more than the 10500 bytes"),
            "{err}"
        );
        let (chunks, _) = chunks(&[KEEP_CHUNK, 10]);
        let short = futures::stream::iter(chunks);
        assert!(collect(join_small_chunks(short, KEEP_CHUNK as u64 + 9)).is_err());
    }

    #[test]
    fn pieces_are_handed_on_before_the_answer_ends() {
        // Two large chunks, then a body that has not come yet: both are
        // handed on at once (the reader decodes them meanwhile); small
        // chunks wait to be joined.
        let (chunks, file) = chunks(&[KEEP_CHUNK, KEEP_CHUNK + 1, 10]);
        let mut chunks = chunks.into_iter();
        let first: Vec<_> = chunks.by_ref().take(2).collect();
        let stalled = futures::stream::iter(first).chain(futures::stream::pending());
        let mut joined = join_small_chunks(stalled, file.len() as u64);
        let mut next = || futures::executor::block_on(joined.next()).unwrap().unwrap();
        assert_eq!(next(), &file[..KEEP_CHUNK]);
        assert_eq!(next(), &file[KEEP_CHUNK..2 * KEEP_CHUNK + 1]);
        let last = chunks.next().unwrap().unwrap();
        let waiting =
            || futures::stream::iter([Ok(last.clone())]).chain(futures::stream::pending());
        let mut small = join_small_chunks(waiting(), 11);
        let polled = futures::executor::block_on(futures::future::poll_fn(|cx| {
            std::task::Poll::Ready(small.poll_next_unpin(cx).is_pending())
        }));
        assert!(
            polled,
            "a small chunk was handed on before it could be joined"
        );
        // The answer's last byte in: handed on without waiting for the end.
        let mut all_in = join_small_chunks(waiting(), 10);
        let got = futures::executor::block_on(all_in.next()).unwrap().unwrap();
        assert_eq!(got, last);
    }

    #[test]
    fn large_chunks_are_kept_and_small_ones_joined_in_order() {
        let big = KEEP_CHUNK;
        let small = 8 << 10;
        // 200 small chunks (1.6 MB): one full piece and the rest; then a
        // big chunk kept; then 3 small ones joined.
        let mut sizes = vec![small; 200];
        sizes.push(big);
        sizes.extend([small, 1, small]);
        let (lens, joined, file) = run(&sizes);
        assert_eq!(joined, file);
        assert_eq!(
            lens,
            vec![JOINED_PIECE, 200 * small - JOINED_PIECE, big, 2 * small + 1]
        );
        // Chunks of one byte, and none at all.
        let (lens, joined, file) = run(&[1; 1000]);
        assert_eq!((lens, joined), (vec![1000], file));
        assert_eq!(run(&[]).0, Vec::<usize>::new());
    }
}
