//! `cargo xtask gen`: the test fixtures in `data/`.
//!
//! Every fixture is written by an independent writer, the arrow-rs `parquet`
//! crate, from deterministic pseudo-random data, so the bytes are the same on
//! every run and `--check` can compare them. Together they cover every
//! physical type, nulls, nested lists/maps/structs, every encoding that writer
//! offers, data pages v1 and v2, dictionary pages, every codec, and several
//! row groups and pages per chunk.

use std::path::Path;
use std::sync::Arc;

use arrow_array::builder::{
    FixedSizeListBuilder, Int16Builder, Int32Builder, Int64Builder, LargeListBuilder, ListBuilder,
    MapBuilder, StringBuilder, StructBuilder,
};
use arrow_array::types::Int32Type;
use arrow_array::*;
use arrow_buffer::{IntervalDayTime, i256};
use arrow_schema::{DataType, Field, Fields, Schema};
use parquet::arrow::ArrowWriter;
use parquet::basic::{BrotliLevel, Compression, Encoding, GzipLevel, ZstdLevel};
use parquet::file::properties::{EnabledStatistics, WriterProperties, WriterVersion};
use parquet::schema::types::ColumnPath;

use crate::rng::{Rng, RngExt, opt};

/// One fixture: a file name and how to make its bytes.
struct Fixture {
    name: &'static str,
    make: fn() -> Vec<u8>,
}

const FIXTURES: &[Fixture] = &[
    Fixture {
        name: "sample.parquet",
        make: sample,
    },
    Fixture {
        name: "all_types_plain_v1.parquet",
        make: all_types_plain_v1,
    },
    Fixture {
        name: "all_types_dict_snappy_v1.parquet",
        make: all_types_dict_snappy_v1,
    },
    Fixture {
        name: "all_types_dict_zstd_v2.parquet",
        make: all_types_dict_zstd_v2,
    },
    Fixture {
        name: "codec_uncompressed.parquet",
        make: || codec(Compression::UNCOMPRESSED),
    },
    Fixture {
        name: "codec_snappy.parquet",
        make: || codec(Compression::SNAPPY),
    },
    Fixture {
        name: "codec_gzip.parquet",
        make: || codec(Compression::GZIP(GzipLevel::default())),
    },
    Fixture {
        name: "codec_brotli.parquet",
        make: || codec(Compression::BROTLI(BrotliLevel::default())),
    },
    Fixture {
        name: "codec_lz4.parquet",
        make: || codec(Compression::LZ4),
    },
    Fixture {
        name: "codec_lz4_raw.parquet",
        make: || codec(Compression::LZ4_RAW),
    },
    Fixture {
        name: "codec_zstd.parquet",
        make: || codec(Compression::ZSTD(ZstdLevel::default())),
    },
    Fixture {
        name: "enc_delta_binary_packed_v1.parquet",
        make: || encoding(Encoding::DELTA_BINARY_PACKED, WriterVersion::PARQUET_1_0),
    },
    Fixture {
        name: "enc_delta_binary_packed_v2.parquet",
        make: || encoding(Encoding::DELTA_BINARY_PACKED, WriterVersion::PARQUET_2_0),
    },
    Fixture {
        name: "enc_delta_length_byte_array_v1.parquet",
        make: || {
            encoding(
                Encoding::DELTA_LENGTH_BYTE_ARRAY,
                WriterVersion::PARQUET_1_0,
            )
        },
    },
    Fixture {
        name: "enc_delta_length_byte_array_v2.parquet",
        make: || {
            encoding(
                Encoding::DELTA_LENGTH_BYTE_ARRAY,
                WriterVersion::PARQUET_2_0,
            )
        },
    },
    Fixture {
        name: "enc_delta_byte_array_v1.parquet",
        make: || encoding(Encoding::DELTA_BYTE_ARRAY, WriterVersion::PARQUET_1_0),
    },
    Fixture {
        name: "enc_delta_byte_array_v2.parquet",
        make: || encoding(Encoding::DELTA_BYTE_ARRAY, WriterVersion::PARQUET_2_0),
    },
    Fixture {
        name: "enc_byte_stream_split_v1.parquet",
        make: || encoding(Encoding::BYTE_STREAM_SPLIT, WriterVersion::PARQUET_1_0),
    },
    Fixture {
        name: "enc_byte_stream_split_v2.parquet",
        make: || encoding(Encoding::BYTE_STREAM_SPLIT, WriterVersion::PARQUET_2_0),
    },
    Fixture {
        name: "enc_rle_boolean_v2.parquet",
        make: || encoding(Encoding::RLE, WriterVersion::PARQUET_2_0),
    },
    Fixture {
        name: "nested_plain_v1.parquet",
        make: nested_plain_v1,
    },
    Fixture {
        name: "nested_dict_snappy_v2.parquet",
        make: nested_dict_snappy_v2,
    },
    Fixture {
        name: "many_pages.parquet",
        make: many_pages,
    },
];

/// Write every fixture into `data/`, or with `check`, fail if any differs.
pub fn run(root: &Path, check: bool) -> crate::Result<()> {
    let dir = root.join("data");
    std::fs::create_dir_all(&dir).map_err(|e| format!("creating {}: {e}", dir.display()))?;
    let mut stale = Vec::new();
    for fixture in FIXTURES {
        let bytes = (fixture.make)();
        let path = dir.join(fixture.name);
        let current = std::fs::read(&path).ok();
        if current.as_deref() == Some(bytes.as_slice()) {
            continue;
        }
        if check {
            stale.push(fixture.name);
        } else {
            std::fs::write(&path, &bytes)
                .map_err(|e| format!("writing {}: {e}", path.display()))?;
            eprintln!("wrote data/{} ({} bytes)", fixture.name, bytes.len());
        }
    }
    // A parquet file in data/ that no fixture makes is stale too: nothing
    // would ever regenerate it.
    let entries = std::fs::read_dir(&dir).map_err(|e| format!("reading {}: {e}", dir.display()))?;
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.ends_with(".parquet") && !FIXTURES.iter().any(|f| f.name == name) {
            return Err(format!(
                "data/{name} is not made by `cargo xtask gen`; remove it"
            ));
        }
    }
    if stale.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "fixtures are stale, run `cargo xtask gen`: {}",
            stale.join(", ")
        ))
    }
}

fn write(batches: &[RecordBatch], props: WriterProperties) -> Vec<u8> {
    let Some(first) = batches.first() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    // Fixture generation is a developer tool over data it made itself: a
    // failure here is a bug in this file, so panicking with the cause is fine.
    #[allow(clippy::unwrap_used)]
    {
        let mut writer = ArrowWriter::try_new(&mut out, first.schema(), Some(props)).unwrap();
        for batch in batches {
            writer.write(batch).unwrap();
        }
        writer.close().unwrap();
    }
    out
}

#[allow(clippy::unwrap_used)]
fn batch(columns: Vec<(&str, ArrayRef)>) -> RecordBatch {
    RecordBatch::try_from_iter(columns).unwrap()
}

fn base_props() -> parquet::file::properties::WriterPropertiesBuilder {
    WriterProperties::builder()
        .set_created_by("pq fixtures (arrow-rs parquet writer)".to_string())
        .set_statistics_enabled(EnabledStatistics::Page)
}

/// A friendly table for the README.
fn sample() -> Vec<u8> {
    let cities = [
        (
            "Tokyo",
            "Japan",
            37_400_068_i64,
            2194.07,
            true,
            1457,
            &["megacity", "coastal"][..],
        ),
        (
            "Delhi",
            "India",
            28_514_000,
            1484.0,
            true,
            -300,
            &["megacity"][..],
        ),
        (
            "Shanghai",
            "China",
            25_582_000,
            6340.5,
            false,
            751,
            &["coastal", "port"][..],
        ),
        (
            "São Paulo",
            "Brazil",
            21_650_000,
            1521.11,
            false,
            1554,
            &[][..],
        ),
        (
            "Mexico City",
            "Mexico",
            21_581_000,
            1485.0,
            true,
            1325,
            &["highland"][..],
        ),
        (
            "Cairo",
            "Egypt",
            20_076_000,
            3085.12,
            true,
            969,
            &["river"][..],
        ),
        (
            "Mumbai",
            "India",
            19_980_000,
            603.4,
            false,
            1507,
            &["coastal", "port"][..],
        ),
        (
            "Beijing",
            "China",
            19_618_000,
            16410.54,
            true,
            -1045,
            &[][..],
        ),
        (
            "Osaka",
            "Japan",
            19_281_000,
            225.21,
            false,
            645,
            &["port"][..],
        ),
        (
            "New York",
            "United States",
            18_819_000,
            783.8,
            false,
            1624,
            &["coastal", "port"][..],
        ),
        (
            "Lagos",
            "Nigeria",
            13_463_000,
            1171.28,
            false,
            1472,
            &["coastal"][..],
        ),
        (
            "Zürich",
            "Switzerland",
            421_878,
            87.88,
            false,
            -15,
            &["lake"][..],
        ),
    ];
    let mut tags = ListBuilder::new(StringBuilder::new());
    for (_, _, _, _, _, _, t) in &cities {
        for tag in *t {
            tags.values().append_value(tag);
        }
        tags.append(true);
    }
    let founded: Vec<Option<i32>> = cities
        .iter()
        .map(|c| if c.0 == "Lagos" { None } else { Some(c.5) })
        .collect();
    let b = batch(vec![
        (
            "id",
            Arc::new(Int32Array::from_iter_values(1..=cities.len() as i32)),
        ),
        (
            "city",
            Arc::new(StringArray::from_iter_values(cities.iter().map(|c| c.0))),
        ),
        (
            "country",
            Arc::new(StringArray::from_iter_values(cities.iter().map(|c| c.1))),
        ),
        (
            "population",
            Arc::new(Int64Array::from_iter_values(cities.iter().map(|c| c.2))),
        ),
        (
            "area_km2",
            Arc::new(Float64Array::from_iter_values(cities.iter().map(|c| c.3))),
        ),
        (
            "capital",
            Arc::new(BooleanArray::from_iter(cities.iter().map(|c| Some(c.4)))),
        ),
        ("founded", Arc::new(Int32Array::from(founded))),
        ("tags", Arc::new(tags.finish())),
    ]);
    write(
        &[b],
        base_props().set_compression(Compression::SNAPPY).build(),
    )
}

/// Every flat Arrow type the arrow-rs writer maps, with nulls and edge values.
fn all_types_batch(rows: usize, seed: u64) -> RecordBatch {
    let mut r = Rng(seed);
    let n = rows;
    // Edge values first so every page-boundary test sees them.
    let i64s = opt(&mut r, n, 7, |r, i| match i {
        0 => i64::MIN,
        1 => i64::MAX,
        2 => 0,
        _ => r.next() as i64,
    });
    let i32s = opt(&mut r, n, 7, |r, i| match i {
        0 => i32::MIN,
        1 => i32::MAX,
        _ => r.next() as i32,
    });
    let f64s = opt(&mut r, n, 9, |r, i| match i {
        0 => f64::NAN,
        1 => -0.0,
        2 => f64::INFINITY,
        3 => f64::NEG_INFINITY,
        4 => f64::MIN_POSITIVE,
        _ => (r.next() as i64 as f64) / 1e9,
    });
    let f32s = opt(&mut r, n, 9, |r, i| match i {
        0 => f32::NAN,
        1 => -0.0,
        2 => f32::MAX,
        _ => (r.next() as i32 as f32) / 1e3,
    });
    let f16s = opt(&mut r, n, 9, |r, i| match i {
        0 => half::f16::NAN,
        1 => half::f16::MAX,
        _ => half::f16::from_f32((r.next() as i16 as f32) / 100.0),
    });
    let strings = opt(&mut r, n, 5, |r, _| r.string(0, 24));
    let binaries = opt(&mut r, n, 5, |r, _| {
        let len = r.below(20) as usize;
        r.bytes(len)
    });
    let fixed = opt(&mut r, n, 6, |r, _| r.bytes(16));
    let low_card = ["red", "green", "blue", "cyan", "magenta"];
    let dict_keys = opt(&mut r, n, 8, |r, _| r.below(low_card.len() as u64) as i32);
    let dec9 = opt(&mut r, n, 6, |r, _| {
        (r.next() % 1_000_000_000) as i128 - 500_000_000
    });
    let dec18 = opt(&mut r, n, 6, |r, _| {
        (r.next() % 1_000_000_000_000_000_000) as i128 - 1
    });
    let dec38 = opt(&mut r, n, 6, |r, i| match i {
        0 => 10_i128.pow(38) - 1,
        1 => -(10_i128.pow(38) - 1),
        _ => ((r.next() as i128) << 60) ^ r.next() as i128,
    });
    let dec76 = opt(&mut r, n, 6, |r, _| {
        i256::from_i128(r.next() as i64 as i128).wrapping_mul(i256::from_i128(r.next() as i128))
    });
    let days = opt(&mut r, n, 7, |r, i| match i {
        0 => -719_162,  // 0001-01-01
        1 => 2_932_896, // 9999-12-31
        _ => (r.below(40_000) as i32) - 10_000,
    });
    let millis = opt(&mut r, n, 7, |r, _| {
        (r.below(4_000_000_000_000) as i64) - 1_000_000_000_000
    });
    let nanos = opt(&mut r, n, 7, |r, _| r.next() as i64 / 4);
    let ym = opt(&mut r, n, 7, |r, _| r.below(2400) as i32 - 1200);
    let dt = opt(&mut r, n, 7, |r, _| {
        IntervalDayTime::new(r.below(1000) as i32, r.below(86_400_000) as i32)
    });
    let bools = opt(&mut r, n, 4, |r, _| r.one_in(3));
    let required: Vec<i32> = (0..n as i32).collect();

    let utc: Arc<str> = Arc::from("UTC");
    let plus_one: Arc<str> = Arc::from("+01:00");
    #[allow(clippy::unwrap_used)]
    let columns: Vec<(&str, ArrayRef)> = vec![
        ("bool", Arc::new(BooleanArray::from(bools))),
        (
            "int8",
            Arc::new(Int8Array::from_iter(
                i32s.iter().map(|v| v.map(|v| v as i8)),
            )),
        ),
        (
            "int16",
            Arc::new(Int16Array::from_iter(
                i32s.iter().map(|v| v.map(|v| v as i16)),
            )),
        ),
        ("int32", Arc::new(Int32Array::from(i32s.clone()))),
        ("int64", Arc::new(Int64Array::from(i64s.clone()))),
        (
            "uint8",
            Arc::new(UInt8Array::from_iter(
                i64s.iter().map(|v| v.map(|v| v as u8)),
            )),
        ),
        (
            "uint16",
            Arc::new(UInt16Array::from_iter(
                i64s.iter().map(|v| v.map(|v| v as u16)),
            )),
        ),
        (
            "uint32",
            Arc::new(UInt32Array::from_iter(
                i64s.iter().map(|v| v.map(|v| v as u32)),
            )),
        ),
        (
            "uint64",
            Arc::new(UInt64Array::from_iter(
                i64s.iter().map(|v| v.map(|v| v as u64)),
            )),
        ),
        ("float16", Arc::new(Float16Array::from(f16s))),
        ("float32", Arc::new(Float32Array::from(f32s))),
        ("float64", Arc::new(Float64Array::from(f64s))),
        ("utf8", Arc::new(StringArray::from(strings.clone()))),
        (
            "large_utf8",
            Arc::new(LargeStringArray::from(strings.clone())),
        ),
        (
            "utf8_view",
            Arc::new(StringViewArray::from(strings.clone())),
        ),
        (
            "binary",
            Arc::new(BinaryArray::from_iter(
                binaries.iter().map(|v| v.as_deref()),
            )),
        ),
        (
            "large_binary",
            Arc::new(LargeBinaryArray::from_iter(
                binaries.iter().map(|v| v.as_deref()),
            )),
        ),
        (
            "fixed_binary16",
            Arc::new(
                FixedSizeBinaryArray::try_from_sparse_iter_with_size(fixed.into_iter(), 16)
                    .unwrap(),
            ),
        ),
        (
            "dict_utf8",
            Arc::new(
                DictionaryArray::<Int32Type>::try_new(
                    Int32Array::from(dict_keys),
                    Arc::new(StringArray::from_iter_values(low_card)),
                )
                .unwrap(),
            ),
        ),
        (
            "decimal_9_2",
            Arc::new(
                Decimal128Array::from(dec9)
                    .with_precision_and_scale(9, 2)
                    .unwrap(),
            ),
        ),
        (
            "decimal_18_4",
            Arc::new(
                Decimal128Array::from(dec18)
                    .with_precision_and_scale(18, 4)
                    .unwrap(),
            ),
        ),
        (
            "decimal_38_10",
            Arc::new(
                Decimal128Array::from(dec38)
                    .with_precision_and_scale(38, 10)
                    .unwrap(),
            ),
        ),
        (
            "decimal256_76_5",
            Arc::new(
                Decimal256Array::from(dec76)
                    .with_precision_and_scale(76, 5)
                    .unwrap(),
            ),
        ),
        ("date32", Arc::new(Date32Array::from(days.clone()))),
        (
            "date64",
            Arc::new(Date64Array::from_iter(
                days.iter().map(|d| d.map(|d| d as i64 * 86_400_000)),
            )),
        ),
        (
            "time32_ms",
            Arc::new(Time32MillisecondArray::from_iter(
                millis
                    .iter()
                    .map(|m| m.map(|m| m.rem_euclid(86_400_000) as i32)),
            )),
        ),
        (
            "time64_us",
            Arc::new(Time64MicrosecondArray::from_iter(
                nanos
                    .iter()
                    .map(|v| v.map(|v| v.rem_euclid(86_400_000_000))),
            )),
        ),
        (
            "time64_ns",
            Arc::new(Time64NanosecondArray::from_iter(
                nanos
                    .iter()
                    .map(|v| v.map(|v| v.rem_euclid(86_400_000_000_000))),
            )),
        ),
        (
            "ts_ms",
            Arc::new(TimestampMillisecondArray::from(millis.clone())),
        ),
        (
            "ts_us_utc",
            Arc::new(
                TimestampMicrosecondArray::from_iter(millis.iter().map(|m| m.map(|m| m * 1000)))
                    .with_timezone(utc),
            ),
        ),
        (
            "ts_ns_plus1",
            Arc::new(TimestampNanosecondArray::from(nanos).with_timezone(plus_one)),
        ),
        ("interval_ym", Arc::new(IntervalYearMonthArray::from(ym))),
        ("interval_dt", Arc::new(IntervalDayTimeArray::from(dt))),
        ("null", Arc::new(NullArray::new(n))),
        ("required_int32", Arc::new(Int32Array::from(required))),
    ];
    // Non-nullable field for the required column, so it is REQUIRED in Parquet.
    let fields: Vec<Field> = columns
        .iter()
        .map(|(name, a)| Field::new(*name, a.data_type().clone(), *name != "required_int32"))
        .collect();
    let arrays: Vec<ArrayRef> = columns.into_iter().map(|(_, a)| a).collect();
    #[allow(clippy::unwrap_used)]
    RecordBatch::try_new(Arc::new(Schema::new(fields)), arrays).unwrap()
}

fn all_types(props: WriterProperties) -> Vec<u8> {
    let batches: Vec<RecordBatch> = (0..3).map(|i| all_types_batch(1000, 11 + i)).collect();
    write(&batches, props)
}

fn all_types_plain_v1() -> Vec<u8> {
    all_types(
        base_props()
            .set_dictionary_enabled(false)
            .set_max_row_group_row_count(Some(1500))
            .set_data_page_row_count_limit(400)
            .set_write_batch_size(100)
            .build(),
    )
}

fn all_types_dict_snappy_v1() -> Vec<u8> {
    all_types(
        base_props()
            .set_compression(Compression::SNAPPY)
            .set_max_row_group_row_count(Some(2000))
            .set_data_page_row_count_limit(700)
            .set_write_batch_size(100)
            .build(),
    )
}

fn all_types_dict_zstd_v2() -> Vec<u8> {
    all_types(
        base_props()
            .set_writer_version(WriterVersion::PARQUET_2_0)
            .set_compression(Compression::ZSTD(ZstdLevel::default()))
            .set_data_page_row_count_limit(1000)
            .build(),
    )
}

/// A table every codec compresses: keys, repetitive strings, doubles.
fn codec(compression: Compression) -> Vec<u8> {
    let mut r = Rng(7);
    let n = 5000;
    let words = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta"];
    let keys: Vec<i64> = (0..n).map(|i| 1_000_000 + i as i64 * 3).collect();
    let tags = opt(&mut r, n, 10, |r, _| words[r.below(6) as usize].to_string());
    let text = opt(&mut r, n, 10, |r, _| r.string(5, 40));
    let vals = opt(&mut r, n, 10, |r, _| (r.below(1_000_000) as f64) / 100.0);
    let b = batch(vec![
        ("key", Arc::new(Int64Array::from(keys))),
        ("tag", Arc::new(StringArray::from(tags))),
        ("text", Arc::new(StringArray::from(text))),
        ("value", Arc::new(Float64Array::from(vals))),
    ]);
    write(
        &[b],
        base_props()
            .set_compression(compression)
            .set_data_page_row_count_limit(1000)
            .set_write_batch_size(250)
            .build(),
    )
}

/// The columns an encoding applies to, written with that encoding only.
fn encoding(enc: Encoding, version: WriterVersion) -> Vec<u8> {
    let mut r = Rng(enc as u64 + 100);
    let n = 3000;
    let columns: Vec<(&str, ArrayRef)> = match enc {
        Encoding::DELTA_BINARY_PACKED => vec![
            (
                "int32",
                Arc::new(Int32Array::from(opt(&mut r, n, 8, |r, i| match i % 300 {
                    0 => i32::MIN,
                    1 => i32::MAX,
                    _ => (i as i32) * 7 + r.below(50) as i32,
                }))),
            ),
            (
                "int64",
                Arc::new(Int64Array::from(opt(&mut r, n, 8, |r, i| match i % 500 {
                    0 => i64::MIN,
                    1 => i64::MAX,
                    _ => r.next() as i64 >> r.below(60),
                }))),
            ),
            (
                "sorted",
                Arc::new(Int64Array::from_iter_values(
                    (0..n as i64).map(|i| i * 1000),
                )),
            ),
            (
                "constant",
                Arc::new(Int32Array::from_iter_values((0..n).map(|_| 42))),
            ),
            (
                "date32",
                Arc::new(Date32Array::from(opt(&mut r, n, 9, |r, _| {
                    r.below(30_000) as i32
                }))),
            ),
            (
                "uint64",
                Arc::new(UInt64Array::from(opt(&mut r, n, 9, |r, _| r.next()))),
            ),
        ],
        Encoding::DELTA_LENGTH_BYTE_ARRAY | Encoding::DELTA_BYTE_ARRAY => {
            let prefixes = ["axis", "axle", "babble", "babyhood", "http://example.com/"];
            vec![
                (
                    "utf8",
                    Arc::new(StringArray::from(opt(&mut r, n, 7, |r, _| {
                        let p = prefixes[r.below(5) as usize];
                        format!("{p}{}", r.string(0, 12))
                    }))),
                ),
                (
                    "binary",
                    Arc::new(BinaryArray::from_iter(opt(&mut r, n, 7, |r, _| {
                        let len = r.below(30) as usize;
                        r.bytes(len)
                    }))),
                ),
                (
                    "empty_strings",
                    Arc::new(StringArray::from_iter_values(
                        (0..n).map(|i| if i % 3 == 0 { "" } else { "x" }),
                    )),
                ),
            ]
        }
        Encoding::BYTE_STREAM_SPLIT => vec![
            (
                "float32",
                Arc::new(Float32Array::from(opt(&mut r, n, 8, |r, _| {
                    r.next() as i32 as f32 / 7.0
                }))),
            ),
            (
                "float64",
                Arc::new(Float64Array::from(opt(&mut r, n, 8, |r, _| {
                    r.next() as i64 as f64 / 3.0
                }))),
            ),
            (
                "int32",
                Arc::new(Int32Array::from(opt(&mut r, n, 8, |r, _| r.next() as i32))),
            ),
            (
                "int64",
                Arc::new(Int64Array::from(opt(&mut r, n, 8, |r, _| r.next() as i64))),
            ),
            (
                "fixed5",
                #[allow(clippy::unwrap_used)]
                Arc::new(
                    FixedSizeBinaryArray::try_from_sparse_iter_with_size(
                        opt(&mut r, n, 8, |r, _| r.bytes(5)).into_iter(),
                        5,
                    )
                    .unwrap(),
                ),
            ),
        ],
        _ => vec![
            (
                "bool",
                Arc::new(BooleanArray::from(opt(&mut r, n, 6, |r, i| {
                    i % 40 < 25 || r.one_in(5)
                }))),
            ),
            (
                "bool_required",
                Arc::new(BooleanArray::from_iter(
                    (0..n).map(|i| Some((i / 100) % 2 == 0)),
                )),
            ),
        ],
    };
    let fields: Vec<Field> = columns
        .iter()
        .map(|(name, a)| {
            let nullable = !matches!(
                *name,
                "sorted" | "constant" | "empty_strings" | "bool_required"
            );
            Field::new(*name, a.data_type().clone(), nullable)
        })
        .collect();
    let arrays: Vec<ArrayRef> = columns.iter().map(|(_, a)| a.clone()).collect();
    #[allow(clippy::unwrap_used)]
    let b = RecordBatch::try_new(Arc::new(Schema::new(fields)), arrays).unwrap();
    let mut props = base_props()
        .set_writer_version(version)
        .set_dictionary_enabled(false)
        .set_data_page_row_count_limit(700)
        .set_write_batch_size(100);
    for (name, _) in &columns {
        props = props.set_column_encoding(ColumnPath::from(*name), enc);
    }
    write(&[b], props.build())
}

/// Nested lists, maps and structs with nulls at every level.
fn nested_batch(rows: usize, seed: u64) -> RecordBatch {
    let mut r = Rng(seed);

    let mut list_i64 = ListBuilder::new(Int64Builder::new());
    let mut large_list_str = LargeListBuilder::new(StringBuilder::new());
    let mut list_list = ListBuilder::new(ListBuilder::new(Int32Builder::new()));
    let mut fixed_list = FixedSizeListBuilder::new(Int16Builder::new(), 3);
    let mut map = MapBuilder::new(None, StringBuilder::new(), Int64Builder::new());

    let inner_fields = Fields::from(vec![Field::new("d", DataType::Float64, true)]);
    let point = Field::new_struct("item", inner_fields.clone(), true);
    let struct_fields = Fields::from(vec![
        Field::new("a", DataType::Int32, true),
        Field::new("b", DataType::Utf8, true),
        Field::new_list("c", point.clone(), true),
    ]);
    let mut structs = StructBuilder::from_fields(struct_fields.clone(), rows);

    for _ in 0..rows {
        // list<int64>: null list, empty list, null elements.
        match r.below(6) {
            0 => list_i64.append(false),
            1 => list_i64.append(true),
            _ => {
                for _ in 0..r.below(5) + 1 {
                    if r.one_in(5) {
                        list_i64.values().append_null();
                    } else {
                        list_i64.values().append_value(r.next() as i64 >> 20);
                    }
                }
                list_i64.append(true);
            }
        }
        // large_list<utf8>
        if r.one_in(7) {
            large_list_str.append(false);
        } else {
            for _ in 0..r.below(4) {
                if r.one_in(6) {
                    large_list_str.values().append_null();
                } else {
                    let s = r.string(0, 8);
                    large_list_str.values().append_value(s);
                }
            }
            large_list_str.append(true);
        }
        // list<list<int32>>
        if r.one_in(8) {
            list_list.append(false);
        } else {
            for _ in 0..r.below(4) {
                if r.one_in(5) {
                    list_list.values().append(false);
                } else {
                    for _ in 0..r.below(4) {
                        if r.one_in(6) {
                            list_list.values().values().append_null();
                        } else {
                            list_list
                                .values()
                                .values()
                                .append_value(r.below(1000) as i32);
                        }
                    }
                    list_list.values().append(true);
                }
            }
            list_list.append(true);
        }
        // fixed_size_list<int16, 3>
        let null_list = r.one_in(6);
        for _ in 0..3 {
            if null_list || r.one_in(7) {
                fixed_list.values().append_null();
            } else {
                fixed_list.values().append_value(r.next() as i16);
            }
        }
        fixed_list.append(!null_list);
        // map<utf8, int64>: keys unique within an entry.
        if r.one_in(7) {
            #[allow(clippy::unwrap_used)]
            map.append(false).unwrap();
        } else {
            for k in 0..r.below(4) {
                map.keys().append_value(format!("k{k}"));
                if r.one_in(4) {
                    map.values().append_null();
                } else {
                    map.values().append_value(r.next() as i64);
                }
            }
            #[allow(clippy::unwrap_used)]
            map.append(true).unwrap();
        }
        // struct{a: int32, b: utf8, c: list<struct{d: f64}>}
        let valid = !r.one_in(6);
        append_struct_row(&mut structs, &mut r, valid);
    }

    #[allow(clippy::unwrap_used)]
    let ids = Int32Array::from_iter_values(0..rows as i32);
    batch(vec![
        ("id", Arc::new(ids)),
        ("list_int64", Arc::new(list_i64.finish())),
        ("large_list_utf8", Arc::new(large_list_str.finish())),
        ("list_list_int32", Arc::new(list_list.finish())),
        ("fixed_list_int16", Arc::new(fixed_list.finish())),
        ("map_utf8_int64", Arc::new(map.finish())),
        ("struct", Arc::new(structs.finish())),
    ])
}

/// One row of `struct{a, b, c: list<struct{d}>}`; children get a slot (null)
/// even when the struct itself is null, as Arrow requires.
#[allow(clippy::unwrap_used)]
fn append_struct_row(s: &mut StructBuilder, r: &mut Rng, valid: bool) {
    let a = s.field_builder::<Int32Builder>(0).unwrap();
    if valid && !r.one_in(5) {
        a.append_value(r.below(100) as i32);
    } else {
        a.append_null();
    }
    let b = s.field_builder::<StringBuilder>(1).unwrap();
    if valid && !r.one_in(5) {
        b.append_value(r.string(1, 6));
    } else {
        b.append_null();
    }
    let c = s
        .field_builder::<ListBuilder<Box<dyn arrow_array::builder::ArrayBuilder>>>(2)
        .unwrap();
    if valid && !r.one_in(4) {
        let items = r.below(3);
        for _ in 0..items {
            let inner = c
                .values()
                .as_any_mut()
                .downcast_mut::<StructBuilder>()
                .unwrap();
            let present = !r.one_in(5);
            let d = inner
                .field_builder::<arrow_array::builder::Float64Builder>(0)
                .unwrap();
            if present && !r.one_in(4) {
                d.append_value(r.below(10_000) as f64 / 10.0);
            } else {
                d.append_null();
            }
            inner.append(present);
        }
        c.append(true);
    } else {
        c.append(false);
    }
    s.append(valid);
}

fn nested_plain_v1() -> Vec<u8> {
    let batches: Vec<RecordBatch> = (0..2).map(|i| nested_batch(1500, 21 + i)).collect();
    write(
        &batches,
        base_props()
            .set_dictionary_enabled(false)
            .set_max_row_group_row_count(Some(2000))
            .set_data_page_row_count_limit(300)
            .set_write_batch_size(100)
            .build(),
    )
}

fn nested_dict_snappy_v2() -> Vec<u8> {
    let batches: Vec<RecordBatch> = (0..2).map(|i| nested_batch(1500, 31 + i)).collect();
    write(
        &batches,
        base_props()
            .set_writer_version(WriterVersion::PARQUET_2_0)
            .set_compression(Compression::SNAPPY)
            .set_data_page_row_count_limit(500)
            .set_write_batch_size(100)
            .build(),
    )
}

/// Many row groups and many small pages per chunk, with the page index.
fn many_pages() -> Vec<u8> {
    let mut r = Rng(99);
    let n = 20_000;
    let ts: Vec<i64> = (0..n as i64)
        .map(|i| 1_700_000_000_000 + i * 1000)
        .collect();
    let b = batch(vec![
        ("ts", Arc::new(TimestampMillisecondArray::from(ts))),
        (
            "sensor",
            Arc::new(StringArray::from(opt(&mut r, n, 0, |r, _| {
                format!("sensor-{}", r.below(40))
            }))),
        ),
        (
            "reading",
            Arc::new(Float64Array::from(opt(&mut r, n, 20, |r, _| {
                r.below(100_000) as f64 / 1000.0
            }))),
        ),
        (
            "flag",
            Arc::new(BooleanArray::from(opt(&mut r, n, 30, |r, _| r.one_in(10)))),
        ),
    ]);
    write(
        &[b],
        base_props()
            .set_compression(Compression::SNAPPY)
            .set_max_row_group_row_count(Some(5000))
            .set_data_page_row_count_limit(250)
            .set_write_batch_size(50)
            .build(),
    )
}
