//! Footers read once per file version: planning (schema inference,
//! statistics) and every scan of a file share one decoded footer.
//!
//! DataFusion asks a format for a file's schema, then for its statistics,
//! then opens it once per query; without a cache each asks the store for
//! the footer again (a round trip each on a remote store). Entries are
//! keyed by location and checked against the object's size and last
//! modification, so a rewritten file is read afresh.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use datafusion::error::{DataFusionError, Result};
use object_store::{ObjectMeta, ObjectStore};
use pq_arrow::{FetchOptions, ObjectStoreReader, ParquetRecordBatchStreamBuilder};
use pq_format::ParquetMetaData;

/// Footers kept at most; past it the cache starts again empty (planning a
/// query over more files than this reads their footers again).
const MAX_ENTRIES: usize = 4096;

/// A decoded footer and the Arrow schema pq reads the file as.
#[derive(Debug, Clone)]
pub(crate) struct Footer {
    pub(crate) metadata: Arc<ParquetMetaData>,
    pub(crate) schema: arrow_schema::SchemaRef,
}

/// Footers by file version, shared by a format and the sources it makes.
#[derive(Debug, Default, Clone)]
pub(crate) struct FooterCache {
    entries: Arc<Mutex<HashMap<String, (Version, Footer)>>>,
}

/// What identifies one version of an object.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Version {
    size: u64,
    modified: i64,
    e_tag: Option<String>,
}

impl Version {
    fn of(meta: &ObjectMeta) -> Version {
        Version {
            size: meta.size,
            modified: meta.last_modified.timestamp_nanos_opt().unwrap_or_default(),
            e_tag: meta.e_tag.clone(),
        }
    }
}

impl FooterCache {
    /// The footer of `meta`'s object, from the cache or read now (the
    /// object's size is known, so one request reads the footer's window).
    pub(crate) async fn get(
        &self,
        store: &Arc<dyn ObjectStore>,
        meta: &ObjectMeta,
        fetch: &FetchOptions,
    ) -> Result<Footer> {
        let key = meta.location.to_string();
        let version = Version::of(meta);
        if let Some(hit) = self.lookup(&key, &version) {
            return Ok(hit);
        }
        let reader = ObjectStoreReader::from_meta(Arc::clone(store), meta);
        let builder = ParquetRecordBatchStreamBuilder::new_with_options(reader, fetch.clone())
            .await
            .map_err(external)?;
        let footer = Footer {
            metadata: Arc::clone(builder.metadata()),
            schema: Arc::clone(builder.schema()),
        };
        if let Ok(mut entries) = self.entries.lock() {
            if entries.len() >= MAX_ENTRIES {
                entries.clear();
            }
            entries.insert(key, (version, footer.clone()));
        }
        Ok(footer)
    }

    fn lookup(&self, key: &str, version: &Version) -> Option<Footer> {
        let entries = self.entries.lock().ok()?;
        let (v, footer) = entries.get(key)?;
        (v == version).then(|| footer.clone())
    }
}

/// A pq error as a DataFusion error: its one-line message kept whole.
pub(crate) fn external(e: pq_arrow::Error) -> DataFusionError {
    DataFusionError::External(Box::new(e))
}
