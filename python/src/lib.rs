//! `urlsift._urlsift`: the native module of the `urlsift` Python package.
//!
//! This file converts between Python and the plain Rust types of
//! [`engine`] (the only file that uses the urlsift library); `arrow.rs`
//! does the same for Arrow arrays. Every call that scans releases the GIL
//! while Rust works.

use std::ffi::CString;
use std::sync::mpsc::sync_channel;

use pyo3::create_exception;
use pyo3::exceptions::{PyRuntimeError, PyTypeError, PyUserWarning, PyValueError};
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyString};

mod arrow;
mod engine;
mod files;
mod stream;

use engine::{Error, Threads};
use urlsift_printer::fields::{self, Group};

create_exception!(
    urlsift,
    URIError,
    PyValueError,
    "A URI reference that is not valid RFC 3986."
);
create_exception!(
    urlsift,
    InternalError,
    PyRuntimeError,
    "A bug: the Rust engine panicked. The interpreter is unharmed."
);
create_exception!(
    urlsift,
    InputError,
    pyo3::exceptions::PyOSError,
    "An input of :func:`scan_files` failed: missing, unreadable, a corrupt\ngzip or zstd stream, a broken web archive. ``str(e)`` is the CLI's\nmessage (``PATH: [at] byte N: reason``)."
);
create_exception!(
    urlsift,
    InputWarning,
    PyUserWarning,
    "An input of ``scan_files(..., errors=\"warn\")`` failed (the message is\n:class:`InputError`'s); the scan went on with the next input."
);
create_exception!(
    urlsift,
    MailWarning,
    PyUserWarning,
    "A malformed message in mail input (scanned as far as it could be), or\ninput that is not mail (scanned as plain text)."
);

/// A Python exception for an engine error.
pub(crate) fn py_err(py: Python<'_>, e: Error) -> PyErr {
    match e {
        Error::Uri {
            offset,
            reason,
            which,
        } => {
            let msg = match which {
                Some(w) => format!("{w}: {reason} at byte {offset}"),
                None => format!("{reason} at byte {offset}"),
            };
            let err = URIError::new_err(msg);
            let v = err.value(py);
            let _ = v.setattr("offset", offset);
            let _ = v.setattr("reason", reason);
            let _ = v.setattr("which", which);
            err
        }
        Error::Argument(m) => PyValueError::new_err(m),
        Error::Internal(m) => InternalError::new_err(format!("internal error: {m}")),
    }
}

/// The input of a scan: the bytes of a `bytes` object (borrowed, not
/// copied), or a `str` encoded as UTF-8.
enum Input<'py> {
    Bytes(Bound<'py, PyBytes>),
    Owned(Vec<u8>),
}

impl Input<'_> {
    fn bytes(&self) -> &[u8] {
        match self {
            Input::Bytes(b) => b.as_bytes(),
            Input::Owned(v) => v,
        }
    }
}

fn input<'py>(data: &Bound<'py, PyAny>) -> PyResult<Input<'py>> {
    if let Ok(b) = data.cast::<PyBytes>() {
        return Ok(Input::Bytes(b.clone()));
    }
    if let Ok(s) = data.cast::<PyString>() {
        // `str` is UTF-8 encoded (a copy); lone surrogates raise
        // UnicodeEncodeError.
        return Ok(Input::Owned(s.to_cow()?.into_owned().into_bytes()));
    }
    Err(PyTypeError::new_err(format!(
        "data must be bytes or str, not {}",
        data.get_type().name()?
    )))
}

/// `html=`: `None` sniffs the document start (as the CLI does), `True`
/// reads every input as HTML (`--html`), `False` none (`--no-html`).
fn html_mode(html: Option<bool>, mail: bool) -> PyResult<engine::HtmlMode> {
    match html {
        // The CLI's refusal of `--html --mail`.
        Some(true) if mail => Err(PyValueError::new_err(
            "mail=True reads the HTML parts of mail as HTML; html=True is for other inputs",
        )),
        Some(true) => Ok(engine::HtmlMode::Always),
        Some(false) => Ok(engine::HtmlMode::Never),
        None => Ok(engine::HtmlMode::Auto),
    }
}

/// A `base` that is not an absolute URI is a ValueError, as `--base` is a
/// usage error.
pub(crate) fn check_base(base: Option<&str>) -> PyResult<()> {
    match base.map(engine::check_base) {
        Some(Err(e)) => Err(PyValueError::new_err(e)),
        _ => Ok(()),
    }
}

pub(crate) fn read_options(
    mail: bool,
    html: Option<bool>,
    base: Option<String>,
    links_only: bool,
) -> PyResult<engine::ReadOptions> {
    check_base(base.as_deref())?;
    Ok(engine::ReadOptions {
        mail,
        html: html_mode(html, mail)?,
        base,
        links_only,
    })
}

/// Issue the mail problems of a scan as MailWarnings, and a cut HTML
/// document as a UserWarning (the CLI's message, without the file name).
pub(crate) fn warn_notes(py: Python<'_>, notes: &engine::Notes) -> PyResult<()> {
    warn_problems(py, notes.problems.iter().map(|p| (String::new(), p)))?;
    warn_input_problems(py, notes.input_problems.iter().map(|p| (String::new(), p)))?;
    if let Some(cut) = notes.html_cut {
        let msg = format!(
            "byte {cut}: HTML longer than {} bytes: the rest is read as text",
            engine::MAX_HTML
        );
        let msg = CString::new(msg).unwrap_or_default();
        PyErr::warn(py, &py.get_type::<PyUserWarning>(), &msg, 2)?;
    }
    Ok(())
}

pub(crate) fn threads(n: Option<usize>) -> PyResult<Threads> {
    if n == Some(0) {
        return Err(PyValueError::new_err("threads must be at least 1"));
    }
    Ok(Threads::from_arg(n))
}

/// Issue one MailWarning per problem (Python's warning filters decide
/// what is shown, once per location by default), with `prefix` before the
/// CLI's `byte N: message M: what` (`byte 0: not mail ...` for input
/// that is not mail).
fn warn_problems<'a>(
    py: Python<'_>,
    problems: impl IntoIterator<Item = (String, &'a engine::Problem)>,
) -> PyResult<()> {
    let cat = py.get_type::<MailWarning>();
    for (prefix, p) in problems {
        let msg = match p.message {
            Some(m) => format!("{prefix}byte {}: message {m}: {}", p.offset, p.what),
            None => format!("{prefix}byte {}: {}", p.offset, p.what),
        };
        let msg = CString::new(msg.replace('\0', "\\0")).unwrap_or_default();
        PyErr::warn(py, &cat, &msg, 2)?;
    }
    Ok(())
}

/// Issue one InputWarning per problem of a web archive's records or of
/// compressed input, with `prefix` before the CLI's `byte N: what`.
fn warn_input_problems<'a>(
    py: Python<'_>,
    problems: impl IntoIterator<Item = (String, &'a engine::Problem)>,
) -> PyResult<()> {
    let cat = py.get_type::<InputWarning>();
    for (prefix, p) in problems {
        let msg = format!("{prefix}byte {}: {}", p.offset, p.what);
        let msg = CString::new(msg.replace('\0', "\\0")).unwrap_or_default();
        PyErr::warn(py, &cat, &msg, 2)?;
    }
    Ok(())
}

/// A `str` from URL bytes: UTF-8, with any invalid byte kept as a lone
/// surrogate (`surrogateescape`), so `s.encode("utf-8", "surrogateescape")`
/// gives back exactly the bytes the CLI prints.
pub(crate) fn url_str<'py>(py: Python<'py>, b: &[u8]) -> PyResult<Bound<'py, PyAny>> {
    let len =
        ffi::Py_ssize_t::try_from(b.len()).map_err(|_| PyValueError::new_err("URL too long"))?;
    // SAFETY: `b` is valid for `len` bytes and the error handler name is a
    // NUL-terminated C string; PyUnicode_DecodeUTF8 copies the bytes and
    // returns a new reference or NULL with an exception set, which
    // `from_owned_ptr_or_err` takes over.
    unsafe {
        let p = ffi::PyUnicode_DecodeUTF8(b.as_ptr().cast(), len, c"surrogateescape".as_ptr());
        Bound::from_owned_ptr_or_err(py, p)
    }
}

/// Recently made `str` objects of URLs found in the input, by a hash of
/// their bytes: a URL seen again shares the `str` made for it (URLs repeat
/// a lot in real text: navigation links, signatures, licences). Direct
/// mapped and bounded; a miss costs a hash and one probe of the table, so
/// it is skipped while it finds too few repeats ([`StrCache::convert`]).
///
/// The table holds borrowed pointers: every object in it is also in the
/// output vector `urls` builds, which keeps it alive for as long as the
/// table exists (the table is dropped first, and never outlives the call).
struct StrCache {
    /// Whether the next block is looked up.
    mode: Mode,
    /// `(hash, start, len, object)`; a null object is an empty slot.
    /// 2^BITS slots of 32 bytes, in sets of two (4 MiB).
    slots: Vec<(u64, usize, usize, *mut ffi::PyObject)>,
}

impl StrCache {
    const BITS: u32 = 17;

    fn new() -> Self {
        StrCache {
            mode: Mode::Refill,
            slots: vec![(0, 0, 0, std::ptr::null_mut()); 1 << Self::BITS],
        }
    }

    /// A 64-bit hash of `b`, eight bytes at a time (FxHash's mix).
    fn hash(b: &[u8]) -> u64 {
        const K: u64 = 0x517c_c1b7_2722_0a95;
        let mut h = b.len() as u64;
        let mut words = b.chunks_exact(8);
        for w in &mut words {
            let mut a = [0u8; 8];
            a.copy_from_slice(w);
            h = (h.rotate_left(5) ^ u64::from_le_bytes(a)).wrapping_mul(K);
        }
        let mut a = [0u8; 8];
        a[..words.remainder().len()].copy_from_slice(words.remainder());
        (h.rotate_left(5) ^ u64::from_le_bytes(a)).wrapping_mul(K)
    }

    fn slot_of(h: u64) -> usize {
        (h >> (64 - Self::BITS)) as usize
    }

    /// Start loading the slot of hash `h` into the cache: the table is
    /// larger than L2, and a probe is otherwise a wait on memory.
    #[inline]
    fn prefetch(&self, h: u64) {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
            let p = self.slots[Self::slot_of(h)..].as_ptr().cast::<i8>();
            // SAFETY: a prefetch is a hint: it never faults and has no
            // effect on memory; `p` points into the table anyway.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(p) };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = h;
    }

    /// The `str` of URL `i` of `batch`, whose hash is `h`, pushed onto
    /// `out`; whether it was found in the table.
    fn push(
        &mut self,
        py: Python<'_>,
        input: &[u8],
        batch: &engine::UrlList,
        i: usize,
        h: u64,
        out: &mut Vec<Py<PyAny>>,
    ) -> PyResult<bool> {
        let b = batch.get(input, i);
        let (start, end, in_input) = batch.spans[i];
        if !in_input {
            out.push(url_str(py, b)?.unbind());
            return Ok(false);
        }
        // Two ways per set, in one cache line: the newest first.
        let set = Self::slot_of(h) & !1;
        for way in set..set + 2 {
            let (sh, s, len, obj) = self.slots[way];
            if !obj.is_null() && sh == h && len == b.len() && input[s..s + len] == *b {
                // SAFETY: the object is alive (it is in `out`, see the
                // type's docs), and we hold the GIL: take a new reference.
                out.push(unsafe { Bound::from_borrowed_ptr(py, obj) }.unbind());
                return Ok(true);
            }
        }
        let obj = url_str(py, b)?.unbind();
        self.slots[set + 1] = self.slots[set];
        self.slots[set] = (h, start, end - start, obj.as_ptr());
        out.push(obj);
        Ok(false)
    }

    /// URLs judged at a time: looked up in the table, or not.
    const BLOCK: usize = 4096;
    /// While look-ups do not pay, one block in this many is looked up
    /// all the same, to notice when they would again ...
    const PROBE_EVERY: u32 = 16;
    /// ... and one URL in this many of the others.
    const SAMPLE: usize = 8;

    /// The `str` objects of URLs `range` of `batch` through the table,
    /// pushed onto `out`; how many were found in it.
    fn push_all(
        &mut self,
        py: Python<'_>,
        input: &[u8],
        batch: &engine::UrlList,
        range: std::ops::Range<usize>,
        out: &mut Vec<Py<PyAny>>,
    ) -> PyResult<usize> {
        // The hashes first, so that the slot of a URL a few ahead can be
        // loaded while this one is looked up.
        let hashes: Vec<u64> = range
            .clone()
            .map(|i| Self::hash(batch.get(input, i)))
            .collect();
        let mut hits = 0;
        for (k, i) in range.enumerate() {
            if let Some(&ahead) = hashes.get(k + 8) {
                self.prefetch(ahead);
            }
            hits += usize::from(self.push(py, input, batch, i, hashes[k], out)?);
        }
        Ok(hits)
    }

    /// The `str` objects of the URLs of `batch`, pushed onto `out`: through
    /// the table while it pays. URLs go a [`Self::BLOCK`] at a time; after
    /// a block in which fewer than one in 32 were found, the next blocks
    /// skip the table but for one URL in [`Self::SAMPLE`] (text of distinct
    /// URLs then costs little hashing or probing). After
    /// [`Self::PROBE_EVERY`] of those, one block refills the table with
    /// recent URLs and the next is judged again.
    fn convert(
        &mut self,
        py: Python<'_>,
        input: &[u8],
        batch: &engine::UrlList,
        out: &mut Vec<Py<PyAny>>,
    ) -> PyResult<()> {
        let n = batch.spans.len();
        out.reserve(n);
        let mut start = 0;
        while start < n {
            let end = n.min(start + Self::BLOCK);
            match self.mode {
                Mode::Skip(k) => {
                    // One URL in SAMPLE still goes through the table, so
                    // that repeats of these can be found when they come
                    // (a corpus may repeat far apart).
                    let sampled: Vec<u64> = (start..end)
                        .step_by(Self::SAMPLE)
                        .map(|i| Self::hash(batch.get(input, i)))
                        .collect();
                    for (k, i) in (start..end).enumerate() {
                        if k % Self::SAMPLE != 0 {
                            out.push(url_str(py, batch.get(input, i))?.unbind());
                            continue;
                        }
                        let j = k / Self::SAMPLE;
                        if let Some(&ahead) = sampled.get(j + 2) {
                            self.prefetch(ahead);
                        }
                        self.push(py, input, batch, i, sampled[j], out)?;
                    }
                    self.mode = if k + 1 >= Self::PROBE_EVERY {
                        Mode::Refill
                    } else {
                        Mode::Skip(k + 1)
                    };
                }
                Mode::Refill => {
                    self.push_all(py, input, batch, start..end, out)?;
                    self.mode = Mode::Lookup;
                }
                Mode::Lookup => {
                    let hits = self.push_all(py, input, batch, start..end, out)?;
                    if hits * 32 < end - start {
                        self.mode = Mode::Skip(0);
                    }
                }
            }
            start = end;
        }
        Ok(())
    }
}

/// Whether [`StrCache::convert`] looks URLs up.
#[derive(Clone, Copy, Debug)]
enum Mode {
    /// Look the next block up, and judge it.
    Lookup,
    /// Make this many blocks so far without the table.
    Skip(u32),
    /// Look the next block up to fill the table, without judging it.
    Refill,
}

/// The URLs in ``data``, in order: the lines ``urlsift FILE`` prints for
/// the same bytes (``mail=True``: ``urlsift --mail FILE``). Invalid UTF-8 in
/// a URL is kept as lone surrogates (``surrogateescape``).
///
/// ``html``: ``None`` reads ``data`` as an HTML page if its start sniffs as
/// one (as the CLI does), ``True`` always (``--html``), ``False`` never
/// (``--no-html``). A page gives its URL attributes, resolved against its
/// ``<base href>`` or ``base`` (``--base``; with neither, relative links
/// are left out), and every absolute URL elsewhere in it (other
/// attributes, scripts, styles, comments, text). ``links_only=True``
/// (``--links-only``) keeps only the links of URL attributes and the URLs
/// of the text between tags. ``html=True`` with ``mail=True`` raises
/// ``ValueError`` (mail decodes its HTML parts itself).
///
/// ``threads``: at most this many threads (default: one per core, or
/// ``RAYON_NUM_THREADS``); 1 scans on the calling thread (a helper thread
/// makes the ``str`` objects meanwhile). The result is the same for every
/// value. Mail problems are issued as :class:`MailWarning`.
///
/// gzip and zstd bytes are decoded, and a web archive (WARC, ARC, WAT,
/// WET) is read record by record, as the CLI reads such a file; a record
/// that cannot be read whole is issued as an :class:`InputWarning`.
#[pyfunction]
#[pyo3(signature = (data, *, mail = false, html = None, base = None, links_only = false, threads = None))]
fn urls<'py>(
    py: Python<'py>,
    data: &Bound<'py, PyAny>,
    mail: bool,
    html: Option<bool>,
    base: Option<String>,
    links_only: bool,
    threads: Option<usize>,
) -> PyResult<Bound<'py, PyList>> {
    let inp = input(data)?;
    let t = self::threads(threads)?;
    let opts = read_options(mail, html, base, links_only)?;
    let bytes = inp.bytes();
    // The scan runs without the GIL (on this thread, or in the pool); a
    // helper thread takes the GIL for each batch it has and turns it into
    // `str` objects while the next batch is scanned, as the CLI's writer
    // thread writes while its worker scans.
    let (tx, rx) = sync_channel::<engine::UrlList>(8);
    let (scanned, converted) = py.detach(|| {
        std::thread::scope(|s| {
            let conv = s.spawn(move || -> PyResult<Vec<Py<PyAny>>> {
                let mut out = Vec::new();
                // (A Mutex only to make the receiver Sync for `detach`.)
                let rx = std::sync::Mutex::new(rx);
                let next = || {
                    rx.lock()
                        .map_err(|_| ())
                        .and_then(|r| r.recv().map_err(|_| ()))
                };
                Python::attach(|py| {
                    let mut cache = StrCache::new();
                    // Wait for each batch without the GIL.
                    while let Ok(batch) = py.detach(next) {
                        cache.convert(py, bytes, &batch, &mut out)?;
                    }
                    Ok(out)
                })
            });
            let scanned = engine::urls(bytes, &opts, t, move |b| {
                // A failed send: the helper stopped on an error, reported below.
                let _ = tx.send(b);
            });
            let converted = conv.join().unwrap_or_else(|_| {
                Err(InternalError::new_err("internal error: converter panicked"))
            });
            (scanned, converted)
        })
    });
    let notes = scanned.map_err(|e| py_err(py, e))?;
    let strs = converted?;
    warn_notes(py, &notes)?;
    PyList::new(py, strs)
}

/// One URL found by :func:`find`: the fields of ``urlsift --format json
/// --normalize``, under the same names (without ``file``).
#[pyclass(frozen, get_all, module = "urlsift")]
pub(crate) struct Match {
    start: usize,
    end: usize,
    line: u64,
    url: String,
    normalized: Option<String>,
    style: &'static str,
    kind: &'static str,
    valid: bool,
    ambiguous: bool,
    scheme: Option<String>,
    userinfo: Option<String>,
    host: Option<String>,
    host_kind: Option<&'static str>,
    port: Option<String>,
    path: String,
    query: Option<String>,
    fragment: Option<String>,
    host_ascii: Option<String>,
    domain: Option<String>,
    message: Option<u64>,
    message_id: Option<String>,
    message_offset: Option<u64>,
    part: Option<u32>,
    content_type: Option<String>,
    part_offset: Option<u64>,
    part_start: Option<u64>,
    part_line: Option<u64>,
    found: Option<String>,
    source: Option<&'static str>,
    source_name: Option<String>,
    warc_target_uri: Option<String>,
    warc_record_id: Option<String>,
    warc_date: Option<String>,
    warc_type: Option<String>,
    warc_offset: Option<u64>,
    warc_length: Option<u64>,
    http_status: Option<u16>,
    rel: Option<String>,
}

/// The fields of `to_dict`, in the CLI's JSON order, from the one list of
/// fields: every record's (less `file`) with `normalized`, then the mail or
/// the web fields.
fn dict_fields(group: Group) -> impl Iterator<Item = &'static str> {
    let groups: &'static [Group] = match group {
        Group::Mail => &[Group::Mail],
        Group::Web => &[Group::Web],
        _ => &[Group::Record, Group::Normalized],
    };
    fields::names(groups).filter(|&n| n != "file")
}

impl From<engine::Record> for Match {
    fn from(r: engine::Record) -> Self {
        let m = r.mail;
        let w = r.web;
        Match {
            start: r.start,
            end: r.end,
            line: r.line,
            url: r.url,
            normalized: r.normalized,
            style: r.style,
            kind: r.kind,
            valid: r.valid,
            ambiguous: r.ambiguous,
            scheme: r.scheme,
            userinfo: r.userinfo,
            host: r.host,
            host_kind: r.host_kind,
            port: r.port,
            path: r.path,
            query: r.query,
            fragment: r.fragment,
            host_ascii: r.host_ascii,
            domain: r.domain,
            message: m.as_ref().map(|m| m.message),
            message_id: m.as_ref().and_then(|m| m.message_id.clone()),
            message_offset: m.as_ref().map(|m| m.message_offset),
            part: m.as_ref().map(|m| m.part),
            content_type: m.as_ref().map(|m| m.content_type.clone()),
            part_offset: m.as_ref().map(|m| m.part_offset),
            part_start: m.as_ref().map(|m| m.part_start),
            part_line: m.as_ref().map(|m| m.part_line),
            found: w.as_ref().and_then(|w| w.found.clone()),
            source: w.as_ref().map(|w| w.source),
            source_name: w.as_ref().and_then(|w| w.source_name.clone()),
            warc_target_uri: w.as_ref().and_then(|w| w.warc_target_uri.clone()),
            warc_record_id: w.as_ref().and_then(|w| w.warc_record_id.clone()),
            warc_date: w.as_ref().and_then(|w| w.warc_date.clone()),
            warc_type: w.as_ref().and_then(|w| w.warc_type.clone()),
            warc_offset: w.as_ref().and_then(|w| w.warc_offset),
            warc_length: w.as_ref().and_then(|w| w.warc_length),
            http_status: w.as_ref().and_then(|w| w.http_status),
            rel: w.as_ref().and_then(|w| w.rel.clone()),
        }
    }
}

#[pymethods]
impl Match {
    /// The fields as the CLI's JSON object (less ``file``; mail fields
    /// only for mail input, web fields only for a link of an HTML page), in
    /// its order.
    fn to_dict<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(slf.py());
        for f in dict_fields(Group::Record) {
            d.set_item(f, slf.getattr(f)?)?;
        }
        if slf.get().message.is_some() {
            for f in dict_fields(Group::Mail) {
                d.set_item(f, slf.getattr(f)?)?;
            }
        } else if slf.get().source.is_some() {
            for f in dict_fields(Group::Web) {
                d.set_item(f, slf.getattr(f)?)?;
            }
        }
        Ok(d)
    }

    fn __repr__(&self) -> String {
        format!(
            "Match(url={:?}, start={}, end={}, line={}, kind={:?}, valid={})",
            self.url,
            self.start,
            self.end,
            self.line,
            self.kind,
            if self.valid { "True" } else { "False" }
        )
    }
}

/// Every URL in ``data`` with its span, line, style and components (and
/// for a link of an HTML page, where it was found); ``mail``, ``html``,
/// ``base``, ``links_only`` as for :func:`urls`.
#[pyfunction]
#[pyo3(signature = (data, *, mail = false, html = None, base = None, links_only = false, threads = None))]
fn find<'py>(
    py: Python<'py>,
    data: &Bound<'py, PyAny>,
    mail: bool,
    html: Option<bool>,
    base: Option<String>,
    links_only: bool,
    threads: Option<usize>,
) -> PyResult<Bound<'py, PyList>> {
    let inp = input(data)?;
    let t = self::threads(threads)?;
    let opts = read_options(mail, html, base, links_only)?;
    let bytes = inp.bytes();
    let (records, notes) = py
        .detach(|| engine::find(bytes, &opts, t))
        .map_err(|e| py_err(py, e))?;
    warn_notes(py, &notes)?;
    PyList::new(py, records.into_iter().map(Match::from))
}

/// A URL argument: `str` (UTF-8) or `bytes` (as they are).
fn url_arg(u: &Bound<'_, PyAny>) -> PyResult<Vec<u8>> {
    input(u).map(|i| i.bytes().to_vec())
}

/// The fields of ``urlsift parse URL``: url, valid, scheme, userinfo, host,
/// host_kind, port, path, query, fragment, host_ascii, domain, error and scheme_error (each
/// ``{"offset": int, "message": str}`` or ``None``). Never raises for a bad
/// URL: ``valid`` and ``error`` say what is wrong.
#[pyfunction]
fn parse<'py>(py: Python<'py>, url: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyDict>> {
    let b = url_arg(url)?;
    let p = engine::parse(&b).map_err(|e| py_err(py, e))?;
    let d = PyDict::new(py);
    d.set_item("url", String::from_utf8_lossy(&b))?;
    d.set_item("valid", p.valid)?;
    d.set_item("scheme", p.scheme)?;
    d.set_item("userinfo", p.userinfo)?;
    d.set_item("host", p.host)?;
    d.set_item("host_kind", p.host_kind)?;
    d.set_item("port", p.port)?;
    d.set_item("path", p.path)?;
    d.set_item("query", p.query)?;
    d.set_item("fragment", p.fragment)?;
    d.set_item("host_ascii", p.host_ascii)?;
    d.set_item("domain", p.domain)?;
    let problem = |e: Option<(usize, String)>| -> PyResult<Option<Bound<'py, PyDict>>> {
        e.map(|(offset, message)| {
            let d = PyDict::new(py);
            d.set_item("offset", offset)?;
            d.set_item("message", message)?;
            Ok(d)
        })
        .transpose()
    };
    d.set_item("error", problem(p.error)?)?;
    d.set_item("scheme_error", problem(p.scheme_error)?)?;
    Ok(d)
}

/// The RFC 3986 section 6 normal form, as ``urlsift normalize``:
/// ``"scheme"`` (6.2.2 and 6.2.3, the default), ``"syntax"``
/// (``--syntax-only``), ``"no-fragment"`` (``--drop-fragment``). Raises
/// :class:`URIError` for an invalid reference.
#[pyfunction]
#[pyo3(signature = (url, level = "scheme", *, drop_fragment = false))]
fn normalize(
    py: Python<'_>,
    url: &Bound<'_, PyAny>,
    level: &str,
    drop_fragment: bool,
) -> PyResult<String> {
    let b = url_arg(url)?;
    engine::normalize(&b, level, drop_fragment).map_err(|e| py_err(py, e))
}

/// The SURT key of ``url`` with the Internet Archive's canonicalization,
/// as the ``surt`` package's ``surt.surt(url)`` computes it (``urlsift
/// normalize --dedup-key surt``). Raises :class:`URIError` where it has
/// none (a port out of range).
#[pyfunction]
fn surt(py: Python<'_>, url: &Bound<'_, PyAny>) -> PyResult<String> {
    let b = url_arg(url)?;
    engine::surt(&b).map_err(|e| py_err(py, e))
}

/// The WHATWG URL Standard serialization (``href``) of ``url`` parsed
/// against ``base`` (``urlsift normalize --dedup-key whatwg``). Raises
/// :class:`URIError` where the URL parser fails.
#[pyfunction]
#[pyo3(signature = (url, base = None))]
fn whatwg(py: Python<'_>, url: &Bound<'_, PyAny>, base: Option<&str>) -> PyResult<String> {
    let b = url_arg(url)?;
    engine::whatwg(&b, base).map_err(|e| py_err(py, e))
}

/// The registrable domain (eTLD+1) of ``host`` (Unicode, punycode or
/// percent-encoded) by the Public Suffix List compiled in, ICANN and
/// private sections; ``None`` for IP addresses, invalid hosts and public
/// suffixes.
#[pyfunction]
fn domain(host: &Bound<'_, PyAny>) -> PyResult<Option<String>> {
    Ok(engine::domain(&url_arg(host)?))
}

/// ``host`` percent-decoded and processed by UTS #46 (punycode), as the
/// ``host_ascii`` field; ``None`` when UTS #46 refuses it.
#[pyfunction]
fn host_ascii(host: &Bound<'_, PyAny>) -> PyResult<Option<String>> {
    Ok(engine::host_ascii(&url_arg(host)?))
}

/// The target of ``ref`` against the absolute URI ``base`` (RFC 3986
/// 5.2), as ``urlsift resolve BASE REF``. Raises :class:`URIError`.
#[pyfunction]
#[pyo3(signature = (base, r#ref))]
fn resolve(py: Python<'_>, base: &Bound<'_, PyAny>, r#ref: &Bound<'_, PyAny>) -> PyResult<String> {
    let b = url_arg(base)?;
    let r = url_arg(r#ref)?;
    engine::resolve(&b, &r).map_err(|e| py_err(py, e))
}

#[pymodule]
fn _urlsift(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(urls, m)?)?;
    m.add_function(wrap_pyfunction!(find, m)?)?;
    m.add_function(wrap_pyfunction!(stream::iter_urls, m)?)?;
    m.add_function(wrap_pyfunction!(stream::iter_find, m)?)?;
    m.add_class::<stream::UrlIter>()?;
    m.add_class::<stream::MatchIter>()?;
    m.add_function(wrap_pyfunction!(parse, m)?)?;
    m.add_function(wrap_pyfunction!(normalize, m)?)?;
    m.add_function(wrap_pyfunction!(resolve, m)?)?;
    m.add_function(wrap_pyfunction!(surt, m)?)?;
    m.add_function(wrap_pyfunction!(whatwg, m)?)?;
    m.add_function(wrap_pyfunction!(domain, m)?)?;
    m.add_function(wrap_pyfunction!(host_ascii, m)?)?;
    m.add("PSL_VERSION", engine::psl_version())?;
    m.add_function(wrap_pyfunction!(arrow::scan_arrow, m)?)?;
    m.add_function(wrap_pyfunction!(files::scan_files, m)?)?;
    m.add_class::<Match>()?;
    m.add_class::<files::FileScan>()?;
    m.add("URIError", m.py().get_type::<URIError>())?;
    m.add("InternalError", m.py().get_type::<InternalError>())?;
    m.add("MailWarning", m.py().get_type::<MailWarning>())?;
    m.add("InputError", m.py().get_type::<InputError>())?;
    m.add("InputWarning", m.py().get_type::<InputWarning>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
