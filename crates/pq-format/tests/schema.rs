//! The schema tree: levels, paths, and malformed trees.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use pq_format::{
    FieldRepetitionType as R, FormatError, Limits, LogicalType, SchemaDescriptor, SchemaElement,
    StringType, Type,
};

fn group(name: &str, rep: Option<R>, n: i32) -> SchemaElement {
    SchemaElement::group(name, rep, n)
}

fn leaf(name: &str, rep: R, t: Type) -> SchemaElement {
    SchemaElement::leaf(name, rep, t)
}

fn build(e: &[SchemaElement]) -> Result<SchemaDescriptor, String> {
    SchemaDescriptor::new(e, &Limits::default()).map_err(|e| {
        assert!(matches!(e, FormatError::Schema(_)), "{e}");
        e.to_string()
    })
}

#[test]
fn levels_paths_and_ancestors() {
    // message m { required int32 a; optional group b (LIST) { repeated group list { optional binary element (STRING); } } required group c { } }
    let mut s = vec![
        group("m", None, 3),
        leaf("a", R::REQUIRED, Type::INT32),
        group("b", Some(R::OPTIONAL), 1),
        group("list", Some(R::REPEATED), 1),
        leaf("element", R::OPTIONAL, Type::BYTE_ARRAY),
        group("c", Some(R::REQUIRED), 0),
    ];
    s[4].logical_type = Some(LogicalType::String(StringType {}));
    let schema = build(&s).unwrap();
    assert_eq!(schema.num_columns(), 2);
    let a = &schema.columns()[0];
    assert_eq!(
        (a.path_string().as_str(), a.max_def_level, a.max_rep_level),
        ("a", 0, 0)
    );
    let e = &schema.columns()[1];
    assert_eq!(e.path, ["b", "list", "element"]);
    assert_eq!((e.max_def_level, e.max_rep_level), (3, 1));
    assert_eq!(e.logical_type, Some(LogicalType::String(StringType {})));
    assert_eq!(
        schema.path_repetitions(e),
        [R::OPTIONAL, R::REPEATED, R::OPTIONAL]
    );
    let root = schema.root();
    assert_eq!(root.children().len(), 3);
    let c = schema.node(root.children()[2]).unwrap();
    assert!(c.is_group() && c.children().is_empty());
    assert_eq!(schema.node(e.node).unwrap().parent, Some(e.path_nodes[1]));
}

#[test]
fn malformed_trees_are_errors() {
    let cases: Vec<(Vec<SchemaElement>, &str)> = vec![
        (vec![], "empty"),
        (vec![leaf("m", R::REQUIRED, Type::INT32)], "root"),
        (vec![group("m", None, -1)], "-1 children"),
        (
            vec![group("m", None, 2), leaf("a", R::REQUIRED, Type::INT32)],
            "missing 1 children",
        ),
        (
            vec![
                group("m", None, 1),
                group("g", Some(R::REQUIRED), 5),
                leaf("a", R::REQUIRED, Type::INT32),
            ],
            "declares 5 children",
        ),
        (
            vec![
                group("m", None, 1),
                leaf("a", R::REQUIRED, Type::INT32),
                leaf("b", R::REQUIRED, Type::INT32),
            ],
            "outside the tree",
        ),
        (
            vec![
                group("m", None, 1),
                SchemaElement {
                    name: "a".into(),
                    repetition_type: Some(R::REQUIRED),
                    ..Default::default()
                },
            ],
            "leaf without a physical type",
        ),
        (
            vec![group("m", None, 1), group("g", Some(R::REQUIRED), -3)],
            "negative number of children",
        ),
        (
            vec![
                group("m", None, 1),
                leaf("f", R::REQUIRED, Type::FIXED_LEN_BYTE_ARRAY),
            ],
            "without a type_length",
        ),
        (
            vec![group("m", None, 1), leaf("x", R::REQUIRED, Type(-7))],
            "unknown physical type value -7",
        ),
        (
            vec![group("m", None, 1), leaf("x", R(9), Type::INT32)],
            "unknown repetition type value 9",
        ),
        (
            vec![
                group("m", None, 1),
                SchemaElement {
                    name: "x".into(),
                    type_: Some(Type::INT32),
                    ..Default::default()
                },
            ],
            "no repetition type",
        ),
    ];
    for (elements, expected) in cases {
        let err = build(&elements).unwrap_err();
        assert!(err.contains(expected), "expected {expected:?} in {err:?}");
    }
}

#[test]
fn depth_is_limited() {
    let depth = 1000;
    let mut s = vec![group("m", None, 1)];
    for i in 0..depth {
        s.push(group(&format!("g{i}"), Some(R::OPTIONAL), 1));
    }
    s.push(leaf("x", R::OPTIONAL, Type::INT32));
    let err = build(&s).unwrap_err();
    assert!(err.contains("deeper than the limit of 128"), "{err}");
    let limits = Limits::default().with_max_schema_depth(2000);
    let schema = SchemaDescriptor::new(&s, &limits).unwrap();
    assert_eq!(schema.columns()[0].max_def_level, depth as i16 + 1);
    assert_eq!(schema.columns()[0].path.len(), depth + 1);
}

#[test]
fn row_group_column_count_must_match() {
    let md = pq_format::FileMetaData {
        schema: vec![group("m", None, 1), leaf("a", R::REQUIRED, Type::INT32)],
        row_groups: vec![Default::default()],
        ..Default::default()
    };
    let err = pq_format::ParquetMetaData::new(md, &Limits::default()).unwrap_err();
    assert!(
        err.to_string()
            .contains("0 column chunks but the schema has 1"),
        "{err}"
    );
}

#[test]
fn names_and_paths_share_one_buffer_without_mixing_fields() {
    // message "" { optional group "a.b" { required int64 "é"; repeated group g1 { group g2 { group g3 { group g4 { optional binary "" ; required int32 z; } } } } } required double "a.b" }
    let s = vec![
        group("", None, 2),
        group("a.b", Some(R::OPTIONAL), 2),
        leaf("é", R::REQUIRED, Type::INT64),
        group("g1", Some(R::REPEATED), 1),
        group("g2", Some(R::REQUIRED), 1),
        group("g3", Some(R::REQUIRED), 1),
        group("g4", Some(R::OPTIONAL), 2),
        leaf("", R::OPTIONAL, Type::BYTE_ARRAY),
        leaf("z", R::REQUIRED, Type::INT32),
        leaf("a.b", R::REQUIRED, Type::DOUBLE),
    ];
    let schema = build(&s).unwrap();
    let names: Vec<&str> = schema.nodes().iter().map(|n| n.name.as_str()).collect();
    let expected: Vec<&str> = s.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(names, expected);
    assert_eq!(schema.root().name, "");
    assert_eq!(schema.nodes()[2].name.to_string(), "é");

    let paths: Vec<Vec<String>> = schema.columns().iter().map(|c| c.path.to_vec()).collect();
    assert_eq!(
        paths,
        [
            vec!["a.b", "é"],
            vec!["a.b", "g1", "g2", "g3", "g4", ""],
            vec!["a.b", "g1", "g2", "g3", "g4", "z"],
            vec!["a.b"],
        ]
    );
    // Paths longer than the inline capacity, walked both ways.
    let z = &schema.columns()[2];
    assert_eq!(z.path.len(), 6);
    assert_eq!(z.path_nodes.len(), 6);
    assert_eq!(z.path_nodes.as_slice(), [1, 3, 4, 5, 6, 8]);
    assert_eq!(
        z.path.iter().rev().collect::<Vec<_>>(),
        ["z", "g4", "g3", "g2", "g1", "a.b"]
    );
    assert_eq!(
        (z.path.first(), z.path.last(), z.name()),
        (Some("a.b"), Some("z"), "z")
    );
    assert_eq!(z.path_string(), "a.b.g1.g2.g3.g4.z");
    assert_eq!(&z.path[1], "g1");
    assert_eq!(z.path.get(6), None);
    // Each path element is the name of its node.
    for c in schema.columns() {
        for (name, &n) in c.path.iter().zip(c.path_nodes.iter()) {
            assert_eq!(schema.node(n).unwrap().name, name);
        }
    }
    // Equality is by the names, not by the shared buffer.
    assert_eq!(
        schema.columns()[3].path,
        pq_format::ColumnPath::from(&["a.b"][..])
    );
    assert_ne!(schema.columns()[3].path, schema.columns()[0].path);
    assert_eq!(schema.nodes()[1].name, schema.nodes()[9].name);
    assert_eq!(schema.clone(), schema);
}
