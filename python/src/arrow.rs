//! `scan_arrow`: scan the rows of a pyarrow array, through Arrow's C data
//! interface (arrow-rs's pyarrow bindings), without copying the input.

use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::{Array, ArrayRef, Int64Array, LargeStringArray, RecordBatch, StringArray};
use arrow_data::ArrayData;
use arrow_pyarrow::{FromPyArrow, ToPyArrow};
use arrow_schema::{DataType, Field, Schema};
use pyo3::exceptions::{PyOverflowError, PyTypeError, PyValueError};
use pyo3::prelude::*;

use crate::engine::{self, Columns};

/// The rows of `arr` as bytes (`None` for a null row), borrowed from its
/// buffers; whether its offsets are 64-bit.
fn rows(arr: &dyn Array) -> PyResult<(Vec<Option<&[u8]>>, bool)> {
    fn collect<'a>(n: usize, f: impl Fn(usize) -> Option<&'a [u8]>) -> Vec<Option<&'a [u8]>> {
        (0..n).map(f).collect()
    }
    let n = arr.len();
    let nulls = |i: usize| arr.is_null(i);
    Ok(match arr.data_type() {
        DataType::Binary => {
            let a = arr.as_binary::<i32>();
            (collect(n, |i| (!nulls(i)).then(|| a.value(i))), false)
        }
        DataType::LargeBinary => {
            let a = arr.as_binary::<i64>();
            (collect(n, |i| (!nulls(i)).then(|| a.value(i))), true)
        }
        DataType::Utf8 => {
            let a = arr.as_string::<i32>();
            (
                collect(n, |i| (!nulls(i)).then(|| a.value(i).as_bytes())),
                false,
            )
        }
        DataType::LargeUtf8 => {
            let a = arr.as_string::<i64>();
            (
                collect(n, |i| (!nulls(i)).then(|| a.value(i).as_bytes())),
                true,
            )
        }
        DataType::BinaryView => {
            let a = arr.as_binary_view();
            (collect(n, |i| (!nulls(i)).then(|| a.value(i))), false)
        }
        DataType::Utf8View => {
            let a = arr.as_string_view();
            (
                collect(n, |i| (!nulls(i)).then(|| a.value(i).as_bytes())),
                false,
            )
        }
        other => {
            return Err(PyTypeError::new_err(format!(
                "scan_arrow takes a binary, string, large_binary or large_string array, not {other}"
            )));
        }
    })
}

/// A string column, 64-bit offsets if `large`.
fn strings(v: Vec<Option<String>>, large: bool) -> PyResult<ArrayRef> {
    if large {
        return Ok(Arc::new(LargeStringArray::from(v)));
    }
    let total: usize = v.iter().flatten().map(String::len).sum();
    if i32::try_from(total).is_err() {
        return Err(PyOverflowError::new_err(
            "more than 2 GiB of URL text for a 32-bit string column: pass a large_binary or large_string array",
        ));
    }
    Ok(Arc::new(StringArray::from(v)))
}

fn batch(c: Columns, large: bool) -> PyResult<RecordBatch> {
    // The CLI's Parquet types, from the one definition of the fields.
    let field = |name: &str, nullable: bool| {
        engine::record_field(name, nullable, large)
            .ok_or_else(|| PyValueError::new_err(format!("no field {name}")))
    };
    let mut fields = vec![
        Field::new("row", engine::int_type(), false),
        field("start", false)?,
        field("end", false)?,
        field("url", false)?,
        field("normalized", true)?,
        field("host", true)?,
        field("host_ascii", true)?,
        field("domain", true)?,
    ];
    let keyed = c.key_level.is_some();
    if keyed {
        fields.push(field("key", true)?);
    }
    // The web fields, in the CLI's order: null but for the links of a
    // web archive's records.
    for name in urlsift_printer::fields::names(&[urlsift_printer::fields::Group::Web]) {
        fields.push(field(name, true)?);
    }
    let schema = Schema::new(fields);
    let mut cols: Vec<ArrayRef> = vec![
        Arc::new(Int64Array::from(c.row)),
        Arc::new(Int64Array::from(c.start)),
        Arc::new(Int64Array::from(c.end)),
        strings(c.url.into_iter().map(Some).collect(), large)?,
        strings(c.normalized, large)?,
        strings(c.host, large)?,
        strings(c.host_ascii, large)?,
        strings(c.domain, large)?,
    ];
    if keyed {
        cols.push(strings(c.key, large)?);
    }
    let w = c.web;
    let owned =
        |v: Vec<Option<&'static str>>| v.into_iter().map(|s| s.map(str::to_owned)).collect();
    cols.push(strings(w.found, large)?);
    cols.push(strings(owned(w.source), large)?);
    cols.push(strings(w.source_name, large)?);
    cols.push(strings(w.warc_target_uri, large)?);
    cols.push(strings(w.warc_record_id, large)?);
    cols.push(strings(w.warc_date, large)?);
    cols.push(strings(w.warc_type, large)?);
    cols.push(Arc::new(Int64Array::from(w.warc_offset)));
    cols.push(Arc::new(Int64Array::from(w.warc_length)));
    cols.push(Arc::new(Int64Array::from(w.http_status)));
    cols.push(strings(w.rel, large)?);
    RecordBatch::try_new(Arc::new(schema), cols).map_err(|e| PyValueError::new_err(e.to_string()))
}

/// One row per URL: `row` (the input row), `start`, `end` (byte offsets in
/// that row), `url`, `normalized` (null where the URL cannot be
/// normalized), `host`, `host_ascii`, `domain`, and with `key` (a
/// `--dedup-key` level: "whatwg", "surt", ...) the URL's `key` at that
/// level, then the web columns (`found` ... `rel`), null but for
/// the links of a row that holds a web archive. Each row is scanned as
/// `urls` scans one buffer (gzip, zstd, web archives and HTML pages
/// recognised). ``links_only``: as for :func:`urls`.
#[pyfunction]
#[pyo3(signature = (array, *, mail = false, links_only = false, key = None, threads = None))]
pub fn scan_arrow<'py>(
    py: Python<'py>,
    array: &Bound<'py, PyAny>,
    mail: bool,
    links_only: bool,
    key: Option<&str>,
    threads: Option<usize>,
) -> PyResult<Bound<'py, PyAny>> {
    let t = crate::threads(threads)?;
    let key = key
        .map(engine::key_level)
        .transpose()
        .map_err(|e| crate::py_err(py, e))?;
    // Imported through the C data interface: the buffers stay pyarrow's.
    let data = ArrayData::from_pyarrow_bound(array)?;
    let arr = arrow_array::make_array(data);
    let (rows, large) = rows(arr.as_ref())?;
    let mut cols = py
        .detach(|| engine::scan_rows(&rows, mail, links_only, key, t))
        .map_err(|e| crate::py_err(py, e))?;
    let input_problems = std::mem::take(&mut cols.input_problems);
    crate::warn_input_problems(
        py,
        input_problems
            .iter()
            .map(|(row, p)| (format!("row {row}: "), p)),
    )?;
    let problems = std::mem::take(&mut cols.problems);
    // As the CLI does for a file: the first problems of the column, then
    // how many more (a column of a million bodies that are not mail would
    // otherwise give a million warnings, each kept by Python's registry).
    let shown = usize::try_from(urlsift_mail::MAX_PROBLEMS_SHOWN).unwrap_or(usize::MAX);
    crate::warn_problems(
        py,
        problems
            .iter()
            .take(shown)
            .map(|(row, p)| (format!("row {row}: "), p)),
    )?;
    if problems.len() > shown {
        let rows = problems
            .iter()
            .map(|(row, _)| row)
            .collect::<std::collections::BTreeSet<_>>()
            .len();
        let msg = format!(
            "{} more problems not shown ({} problems in {rows} rows)",
            problems.len() - shown,
            problems.len(),
        );
        let msg = std::ffi::CString::new(msg).unwrap_or_default();
        PyErr::warn(py, &py.get_type::<crate::MailWarning>(), &msg, 2)?;
    }
    batch(cols, large)?.to_pyarrow(py)
}
