//! `cargo xtask bench-data`: the logical tables of the benchmark matrix, and
//! the arrow-rs writer's files of them.
//!
//! Each table of [`TABLES`] is generated once, batch by batch,
//! and every batch goes to the Arrow IPC file `source/TABLE.arrow` (which the
//! Python writers read, so that every writer of the matrix writes identical
//! values) and to the arrow-rs writer in each of its three settings. Files
//! are named `TABLE.WRITER.SETTING.parquet`. They are large, so they live in
//! `target/bench-data/` and are never committed; a file that exists is kept
//! unless `--force` is given.

use std::fs::File;
use std::path::{Path, PathBuf};

use arrow_array::RecordBatch;
use arrow_ipc::writer::FileWriter;
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::properties::{WriterProperties, WriterVersion};

use crate::bench_tables::{TABLES, Table};
use crate::rng::Rng;

/// Rows of the lineitem tables when `--rows` is not given: the whole matrix
/// stays under 2 GB and is written in a few minutes.
pub const DEFAULT_ROWS: usize = 500_000;
const BATCH: usize = 65_536;

/// Where the matrix lives.
pub fn dir(root: &Path) -> PathBuf {
    root.join("target").join("bench-data")
}

/// The arrow-rs writer's settings of the matrix: its defaults, PLAIN
/// uncompressed, and ZSTD with data page v2.
fn settings() -> [(&'static str, WriterProperties); 3] {
    [
        ("default", WriterProperties::default()),
        (
            "plain",
            WriterProperties::builder()
                .set_dictionary_enabled(false)
                .set_compression(Compression::UNCOMPRESSED)
                .build(),
        ),
        (
            "zstd_v2",
            WriterProperties::builder()
                .set_writer_version(WriterVersion::PARQUET_2_0)
                .set_compression(Compression::ZSTD(ZstdLevel::default()))
                .build(),
        ),
    ]
}

/// A file being written: IPC source or arrow-rs Parquet.
enum Sink {
    Ipc(FileWriter<File>),
    Parquet(ArrowWriter<File>),
}

impl Sink {
    fn write(&mut self, batch: &RecordBatch) -> Result<(), String> {
        match self {
            Sink::Ipc(w) => w.write(batch).map_err(|e| e.to_string()),
            Sink::Parquet(w) => w.write(batch).map_err(|e| e.to_string()),
        }
    }

    fn finish(self) -> Result<(), String> {
        match self {
            Sink::Ipc(mut w) => w.finish().map_err(|e| e.to_string()),
            Sink::Parquet(w) => w.close().map(|_| ()).map_err(|e| e.to_string()),
        }
    }
}

/// Writes the sources and arrow-rs files that are missing (all with `force`),
/// the lineitem tables with `rows` rows.
pub fn run(root: &Path, force: bool, rows: usize) -> crate::Result<()> {
    let dir = dir(root);
    let source_dir = dir.join("source");
    std::fs::create_dir_all(&source_dir)
        .map_err(|e| format!("creating {}: {e}", source_dir.display()))?;
    for table in TABLES {
        let mut outputs = vec![(source_dir.join(format!("{}.arrow", table.name)), None)];
        for (setting, props) in settings() {
            let name = format!("{}.arrow-rs.{setting}.parquet", table.name);
            outputs.push((dir.join(name), Some(props)));
        }
        // A source of another row count would give the Python writers other
        // data than arrow-rs's: the rows are written to a stamp beside it.
        let stamp = source_dir.join(format!("{}.rows", table.name));
        let rows = table.rows(rows);
        let stale = std::fs::read_to_string(&stamp).ok() != Some(rows.to_string());
        outputs.retain(|(path, _)| force || stale || !path.exists());
        if outputs.is_empty() {
            eprintln!("{}: every arrow-rs file exists", table.name);
            continue;
        }
        write_table(table, rows, &outputs)?;
        std::fs::write(&stamp, rows.to_string())
            .map_err(|e| format!("writing {}: {e}", stamp.display()))?;
    }
    Ok(())
}

/// Generates `table` once and writes it to every output.
fn write_table(
    table: Table,
    rows: usize,
    outputs: &[(PathBuf, Option<WriterProperties>)],
) -> crate::Result<()> {
    let schema = table.batch(0, &mut Rng(0)).schema();
    let mut sinks = Vec::with_capacity(outputs.len());
    for (path, props) in outputs {
        let tmp = path.with_extension("tmp");
        let file = File::create(&tmp).map_err(|e| format!("creating {}: {e}", tmp.display()))?;
        let sink = match props {
            None => FileWriter::try_new(file, &schema)
                .map(Sink::Ipc)
                .map_err(|e| e.to_string()),
            Some(p) => ArrowWriter::try_new(file, schema.clone(), Some(p.clone()))
                .map(Sink::Parquet)
                .map_err(|e| e.to_string()),
        }
        .map_err(|e| format!("{}: {e}", path.display()))?;
        sinks.push((sink, tmp, path));
    }
    let mut rng = Rng(2024);
    let mut done = 0;
    while done < rows {
        let n = BATCH.min(rows - done);
        let batch = table.batch(n, &mut rng);
        for (sink, _, path) in &mut sinks {
            sink.write(&batch)
                .map_err(|e| format!("{}: {e}", path.display()))?;
        }
        done += n;
    }
    for (sink, tmp, path) in sinks {
        sink.finish()
            .map_err(|e| format!("{}: {e}", path.display()))?;
        std::fs::rename(&tmp, path).map_err(|e| format!("renaming {}: {e}", tmp.display()))?;
        let size = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
        eprintln!("wrote {} ({:.1} MB)", path.display(), size as f64 / 1e6);
    }
    Ok(())
}
