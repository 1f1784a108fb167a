//! `scan_files`: the rows of `urlsift --format parquet` for files and
//! directories, as an iterator of `pyarrow.RecordBatch`es (see
//! [`engine::FileScan`]).

use std::ffi::CString;
use std::path::PathBuf;
use std::sync::Mutex;

use arrow_pyarrow::ToPyArrow;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyString};

use crate::engine::{self, FileItem, FileOptions, InputError as Failed};
use crate::{InputError, InputWarning, InternalError};

/// What to do when an input fails.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum OnError {
    /// Raise `InputError` (after the rows of the inputs before it).
    Raise,
    /// Issue an `InputWarning` and go on with the next input.
    Warn,
}

/// One path: `str`, `bytes` or `os.PathLike`.
fn one_path(p: &Bound<'_, PyAny>) -> PyResult<PathBuf> {
    let os = p.py().import("os")?;
    let p = os.call_method1("fspath", (p,))?;
    if let Ok(b) = p.cast::<PyBytes>() {
        #[cfg(unix)]
        {
            use std::os::unix::ffi::OsStrExt;
            return Ok(PathBuf::from(std::ffi::OsStr::from_bytes(b.as_bytes())));
        }
        #[cfg(not(unix))]
        {
            let s = std::str::from_utf8(b.as_bytes())
                .map_err(|_| PyValueError::new_err("a bytes path must be UTF-8 here"))?;
            return Ok(PathBuf::from(s));
        }
    }
    p.extract::<PathBuf>()
}

/// `paths`: one path, or an iterable of them.
fn paths(arg: &Bound<'_, PyAny>) -> PyResult<Vec<PathBuf>> {
    let single = arg.is_instance_of::<PyString>()
        || arg.is_instance_of::<PyBytes>()
        || arg.hasattr("__fspath__")?;
    if single {
        return Ok(vec![one_path(arg)?]);
    }
    let Ok(it) = arg.try_iter() else {
        return Err(PyTypeError::new_err(format!(
            "paths must be a path (str, bytes, os.PathLike) or an iterable of them, not {}",
            arg.get_type().name()?
        )));
    };
    it.map(|p| one_path(&p?)).collect()
}

/// The Python exception of a failed input.
fn input_error(py: Python<'_>, e: &Failed) -> PyErr {
    let err = InputError::new_err(e.message.clone());
    let v = err.value(py);
    let _ = v.setattr("path", e.path.clone());
    let _ = v.setattr("offset", e.offset);
    let _ = v.setattr("reason", e.reason.clone());
    err
}

/// The iterator :func:`scan_files` returns: ``pyarrow.RecordBatch``es
/// of at most 8192 rows, in input order. Closing it (``close()``, the end of
/// a ``with`` block, or dropping it) stops the scan and waits for its
/// threads.
#[pyclass(frozen, module = "urlsift")]
pub struct FileScan {
    scan: Mutex<Option<engine::FileScan>>,
    mail: bool,
    on_error: OnError,
}

impl FileScan {
    fn stop(&self, py: Python<'_>) {
        let taken = self.scan.lock().unwrap_or_else(|p| p.into_inner()).take();
        if let Some(mut s) = taken {
            // The run's thread never takes the GIL: wait for it without.
            py.detach(move || s.close());
        }
    }
}

#[pymethods]
impl FileScan {
    fn __iter__(slf: Bound<'_, Self>) -> Bound<'_, Self> {
        slf
    }

    /// The next ``pyarrow.RecordBatch``. Raises :class:`InputError` at a
    /// failed input (``errors="raise"``), after every row of the inputs
    /// before it; the iterator is closed then.
    fn __next__<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        loop {
            // Wait for the next batch without the GIL.
            let item = py.detach(|| {
                let mut g = self.scan.lock().unwrap_or_else(|p| p.into_inner());
                g.as_mut().and_then(engine::FileScan::next)
            });
            match item {
                None => {
                    self.stop(py);
                    return Ok(None);
                }
                Some(FileItem::Batch(b)) => return b.to_pyarrow(py).map(Some),
                Some(FileItem::Input(e)) => match self.on_error {
                    OnError::Raise => {
                        self.stop(py);
                        return Err(input_error(py, &e));
                    }
                    OnError::Warn => {
                        let msg = CString::new(e.message.replace('\0', "\\0")).unwrap_or_default();
                        PyErr::warn(py, &py.get_type::<InputWarning>(), &msg, 1)?;
                    }
                },
                Some(FileItem::Internal(m)) => {
                    self.stop(py);
                    return Err(InternalError::new_err(format!("internal error: {m}")));
                }
            }
        }
    }

    /// Stop the scan and wait for its threads; the iterator ends.
    fn close(&self, py: Python<'_>) {
        self.stop(py);
    }

    fn __enter__(slf: Bound<'_, Self>) -> Bound<'_, Self> {
        slf
    }

    #[pyo3(signature = (*_exc))]
    fn __exit__(&self, py: Python<'_>, _exc: &Bound<'_, pyo3::types::PyTuple>) -> bool {
        self.stop(py);
        false
    }

    /// The ``pyarrow.Schema`` of the batches: ``urlsift --format parquet``'s
    /// (with the mail columns for ``mail=True``).
    #[getter]
    fn schema<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        engine::file_schema(self.mail).as_ref().to_pyarrow(py)
    }

    /// The remaining batches as one ``pyarrow.Table`` (with the schema even
    /// when there are no rows).
    fn read_all<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        let py = slf.py();
        let batches = PyList::empty(py);
        for b in slf.try_iter()? {
            batches.append(b?)?;
        }
        let kw = PyDict::new(py);
        kw.set_item("schema", slf.get().schema(py)?)?;
        py.import("pyarrow")?
            .getattr("Table")?
            .call_method("from_batches", (batches,), Some(&kw))
    }
}

impl Drop for FileScan {
    fn drop(&mut self) {
        let taken = self
            .scan
            .get_mut()
            .unwrap_or_else(|p| p.into_inner())
            .take();
        if let Some(mut s) = taken {
            Python::attach(|py| py.detach(move || s.close()));
        }
    }
}

/// The rows ``urlsift --format parquet --output OUT PATHS...`` writes, as an
/// iterator of ``pyarrow.RecordBatch``es with the same columns and types.
///
/// ``paths``: one path or an iterable of them; directories are walked as
/// the CLI walks them. gzip and zstd files are decompressed, web archives
/// (WARC, WET) recognised by content; ``mail=True`` reads mail archives
/// (``--mail``). ``html``: which inputs are HTML pages, as for
/// :func:`urls`. ``base``: the base URI of HTML pages and of web archive
/// records without a target URI (``--base``). ``links_only``: as for
/// :func:`urls` (``--links-only``). ``key``: a ``--dedup-key``
/// level (``"whatwg"``, ``"surt"``, ...) for the ``key`` column (null
/// without it). ``threads``: at most this
/// many threads scan
/// (default: one per core, or ``RAYON_NUM_THREADS``). ``errors``: at a
/// failed input, ``"raise"`` :class:`InputError` (after the rows of the
/// inputs before it) or ``"warn"`` (:class:`InputWarning`) and go on.
#[pyfunction]
#[pyo3(signature = (paths, *, mail = false, html = None, base = None, links_only = false, key = None, threads = None, errors = "raise"))]
#[allow(clippy::too_many_arguments)]
pub fn scan_files(
    py: Python<'_>,
    paths: &Bound<'_, PyAny>,
    mail: bool,
    html: Option<bool>,
    base: Option<String>,
    links_only: bool,
    key: Option<&str>,
    threads: Option<usize>,
    errors: &str,
) -> PyResult<FileScan> {
    let key = key
        .map(engine::key_level)
        .transpose()
        .map_err(|e| crate::py_err(py, e))?;
    let on_error = match errors {
        "raise" => OnError::Raise,
        "warn" => OnError::Warn,
        other => {
            return Err(PyValueError::new_err(format!(
                "errors must be \"raise\" or \"warn\", not {other:?}"
            )));
        }
    };
    let t = crate::threads(threads)?;
    let html = crate::html_mode(html, mail)?;
    crate::check_base(base.as_deref())?;
    let paths = self::paths(paths)?;
    let scan = engine::FileScan::start(
        paths,
        FileOptions {
            mail,
            html,
            base,
            links_only,
            key,
        },
        t,
    )
    .map_err(|e| crate::py_err(py, e))?;
    Ok(FileScan {
        scan: Mutex::new(Some(scan)),
        mail,
        on_error,
    })
}
