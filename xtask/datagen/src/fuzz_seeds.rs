//! `fuzz-seeds TARGET CORPUS`: real files as the first inputs of a fuzz
//! target, so the fuzzer starts from valid structure.

use std::path::{Path, PathBuf};

/// Seeds a target's corpus with real files: whole files for `footer`; the
/// framed column chunks of each file for `page_reader`.
pub fn run(root: &Path, target: &str, corpus: &Path) -> crate::Result<()> {
    let mut sources = files(&root.join("data"));
    if let Some(dir) = std::env::var_os("PARQUET_TESTING_DIR") {
        sources.extend(files(&Path::new(&dir).join("data")));
        sources.extend(files(&Path::new(&dir).join("bad_data")));
    }
    sources.retain(|p| p.extension().is_some_and(|e| e == "parquet"));
    for (i, source) in sources.iter().enumerate() {
        let Ok(bytes) = std::fs::read(source) else {
            continue;
        };
        let seeds: Vec<Vec<u8>> = match target {
            "footer" | "read_file" => vec![bytes],
            "page_reader" => chunk_seeds(&bytes),
            _ => Vec::new(),
        };
        for (j, s) in seeds.into_iter().enumerate() {
            let path = corpus.join(format!("seed-{i}-{j}"));
            if !path.exists() {
                std::fs::write(&path, s).map_err(|e| format!("{}: {e}", path.display()))?;
            }
        }
    }
    Ok(())
}

/// Each column chunk of `file` framed as `page_reader` inputs: codec, max
/// levels (guessed as 1 and 0) and value count, then the chunk's bytes.
fn chunk_seeds(file: &[u8]) -> Vec<Vec<u8>> {
    use parquet::file::reader::{FileReader, SerializedFileReader};
    let Ok(reader) = SerializedFileReader::new(bytes::Bytes::copy_from_slice(file)) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for rg in reader.metadata().row_groups().iter().take(2) {
        for c in rg.columns().iter().take(8) {
            let (start, len) = c.byte_range();
            let Some(chunk) = file.get(start as usize..(start + len) as usize) else {
                continue;
            };
            let codec = match c.compression() {
                parquet::basic::Compression::SNAPPY => 1,
                parquet::basic::Compression::GZIP(_) => 2,
                parquet::basic::Compression::BROTLI(_) => 4,
                parquet::basic::Compression::LZ4 => 5,
                parquet::basic::Compression::ZSTD(_) => 6,
                parquet::basic::Compression::LZ4_RAW => 7,
                _ => 0,
            };
            let n = (c.num_values() as u64).to_le_bytes();
            let mut seed = vec![codec, 1, 0, n[0], n[1], n[2]];
            seed.extend_from_slice(chunk);
            out.push(seed);
        }
    }
    out
}

fn files(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    out.sort();
    out
}
