//! `--format parquet`, read back with the parquet crate: every column of
//! every row equals the JSON Lines output of the same run
//! (`--format json --normalize`), for text, mail, web archives, `--unique`
//! and `--shards`; the schema is the fields', integers signed 64-bit; the
//! file does not depend on `-j`.
#![cfg(feature = "parquet")]

use std::path::Path;
use std::process::{Command, Output};

use parquet::basic::{Compression, LogicalType, Repetition, Type as Physical};
use parquet::file::reader::{FileReader, SerializedFileReader};
use parquet::record::Field;
use serde_json::{Map, Value};

const BIN: &str = env!("CARGO_BIN_EXE_urlsift");
const ROOT: &str = env!("CARGO_MANIFEST_DIR");

fn urlsift(args: &[&str], stdin: Option<&[u8]>) -> Output {
    use std::io::Write;
    let mut child = Command::new(BIN)
        .args(args)
        .current_dir(ROOT)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    input.write_all(stdin.unwrap_or_default()).unwrap();
    drop(input);
    let o = child.wait_with_output().unwrap();
    assert_eq!(
        o.status.code(),
        Some(0),
        "{args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    o
}

fn json_lines(bytes: &[u8]) -> Vec<Map<String, Value>> {
    bytes
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| match serde_json::from_slice(l).unwrap() {
            Value::Object(m) => m,
            v => panic!("not an object: {v}"),
        })
        .collect()
}

/// The rows of a Parquet file as JSON objects (every column, null
/// included), after checking its schema: the record's columns in order,
/// text as UTF-8 strings, every integer INT64 with no unsigned type, ZSTD.
fn parquet_rows(path: &Path, mail: bool) -> Vec<Map<String, Value>> {
    let reader = SerializedFileReader::new(std::fs::File::open(path).unwrap()).unwrap();
    let meta = reader.metadata();
    let schema = meta.file_metadata().schema_descr();
    let want = urlsift_printer::fields::columns(mail).collect::<Vec<_>>();
    assert_eq!(schema.num_columns(), want.len());
    for (i, c) in want.iter().enumerate() {
        let col = schema.column(i);
        assert_eq!(col.name(), c.field.name);
        let t = col.self_type();
        let rep = t.get_basic_info().repetition();
        let nullable = rep == Repetition::OPTIONAL;
        assert_eq!(nullable, c.nullable, "{}", c.field.name);
        use urlsift_printer::fields::Type;
        let (physical, logical) = match c.field.ty {
            Type::Text => (Physical::BYTE_ARRAY, Some(LogicalType::String)),
            Type::U64 | Type::U32 => (Physical::INT64, None),
            Type::Bool => (Physical::BOOLEAN, None),
        };
        assert_eq!(col.physical_type(), physical, "{}", c.field.name);
        assert_eq!(col.logical_type_ref().cloned(), logical, "{}", c.field.name);
    }
    for g in meta.row_groups() {
        for c in g.columns() {
            assert!(matches!(c.compression(), Compression::ZSTD(_)));
        }
    }
    let mut rows = Vec::new();
    for row in reader.get_row_iter(None).unwrap() {
        let row = row.unwrap();
        let mut obj = Map::new();
        for (name, f) in row.get_column_iter() {
            let v = match f {
                Field::Null => Value::Null,
                Field::Bool(b) => Value::Bool(*b),
                Field::Long(n) => Value::from(*n),
                Field::Str(s) => Value::String(s.clone()),
                other => panic!("{name}: a value of an unexpected type: {other:?}"),
            };
            obj.insert(name.clone(), v);
        }
        rows.push(obj);
    }
    rows
}

/// Every column of `pq` equals the JSON object's field of that name (null
/// where the object has none: a record without mail or web fields), row by
/// row, and every field of the JSON is a column.
fn assert_same(pq: &[Map<String, Value>], json: &[Map<String, Value>], what: &str) {
    assert_eq!(pq.len(), json.len(), "{what}: rows");
    assert!(!pq.is_empty(), "{what}: no rows");
    for (i, (p, j)) in pq.iter().zip(json).enumerate() {
        for (name, v) in p {
            let want = j.get(name).unwrap_or(&Value::Null);
            assert_eq!(v, want, "{what}: row {i}, column {name}");
        }
        for name in j.keys() {
            assert!(p.contains_key(name), "{what}: no column {name}");
        }
    }
}

/// `--format parquet ARGS` and `--format json --normalize ARGS`, compared.
fn check(args: &[&str], stdin: Option<&[u8]>, mail: bool) -> Vec<Map<String, Value>> {
    let dir = tempfile::tempdir().unwrap();
    let pq = dir.path().join("out.parquet");
    let mut a = vec!["--format", "parquet", "--output", pq.to_str().unwrap()];
    a.extend_from_slice(args);
    urlsift(&a, stdin);
    let mut j = vec!["--format", "json", "--normalize"];
    j.extend_from_slice(args);
    let json = json_lines(&urlsift(&j, stdin).stdout);
    let rows = parquet_rows(&pq, mail);
    assert_same(&rows, &json, &format!("{args:?}"));
    rows
}

#[test]
fn text_rows_equal_the_json_of_the_run() {
    let stdin = b"and from stdin: www.example.org/a?b and mailto:x@y.example\n";
    let rows = check(
        &["datasets/sample.txt", "datasets/urls.txt", "-"],
        Some(stdin),
        false,
    );
    // The values cover what the columns can hold.
    let has = |col: &str, v: Value| rows.iter().any(|r| r[col] == v);
    assert!(has("kind", "www".into()) && has("valid", false.into()));
    assert!(has("normalized", Value::Null) && has("host_kind", "ipv6".into()));
    assert!(has("file", "-".into()) && has("warc_offset", Value::Null));
}

#[test]
fn mail_rows_equal_the_json_of_the_run() {
    let rows = check(&["--mail", "datasets/sample.mbox"], None, true);
    assert!(rows.iter().all(|r| r["message"].is_i64()));
    assert!(rows.iter().any(|r| r["message_id"].is_string()));
}

#[test]
fn web_archive_rows_equal_the_json_of_the_run() {
    let stdin = b"see http://text.example/ here\n";
    let warc = "crates/warc/tests/data/sample.warc.gz";
    let rows = check(&["-", warc], Some(stdin), false);
    assert!(rows.len() > 500);
    assert!(rows.iter().any(|r| r["warc_offset"].as_i64() > Some(0)));
    let wet = "crates/warc/tests/data/sample.wet";
    check(&["--html", wet], None, false);
}

#[test]
fn unique_rows_equal_the_json_of_the_run() {
    let rows = check(
        &[
            "--unique",
            "--dedup-key",
            "no-fragment",
            "datasets/urls.txt",
        ],
        None,
        false,
    );
    let mut seen = std::collections::HashSet::new();
    let normal = rows.iter().filter(|r| !r["normalized"].is_null());
    assert!(
        normal
            .map(|r| r["normalized"].to_string())
            .all(|k| seen.insert(k))
    );
}

#[test]
fn shards_equal_the_json_shards_of_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let (pq, js) = (dir.path().join("pq"), dir.path().join("js"));
    let inputs = [
        "datasets/sample.txt",
        "datasets/urls.txt",
        "crates/warc/tests/data/sample.warc.gz",
    ];
    for (format, out) in [("parquet", &pq), ("json", &js)] {
        let mut a = vec!["--format", format, "--normalize", "--shards", "3"];
        a.extend(["--output", out.to_str().unwrap()]);
        a.extend(inputs);
        urlsift(&a, None);
    }
    let mut total = 0;
    for i in 0..3 {
        let rows = parquet_rows(&pq.join(format!("part-0000{i}.parquet")), false);
        let json = std::fs::read(js.join(format!("part-0000{i}.jsonl"))).unwrap();
        assert_same(&rows, &json_lines(&json), &format!("shard {i}"));
        total += rows.len();
    }
    assert!(total > 4000);
}

/// Enough rows for several row groups, encoded in parallel: the file is
/// the same, byte for byte, with one thread and with three, and its rows
/// are the JSON's in order.
#[test]
fn row_groups_are_the_same_whatever_the_threads() {
    let dir = tempfile::tempdir().unwrap();
    let n = 140_000;
    let mut text = String::with_capacity(n * 24);
    for i in 0..n {
        text.push_str(&format!("http://h{}.example/p{i} ", i % 1000));
        if i % 7 == 0 {
            text.push('\n');
        }
    }
    let f = dir.path().join("many.txt");
    std::fs::write(&f, &text).unwrap();
    let f = f.to_str().unwrap();
    let mut files = Vec::new();
    for j in ["-j1", "-j3"] {
        let pq = dir.path().join(format!("out{j}.parquet"));
        let chunk = ["--chunk-size", "65536"];
        let mut a = vec![j, "--format", "parquet", "--output", pq.to_str().unwrap()];
        a.extend(chunk);
        a.push(f);
        urlsift(&a, None);
        files.push(std::fs::read(&pq).unwrap());
    }
    assert!(files[0] == files[1], "-j1 and -j3 wrote different files");
    let pq = dir.path().join("out-j3.parquet");
    let reader = SerializedFileReader::new(std::fs::File::open(&pq).unwrap()).unwrap();
    assert_eq!(reader.metadata().num_row_groups(), 2);
    let rows = parquet_rows(&pq, false);
    let json = json_lines(&urlsift(&["--format", "json", "--normalize", f], None).stdout);
    assert_eq!(json.len(), n);
    assert_same(&rows, &json, "many rows");
}

/// Every integer column is a plain INT64 (no unsigned logical type), which
/// DuckDB and Spark read as `bigint`.
#[test]
fn integer_columns_are_signed_64_bit() {
    let dir = tempfile::tempdir().unwrap();
    let pq = dir.path().join("o.parquet");
    urlsift(
        &[
            "--format",
            "parquet",
            "--output",
            pq.to_str().unwrap(),
            "datasets/sample.mbox",
            "--mail",
        ],
        None,
    );
    let reader = SerializedFileReader::new(std::fs::File::open(&pq).unwrap()).unwrap();
    let schema = reader.metadata().file_metadata().schema_descr();
    for name in [
        "start",
        "end",
        "line",
        "message",
        "message_offset",
        "part",
        "part_offset",
        "part_start",
        "part_line",
        "warc_offset",
    ] {
        let i = (0..schema.num_columns())
            .find(|&i| schema.column(i).name() == name)
            .unwrap();
        let c = schema.column(i);
        assert_eq!(c.physical_type(), Physical::INT64, "{name}");
        assert!(c.logical_type_ref().is_none(), "{name}");
    }
}
