//! Cross-checks against the `thrift` crate as an independent reference.
//!
//! For every corpus footer: the thrift crate's generic walk of the original
//! bytes equals its walk of our decode re-encoded by our encoder (so our
//! decoder saw every field, with the same values), and what the thrift
//! crate writes decodes with ours to the same value. Random `FileMetaData` and
//! `PageHeader` values encoded by us are read back identically by both the
//! thrift crate and our decoder.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
#[path = "common/walk.rs"]
mod walk;

use pq_format::*;
use proptest::prelude::*;

#[test]
fn corpus_footers_match_the_thrift_crate() {
    let Some(root) = common::testing_dir() else {
        return;
    };
    let mut checked = 0;
    for p in common::plain_files(&root) {
        let file = std::fs::read(&p).unwrap();
        let footer = common::footer_bytes(&file);
        let (reference, used) =
            walk::walk(footer).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        let ours = FileMetaData::decode(footer).unwrap();
        let reencoded = ours.encode();
        let (ours_walked, used2) = walk::walk(&reencoded).unwrap();
        assert_eq!(used2, reencoded.len());
        let mut diffs = Vec::new();
        walk::diff(&reference, &ours_walked, "", &mut diffs);
        let name = p.file_name().unwrap().to_string_lossy();
        let expected: &[&str] = match name.as_ref() {
            // This writer put a list (of page headers) in ColumnMetaData
            // field 15, which the format defines as the i32
            // bloom_filter_length: a wire-type mismatch, skipped like an
            // unknown field, as Thrift requires.
            "dict-page-offset-zero.parquet" => &[".4[0].1[0].3.15: only in left (TTypeKey(15))"],
            _ => &[],
        };
        assert_eq!(diffs, expected, "{}: field-level mismatch", p.display());
        assert_eq!(used, footer.len(), "{}", p.display());
        // Our decoder reads what the thrift crate writes (which uses the long
        // field header form for a delta of 15) to the same value.
        let thrift_written = walk::unwalk(&reference);
        assert_eq!(
            FileMetaData::decode(&thrift_written).unwrap(),
            ours,
            "{}",
            p.display()
        );
        checked += 1;
    }
    assert!(checked > 50);
}

fn opt<T: std::fmt::Debug + Clone + 'static>(
    s: impl Strategy<Value = T>,
) -> impl Strategy<Value = Option<T>> {
    proptest::option::of(s)
}

fn bin() -> impl Strategy<Value = bytes::Bytes> {
    proptest::collection::vec(any::<u8>(), 0..20).prop_map(bytes::Bytes::from)
}

fn text() -> impl Strategy<Value = String> {
    "[a-zA-Z0-9_ é]{0,12}"
}

fn dbl() -> impl Strategy<Value = f64> {
    -1e12f64..1e12
}

fn statistics() -> impl Strategy<Value = Statistics> {
    (
        opt(bin()),
        opt(bin()),
        opt(any::<i64>()),
        opt(any::<i64>()),
        opt(bin()),
        opt(bin()),
        opt(any::<bool>()),
        opt(any::<bool>()),
        opt(any::<i64>()),
    )
        .prop_map(|(max, min, nc, dc, maxv, minv, e1, e2, nan)| Statistics {
            max,
            min,
            null_count: nc,
            distinct_count: dc,
            max_value: maxv,
            min_value: minv,
            is_max_value_exact: e1,
            is_min_value_exact: e2,
            nan_count: nan,
        })
}

fn time_unit() -> impl Strategy<Value = TimeUnit> {
    prop_oneof![
        Just(TimeUnit::Millis(MilliSeconds {})),
        Just(TimeUnit::Micros(MicroSeconds {})),
        Just(TimeUnit::Nanos(NanoSeconds {})),
    ]
}

fn logical_type() -> impl Strategy<Value = LogicalType> {
    prop_oneof![
        Just(LogicalType::String(StringType {})),
        Just(LogicalType::Map(MapType {})),
        Just(LogicalType::List(ListType {})),
        (any::<i32>(), any::<i32>())
            .prop_map(|(scale, precision)| LogicalType::Decimal(DecimalType { scale, precision })),
        (any::<bool>(), time_unit()).prop_map(|(a, unit)| LogicalType::Timestamp(TimestampType {
            is_adjusted_to_utc: a,
            unit
        })),
        (any::<bool>(), time_unit()).prop_map(|(a, unit)| LogicalType::Time(TimeType {
            is_adjusted_to_utc: a,
            unit
        })),
        (any::<i8>(), any::<bool>()).prop_map(|(b, s)| LogicalType::Integer(IntType {
            bit_width: b,
            is_signed: s
        })),
        Just(LogicalType::Float16(Float16Type {})),
        opt(any::<i8>()).prop_map(|v| LogicalType::Variant(VariantType {
            specification_version: v
        })),
        opt(text()).prop_map(|crs| LogicalType::Geometry(GeometryType { crs })),
        (opt(text()), opt(0..6i32)).prop_map(|(crs, a)| LogicalType::Geography(GeographyType {
            crs,
            algorithm: a.map(EdgeInterpolationAlgorithm)
        })),
        (20i16..200).prop_map(LogicalType::Unrecognized),
    ]
}

fn schema_element() -> impl Strategy<Value = SchemaElement> {
    (
        opt(0..9i32),
        opt(any::<i32>()),
        opt(0..3i32),
        text(),
        opt(0..5i32),
        opt(0..25i32),
        (opt(any::<i32>()), opt(any::<i32>()), opt(any::<i32>())),
        opt(logical_type()),
    )
        .prop_map(
            |(t, tl, rep, name, nc, ct, (s, p, fid), lt)| SchemaElement {
                type_: t.map(Type),
                type_length: tl,
                repetition_type: rep.map(FieldRepetitionType),
                name,
                num_children: nc,
                converted_type: ct.map(ConvertedType),
                scale: s,
                precision: p,
                field_id: fid,
                logical_type: lt,
            },
        )
}

fn key_value() -> impl Strategy<Value = KeyValue> {
    (text(), opt(text())).prop_map(|(key, value)| KeyValue { key, value })
}

fn column_meta() -> impl Strategy<Value = ColumnMetaData> {
    (
        (
            0..8i32,
            proptest::collection::vec(0..11i32, 0..4),
            proptest::collection::vec(text(), 1..4),
            0..8i32,
        ),
        (
            any::<i64>(),
            any::<i64>(),
            any::<i64>(),
            opt(proptest::collection::vec(key_value(), 0..3)),
        ),
        (
            any::<i64>(),
            opt(any::<i64>()),
            opt(any::<i64>()),
            opt(statistics()),
        ),
        opt(proptest::collection::vec(
            (0..4i32, 0..11i32, any::<i32>()).prop_map(|(p, e, c)| PageEncodingStats {
                page_type: PageType(p),
                encoding: Encoding(e),
                count: c,
            }),
            0..3,
        )),
        (opt(any::<i64>()), opt(any::<i32>())),
        opt((
            opt(any::<i64>()),
            opt(proptest::collection::vec(any::<i64>(), 0..4)),
            opt(proptest::collection::vec(any::<i64>(), 0..20)),
        )
            .prop_map(|(a, b, c)| SizeStatistics {
                unencoded_byte_array_data_bytes: a,
                repetition_level_histogram: b.map(Into::into),
                definition_level_histogram: c.map(Into::into),
            })),
        opt((
            opt((
                dbl(),
                dbl(),
                dbl(),
                dbl(),
                opt(dbl()),
                opt(dbl()),
                opt(dbl()),
                opt(dbl()),
            )),
            opt(proptest::collection::vec(any::<i32>(), 0..3)),
        )
            .prop_map(|(bb, gt)| GeospatialStatistics {
                bbox: bb.map(
                    |(xmin, xmax, ymin, ymax, zmin, zmax, mmin, mmax)| BoundingBox {
                        xmin,
                        xmax,
                        ymin,
                        ymax,
                        zmin,
                        zmax,
                        mmin,
                        mmax,
                    },
                ),
                geospatial_types: gt.map(Into::into),
            })),
    )
        .prop_map(
            |(
                (t, enc, path, codec),
                (nv, tu, tc, kv),
                (dpo, ipo, dico, st),
                es,
                (bfo, bfl),
                ss,
                gs,
            )| {
                ColumnMetaData {
                    type_: Type(t),
                    encodings: enc.into_iter().map(Encoding).collect(),
                    path_in_schema: path.into(),
                    codec: CompressionCodec(codec),
                    num_values: nv,
                    total_uncompressed_size: tu,
                    total_compressed_size: tc,
                    key_value_metadata: kv,
                    data_page_offset: dpo,
                    index_page_offset: ipo,
                    dictionary_page_offset: dico,
                    statistics: st,
                    encoding_stats: es.map(Into::into),
                    bloom_filter_offset: bfo,
                    bloom_filter_length: bfl,
                    size_statistics: ss,
                    geospatial_statistics: gs.map(Box::new),
                }
            },
        )
}

fn column_chunk() -> impl Strategy<Value = ColumnChunk> {
    (
        opt(text()),
        any::<i64>(),
        opt(column_meta()),
        (
            opt(any::<i64>()),
            opt(any::<i32>()),
            opt(any::<i64>()),
            opt(any::<i32>()),
        ),
    )
        .prop_map(|(fp, fo, md, (a, b, c, d))| ColumnChunk {
            file_path: fp,
            file_offset: fo,
            meta_data: md,
            offset_index_offset: a,
            offset_index_length: b,
            column_index_offset: c,
            column_index_length: d,
            crypto_metadata: None,
            encrypted_column_metadata: None,
        })
}

fn row_group() -> impl Strategy<Value = RowGroup> {
    (
        proptest::collection::vec(column_chunk(), 0..4),
        any::<i64>(),
        any::<i64>(),
        opt(proptest::collection::vec(
            (any::<i32>(), any::<bool>(), any::<bool>()).prop_map(|(c, d, n)| SortingColumn {
                column_idx: c,
                descending: d,
                nulls_first: n,
            }),
            0..3,
        )),
        (opt(any::<i64>()), opt(any::<i64>()), opt(any::<i16>())),
    )
        .prop_map(|(columns, tbs, nr, sc, (fo, tcs, ord))| RowGroup {
            columns,
            total_byte_size: tbs,
            num_rows: nr,
            sorting_columns: sc.map(Into::into),
            file_offset: fo,
            total_compressed_size: tcs,
            ordinal: ord,
        })
}

fn file_metadata() -> impl Strategy<Value = FileMetaData> {
    (
        any::<i32>(),
        proptest::collection::vec(schema_element(), 0..8),
        any::<i64>(),
        proptest::collection::vec(row_group(), 0..3),
        opt(proptest::collection::vec(key_value(), 0..3)),
        opt(text()),
        opt(proptest::collection::vec(
            prop_oneof![
                Just(ColumnOrder::TypeOrder(TypeDefinedOrder {})),
                Just(ColumnOrder::Ieee754TotalOrder(IEEE754TotalOrder {})),
            ],
            0..4,
        )),
    )
        .prop_map(
            |(version, schema, num_rows, row_groups, kv, cb, co)| FileMetaData {
                version,
                schema,
                num_rows,
                row_groups,
                key_value_metadata: kv,
                created_by: cb,
                column_orders: co,
                encryption_algorithm: None,
                footer_signing_key_metadata: None,
            },
        )
}

fn page_header() -> impl Strategy<Value = PageHeader> {
    (
        (0..5i32, any::<i32>(), any::<i32>(), opt(any::<i32>())),
        opt((
            any::<i32>(),
            0..11i32,
            0..11i32,
            0..11i32,
            opt(statistics()),
        )
            .prop_map(|(n, e, d, r, s)| DataPageHeader {
                num_values: n,
                encoding: Encoding(e),
                definition_level_encoding: Encoding(d),
                repetition_level_encoding: Encoding(r),
                statistics: s,
            })),
        opt(Just(IndexPageHeader {})),
        opt(
            (any::<i32>(), 0..11i32, opt(any::<bool>())).prop_map(|(n, e, s)| {
                DictionaryPageHeader {
                    num_values: n,
                    encoding: Encoding(e),
                    is_sorted: s,
                }
            }),
        ),
        opt((
            (any::<i32>(), any::<i32>(), any::<i32>(), 0..11i32),
            (
                any::<i32>(),
                any::<i32>(),
                opt(any::<bool>()),
                opt(statistics()),
            ),
        )
            .prop_map(|((nv, nn, nr, e), (dl, rl, c, s))| DataPageHeaderV2 {
                num_values: nv,
                num_nulls: nn,
                num_rows: nr,
                encoding: Encoding(e),
                definition_levels_byte_length: dl,
                repetition_levels_byte_length: rl,
                is_compressed: c,
                statistics: s,
            })),
    )
        .prop_map(|((t, u, c, crc), dp, ip, dict, v2)| PageHeader {
            type_: PageType(t),
            uncompressed_page_size: u,
            compressed_page_size: c,
            crc,
            data_page_header: dp,
            index_page_header: ip,
            dictionary_page_header: dict,
            data_page_header_v2: v2,
        })
}

fn check_both<T: ThriftDecode + ThriftEncode + PartialEq + std::fmt::Debug>(v: &T) {
    let bytes = v.encode();
    // Our decoder.
    let back = T::decode(&bytes).unwrap();
    assert_eq!(&back, v);
    // The thrift crate reads every byte and writes the same bytes back.
    let (walked, used) = walk::walk(&bytes).unwrap();
    assert_eq!(used, bytes.len());
    // The thrift crate's own encoding of what it read decodes, with ours,
    // to the same value.
    assert_eq!(&T::decode(&walk::unwalk(&walked)).unwrap(), v);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn random_file_metadata(md in file_metadata()) {
        check_both(&md);
    }

    #[test]
    fn random_page_headers(h in page_header()) {
        check_both(&h);
    }
}

fn column_index() -> impl Strategy<Value = ColumnIndex> {
    (0..30usize)
        .prop_flat_map(|n| {
            (
                proptest::collection::vec(any::<bool>(), n),
                proptest::collection::vec(bin(), n),
                proptest::collection::vec(bin(), n),
                0..3i32,
                opt(proptest::collection::vec(any::<i64>(), n)),
                opt(proptest::collection::vec(any::<i64>(), 0..40)),
                opt(proptest::collection::vec(any::<i64>(), 0..40)),
                opt(proptest::collection::vec(any::<i64>(), n)),
            )
        })
        .prop_map(|(np, min, max, bo, nc, rh, dh, nan)| ColumnIndex {
            null_pages: np.into(),
            min_values: min.into_iter().collect(),
            max_values: max.into_iter().collect(),
            boundary_order: BoundaryOrder(bo),
            null_counts: nc.map(Into::into),
            repetition_level_histograms: rh.map(Into::into),
            definition_level_histograms: dh.map(Into::into),
            nan_counts: nan.map(Into::into),
        })
}

proptest! {
    #[test]
    fn random_column_indexes(ci in column_index()) {
        check_both(&ci);
        // Zero-copy decoding gives the same value.
        let b = bytes::Bytes::from(ci.encode());
        prop_assert_eq!(ColumnIndex::decode_bytes(&b).unwrap(), ci);
    }
}
