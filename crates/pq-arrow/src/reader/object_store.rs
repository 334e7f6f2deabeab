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
//! and read in pieces of a megabyte (as the sync reader reads a file).

use std::collections::VecDeque;
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
#[cfg(not(target_arch = "wasm32"))]
use super::source::read_at;
use crate::pool::Pool;

/// One object of an `object_store` store, read by ranges.
///
/// Its requests are single attempts: the stream's
/// [`FetchOptions`](super::FetchOptions) time them out and retry them
/// (configure the store's own `RetryConfig` and `ClientOptions` timeouts to
/// taste as well; they apply inside each attempt).
///
/// An answer's body is copied, as its chunks arrive, into pieces of 2 MiB
/// that the decoder reads from; once let go, a piece's memory serves the
/// next answers of any reader in the process (up to 64 MiB of it is kept),
/// so that reading does not fault fresh memory in for every answer.
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

/// The length of the pieces an answer is copied into.
const PIECE_LEN: usize = 2 << 20;

/// A local file's answer is read in pieces of this length.
const FILE_PIECE_LEN: usize = 1 << 20;

/// Free bytes the pool of received pieces keeps at most, over every
/// reader of the process (as a reader's pool of output buffers does).
const RECEIVED_POOL_BYTES: usize = 64 << 20;

/// The pool the pieces of every answer are copied into, shared by the
/// readers of the process, so that a piece's memory serves the answers
/// after it.
fn received() -> &'static Pool {
    static POOL: std::sync::OnceLock<Pool> = std::sync::OnceLock::new();
    POOL.get_or_init(|| Pool::new(RECEIVED_POOL_BYTES))
}

/// The chunks of an answer of `len` bytes, copied as they come into
/// pieces of [`PIECE_LEN`] bytes from `pool` (the answer's last piece
/// handed on as soon as its last byte is in); an answer in one chunk (an
/// in-memory store's) is handed on as it is.
///
/// Why copy: an HTTP client hands on a body as chunks cut from its read
/// buffer, so that while the reader holds them (a row group's worth) the
/// client reads each next chunk into fresh memory, and once they are let
/// go the allocator gives that memory back to the system (glibc trims the
/// arena of the thread that allocated it). Every answer's every page was
/// faulted in anew: about 6 500 faults a read of one 35 MB row group on
/// loopback. Copied at once, a chunk is let go before the next is read and
/// the client reuses its buffer; the pieces come back to `pool` when the
/// reader lets them go and serve the next answers. Some stores stream far
/// smaller chunks (TLS records), which pieces of megabytes also spare the
/// reader from looking through by the thousand. Measured on loopback
/// against the same read from a local path: one row group 1.26 -> 1.10 of
/// its time, the whole file 1.10 -> 0.97.
fn into_pieces<'a>(
    chunks: impl Stream<Item = io::Result<Bytes>> + Send + Unpin + 'a,
    len: u64,
    pool: &'a Pool,
) -> BoxStream<'a, io::Result<Bytes>> {
    struct Filling<S> {
        chunks: S,
        /// The piece being filled.
        piece: Vec<u8>,
        seen: u64,
        /// Pieces filled and not handed on yet (more than one when a chunk
        /// is longer than a piece).
        full: VecDeque<Bytes>,
        done: bool,
    }
    let start = Filling {
        chunks,
        piece: Vec::new(),
        seen: 0,
        full: VecDeque::new(),
        done: false,
    };
    futures::stream::unfold(start, move |mut f| async move {
        if let Some(piece) = f.full.pop_front() {
            return Some((Ok(piece), f));
        }
        if f.done {
            return None;
        }
        loop {
            let chunk = match f.chunks.try_next().await {
                Ok(Some(chunk)) => chunk,
                Ok(None) => {
                    f.done = true;
                    if f.piece.is_empty() {
                        return None;
                    }
                    return Some((Ok(pool.bytes(std::mem::take(&mut f.piece))), f));
                }
                Err(e) => {
                    f.done = true;
                    return Some((Err(e), f));
                }
            };
            let before = f.seen;
            f.seen = f.seen.saturating_add(chunk.len() as u64);
            // A body longer than asked for is not held to its end (it may
            // never end); the reader's length check fails it.
            if f.seen > len {
                f.done = true;
                return Some((
                    Err(io::Error::new(
                        io::ErrorKind::InvalidData,
                        format!("the answer held more than the {len} bytes asked for"),
                    )),
                    f,
                ));
            }
            if before == 0 && f.seen == len {
                return Some((Ok(chunk), f));
            }
            let mut rest = &chunk[..];
            while !rest.is_empty() {
                if f.piece.capacity() == 0 {
                    // No more than the answer still to come: the length is
                    // the one asked for, not one the source declared.
                    let left = len.saturating_sub(f.seen).saturating_add(rest.len() as u64);
                    f.piece = pool.take(usize::try_from(left).unwrap_or(PIECE_LEN).min(PIECE_LEN));
                }
                // A full piece is handed on below: the one being filled
                // is always short of the length.
                let room = PIECE_LEN - f.piece.len();
                let (now, later) = rest.split_at(room.min(rest.len()));
                f.piece.extend_from_slice(now);
                rest = later;
                if f.piece.len() >= PIECE_LEN {
                    f.full.push_back(pool.bytes(std::mem::take(&mut f.piece)));
                }
            }
            // The answer's last bytes go on at once, not when the body's
            // end is signalled.
            if f.seen == len && !f.piece.is_empty() {
                f.full.push_back(pool.bytes(std::mem::take(&mut f.piece)));
            }
            if let Some(piece) = f.full.pop_front() {
                return Some((Ok(piece), f));
            }
        }
    })
    .boxed()
}

/// `len` bytes of `file` from `start`, in pieces of [`FILE_PIECE_LEN`]
/// bytes read as the sync reader reads a file ([`read_at`]), into vectors
/// of the pool HTTP answers are copied into. Pieces, not one buffer: a
/// buffer the size of a row group is fresh memory from the system each
/// time, every page of it faulted in (a 35 MB row group read from a local
/// store took a third longer than the same bytes over HTTP on loopback).
/// Pooled, that read went from 1.03-1.06 to 0.95-0.97 of the sync
/// reader's read of the same row group from the path, where fresh
/// vectors of a megabyte were `mmap`ed and faulted in each time.
#[cfg(not(target_arch = "wasm32"))]
fn read_pieces(mut file: std::fs::File, start: u64, len: u64) -> io::Result<Vec<Bytes>> {
    use std::io::Seek;
    let mut pieces = Vec::new();
    let mut at = start;
    let end = start.saturating_add(len);
    while at < end {
        let n = (end - at).min(FILE_PIECE_LEN as u64);
        // At most FILE_PIECE_LEN: fits a usize.
        let n = usize::try_from(n).unwrap_or(FILE_PIECE_LEN);
        match read_at(&mut file, at, n, received()) {
            Ok(piece) => pieces.push(piece),
            // A short read leaves the cursor where the file ended.
            Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => {
                let ended = file.stream_position()?;
                return Err(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    format!(
                        "the file ended {} bytes into the {len} asked for from {start}",
                        ended.saturating_sub(start)
                    ),
                ));
            }
            Err(e) => return Err(e),
        }
        at += n as u64;
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
            Ok(into_pieces(
                got.into_stream().map_err(io_error),
                len,
                received(),
            ))
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
    use super::{FILE_PIECE_LEN, PIECE_LEN, into_pieces};
    use crate::pool::Pool;
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
        let pool = Pool::new(64 << 20);
        let got = collect(into_pieces(
            futures::stream::iter(chunks),
            file.len() as u64,
            &pool,
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
        assert_eq!(
            lens,
            vec![FILE_PIECE_LEN, FILE_PIECE_LEN, FILE_PIECE_LEN / 2]
        );
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
        let pool = Pool::none();
        let err = collect(into_pieces(long, 10_500, &pool)).unwrap_err();
        assert_eq!(taken, 11);
        assert!(
            err.to_string().contains("more than the 10500 bytes"),
            "{err}"
        );
        let (chunks, _) = chunks(&[PIECE_LEN, 10]);
        let short = futures::stream::iter(chunks);
        assert!(collect(into_pieces(short, PIECE_LEN as u64 + 9, &pool)).is_err());
    }

    #[test]
    fn pieces_are_handed_on_before_the_answer_ends() {
        // A full piece, then a body that has not come yet: the piece is
        // handed on at once (the reader decodes it meanwhile); a piece not
        // full waits for more.
        let pool = Pool::new(64 << 20);
        let (chunks, file) = chunks(&[PIECE_LEN / 2, PIECE_LEN / 2 + 3, 10]);
        let mut chunks = chunks.into_iter();
        let first: Vec<_> = chunks.by_ref().take(2).collect();
        let stalled = futures::stream::iter(first).chain(futures::stream::pending());
        let mut pieces = into_pieces(stalled, file.len() as u64, &pool);
        let got = futures::executor::block_on(pieces.next()).unwrap().unwrap();
        assert_eq!(got, &file[..PIECE_LEN]);
        let polled = futures::executor::block_on(futures::future::poll_fn(|cx| {
            std::task::Poll::Ready(pieces.poll_next_unpin(cx).is_pending())
        }));
        assert!(polled, "a piece was handed on before it was full");
        // The answer's last byte in: handed on without waiting for the end.
        let last = chunks.next().unwrap().unwrap();
        let (two, _) = self::chunks(&[3, 10]);
        let mut two = two.into_iter();
        let head = two.next().unwrap().unwrap();
        let waiting = futures::stream::iter([Ok(head.clone()), Ok(last.clone())])
            .chain(futures::stream::pending());
        let mut all_in = into_pieces(waiting, 13, &pool);
        let got = futures::executor::block_on(all_in.next()).unwrap().unwrap();
        assert_eq!(got, [&head[..], &last[..]].concat());
    }

    #[test]
    fn an_answer_in_one_chunk_is_handed_on_as_it_is() {
        let pool = Pool::new(64 << 20);
        let whole = Bytes::from(vec![5u8; 3 * PIECE_LEN]);
        let got = collect(into_pieces(
            futures::stream::iter([Ok(whole.clone())]),
            whole.len() as u64,
            &pool,
        ))
        .unwrap();
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].as_ptr(), whole.as_ptr(), "copied");
    }

    /// The memory of an answer's pieces, once they are let go, holds the
    /// next answer's: no fresh pages for each answer.
    #[test]
    fn pieces_come_back_to_the_pool_for_the_next_answer() {
        let pool = Pool::new(64 << 20);
        let sizes = [300 << 10; 12];
        let (chunks, file) = chunks(&sizes);
        let first = collect(into_pieces(
            futures::stream::iter(chunks),
            file.len() as u64,
            &pool,
        ))
        .unwrap();
        let mut seen: Vec<*const u8> = first.iter().map(|p| p.as_ptr()).collect();
        assert_eq!(pool.kept_bytes(), 0);
        drop(first);
        assert!(
            pool.kept_bytes() >= file.len(),
            "the pieces did not come back"
        );
        let (chunks, file) = self::chunks(&sizes);
        let second = collect(into_pieces(
            futures::stream::iter(chunks),
            file.len() as u64,
            &pool,
        ))
        .unwrap();
        assert_eq!(second.concat(), file);
        assert_eq!(pool.kept_bytes(), 0, "fresh memory beside what was kept");
        seen.sort();
        for p in &second {
            assert!(
                seen.binary_search(&p.as_ptr()).is_ok(),
                "a piece in fresh memory"
            );
        }
    }

    #[test]
    fn chunks_of_any_length_are_copied_into_pieces_in_order() {
        let small = 8 << 10;
        // 300 small chunks (2.4 MB): one full piece and the rest with the
        // start of a chunk longer than a piece, whose rest fills the next
        // two; then a few bytes.
        let mut sizes = vec![small; 300];
        sizes.push(2 * PIECE_LEN + 100);
        sizes.extend([small, 1, small]);
        let (lens, joined, file) = run(&sizes);
        assert_eq!(joined, file);
        let total: usize = sizes.iter().sum();
        assert_eq!(
            lens,
            vec![PIECE_LEN, PIECE_LEN, PIECE_LEN, total - 3 * PIECE_LEN]
        );
        // Chunks of one byte, and none at all.
        let (lens, joined, file) = run(&[1; 1000]);
        assert_eq!((lens, joined), (vec![1000], file));
        assert_eq!(run(&[]).0, Vec::<usize>::new());
    }
}
