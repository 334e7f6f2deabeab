//! Page bodies of the parquet-testing corpus decompress to their declared
//! sizes.
//!
//! Reads `$PARQUET_TESTING_DIR/data`. When the variable is unset the tests
//! are reported skipped (`pq_testkit::skip`), unless `CI` is set, where they
//! fail. The
//! files are parsed with just enough Thrift compact protocol to find each
//! column chunk's codec and walk its page headers.

#![allow(clippy::unwrap_used, clippy::expect_used)] // test code: failures should panic

use std::collections::BTreeMap;

use pq_compress::{Codec, Decompressor, Limits};

// ---- minimal Thrift compact protocol -------------------------------------

#[derive(Debug, Clone)]
enum Value {
    Bool(bool),
    Int(i64),
    List(Vec<Value>),
    Struct(BTreeMap<i16, Value>),
    Other,
}

impl Value {
    fn field(&self, id: i16) -> Option<&Value> {
        match self {
            Value::Struct(m) => m.get(&id),
            _ => None,
        }
    }
    fn int(&self, id: i16) -> Option<i64> {
        match self.field(id)? {
            Value::Int(v) => Some(*v),
            _ => None,
        }
    }
    fn list(&self, id: i16) -> &[Value] {
        match self.field(id) {
            Some(Value::List(v)) => v,
            _ => &[],
        }
    }
}

struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl Reader<'_> {
    fn byte(&mut self) -> Result<u8, String> {
        let b = *self.buf.get(self.pos).ok_or("thrift: unexpected end")?;
        self.pos += 1;
        Ok(b)
    }
    fn varint(&mut self) -> Result<u64, String> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let b = self.byte()?;
            v |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err("thrift: varint too long".into())
    }
    fn zigzag(&mut self) -> Result<i64, String> {
        let v = self.varint()?;
        Ok((v >> 1) as i64 ^ -((v & 1) as i64))
    }
    fn value(&mut self, ty: u8, depth: u32) -> Result<Value, String> {
        if depth > 32 {
            return Err("thrift: nested too deep".into());
        }
        Ok(match ty {
            1 => Value::Bool(true),
            2 => Value::Bool(false),
            3 => Value::Int(i64::from(self.byte()? as i8)),
            4..=6 => Value::Int(self.zigzag()?),
            7 => {
                self.pos += 8;
                Value::Other
            }
            8 => {
                let len = usize::try_from(self.varint()?).map_err(|e| e.to_string())?;
                let end = self.pos.checked_add(len).ok_or("thrift: overflow")?;
                self.buf
                    .get(self.pos..end)
                    .ok_or("thrift: binary past end")?;
                self.pos = end;
                Value::Other
            }
            9 | 10 => {
                let h = self.byte()?;
                let mut n = u64::from(h >> 4);
                if n == 15 {
                    n = self.varint()?;
                }
                let et = h & 0x0f;
                let mut items = Vec::new();
                for _ in 0..n {
                    items.push(match et {
                        1 | 2 => Value::Bool(self.byte()? == 1),
                        _ => self.value(et, depth + 1)?,
                    });
                }
                Value::List(items)
            }
            11 => {
                let n = self.varint()?;
                if n > 0 {
                    let kv = self.byte()?;
                    for _ in 0..n {
                        self.value(kv >> 4, depth + 1)?;
                        self.value(kv & 0x0f, depth + 1)?;
                    }
                }
                Value::Other
            }
            12 => {
                let mut fields = BTreeMap::new();
                let mut last = 0i16;
                loop {
                    let h = self.byte()?;
                    if h == 0 {
                        break;
                    }
                    let delta = h >> 4;
                    let id = if delta == 0 {
                        i16::try_from(self.zigzag()?).map_err(|e| e.to_string())?
                    } else {
                        last + i16::from(delta)
                    };
                    last = id;
                    fields.insert(id, self.value(h & 0x0f, depth + 1)?);
                }
                Value::Struct(fields)
            }
            other => return Err(format!("thrift: unknown type {other}")),
        })
    }
}

fn parse_struct(buf: &[u8]) -> Result<(Value, usize), String> {
    let mut r = Reader { buf, pos: 0 };
    let v = r.value(12, 0)?;
    Ok((v, r.pos))
}

// ---- walking a file's pages ----------------------------------------------

/// One compressed page body with its codec and declared size.
struct Page {
    codec: i32,
    body: Vec<u8>,
    uncompressed_size: usize,
}

fn pages(file: &[u8]) -> Result<Vec<Page>, String> {
    let n = file.len();
    if n < 12 || &file[..4] != b"PAR1" || &file[n - 4..] != b"PAR1" {
        return Err("not a parquet file (or encrypted footer)".into());
    }
    let footer_len = u32::from_le_bytes(file[n - 8..n - 4].try_into().unwrap()) as usize;
    let footer_start = (n - 8).checked_sub(footer_len).ok_or("footer too long")?;
    let (meta, _) = parse_struct(&file[footer_start..n - 8])?;
    let mut out = Vec::new();
    for rg in meta.list(4) {
        for chunk in rg.list(1) {
            let md = chunk.field(3).ok_or("column chunk without metadata")?;
            let codec = md.int(4).ok_or("no codec")? as i32;
            let num_values = md.int(5).ok_or("no num_values")?;
            let total = md.int(7).ok_or("no total_compressed_size")?;
            let data_off = md.int(9).ok_or("no data_page_offset")?;
            let start = match md.int(11) {
                Some(d) if d > 0 && d < data_off => d,
                _ => data_off,
            };
            let start = usize::try_from(start).map_err(|e| e.to_string())?;
            let end = start
                .checked_add(usize::try_from(total).map_err(|e| e.to_string())?)
                .filter(|&e| e <= footer_start)
                .ok_or("column chunk past the footer")?;
            let mut pos = start;
            let mut seen = 0i64;
            while pos < end && seen < num_values {
                let (header, used) = parse_struct(&file[pos..end])?;
                pos += used;
                let uncompressed = header.int(2).ok_or("no uncompressed_page_size")?;
                let compressed = header.int(3).ok_or("no compressed_page_size")?;
                let compressed = usize::try_from(compressed).map_err(|e| e.to_string())?;
                let body = file
                    .get(pos..pos + compressed)
                    .ok_or("page body past the chunk")?;
                pos += compressed;
                let mut uncompressed = usize::try_from(uncompressed).map_err(|e| e.to_string())?;
                let mut body = body;
                if let Some(v1) = header.field(5) {
                    seen += v1.int(1).unwrap_or(0);
                }
                if let Some(v2) = header.field(8) {
                    seen += v2.int(1).unwrap_or(0);
                    // Levels are stored uncompressed in front of the body.
                    let levels = usize::try_from(v2.int(5).unwrap_or(0) + v2.int(6).unwrap_or(0))
                        .map_err(|e| e.to_string())?;
                    if matches!(v2.field(7), Some(Value::Bool(false))) {
                        continue;
                    }
                    body = body.get(levels..).ok_or("levels past the body")?;
                    uncompressed = uncompressed
                        .checked_sub(levels)
                        .ok_or("levels larger than the page")?;
                }
                out.push(Page {
                    codec,
                    body: body.to_vec(),
                    uncompressed_size: uncompressed,
                });
            }
        }
    }
    Ok(out)
}

/// Decompresses every page of `name`; returns the number of pages per codec.
fn check_file(dir: &std::path::Path, name: &str) -> BTreeMap<Codec, usize> {
    let file = std::fs::read(dir.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
    let pages = pages(&file).unwrap_or_else(|e| panic!("{name}: {e}"));
    assert!(!pages.is_empty(), "{name}: no pages found");
    let mut dec = Decompressor::new(Limits::default());
    let mut out = Vec::new();
    let mut counts = BTreeMap::new();
    for (i, page) in pages.iter().enumerate() {
        let codec = Codec::from_thrift(page.codec).unwrap();
        dec.decompress(codec, &page.body, page.uncompressed_size, &mut out)
            .unwrap_or_else(|e| panic!("{name} page {i}: {e}"));
        assert_eq!(out.len(), page.uncompressed_size);
        *counts.entry(codec).or_insert(0) += 1;
    }
    counts
}

#[test]
fn lz4_variants_decompress_to_declared_size() {
    let Some(dir) = pq_testkit::corpus_data_dir() else {
        return;
    };
    if !Codec::Lz4.is_available() {
        eprintln!("skipping: the lz4 feature is disabled");
        return;
    }
    for name in [
        "hadoop_lz4_compressed.parquet",
        "hadoop_lz4_compressed_larger.parquet",
        "non_hadoop_lz4_compressed.parquet",
        "lz4_raw_compressed.parquet",
        "lz4_raw_compressed_larger.parquet",
    ] {
        let counts = check_file(&dir, name);
        println!("{name}: {counts:?}");
        let expected = if name.starts_with("lz4_raw") {
            Codec::Lz4Raw
        } else {
            Codec::Lz4
        };
        assert!(counts.contains_key(&expected), "{name}: {counts:?}");
    }
}

#[test]
fn concatenated_gzip_members() {
    let Some(dir) = pq_testkit::corpus_data_dir() else {
        return;
    };
    if !Codec::Gzip.is_available() {
        eprintln!("skipping: the gzip feature is disabled");
        return;
    }
    let counts = check_file(&dir, "concatenated_gzip_members.parquet");
    assert!(counts.contains_key(&Codec::Gzip), "{counts:?}");
}

/// Every readable page of every corpus file decompresses, and nothing
/// panics on the deliberately broken files.
#[test]
fn whole_corpus() {
    let Some(dir) = pq_testkit::corpus_data_dir() else {
        return;
    };
    let mut entries: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "parquet"))
        .collect();
    entries.sort();
    let mut dec = Decompressor::new(Limits::default());
    let mut out = Vec::new();
    let mut totals: BTreeMap<Codec, usize> = BTreeMap::new();
    let mut failures = Vec::new();
    let mut over_limit = Vec::new();
    for path in entries {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let file = std::fs::read(&path).unwrap();
        let Ok(pages) = pages(&file) else { continue };
        for (i, page) in pages.iter().enumerate() {
            let Ok(codec) = Codec::from_thrift(page.codec) else {
                continue;
            };
            if !codec.is_available() {
                continue;
            }
            match dec.decompress(codec, &page.body, page.uncompressed_size, &mut out) {
                Ok(()) => *totals.entry(codec).or_insert(0) += 1,
                // large_string_map.brotli.parquet declares pages just over
                // 1 GiB, the default limit: refused before allocating.
                Err(pq_compress::Error::SizeLimitExceeded { declared, .. }) => {
                    over_limit.push(format!("{name} page {i}: {declared} bytes"))
                }
                Err(e) => failures.push(format!("{name} page {i}: {e}")),
            }
        }
    }
    println!("pages decompressed per codec: {totals:?}");
    for f in &over_limit {
        println!("over the default limit: {f}");
    }
    for f in &failures {
        println!("failed: {f}");
    }
    // Files in the corpus that are corrupt on purpose.
    let expected_bad = [
        "ARROW-GH-",
        "ARROW-RS-GH-",
        "fixed_length_byte_array",
        "PARQUET-1481",
    ];
    let unexpected: Vec<_> = failures
        .iter()
        .filter(|f| !expected_bad.iter().any(|b| f.starts_with(b)))
        .collect();
    assert!(unexpected.is_empty(), "{unexpected:#?}");
    assert!(totals.len() >= 5, "too few codecs seen: {totals:?}");
}
