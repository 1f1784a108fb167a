//! `iter_urls` and `iter_find`: `urls` and `find` as iterators, for inputs
//! whose URLs should not all be held at once.
//!
//! A background thread scans (without the GIL) and hands batches over a
//! bounded channel; the iterator turns one batch at a time into Python
//! objects. The input's bytes are held by the iterator (a `bytes` object
//! is not copied), so the scan never outlives them.

use std::ops::Deref;
use std::sync::mpsc::{Receiver, sync_channel};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::pybacked::PyBackedBytes;
use pyo3::types::{PyBytes, PyString};

use crate::engine::{self, Notes, ReadOptions, Threads};
use crate::{InternalError, Match, py_err, read_options, threads, url_str, warn_notes};

/// Batches in flight between the scan and the iterator: the scan runs
/// ahead by this many at most, which bounds the memory a slow consumer
/// costs.
const IN_FLIGHT: usize = 2;

/// The bytes a background scan reads: a `bytes` object, held (not
/// copied), or a `str` encoded as UTF-8.
enum Held {
    Bytes(PyBackedBytes),
    Owned(Vec<u8>),
}

impl Deref for Held {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            Held::Bytes(b) => b,
            Held::Owned(v) => v,
        }
    }
}

fn held(data: &Bound<'_, PyAny>) -> PyResult<Arc<Held>> {
    if let Ok(b) = data.cast::<PyBytes>() {
        return Ok(Arc::new(Held::Bytes(PyBackedBytes::from(b.clone()))));
    }
    if let Ok(s) = data.cast::<PyString>() {
        return Ok(Arc::new(Held::Owned(s.to_cow()?.into_owned().into_bytes())));
    }
    Err(PyTypeError::new_err(format!(
        "data must be bytes or str, not {}",
        data.get_type().name()?
    )))
}

/// One scan in the background: the batches it sends, and its end.
struct Stream<B> {
    data: Arc<Held>,
    /// (A Mutex only to make the receiver Sync, as a pyclass must be.)
    rx: Mutex<Option<Receiver<B>>>,
    scan: Option<JoinHandle<Result<Notes, engine::Error>>>,
}

impl<B: Send + 'static> Stream<B> {
    /// Start `scan` on its own thread over `data`; it hands its batches to
    /// the function it is given, which blocks while [`IN_FLIGHT`] batches
    /// wait. Once the iterator is gone, batches are dropped unread and the
    /// scan runs to its end (it cannot be cut short), then the thread ends.
    fn start(
        data: Arc<Held>,
        scan: impl FnOnce(&[u8], &mut (dyn FnMut(B) + Send)) -> Result<Notes, engine::Error>
        + Send
        + 'static,
    ) -> Self {
        let (tx, rx) = sync_channel::<B>(IN_FLIGHT);
        let bytes = Arc::clone(&data);
        let handle = std::thread::spawn(move || {
            let mut open = true;
            scan(&bytes, &mut |b| {
                if open && tx.send(b).is_err() {
                    open = false;
                }
            })
        });
        Stream {
            data,
            rx: Mutex::new(Some(rx)),
            scan: Some(handle),
        }
    }

    /// The next batch, waiting without the GIL; `None` at the end, after
    /// the scan's warnings are issued, or its error raised.
    fn next_batch(&mut self, py: Python<'_>) -> PyResult<Option<B>> {
        let got = py.detach(|| {
            let guard = self.rx.lock().ok()?;
            guard.as_ref()?.recv().ok()
        });
        if got.is_some() {
            return Ok(got);
        }
        if let Ok(mut g) = self.rx.lock() {
            *g = None;
        }
        let Some(handle) = self.scan.take() else {
            return Ok(None);
        };
        let res = py.detach(|| handle.join());
        let notes = match res {
            Ok(r) => r.map_err(|e| py_err(py, e))?,
            Err(_) => return Err(InternalError::new_err("internal error: the scan panicked")),
        };
        warn_notes(py, &notes)?;
        Ok(None)
    }
}

/// The iterator :func:`iter_urls` returns.
#[pyclass(module = "urlsift")]
pub struct UrlIter {
    stream: Stream<engine::UrlList>,
    batch: Option<engine::UrlList>,
    at: usize,
}

#[pymethods]
impl UrlIter {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    /// The next URL.
    fn __next__<'py>(&mut self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        loop {
            if let Some(b) = &self.batch
                && self.at < b.spans.len()
            {
                let s = url_str(py, b.get(&self.stream.data, self.at))?;
                self.at += 1;
                return Ok(Some(s));
            }
            match self.stream.next_batch(py)? {
                Some(b) => {
                    self.batch = Some(b);
                    self.at = 0;
                }
                None => return Ok(None),
            }
        }
    }
}

/// The iterator :func:`iter_find` returns.
#[pyclass(module = "urlsift")]
pub struct MatchIter {
    stream: Stream<Vec<engine::Record>>,
    batch: std::vec::IntoIter<engine::Record>,
}

#[pymethods]
impl MatchIter {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    /// The next :class:`Match`.
    fn __next__(&mut self, py: Python<'_>) -> PyResult<Option<Match>> {
        loop {
            if let Some(r) = self.batch.next() {
                return Ok(Some(Match::from(r)));
            }
            match self.stream.next_batch(py)? {
                Some(b) => self.batch = b.into_iter(),
                None => return Ok(None),
            }
        }
    }
}

fn options(
    mail: bool,
    html: Option<bool>,
    base: Option<String>,
    links_only: bool,
    n: Option<usize>,
) -> PyResult<(ReadOptions, Threads)> {
    Ok((read_options(mail, html, base, links_only)?, threads(n)?))
}

/// :func:`urls` as an iterator: the same URLs in the same order, made into
/// ``str`` objects a batch at a time while a background thread scans ahead
/// (by two batches at most), so that the URLs of a large input are never
/// all held at once. ``data`` is held by the iterator, not copied (a
/// ``str`` is encoded as UTF-8 first). Warnings are issued, and errors
/// raised, when the iterator reaches the end. An iterator dropped early
/// lets the scan of the rest of ``data`` finish in the background and
/// discards its URLs.
#[pyfunction]
#[pyo3(signature = (data, *, mail = false, html = None, base = None, links_only = false, threads = None))]
pub fn iter_urls(
    data: &Bound<'_, PyAny>,
    mail: bool,
    html: Option<bool>,
    base: Option<String>,
    links_only: bool,
    threads: Option<usize>,
) -> PyResult<UrlIter> {
    let data = held(data)?;
    let (opts, t) = options(mail, html, base, links_only, threads)?;
    let stream = Stream::start(data, move |bytes, send| engine::urls(bytes, &opts, t, send));
    Ok(UrlIter {
        stream,
        batch: None,
        at: 0,
    })
}

/// :func:`find` as an iterator: the same :class:`Match` objects in the
/// same order, a batch at a time, as :func:`iter_urls` gives :func:`urls`'
/// URLs.
#[pyfunction]
#[pyo3(signature = (data, *, mail = false, html = None, base = None, links_only = false, threads = None))]
pub fn iter_find(
    data: &Bound<'_, PyAny>,
    mail: bool,
    html: Option<bool>,
    base: Option<String>,
    links_only: bool,
    threads: Option<usize>,
) -> PyResult<MatchIter> {
    let data = held(data)?;
    let (opts, t) = options(mail, html, base, links_only, threads)?;
    let stream = Stream::start(data, move |bytes, send| {
        engine::find_batches(bytes, &opts, t, send)
    });
    Ok(MatchIter {
        stream,
        batch: Vec::new().into_iter(),
    })
}
