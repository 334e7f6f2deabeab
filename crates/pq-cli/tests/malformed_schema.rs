//! Malformed schemas in hand-built footers: `pq schema`, `pq meta` and
//! `pq cat` take their schema from the same tree, so each refuses the file
//! with the same one line (exit status 1), naming the column and what is
//! wrong; and what one accepts, the others accept too.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::path::Path;

use common::{dir, pq, s};
use pq_format::{
    ConvertedType, FieldRepetitionType as R, FileMetaData, ListType, LogicalType, SchemaElement,
    ThriftEncode, Type,
};

/// The commands that read a file's schema.
const COMMANDS: [&str; 3] = ["schema", "meta", "cat"];

fn root(n: i32) -> SchemaElement {
    SchemaElement::group("schema", None, n)
}

fn group(name: &str, rep: R, n: i32) -> SchemaElement {
    SchemaElement::group(name, Some(rep), n)
}

fn leaf(name: &str, rep: R, t: Type) -> SchemaElement {
    SchemaElement::leaf(name, rep, t)
}

/// A file of no rows whose footer holds `schema`: magic, metadata, length,
/// magic.
fn write(path: &Path, schema: Vec<SchemaElement>) {
    let meta = FileMetaData {
        version: 1,
        schema,
        ..Default::default()
    }
    .encode();
    let mut file = b"PAR1".to_vec();
    file.extend_from_slice(&meta);
    file.extend_from_slice(&(meta.len() as u32).to_le_bytes());
    file.extend_from_slice(b"PAR1");
    std::fs::write(path, file).unwrap();
}

/// Runs every command on `file`: exit status and standard error of each.
fn run_all(file: &Path) -> Vec<(&'static str, Option<i32>, String)> {
    COMMANDS
        .iter()
        .map(|cmd| {
            let out = pq().args([cmd, s(file)]).output().unwrap();
            let stderr = String::from_utf8(out.stderr).unwrap();
            (*cmd, out.status.code(), stderr)
        })
        .collect()
}

/// The malformed schemas, each with the piece of the error that names
/// the defect and its column.
fn cases() -> Vec<(&'static str, Vec<SchemaElement>, &'static str)> {
    let mut no_repetition = leaf("x", R::REQUIRED, Type::INT32);
    no_repetition.repetition_type = None;
    let mut no_type = leaf("x", R::OPTIONAL, Type::INT32);
    no_type.type_ = None;
    let mut no_length = leaf("f", R::OPTIONAL, Type::FIXED_LEN_BYTE_ARRAY);
    no_length.type_length = None;
    let mut list_on_primitive = leaf("l", R::OPTIONAL, Type::INT32);
    list_on_primitive.logical_type = Some(LogicalType::List(ListType {}));
    let mut unknown_converted = leaf("s", R::OPTIONAL, Type::BYTE_ARRAY);
    unknown_converted.converted_type = Some(ConvertedType(99));
    let mut list_not_repeated = group("l", R::OPTIONAL, 1);
    list_not_repeated.converted_type = Some(ConvertedType::LIST);
    let mut map_of_three = group("m", R::OPTIONAL, 1);
    map_of_three.converted_type = Some(ConvertedType::MAP);
    // 129 groups under the root: one deeper than the default limit.
    let mut deep = vec![root(1)];
    for i in 0..129 {
        deep.push(group(&format!("g{i}"), R::OPTIONAL, 1));
    }
    deep.push(leaf("x", R::OPTIONAL, Type::INT32));
    vec![
        (
            "a non-root element without repetition",
            vec![root(1), no_repetition],
            "schema error at column x: element 1 has no repetition type",
        ),
        (
            "a leaf without a physical type",
            vec![root(1), no_type],
            "schema error at column x: element 1 is a leaf without a physical type",
        ),
        (
            "num_children pointing past the end",
            vec![
                root(1),
                group("g", R::OPTIONAL, 5),
                leaf("a", R::OPTIONAL, Type::INT32),
            ],
            "schema error at column g: element 1 declares 5 children but only 1 elements follow",
        ),
        (
            "a root declaring more children than follow",
            vec![root(2), leaf("a", R::OPTIONAL, Type::INT32)],
            "schema error at column schema: the group is missing 1 children",
        ),
        (
            "a depth over the limit",
            deep,
            "element 129 (\"g128\") is nested 129 deep, deeper than the limit of 128",
        ),
        (
            "a FIXED_LEN_BYTE_ARRAY without length",
            vec![root(1), no_length],
            "schema error at column f: element 1 is FIXED_LEN_BYTE_ARRAY without a type_length",
        ),
        (
            "a LIST annotation on a primitive",
            vec![root(1), list_on_primitive],
            "schema error at column l: unable to convert Parquet INT32",
        ),
        (
            "an unknown physical type",
            vec![root(1), leaf("t", R::OPTIONAL, Type(-7))],
            "schema error at column t: element 1 has unknown physical type value -7",
        ),
        (
            "a converted type outside the enum",
            vec![root(1), unknown_converted],
            "schema error at column s: unknown converted type 99",
        ),
        (
            "a LIST group whose child is not repeated",
            vec![
                root(1),
                list_not_repeated,
                leaf("element", R::OPTIONAL, Type::INT32),
            ],
            "schema error at column l: List child must be repeated",
        ),
        (
            "a MAP whose key-value group has three fields",
            vec![
                root(1),
                map_of_three,
                group("key_value", R::REPEATED, 3),
                leaf("key", R::REQUIRED, Type::INT32),
                leaf("value", R::OPTIONAL, Type::INT32),
                leaf("more", R::OPTIONAL, Type::INT32),
            ],
            "schema error at column m: Child of map field must have two children, found 3",
        ),
    ]
}

#[test]
fn every_command_gives_the_same_line_for_a_malformed_schema() {
    let d = dir("malformed_schema");
    for (i, (what, schema, piece)) in cases().into_iter().enumerate() {
        let file = d.join(format!("case{i}.parquet"));
        write(&file, schema);
        let results = run_all(&file);
        let (_, _, first) = &results[0];
        for (cmd, code, stderr) in &results {
            assert_eq!(
                *code,
                Some(1),
                "{what}: pq {cmd} exit status; stderr {stderr:?}"
            );
            assert_eq!(
                stderr.lines().count(),
                1,
                "{what}: pq {cmd}: not one line: {stderr:?}"
            );
            assert!(
                stderr.contains(piece),
                "{what}: pq {cmd}: {stderr:?} lacks {piece:?}"
            );
            assert!(
                stderr.contains(s(&file)),
                "{what}: pq {cmd}: {stderr:?} lacks the file"
            );
            assert_eq!(
                stderr, first,
                "{what}: pq {cmd} and pq {} differ",
                results[0].0
            );
            assert!(!stderr.contains("panicked"), "{what}: pq {cmd}: {stderr}");
        }
    }
}

#[test]
fn what_one_command_accepts_every_command_accepts() {
    let d = dir("accepted_schema");
    // A group declaring no children holds no column: the tree keeps it,
    // the Arrow schema leaves it out, and no command refuses the file.
    let empty_group = vec![
        root(2),
        group("nothing", R::OPTIONAL, 0),
        leaf("a", R::OPTIONAL, Type::INT32),
    ];
    // A group without repetition is refused, even where a leaf has one.
    let mut unrepeated_group = group("g", R::OPTIONAL, 1);
    unrepeated_group.repetition_type = None;
    let refused = vec![
        root(1),
        unrepeated_group,
        leaf("a", R::OPTIONAL, Type::INT32),
    ];
    let file = d.join("empty_group.parquet");
    write(&file, empty_group);
    for (cmd, code, stderr) in run_all(&file) {
        assert_eq!(code, Some(0), "pq {cmd} refuses an empty group: {stderr}");
    }
    let out = pq().args(["schema", s(&file)]).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("nothing"),
        "pq schema drops the empty group: {text}"
    );
    let file = d.join("unrepeated_group.parquet");
    write(&file, refused);
    let results = run_all(&file);
    for (cmd, code, stderr) in &results {
        assert_eq!(*code, Some(1), "pq {cmd}: {stderr}");
        assert!(
            stderr.contains("schema error at column g: element 1 has no repetition type"),
            "pq {cmd}: {stderr}"
        );
        assert_eq!(stderr, &results[0].2, "pq {cmd} differs from pq schema");
    }
}
