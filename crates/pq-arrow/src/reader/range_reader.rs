//! The async source of a file's bytes: [`AsyncRangeReader`], and its
//! implementation for a local file read on tokio's blocking threads.

use std::fmt;
use std::io;
use std::ops::Range;
use std::path::Path;
use std::sync::Arc;

use bytes::Bytes;
use futures::StreamExt;
use futures::future::BoxFuture;
use futures::stream::BoxStream;

/// Byte ranges of one file, fetched asynchronously: what
/// [`ParquetRecordBatchStreamBuilder`](super::ParquetRecordBatchStreamBuilder)
/// reads from. Implemented for a local file ([`TokioFile`]) and, with the
/// feature `object_store`, for any `object_store::ObjectStore`
/// ([`ObjectStoreReader`](super::ObjectStoreReader)).
///
/// The reader asks only for ranges inside the file, sorted and merged
/// where they lie close; it retries, times out and checks lengths itself
/// (see [`FetchOptions`](super::FetchOptions)), so an implementation
/// makes one attempt per call. Its errors say whether they may pass:
/// [`io::ErrorKind::NotFound`], `PermissionDenied`, `InvalidInput`,
/// `InvalidData` and `Unsupported` are final, every other kind is retried.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> std::io::Result<()> {
/// use pq_arrow::{AsyncRangeReader, TokioFile};
/// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/sample.parquet");
/// let file = TokioFile::open(path).await?;
/// let len = file.size().await?;
/// let magic = file.get_range(len - 4..len).await?;
/// assert_eq!(&magic[..], b"PAR1");
/// # Ok(())
/// # }
/// ```
pub trait AsyncRangeReader: Send + Sync + fmt::Debug {
    /// The file's length in bytes.
    fn size(&self) -> BoxFuture<'_, io::Result<u64>>;

    /// The bytes of `range` (exactly `range.end - range.start` of them).
    fn get_range(&self, range: Range<u64>) -> BoxFuture<'_, io::Result<Bytes>>;

    /// The bytes of `range` as they arrive, in the pieces the source
    /// delivers them in, in order (together exactly `range.end -
    /// range.start` bytes; the reader checks). A network body arrives as
    /// many chunks: handing them on as they come lets the reader decode the
    /// pages already in while the rest of a row group is on its way, and
    /// spares a copy of the whole answer into one fresh buffer (for a 35 MB
    /// row group through object_store's HTTP client, a third of its
    /// transfer time); the reader copies only the pages that straddle two
    /// pieces. The default is [`get_range`](Self::get_range)'s one piece.
    /// (`ObjectStoreReader` hands on pieces of 2 MiB into which the body's
    /// chunks are copied: see its docs.)
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> std::io::Result<()> {
    /// use futures::TryStreamExt;
    /// use pq_arrow::{AsyncRangeReader, TokioFile};
    /// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/sample.parquet");
    /// let file = TokioFile::open(path).await?;
    /// let pieces: Vec<_> = file.get_range_stream(0..4).try_collect().await?;
    /// assert_eq!(pieces.concat(), b"PAR1");
    /// # Ok(())
    /// # }
    /// ```
    fn get_range_stream(&self, range: Range<u64>) -> BoxStream<'_, io::Result<Bytes>> {
        futures::stream::once(self.get_range(range)).boxed()
    }

    /// Several ranges, in the order asked. The default asks for each in
    /// turn; a source that can fetch them together should.
    fn get_ranges(&self, ranges: Vec<Range<u64>>) -> BoxFuture<'_, io::Result<Vec<Bytes>>> {
        Box::pin(async move {
            let mut out = Vec::with_capacity(ranges.len());
            for r in ranges {
                out.push(self.get_range(r).await?);
            }
            Ok(out)
        })
    }

    /// The file's size and its last `n` bytes (all of it when it is
    /// shorter). The default asks for the size, then the range; a source
    /// that can answer both at once (an HTTP suffix range) should, since
    /// the footer is then read in one request.
    fn get_suffix(&self, n: u64) -> BoxFuture<'_, io::Result<(u64, Bytes)>> {
        Box::pin(async move {
            let len = self.size().await?;
            let tail = self.get_range(len.saturating_sub(n)..len).await?;
            Ok((len, tail))
        })
    }

    /// The name errors give the file (a path or URL).
    fn name(&self) -> String;
}

impl<T: AsyncRangeReader + ?Sized> AsyncRangeReader for Arc<T> {
    fn size(&self) -> BoxFuture<'_, io::Result<u64>> {
        (**self).size()
    }
    fn get_range(&self, range: Range<u64>) -> BoxFuture<'_, io::Result<Bytes>> {
        (**self).get_range(range)
    }
    fn get_range_stream(&self, range: Range<u64>) -> BoxStream<'_, io::Result<Bytes>> {
        (**self).get_range_stream(range)
    }
    fn get_ranges(&self, ranges: Vec<Range<u64>>) -> BoxFuture<'_, io::Result<Vec<Bytes>>> {
        (**self).get_ranges(ranges)
    }
    fn get_suffix(&self, n: u64) -> BoxFuture<'_, io::Result<(u64, Bytes)>> {
        (**self).get_suffix(n)
    }
    fn name(&self) -> String {
        (**self).name()
    }
}

/// A local file read with positioned reads on tokio's blocking threads,
/// so that several ranges are read at once and no read blocks the
/// runtime.
#[derive(Debug, Clone)]
pub struct TokioFile {
    file: Arc<std::fs::File>,
    len: u64,
    name: String,
}

impl TokioFile {
    /// Opens `path` (on a blocking thread).
    pub async fn open(path: impl AsRef<Path>) -> io::Result<Self> {
        let path = path.as_ref().to_path_buf();
        let name = path.display().to_string();
        let (file, len) = tokio::task::spawn_blocking(move || {
            let file = std::fs::File::open(&path)?;
            let len = file.metadata()?.len();
            Ok::<_, io::Error>((file, len))
        })
        .await
        .map_err(io::Error::other)??;
        Ok(TokioFile {
            file: Arc::new(file),
            len,
            name,
        })
    }
}

impl AsyncRangeReader for TokioFile {
    fn size(&self) -> BoxFuture<'_, io::Result<u64>> {
        let len = self.len;
        Box::pin(async move { Ok(len) })
    }

    fn get_range(&self, range: Range<u64>) -> BoxFuture<'_, io::Result<Bytes>> {
        let file = self.file.clone();
        Box::pin(async move {
            let len = usize::try_from(range.end.saturating_sub(range.start))
                .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "range too large"))?;
            tokio::task::spawn_blocking(move || read_at(&file, range.start, len))
                .await
                .map_err(io::Error::other)?
        })
    }

    fn name(&self) -> String {
        self.name.clone()
    }
}

/// `len` bytes from `offset`, or an `UnexpectedEof` error.
fn read_at(file: &std::fs::File, offset: u64, len: usize) -> io::Result<Bytes> {
    let mut buf = Vec::new();
    buf.try_reserve_exact(len)
        .map_err(|e| io::Error::new(io::ErrorKind::OutOfMemory, e))?;
    buf.resize(len, 0);
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileExt;
        file.read_exact_at(&mut buf, offset)?;
    }
    #[cfg(windows)]
    {
        // `seek_read` reads from an offset without a shared cursor, but
        // may stop short.
        use std::os::windows::fs::FileExt;
        let mut done = 0;
        while done < len {
            let n = file.seek_read(&mut buf[done..], offset + done as u64)?;
            if n == 0 {
                return Err(io::ErrorKind::UnexpectedEof.into());
            }
            done += n;
        }
    }
    Ok(Bytes::from(buf))
}
