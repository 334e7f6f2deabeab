//! Cross-checks against arrow-rs (the `parquet` crate): decode the data
//! pages of real files — the parquet-testing corpus and files arrow-rs's
//! writer produces in memory — with OUR decoders and compare every non-null
//! value with what arrow-rs's column reader returns for the same column.
//!
//! Corpus files are read from `$PARQUET_TESTING_DIR/data`; when that is
//! unset the corpus tests print a notice and pass, unless `CI` is set.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;

use bytes::Bytes;
use parquet::basic::{Encoding, Type as PhysicalType};
use parquet::column::page::Page;
use parquet::column::reader::get_typed_column_reader;
use parquet::data_type::{self as dt, DataType};
use parquet::file::properties::{WriterProperties, WriterVersion};
use parquet::file::reader::{FileReader, SerializedFileReader};
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::parser::parse_message_type;
use pq_encoding::{ByteArrayDecode, dictionary, plain, rle};
use pq_encoding::{byte_stream_split as bss, delta_binary_packed as dbp, delta_byte_array as dba};

/// Every value as its PLAIN bytes (booleans as one byte), so all types
/// compare the same way.
type Values = Vec<Vec<u8>>;

fn le<T: plain::FixedWidth>(v: &[T]) -> Values {
    v.iter()
        .map(|x| {
            let mut b = vec![0; T::SIZE];
            x.to_le(&mut b);
            b
        })
        .collect()
}

fn split(offsets: &[i64], values: &[u8]) -> Values {
    offsets
        .windows(2)
        .map(|w| values[w[0] as usize..w[1] as usize].to_vec())
        .collect()
}

/// Decodes `n` values of one page body with our decoders.
fn decode_values(
    ty: PhysicalType,
    width: usize,
    enc: Encoding,
    buf: &[u8],
    n: usize,
    dict: &Values,
) -> Values {
    /// PLAIN and BYTE_STREAM_SPLIT for every fixed-width type; `other`
    /// decodes the type's own encodings, or returns None.
    fn fixed<T: plain::FixedWidth>(
        enc: Encoding,
        buf: &[u8],
        n: usize,
        other: impl FnOnce(&mut [T]) -> Option<usize>,
    ) -> Values {
        let mut out = vec![T::default(); n];
        let got = match enc {
            Encoding::PLAIN => plain::PlainDecoder::<T>::new(buf).decode(&mut out).unwrap(),
            Encoding::BYTE_STREAM_SPLIT => bss::ByteStreamSplitDecoder::new(buf, T::SIZE)
                .unwrap()
                .decode(&mut out)
                .unwrap(),
            e => other(&mut out).unwrap_or_else(|| panic!("unexpected encoding {e}")),
        };
        assert_eq!(got, n);
        le(&out)
    }
    fn int<T: plain::FixedWidth + dbp::DeltaInt>(enc: Encoding, buf: &[u8], n: usize) -> Values {
        fixed::<T>(enc, buf, n, |out| {
            (enc == Encoding::DELTA_BINARY_PACKED).then(|| {
                dbp::DeltaBitPackDecoder::<T>::new(buf)
                    .unwrap()
                    .decode(out)
                    .unwrap()
            })
        })
    }
    if matches!(enc, Encoding::RLE_DICTIONARY | Encoding::PLAIN_DICTIONARY) {
        let mut idx = Vec::new();
        dictionary::indices_decoder(buf)
            .unwrap()
            .decode_into(&mut idx, n)
            .unwrap();
        // Every type's dictionary as byte strings: exercises the byte-array gather.
        let mut doff = vec![0i64];
        for v in dict {
            doff.push(doff.last().unwrap() + v.len() as i64);
        }
        let (mut o, mut v) = (Vec::<i64>::new(), Vec::new());
        dictionary::gather_byte_array(&doff, &dict.concat(), &idx, &mut o, &mut v).unwrap();
        return split(&o, &v);
    }
    match ty {
        PhysicalType::BOOLEAN => {
            let mut out = vec![false; n];
            match enc {
                Encoding::PLAIN => {
                    assert_eq!(plain::BooleanDecoder::new(buf).decode(&mut out).unwrap(), n)
                }
                Encoding::RLE => {
                    let (mut d, _) = rle::RleDecoder::new_length_prefixed(buf, 1).unwrap();
                    assert_eq!(d.decode(&mut out).unwrap(), n);
                }
                e => panic!("unexpected encoding {e}"),
            }
            out.iter().map(|&b| vec![b as u8]).collect()
        }
        PhysicalType::INT32 => int::<i32>(enc, buf, n),
        PhysicalType::INT64 => int::<i64>(enc, buf, n),
        PhysicalType::FLOAT => fixed::<f32>(enc, buf, n, |_| None),
        PhysicalType::DOUBLE => fixed::<f64>(enc, buf, n, |_| None),
        PhysicalType::INT96 => {
            let mut out = vec![[0u32; 3]; n];
            assert_eq!(
                plain::PlainDecoder::<[u32; 3]>::new(buf)
                    .decode(&mut out)
                    .unwrap(),
                n
            );
            le(&out)
        }
        PhysicalType::BYTE_ARRAY => {
            let (mut o, mut v) = (Vec::<i64>::new(), Vec::new());
            let got = match enc {
                Encoding::PLAIN => plain::ByteArrayDecoder::new(buf)
                    .decode(&mut o, &mut v, n)
                    .unwrap(),
                Encoding::DELTA_LENGTH_BYTE_ARRAY => dba::DeltaLengthDecoder::new(buf)
                    .unwrap()
                    .decode(&mut o, &mut v, n)
                    .unwrap(),
                Encoding::DELTA_BYTE_ARRAY => dba::DeltaByteArrayDecoder::new(buf)
                    .unwrap()
                    .decode(&mut o, &mut v, n)
                    .unwrap(),
                e => panic!("unexpected encoding {e}"),
            };
            assert_eq!(got, n);
            split(&o, &v)
        }
        PhysicalType::FIXED_LEN_BYTE_ARRAY => {
            let mut out = Vec::new();
            let got = match enc {
                Encoding::PLAIN => plain::FixedLenDecoder::new(buf, width)
                    .unwrap()
                    .decode(&mut out, n)
                    .unwrap(),
                Encoding::DELTA_BYTE_ARRAY => dba::DeltaByteArrayDecoder::new(buf)
                    .unwrap()
                    .decode_fixed(&mut out, width, n)
                    .unwrap(),
                Encoding::BYTE_STREAM_SPLIT => bss::ByteStreamSplitDecoder::new(buf, width)
                    .unwrap()
                    .decode_bytes(&mut out, n)
                    .unwrap(),
                e => panic!("unexpected encoding {e}"),
            };
            assert_eq!(got, n);
            out.chunks(width).map(|c| c.to_vec()).collect()
        }
    }
}

/// Counts levels equal to `max` among `n` hybrid-encoded levels.
fn count_max(data: &[u8], bit_width: u8, n: usize, max: i16) -> usize {
    let mut levels = vec![0i16; n];
    let mut d = rle::RleDecoder::new(data, bit_width).unwrap();
    assert_eq!(d.decode(&mut levels).unwrap(), n);
    levels.iter().filter(|&&l| l == max).count()
}

fn width_of(max: i16) -> u8 {
    (16 - (max as u16).leading_zeros()) as u8
}

/// Our decoding of every non-null value of column `col`, and the set of
/// value encodings seen.
fn ours(reader: &SerializedFileReader<Bytes>, col: usize) -> (Values, Vec<Encoding>) {
    let mut all = Vec::new();
    let mut encodings = Vec::new();
    for rg in 0..reader.num_row_groups() {
        let rgr = reader.get_row_group(rg).unwrap();
        let descr = rgr.metadata().column(col).column_descr_ptr();
        let (ty, width) = (descr.physical_type(), descr.type_length().max(0) as usize);
        let (max_def, max_rep) = (descr.max_def_level(), descr.max_rep_level());
        let mut dict: Values = Vec::new();
        for page in rgr.get_column_page_reader(col).unwrap() {
            match page.unwrap() {
                Page::DictionaryPage {
                    buf, num_values, ..
                } => {
                    dict = decode_values(
                        ty,
                        width,
                        Encoding::PLAIN,
                        &buf,
                        num_values as usize,
                        &Vec::new(),
                    );
                }
                Page::DataPage {
                    buf,
                    num_values,
                    encoding,
                    ..
                } => {
                    let n = num_values as usize;
                    let mut rest = &buf[..];
                    if max_rep > 0 {
                        let (_, used) =
                            rle::RleDecoder::new_length_prefixed(rest, width_of(max_rep)).unwrap();
                        rest = &rest[used..];
                    }
                    let mut non_null = n;
                    if max_def > 0 {
                        let (_, used) =
                            rle::RleDecoder::new_length_prefixed(rest, width_of(max_def)).unwrap();
                        non_null = count_max(&rest[4..used], width_of(max_def), n, max_def);
                        rest = &rest[used..];
                    }
                    encodings.push(encoding);
                    all.extend(decode_values(ty, width, encoding, rest, non_null, &dict));
                }
                Page::DataPageV2 {
                    buf,
                    num_values,
                    encoding,
                    num_nulls,
                    def_levels_byte_len,
                    rep_levels_byte_len,
                    ..
                } => {
                    let skip = (def_levels_byte_len + rep_levels_byte_len) as usize;
                    let non_null = (num_values - num_nulls) as usize;
                    encodings.push(encoding);
                    all.extend(decode_values(
                        ty,
                        width,
                        encoding,
                        &buf[skip..],
                        non_null,
                        &dict,
                    ));
                }
            }
        }
    }
    (all, encodings)
}

/// arrow-rs's column reader: every non-null value of column `col`.
fn theirs(reader: &SerializedFileReader<Bytes>, col: usize) -> Values {
    fn read<T: DataType>(
        r: parquet::column::reader::ColumnReader,
        conv: impl Fn(&T::T) -> Vec<u8>,
    ) -> Values {
        let mut r = get_typed_column_reader::<T>(r);
        let mut out = Vec::new();
        loop {
            let (mut vals, mut defs, mut reps) = (Vec::new(), Vec::new(), Vec::new());
            let (recs, _, _) = r
                .read_records(4096, Some(&mut defs), Some(&mut reps), &mut vals)
                .unwrap();
            out.extend(vals.iter().map(&conv));
            if recs == 0 {
                break;
            }
        }
        out
    }
    let mut all = Vec::new();
    for rg in 0..reader.num_row_groups() {
        let rgr = reader.get_row_group(rg).unwrap();
        let cr = rgr.get_column_reader(col).unwrap();
        let v = match rgr.metadata().column(col).column_type() {
            PhysicalType::BOOLEAN => read::<dt::BoolType>(cr, |&b| vec![b as u8]),
            PhysicalType::INT32 => read::<dt::Int32Type>(cr, |v| v.to_le_bytes().to_vec()),
            PhysicalType::INT64 => read::<dt::Int64Type>(cr, |v| v.to_le_bytes().to_vec()),
            PhysicalType::FLOAT => read::<dt::FloatType>(cr, |v| v.to_le_bytes().to_vec()),
            PhysicalType::DOUBLE => read::<dt::DoubleType>(cr, |v| v.to_le_bytes().to_vec()),
            PhysicalType::INT96 => read::<dt::Int96Type>(cr, |v| {
                v.data().iter().flat_map(|w| w.to_le_bytes()).collect()
            }),
            PhysicalType::BYTE_ARRAY => read::<dt::ByteArrayType>(cr, |v| v.data().to_vec()),
            PhysicalType::FIXED_LEN_BYTE_ARRAY => {
                read::<dt::FixedLenByteArrayType>(cr, |v| v.data().to_vec())
            }
        };
        all.extend(v);
    }
    all
}

/// Compares every column of a file; returns the encodings our decoders saw.
fn check_file(data: Bytes) -> Vec<Encoding> {
    let reader = SerializedFileReader::new(data).unwrap();
    let cols = reader
        .metadata()
        .file_metadata()
        .schema_descr()
        .num_columns();
    let mut seen = Vec::new();
    for col in 0..cols {
        let (mine, encs) = ours(&reader, col);
        let reference = theirs(&reader, col);
        assert_eq!(mine.len(), reference.len(), "column {col} value count");
        assert!(mine == reference, "column {col} values differ");
        seen.extend(encs);
    }
    seen
}

fn corpus(name: &str, expect: Encoding) {
    let Some(dir) = pq_testkit::corpus_data_dir() else {
        return;
    };
    let path = dir.join(name);
    let data = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let seen = check_file(Bytes::from(data));
    assert!(
        seen.contains(&expect),
        "{name}: expected {expect} pages, saw {seen:?}"
    );
}

#[test]
fn corpus_delta_binary_packed() {
    corpus("delta_binary_packed.parquet", Encoding::DELTA_BINARY_PACKED);
}

#[test]
fn corpus_delta_byte_array() {
    corpus("delta_byte_array.parquet", Encoding::DELTA_BYTE_ARRAY);
}

#[test]
fn corpus_delta_length_byte_array() {
    corpus(
        "delta_length_byte_array.parquet",
        Encoding::DELTA_LENGTH_BYTE_ARRAY,
    );
}

#[test]
fn corpus_delta_encoding_required_column() {
    corpus(
        "delta_encoding_required_column.parquet",
        Encoding::DELTA_BINARY_PACKED,
    );
}

#[test]
fn corpus_byte_stream_split() {
    corpus(
        "byte_stream_split.zstd.parquet",
        Encoding::BYTE_STREAM_SPLIT,
    );
}

#[test]
fn corpus_byte_stream_split_extended() {
    corpus(
        "byte_stream_split_extended.gzip.parquet",
        Encoding::BYTE_STREAM_SPLIT,
    );
}

#[test]
fn corpus_rle_boolean() {
    corpus("rle_boolean_encoding.parquet", Encoding::RLE);
}

#[test]
fn corpus_dictionary_and_plain() {
    corpus("alltypes_dictionary.parquet", Encoding::PLAIN_DICTIONARY);
    corpus("alltypes_plain.parquet", Encoding::PLAIN);
}

#[test]
fn corpus_delta_binary_packed_expect_csv() {
    // The first column against the expected CSV, independently of arrow-rs.
    let Some(dir) = pq_testkit::corpus_data_dir() else {
        return;
    };
    let csv = std::fs::read_to_string(dir.join("delta_binary_packed_expect.csv")).unwrap();
    let first: Vec<i64> = csv
        .lines()
        .skip(1)
        .map(|l| l.split(',').next().unwrap().trim().parse().unwrap())
        .collect();
    let data = Bytes::from(std::fs::read(dir.join("delta_binary_packed.parquet")).unwrap());
    let reader = SerializedFileReader::new(data).unwrap();
    let (mine, _) = ours(&reader, 0);
    let mine: Vec<i64> = mine
        .iter()
        .map(|b| i64::from_le_bytes(b[..8].try_into().unwrap()))
        .collect();
    assert_eq!(mine, first);
}

/// Files written by arrow-rs's writer with each encoding, v1 and v2 pages.
#[test]
fn arrow_rs_writer_pages() {
    let schema = Arc::new(
        parse_message_type(
            "message m { required int32 a; optional int64 b; required double c; optional binary d; \
             required fixed_len_byte_array(3) e; required boolean f; required float g; }",
        )
        .unwrap(),
    );
    let n = 5000usize;
    let a: Vec<i32> = (0..n as i32)
        .map(|i| i.wrapping_mul(7919) ^ (i << 20))
        .collect();
    let b: Vec<i64> = (0..n as i64)
        .filter(|i| i % 3 != 0)
        .map(|i| i * i - (1 << 40))
        .collect();
    let b_def: Vec<i16> = (0..n).map(|i| i16::from(i % 3 != 0)).collect();
    let c: Vec<f64> = (0..n).map(|i| i as f64 * 0.25 - 3.0).collect();
    let d: Vec<dt::ByteArray> = (0..n)
        .filter(|i| i % 4 != 1)
        .map(|i| format!("key-{:05}", i / 3).into_bytes().into())
        .collect();
    let d_def: Vec<i16> = (0..n).map(|i| i16::from(i % 4 != 1)).collect();
    let e: Vec<dt::FixedLenByteArray> = (0..n)
        .map(|i| dt::ByteArray::from(vec![i as u8, (i >> 8) as u8, 7]).into())
        .collect();
    let f: Vec<bool> = (0..n).map(|i| (i / 7) % 2 == 0).collect();
    let g: Vec<f32> = (0..n).map(|i| (i % 100) as f32 / 8.0).collect();
    let configs: Vec<(WriterVersion, bool, Option<Encoding>)> = vec![
        (WriterVersion::PARQUET_1_0, true, None),
        (WriterVersion::PARQUET_2_0, true, None),
        (WriterVersion::PARQUET_1_0, false, None),
        (WriterVersion::PARQUET_2_0, false, None),
        (
            WriterVersion::PARQUET_1_0,
            false,
            Some(Encoding::BYTE_STREAM_SPLIT),
        ),
        (
            WriterVersion::PARQUET_2_0,
            false,
            Some(Encoding::DELTA_BINARY_PACKED),
        ),
        (
            WriterVersion::PARQUET_2_0,
            false,
            Some(Encoding::DELTA_BYTE_ARRAY),
        ),
        (
            WriterVersion::PARQUET_2_0,
            false,
            Some(Encoding::DELTA_LENGTH_BYTE_ARRAY),
        ),
    ];
    let mut seen = Vec::new();
    for (version, dict, enc) in configs {
        let mut props = WriterProperties::builder()
            .set_writer_version(version)
            .set_dictionary_enabled(dict)
            .set_data_page_row_count_limit(700)
            .set_write_batch_size(700);
        if let Some(enc) = enc {
            // Apply each encoding only to the columns whose type supports it.
            for col in ["a", "b", "c", "d", "e", "f", "g"] {
                let ok = matches!(
                    (enc, col),
                    (Encoding::BYTE_STREAM_SPLIT, "a" | "b" | "c" | "e" | "g")
                        | (Encoding::DELTA_BINARY_PACKED, "a" | "b")
                        | (Encoding::DELTA_BYTE_ARRAY, "d" | "e")
                        | (Encoding::DELTA_LENGTH_BYTE_ARRAY, "d")
                );
                if ok {
                    props = props.set_column_encoding(col.into(), enc);
                }
            }
        }
        let mut buf = Vec::new();
        let mut w =
            SerializedFileWriter::new(&mut buf, schema.clone(), Arc::new(props.build())).unwrap();
        let mut rg = w.next_row_group().unwrap();
        macro_rules! col {
            ($t:ty, $v:expr, $def:expr) => {{
                let mut cw = rg.next_column().unwrap().unwrap();
                cw.typed::<$t>().write_batch($v, $def, None).unwrap();
                cw.close().unwrap();
            }};
        }
        col!(dt::Int32Type, &a, None);
        col!(dt::Int64Type, &b, Some(&b_def));
        col!(dt::DoubleType, &c, None);
        col!(dt::ByteArrayType, &d, Some(&d_def));
        col!(dt::FixedLenByteArrayType, &e, None);
        col!(dt::BoolType, &f, None);
        col!(dt::FloatType, &g, None);
        rg.close().unwrap();
        w.close().unwrap();
        seen.extend(check_file(Bytes::from(buf)));
    }
    for enc in [
        Encoding::PLAIN,
        Encoding::RLE_DICTIONARY,
        Encoding::BYTE_STREAM_SPLIT,
        Encoding::DELTA_BINARY_PACKED,
        Encoding::DELTA_BYTE_ARRAY,
        Encoding::DELTA_LENGTH_BYTE_ARRAY,
    ] {
        assert!(seen.contains(&enc), "no {enc} pages written");
    }
}
