//! Hand-built corruptions of the schema's annotations that would read
//! values wrongly if ignored: converted types outside the closed
//! ConvertedType enum or unfit for the physical type, and decimal
//! precisions and scales that the physical type cannot hold or that
//! disagree between the logical type and the schema element. Each must be
//! one line of error, never rows.
//!
//! Each file is written by pq-arrow's writer in memory and its footer
//! edited through pq-format, so the test does not depend on where the
//! writer puts things.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;

use arrow_array::{
    ArrayRef, BooleanArray, Decimal128Array, FixedSizeBinaryArray, Float64Array, MapArray,
    RecordBatch, StringArray,
};
use arrow_schema::{Field, Schema};
use bytes::Bytes;
use pq_arrow::write::{ParquetWriter, WriterOptions};
use pq_format::{ConvertedType, FileMetaData, LogicalType};

fn write(name: &str, array: ArrayRef) -> Bytes {
    let schema = Arc::new(Schema::new(vec![Field::new(
        name,
        array.data_type().clone(),
        true,
    )]));
    let batch = RecordBatch::try_new(schema.clone(), vec![array]).unwrap();
    let mut w = ParquetWriter::try_new(Vec::new(), schema, WriterOptions::new()).unwrap();
    w.write(&batch).unwrap();
    let (bytes, _) = w.close_into_inner().unwrap();
    Bytes::from(bytes)
}

/// `file` with its footer replaced by `edit` of it, and without the
/// `ARROW:schema` hint, so the Parquet schema alone decides the types.
fn with_footer(file: &[u8], edit: impl FnOnce(&mut FileMetaData)) -> Bytes {
    pq_tests::with_footer(file, |meta| {
        meta.key_value_metadata = None;
        edit(meta);
    })
}

/// Reads `file` whole with pq-arrow: the rows, or the error message.
fn read(file: Bytes) -> Result<usize, String> {
    let r = pq_arrow::ParquetReader::from_bytes(file).map_err(|e| e.to_string())?;
    let r = r.build().map_err(|e| e.to_string())?;
    let mut rows = 0;
    for b in r {
        rows += b
            .map_err(|e| pq_arrow::Error::from(e).to_string())?
            .num_rows();
    }
    Ok(rows)
}

fn expect_error(file: Bytes, pieces: &[&str]) {
    let e = match read(file) {
        Ok(rows) => panic!("read {rows} rows of a corrupt schema"),
        Err(e) => e,
    };
    assert!(!e.contains('\n'), "not one line: {e}");
    for p in pieces {
        assert!(e.contains(p), "{e:?} lacks {p:?}");
    }
}

/// A decimal column of `precision` and `scale` (INT32 up to 9 digits,
/// INT64 up to 18, FIXED_LEN_BYTE_ARRAY past that).
fn decimal_file(precision: u8, scale: i8) -> Bytes {
    let array = Decimal128Array::from(vec![Some(12345), None, Some(-7)])
        .with_precision_and_scale(precision, scale)
        .unwrap();
    write("d", Arc::new(array))
}

/// The schema element of the one leaf `d`.
fn leaf(m: &mut FileMetaData) -> &mut pq_format::SchemaElement {
    &mut m.schema[1]
}

#[test]
fn converted_types_outside_the_enum_are_errors() {
    let strings: ArrayRef = Arc::new(StringArray::from(vec![Some("a"), None, Some("b")]));
    let file = write("s", strings);
    for bad in [-1, 22, 99, i32::MAX] {
        // The logical type gone, the leaf's converted type is all there is.
        let edited = with_footer(&file, |m| {
            m.schema[1].logical_type = None;
            m.schema[1].converted_type = Some(ConvertedType(bad));
        });
        expect_error(
            edited,
            &["column s", &format!("unknown converted type {bad}")],
        );
    }
    // On a MAP group: reading past it would return a struct of lists.
    let values: ArrayRef = Arc::new(StringArray::from(vec![Some("v1"), None]));
    let map = MapArray::new_from_strings(["k1", "k2"].into_iter(), &values, &[0, 1, 2]).unwrap();
    let file = write("m", Arc::new(map));
    assert_eq!(read(file.clone()), Ok(2), "the unedited map reads");
    let edited = with_footer(&file, |m| {
        m.schema[1].logical_type = None;
        m.schema[1].converted_type = Some(ConvertedType(i32::MAX));
    });
    expect_error(edited, &["column m", "unknown converted type 2147483647"]);
}

#[test]
fn decimal_precisions_the_physical_type_cannot_hold_are_errors() {
    // (precision, scale of the file; precision set to; the bound named).
    let cases: &[(u8, i8, i32, &str)] = &[
        (9, 2, 10, "1 to 9 digits"),
        (9, 2, 0, "1 to 9 digits"),
        (9, 2, -1, "1 to 9 digits"),
        (18, 2, 19, "1 to 18 digits"),
        // 20 digits take 9 fixed bytes, which hold at most 21.
        (20, 2, 22, "1 to 21 digits"),
    ];
    for &(precision, scale, set, bound) in cases {
        let file = decimal_file(precision, scale);
        assert_eq!(read(file.clone()), Ok(3), "the unedited decimal reads");
        for logical in [true, false] {
            let edited = with_footer(&file, |m| {
                let e = leaf(m);
                e.precision = Some(set);
                if logical {
                    e.logical_type = Some(LogicalType::Decimal(pq_format::DecimalType {
                        scale: i32::from(scale),
                        precision: set,
                    }));
                } else {
                    e.logical_type = None;
                    e.converted_type = Some(ConvertedType::DECIMAL);
                }
            });
            expect_error(
                edited,
                &[
                    "column d",
                    &format!("invalid decimal precision {set}"),
                    bound,
                ],
            );
        }
    }
}

#[test]
fn decimal_scales_past_the_precision_or_negative_are_errors() {
    let file = decimal_file(9, 2);
    for set in [10, -1, i32::MIN] {
        let edited = with_footer(&file, |m| {
            let e = leaf(m);
            e.scale = Some(set);
            e.logical_type = None;
            e.converted_type = Some(ConvertedType::DECIMAL);
        });
        expect_error(
            edited,
            &["column d", &format!("invalid decimal scale {set}")],
        );
    }
}

#[test]
fn a_decimal_logical_type_that_disagrees_with_its_element_is_an_error() {
    let file = decimal_file(9, 2);
    // Only the logical type's scale changed: still a valid decimal, so only
    // the disagreement tells that the point has moved.
    let edited = with_footer(&file, |m| {
        let Some(LogicalType::Decimal(d)) = &mut leaf(m).logical_type else {
            panic!("the writer annotates decimals with the logical type");
        };
        d.scale = 3;
    });
    expect_error(
        edited,
        &[
            "column d",
            "precision 9 and scale 3 differ from the schema element's 9 and 2",
        ],
    );
    let edited = with_footer(&file, |m| leaf(m).precision = Some(8));
    expect_error(
        edited,
        &["precision 9 and scale 2 differ from the schema element's 8 and 2"],
    );
    // An element without them (older writers) takes the logical type's.
    let edited = with_footer(&file, |m| {
        leaf(m).precision = None;
        leaf(m).scale = None;
    });
    assert_eq!(read(edited), Ok(3));
}

#[test]
fn converted_types_that_cannot_annotate_the_physical_type_are_errors() {
    let fixed: ArrayRef =
        Arc::new(FixedSizeBinaryArray::try_from_iter([[1u8; 12], [2; 12]].into_iter()).unwrap());
    let double: ArrayRef = Arc::new(Float64Array::from(vec![1.5, 2.5]));
    let boolean: ArrayRef = Arc::new(BooleanArray::from(vec![true, false]));
    let cases = [
        (fixed, "FIXED_LEN_BYTE_ARRAY"),
        (double, "DOUBLE"),
        (boolean, "BOOLEAN"),
    ];
    for (array, physical) in cases {
        let file = write("c", array);
        assert_eq!(read(file.clone()), Ok(2), "the unedited {physical} reads");
        for converted in [ConvertedType::UTF8, ConvertedType::DATE, ConvertedType::MAP] {
            let edited = with_footer(&file, |m| {
                m.schema[1].logical_type = None;
                m.schema[1].converted_type = Some(converted);
            });
            expect_error(
                edited,
                &[
                    "column c",
                    &format!("unable to convert Parquet {physical}"),
                    &format!("converted type {}", converted.0),
                ],
            );
        }
    }
}
