//! The arrow-rs side of `cargo xtask bench-write`'s whole-process writes:
//! the work `pq convert IN OUT.parquet` does, with the arrow-rs `parquet`
//! crate. It reads every column of the file IN (batches of 8192 rows, one
//! thread) and writes them to OUT with `ArrowWriter` in one of the write
//! bench's settings, then prints the rows, the bytes written and the time.
//!
//! - `defaults`: `WriterProperties::default()` (uncompressed, dictionaries,
//!   data page v1);
//! - `snappy_dict`: SNAPPY, dictionaries, data page v1;
//! - `zstd_v2`: ZSTD at arrow-rs's default level (1), data page v2;
//! - `as_written`: what IN records of its own writer's settings: the codec
//!   of its first column chunk (ZSTD at level 1), dictionaries when a chunk
//!   of its first row group has a dictionary page, the version of its first
//!   data page, and the rows of its first row group.
//!
//! `cargo run --release -p pq-arrow --example arrow_rs_convert -- SETTING IN OUT`
//!
//! `arrow_rs_convert --pq-flags IN` prints `as_written` as `pq convert`'s
//! flags instead, for the pq side of the same rewrite.

use std::io::BufWriter;
use std::process::ExitCode;
use std::time::Instant;

use arrow_array::RecordBatchReader;
use parquet::arrow::ArrowWriter;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::basic::{Compression, ZstdLevel};
use parquet::column::page::Page;
use parquet::file::properties::{WriterProperties, WriterVersion};
use parquet::file::reader::{FileReader, SerializedFileReader};

fn main() -> ExitCode {
    let args: Vec<_> = std::env::args_os().skip(1).collect();
    if let [flag, input] = args.as_slice()
        && flag == "--pq-flags"
    {
        return match written(input) {
            Ok(w) => {
                println!("{}", w.pq_flags().join(" "));
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("arrow_rs_convert: {}: {e}", input.to_string_lossy());
                ExitCode::FAILURE
            }
        };
    }
    let [setting, input, output] = args.as_slice() else {
        eprintln!(
            "usage: arrow_rs_convert defaults|snappy_dict|zstd_v2|as_written IN OUT\n       arrow_rs_convert --pq-flags IN"
        );
        return ExitCode::from(2);
    };
    let props = match setting.to_string_lossy().as_ref() {
        "as_written" => written(input).map(|w| w.properties()),
        other => properties(other).ok_or_else(|| {
            format!("unknown setting {other:?}: defaults, snappy_dict, zstd_v2 or as_written")
                .into()
        }),
    };
    let props = match props {
        Ok(p) => p,
        Err(e) => {
            eprintln!("arrow_rs_convert: {e}");
            return ExitCode::from(2);
        }
    };
    match convert(input, output, props) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("arrow_rs_convert: {}: {e}", input.to_string_lossy());
            ExitCode::FAILURE
        }
    }
}

fn properties(setting: &str) -> Option<WriterProperties> {
    Some(match setting {
        "defaults" => WriterProperties::default(),
        "snappy_dict" => WriterProperties::builder()
            .set_compression(Compression::SNAPPY)
            .set_dictionary_enabled(true)
            .build(),
        "zstd_v2" => WriterProperties::builder()
            .set_writer_version(WriterVersion::PARQUET_2_0)
            .set_compression(Compression::ZSTD(ZstdLevel::default()))
            .build(),
        _ => return None,
    })
}

type Failure = Box<dyn std::error::Error>;

/// What a file records of its writer's settings.
struct Written {
    codec: Compression,
    dictionary: bool,
    page_v2: bool,
    row_group_rows: usize,
}

impl Written {
    fn properties(&self) -> WriterProperties {
        WriterProperties::builder()
            .set_compression(self.codec)
            .set_dictionary_enabled(self.dictionary)
            .set_writer_version(if self.page_v2 {
                WriterVersion::PARQUET_2_0
            } else {
                WriterVersion::PARQUET_1_0
            })
            .set_max_row_group_row_count(Some(self.row_group_rows))
            .build()
    }

    /// The same settings as `pq convert`'s flags.
    fn pq_flags(&self) -> Vec<String> {
        let codec = match self.codec {
            Compression::SNAPPY => "snappy",
            Compression::ZSTD(_) => "zstd",
            _ => "none",
        };
        let dictionary = if self.dictionary {
            "--dictionary"
        } else {
            "--no-dictionary"
        };
        let version = if self.page_v2 { "2" } else { "1" };
        [
            "--compression",
            codec,
            dictionary,
            "--page-version",
            version,
            "--rows-per-group",
        ]
        .into_iter()
        .map(String::from)
        .chain([self.row_group_rows.to_string()])
        .collect()
    }
}

fn written(input: &std::ffi::OsStr) -> Result<Written, Failure> {
    let reader = SerializedFileReader::new(std::fs::File::open(input)?)?;
    let meta = reader.metadata();
    let rg = meta.row_groups().first().ok_or("no row group")?;
    let codec = match rg.columns().first().ok_or("no column")?.compression() {
        Compression::UNCOMPRESSED => Compression::UNCOMPRESSED,
        Compression::SNAPPY => Compression::SNAPPY,
        Compression::ZSTD(_) => Compression::ZSTD(ZstdLevel::default()),
        other => return Err(format!("codec {other}: not one the matrix uses").into()),
    };
    let dictionary = rg
        .columns()
        .iter()
        .any(|c| c.dictionary_page_offset().is_some());
    let mut pages = reader.get_row_group(0)?.get_column_page_reader(0)?;
    let page_v2 = loop {
        match pages.get_next_page()? {
            Some(Page::DictionaryPage { .. }) => continue,
            Some(p) => break matches!(p, Page::DataPageV2 { .. }),
            None => return Err("the first column chunk has no data page".into()),
        }
    };
    Ok(Written {
        codec,
        dictionary,
        page_v2,
        row_group_rows: usize::try_from(rg.num_rows())?,
    })
}

fn convert(
    input: &std::ffi::OsStr,
    output: &std::ffi::OsStr,
    props: WriterProperties,
) -> Result<(), Box<dyn std::error::Error>> {
    let start = Instant::now();
    let reader = ParquetRecordBatchReaderBuilder::try_new(std::fs::File::open(input)?)?
        .with_batch_size(8192)
        .build()?;
    let out = BufWriter::new(std::fs::File::create(output)?);
    let mut writer = ArrowWriter::try_new(out, reader.schema(), Some(props))?;
    let mut rows = 0usize;
    for batch in reader {
        let batch = batch?;
        rows += batch.num_rows();
        writer.write(&batch)?;
    }
    writer.close()?;
    let bytes = std::fs::metadata(output)?.len();
    println!("rows: {rows}");
    println!("bytes written: {bytes}");
    println!("seconds: {:.3}", start.elapsed().as_secs_f64());
    Ok(())
}
