//! De-duplication at scale: 128-bit fingerprints of a URL's key, a streaming
//! first-occurrence filter (`Unique`) and a counter (`Counter`), both in
//! bounded memory with spilling to disk.
//!
//! # Keys
//!
//! A URL's de-duplication key is its text at a [`KeyLevel`]: as found,
//! normalized by RFC 3986 6.2.2 (syntax), 6.2.2 + 6.2.3 (scheme), or that and
//! without the fragment; or the WHATWG URL Standard's serialization, or its
//! SURT form (see `urlsift_keys`). A URL that has no key at a level (not
//! valid enough) keys as found. An abbreviated `www.` URI is taken as
//! `http://` at every level but `raw`.
//!
//! # Fingerprints
//!
//! A key is remembered as its 128-bit XXH3 hash (`fingerprint`), not its
//! text. Two different keys share a fingerprint with probability about
//! `n^2 / 2^129` for `n` distinct keys: 1.5e-19 for ten billion distinct
//! URLs. A collision would merge two URLs (the later one is dropped by
//! `Unique`, counted under the earlier one by `Counter`).
//!
//! # Memory
//!
//! `Unique` keeps one fingerprint per distinct key in a hash set: 16 bytes
//! plus one control byte, at a load factor between 7/16 and 7/8, so 19 to 39
//! bytes per distinct URL (10^7 distinct URLs: 190 to 390 MB; docs/performance.md
//! has the measured figures). `Counter`
//! keeps the fingerprint, the count and the key's text: about 38 to 75 bytes
//! plus the key's length. Past the memory limit both switch to an external
//! sort (`extsort`): sorted runs in a temporary directory, merged in a
//! tree of bounded fan-in (a logarithmic number of passes over the data).
//! The output is the same with or without spilling.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};
use std::io::{self, Read, Seek, Write};
use std::path::PathBuf;

use urlsift_uri::{self as uri, NormalizeOptions};

mod extsort;

use extsort::ExtSorter;
use rayon::slice::ParallelSliceMut;

/// The 128-bit XXH3 fingerprint of a key.
pub(crate) fn fingerprint(key: &[u8]) -> u128 {
    xxhash_rust::xxh3::xxh3_128(key)
}

/// Which form of a URL two URLs must share to count as the same.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum KeyLevel {
    /// The URL exactly as found.
    #[default]
    Raw,
    /// Syntax-based normalization (RFC 3986 6.2.2): case, percent-encoding,
    /// dot segments.
    Syntax,
    /// Syntax- and scheme-based normalization (6.2.2 and 6.2.3): also the
    /// default port and the empty path.
    Scheme,
    /// As `Scheme`, and without the fragment.
    NoFragment,
    /// The WHATWG URL Standard's serialization (what browsers navigate to:
    /// UTS #46 hosts in punycode, backslashes, default ports).
    Whatwg,
    /// SURT with the Internet Archive's default canonicalization (the key
    /// of CDX indexes: `www.` dropped, query arguments sorted, session ids
    /// dropped, no fragment).
    Surt,
}

impl KeyLevel {
    /// The RFC 3986 normalization this level applies (`None` for
    /// [`KeyLevel::Raw`] and the levels that are not RFC 3986 normal forms,
    /// [`KeyLevel::Whatwg`] and [`KeyLevel::Surt`]).
    pub fn normalize_options(self) -> Option<NormalizeOptions> {
        match self {
            KeyLevel::Raw | KeyLevel::Whatwg | KeyLevel::Surt => None,
            KeyLevel::Syntax => Some(NormalizeOptions {
                scheme_based: false,
                drop_fragment: false,
            }),
            KeyLevel::Scheme => Some(NormalizeOptions::default()),
            KeyLevel::NoFragment => Some(NormalizeOptions {
                scheme_based: true,
                drop_fragment: true,
            }),
        }
    }

    /// The level's name on the command line.
    fn name(self) -> &'static str {
        match self {
            KeyLevel::Raw => "raw",
            KeyLevel::Syntax => "syntax",
            KeyLevel::Scheme => "scheme",
            KeyLevel::NoFragment => "no-fragment",
            KeyLevel::Whatwg => "whatwg",
            KeyLevel::Surt => "surt",
        }
    }
}

/// The level's name on the command line.
///
/// ```
/// use urlsift_printer::dedup::KeyLevel;
/// assert_eq!(KeyLevel::NoFragment.to_string(), "no-fragment");
/// ```
impl std::fmt::Display for KeyLevel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The level of a command-line name (`raw`, `syntax`, `scheme`,
/// `no-fragment`, `whatwg`, `surt`); the error is the name not known.
///
/// ```
/// use urlsift_printer::dedup::KeyLevel;
/// assert_eq!("surt".parse::<KeyLevel>(), Ok(KeyLevel::Surt));
/// assert_eq!("SURT".parse::<KeyLevel>(), Err("SURT".to_owned()));
/// ```
impl std::str::FromStr for KeyLevel {
    type Err = String;

    fn from_str(name: &str) -> Result<KeyLevel, String> {
        [
            KeyLevel::Raw,
            KeyLevel::Syntax,
            KeyLevel::Scheme,
            KeyLevel::NoFragment,
            KeyLevel::Whatwg,
            KeyLevel::Surt,
        ]
        .into_iter()
        .find(|l| l.name() == name)
        .ok_or_else(|| name.to_owned())
    }
}

/// The key of `url` at [`KeyLevel::Whatwg`] or [`KeyLevel::Surt`], appended
/// to `out` (an abbreviated `www.` URI is taken as `http://`). `false`, with
/// nothing appended, when the URL has none (a WHATWG parse failure, a port
/// out of range for SURT); `false` too for the other levels.
pub(crate) fn web_key_into(url: &[u8], www: bool, level: KeyLevel, out: &mut Vec<u8>) -> bool {
    if www {
        return with_http_prefix(url, |t| web_key_of(t, level, out));
    }
    web_key_of(url, level, out)
}

thread_local! {
    /// An abbreviated `www.` URI with `http://` before it, the text its
    /// keys are computed from: one buffer per thread, reused.
    static PREFIXED: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// `f` of `http://` followed by `url`, written to this thread's reused
/// buffer (a buffer of its own should `f` itself come here).
fn with_http_prefix<R>(url: &[u8], f: impl FnOnce(&[u8]) -> R) -> R {
    let fill = |t: &mut Vec<u8>| {
        t.clear();
        t.extend_from_slice(b"http://");
        t.extend_from_slice(url);
    };
    PREFIXED.with(|cell| match cell.try_borrow_mut() {
        Ok(mut t) => {
            fill(&mut t);
            f(&t)
        }
        Err(_) => {
            let mut t = Vec::with_capacity(url.len() + 7);
            fill(&mut t);
            f(&t)
        }
    })
}

/// [`web_key_into`] of a URL with its scheme.
fn web_key_of(url: &[u8], level: KeyLevel, out: &mut Vec<u8>) -> bool {
    match level {
        KeyLevel::Whatwg => urlsift_keys::whatwg_into(url, None, out),
        KeyLevel::Surt => urlsift_keys::surt_into(url, out).is_ok(),
        _ => false,
    }
}

/// The key of `url` at `level` (`www`: the URL is an abbreviated `www.` URI,
/// taken as `http://` when normalizing). A URL that cannot be normalized
/// keys as found.
///
/// ```
/// use urlsift_printer::dedup::{KeyLevel, key};
/// let k = |u: &str, l| String::from_utf8(key(u.as_bytes(), false, l).into_owned()).unwrap();
/// assert_eq!(k("HTTP://a.example:80/%7Euser#x", KeyLevel::Raw), "HTTP://a.example:80/%7Euser#x");
/// assert_eq!(k("HTTP://a.example:80/%7Euser#x", KeyLevel::Syntax), "http://a.example:80/~user#x");
/// assert_eq!(k("HTTP://a.example:80/%7Euser#x", KeyLevel::Scheme), "http://a.example/~user#x");
/// assert_eq!(k("HTTP://a.example:80/%7Euser#x", KeyLevel::NoFragment), "http://a.example/~user");
/// assert_eq!(key(b"www.Example.com", true, KeyLevel::Scheme).as_ref(), b"http://www.example.com/");
/// // An HTML attribute's inner spaces are encoded.
/// assert_eq!(k("http://a.example/x y", KeyLevel::Scheme), "http://a.example/x%20y");
/// ```
pub fn key(url: &[u8], www: bool, level: KeyLevel) -> Cow<'_, [u8]> {
    if matches!(level, KeyLevel::Whatwg | KeyLevel::Surt) {
        let mut out = Vec::new();
        return if web_key_into(url, www, level, &mut out) {
            Cow::Owned(out)
        } else {
            Cow::Borrowed(url)
        };
    }
    let Some(opts) = level.normalize_options() else {
        return Cow::Borrowed(url);
    };
    match normal_form(url, www, &opts) {
        Ok(s) => Cow::Owned(s.into_bytes()),
        Err(_) => Cow::Borrowed(url),
    }
}

/// [`key`] without allocating (the buffers grown, an abbreviated `www.`
/// URI's `http://` form written to a buffer per thread, both reused): the
/// key is `url` itself at [`KeyLevel::Raw`] or when `url` cannot be
/// normalized, else its normal form, written to `buf` (cleared first). The
/// bulk paths reuse one `buf` per worker.
///
/// ```
/// use urlsift_printer::dedup::{KeyLevel, key, key_into};
/// let mut buf = Vec::new();
/// for u in [&b"HTTP://a.example:80/%7Euser#x"[..], b"not a url", b"www.A.org"] {
///     for level in [KeyLevel::Raw, KeyLevel::Scheme, KeyLevel::NoFragment, KeyLevel::Surt, KeyLevel::Whatwg] {
///         let www = u.starts_with(b"www.");
///         assert_eq!(key_into(u, www, level, &mut buf), &*key(u, www, level));
///     }
/// }
/// ```
pub fn key_into<'a>(url: &'a [u8], www: bool, level: KeyLevel, buf: &'a mut Vec<u8>) -> &'a [u8] {
    if matches!(level, KeyLevel::Whatwg | KeyLevel::Surt) {
        buf.clear();
        return if web_key_into(url, www, level, buf) {
            buf
        } else {
            url
        };
    }
    let Some(opts) = level.normalize_options() else {
        return url;
    };
    buf.clear();
    let ok = if www {
        with_http_prefix(url, |t| normalize_into(t, &opts, buf))
    } else {
        normalize_into(url, &opts, buf)
    };
    if ok { buf } else { url }
}

/// The normal form of `url` by `opts`, written to `buf` (empty); inner
/// spaces are percent-encoded. `false` where `url` has none.
#[inline]
fn normalize_into(url: &[u8], opts: &NormalizeOptions, buf: &mut Vec<u8>) -> bool {
    uri::normalize_into(url, opts, buf).is_ok()
        || spaces_encoded(url).is_some_and(|e| {
            buf.clear();
            uri::normalize_into(&e, opts, buf).is_ok()
        })
}

/// `url` with each space percent-encoded as `%20`, or `None` where it has
/// none. A URL attribute of HTML keeps its inner spaces as written (the
/// WHATWG attribute rules); its normal forms and keys encode them, as a
/// browser's URL parser does, so that `a b` and `a%20b` are one URL.
fn spaces_encoded(url: &[u8]) -> Option<Vec<u8>> {
    if !url.contains(&b' ') {
        return None;
    }
    let mut out = Vec::with_capacity(url.len() + 8);
    for &b in url {
        if b == b' ' {
            out.extend_from_slice(b"%20");
        } else {
            out.push(b);
        }
    }
    Some(out)
}

/// The normal form of `url` by `opts`; an abbreviated `www.` URI (`www`)
/// is taken as `http://`. Inner spaces (which only an HTML attribute's URL
/// has) are percent-encoded.
///
pub(crate) fn normal_form(
    url: &[u8],
    www: bool,
    opts: &NormalizeOptions,
) -> Result<String, uri::Error> {
    normal_form_as_is(url, www, opts).or_else(|e| match spaces_encoded(url) {
        Some(enc) => normal_form_as_is(&enc, www, opts),
        None => Err(e),
    })
}

fn normal_form_as_is(url: &[u8], www: bool, opts: &NormalizeOptions) -> Result<String, uri::Error> {
    if www {
        let mut t = Vec::with_capacity(url.len() + 7);
        t.extend_from_slice(b"http://");
        t.extend_from_slice(url);
        uri::normalize(&t, opts)
    } else {
        uri::normalize(url, opts)
    }
}

/// A hasher for fingerprints, which are hashes already: it folds the 128
/// bits to 64 instead of hashing them again.
#[derive(Default)]
pub(crate) struct FpHasher(u64);

impl Hasher for FpHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        // Not used for u128 keys; FNV-1a keeps it correct for anything else.
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x100_0000_01b3);
        }
    }
    fn write_u128(&mut self, v: u128) {
        self.0 = (v as u64) ^ ((v >> 64) as u64);
    }
}

type FpBuild = BuildHasherDefault<FpHasher>;

/// Bytes a hash table of `cap` entries of `entry` bytes takes (SwissTable:
/// a power-of-two bucket count at a load of at most 7/8, one control byte per bucket).
fn table_bytes(cap: usize, entry: usize) -> usize {
    if cap == 0 {
        return 0;
    }
    let buckets = if cap < 8 {
        8
    } else {
        (cap.saturating_mul(8) / 7).next_power_of_two()
    };
    buckets.saturating_mul(entry + 1)
}

/// The most bytes the table takes while inserting one more entry: when it
/// must grow, the old and the new table are both allocated for a moment.
fn grown_bytes(len: usize, cap: usize, entry: usize) -> usize {
    if len < cap {
        table_bytes(cap, entry)
    } else {
        table_bytes(cap, entry) + table_bytes((cap * 2).max(4), entry)
    }
}

/// The most bytes a vector of bytes takes while `need` bytes are made to fit
/// (old and new buffer during a reallocation).
fn grown_vec(len_needed: usize, cap: usize) -> usize {
    if len_needed <= cap {
        cap
    } else {
        cap + len_needed.max(cap * 2)
    }
}

/// What a de-duplication run did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Keys offered.
    pub offered: u64,
    /// Distinct keys.
    pub distinct: u64,
    /// Sorted runs written to disk (0: everything fit in memory).
    pub runs: usize,
    /// Bytes written to disk.
    pub spilled_bytes: u64,
    /// The most memory the de-duplication state took (by its own accounting).
    pub peak_bytes: usize,
}

impl std::fmt::Display for Stats {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} URLs, {} distinct; state {:.1} MiB at most; {}",
            self.offered,
            self.distinct,
            self.peak_bytes as f64 / (1 << 20) as f64,
            if self.runs == 0 {
                "nothing spilled".to_string()
            } else {
                format!(
                    "spilled {} runs, {:.1} MiB",
                    self.runs,
                    self.spilled_bytes as f64 / (1 << 20) as f64
                )
            }
        )
    }
}

/// [`Unique::offer`]'s verdict.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Offer {
    /// The first occurrence: print it now.
    New,
    /// Seen before: drop it.
    Duplicate,
    /// Memory is full, so it is not known yet; [`Unique::finish`] prints it
    /// if it turns out to be the first occurrence.
    Deferred,
}

/// A first-occurrence filter over fingerprinted records, in bounded memory.
///
/// While the fingerprints fit (half the limit), every record is decided at
/// once: [`Offer::New`] records are printed by the caller as they come. Past
/// that, the fingerprints seen so far go to disk as one sorted run of
/// "already printed" markers, and every later record is deferred: its
/// fingerprint and sequence number go to an [`ExtSorter`] (duplicates within
/// one run are dropped at once, and across runs as they are merged) and its
/// bytes to a log file, in input order.
/// [`Unique::finish`] merges by fingerprint, keeps each fingerprint's
/// earliest record unless it was printed already, sorts those sequence
/// numbers, and reads the log once, handing back the chosen records in
/// their original order.
/// So the output is that of the in-memory filter, whatever the limit.
pub(crate) struct Unique {
    limit: usize,
    dir: Option<PathBuf>,
    seen: HashSet<u128, FpBuild>,
    /// While every fingerprint fits with room to spare: the fingerprints in
    /// parts by [`part_of`], one per rayon thread, each owned by one task
    /// in [`Unique::offer_batch`]. `seen` is then empty.
    parts: Option<Vec<HashSet<u128, FpBuild>>>,
    spill: Option<Spill>,
    stats: Stats,
}

/// The part of a fingerprint among `n`: the low 64 bits, reduced to `0..n`
/// by a multiply-shift (shards use the high bits).
fn part_of(fp: u128, n: usize) -> usize {
    ((fp as u64 as u128 * n as u128) >> 64) as usize
}

/// The records of a batch, by part: their indices in the batch.
fn buckets(fps: &[u128], n: usize) -> Vec<Vec<u32>> {
    let mut b = vec![Vec::with_capacity(fps.len() / n + 16); n];
    for (i, &fp) in fps.iter().enumerate() {
        b[part_of(fp, n)].push(i as u32);
    }
    b
}

/// Batches smaller than this are offered on the calling thread.
const PAR_MIN: usize = 2048;

/// The number of parts for a filter or counter: the pool's threads (one
/// part, the serial filter, for one thread).
fn part_count() -> usize {
    rayon::current_num_threads().clamp(1, 64)
}

struct Spill {
    /// (fingerprint, sequence number) of every deferred record, with a tag.
    sorter: ExtSorter,
    /// The deferred records' bytes, in input order (`u32` length, bytes).
    log: io::BufWriter<std::fs::File>,
    log_bytes: u64,
    run_seen: HashSet<u128, FpBuild>,
    runs: usize,
    seq: u64,
}

/// A payload tag in the spilled records.
const PRINTED: u8 = 0;
const DEFERRED: u8 = 1;

/// [`Unique`]'s combiner: of the records of one fingerprint (sorted by
/// sequence number, a printed marker first), only the first decides, so the
/// later ones are dropped as runs are written.
fn keep_first_of_fingerprint(prev: &[u8], _: &mut [u8], key: &[u8], _: &[u8]) -> bool {
    prev.get(..16).is_some() && prev.get(..16) == key.get(..16)
}

impl Unique {
    /// A filter keeping about `limit` bytes of state in memory (`usize::MAX`:
    /// no limit, never spill), spilling into `dir` (the system's temporary
    /// directory when `None`).
    pub(crate) fn new(limit: usize, dir: Option<PathBuf>) -> Self {
        Self::with_parts(limit, dir, part_count())
    }

    /// [`Unique::new`] with `n` parts.
    fn with_parts(limit: usize, dir: Option<PathBuf>, n: usize) -> Self {
        Unique {
            limit: limit.max(1024),
            dir,
            seen: HashSet::default(),
            parts: (n > 1).then(|| vec![HashSet::default(); n]),
            spill: None,
            stats: Stats::default(),
        }
    }

    /// Offer a batch of records at once: `out[i]` becomes the offer of
    /// record `i` (fingerprint `fps[i]`, bytes `payload(i)`), the same as
    /// offering them one by one in order. While the fingerprints fit with
    /// room to spare, each part of the filter (by fingerprint, one per
    /// rayon thread) decides its own records, in parallel; near the memory
    /// limit the parts become one filter again and records are offered one
    /// by one, spilling as [`Unique::offer`] does.
    pub(crate) fn offer_batch<'p>(
        &mut self,
        fps: &[u128],
        payload: impl Fn(usize) -> &'p [u8],
        out: &mut Vec<Offer>,
    ) -> io::Result<()> {
        out.clear();
        let Some(parts) = self.parts.as_mut() else {
            for (i, &fp) in fps.iter().enumerate() {
                out.push(self.offer(fp, payload(i))?);
            }
            return Ok(());
        };
        let n = parts.len();
        let buckets = buckets(fps, n);
        // Room for every record of the batch in its part, the table's
        // growth (old and new table at once) included.
        let budget = self.limit / 2 / n;
        let fits = parts
            .iter()
            .zip(&buckets)
            .all(|(set, b)| 2 * table_bytes(set.len() + b.len(), 16) <= budget);
        if !fits {
            self.unpartition();
            return self.offer_batch(fps, payload, out);
        }
        let decide = |(set, b): (&mut HashSet<u128, FpBuild>, &Vec<u32>)| -> Vec<bool> {
            b.iter().map(|&i| set.insert(fps[i as usize])).collect()
        };
        let decided: Vec<Vec<bool>> = if fps.len() < PAR_MIN {
            parts.iter_mut().zip(&buckets).map(decide).collect()
        } else {
            use rayon::prelude::*;
            parts.par_iter_mut().zip(&buckets).map(decide).collect()
        };
        out.resize(fps.len(), Offer::Duplicate);
        let mut new = 0;
        for (b, d) in buckets.iter().zip(decided) {
            for (&i, is_new) in b.iter().zip(d) {
                if is_new {
                    out[i as usize] = Offer::New;
                    new += 1;
                }
            }
        }
        self.stats.offered += fps.len() as u64;
        self.stats.distinct += new;
        let bytes: usize = parts.iter().map(|s| table_bytes(s.capacity(), 16)).sum();
        self.stats.peak_bytes = self.stats.peak_bytes.max(bytes);
        Ok(())
    }

    /// The parts become one filter (near the memory limit, and before
    /// spilling).
    fn unpartition(&mut self) {
        if let Some(parts) = self.parts.take() {
            for p in parts {
                self.seen.extend(p);
            }
        }
    }

    /// Offer one record: its key's fingerprint and the bytes to print.
    pub(crate) fn offer(&mut self, fp: u128, payload: &[u8]) -> io::Result<Offer> {
        self.unpartition();
        self.stats.offered += 1;
        if self.spill.is_none() {
            if self.seen.contains(&fp) {
                return Ok(Offer::Duplicate);
            }
            let grown = grown_bytes(self.seen.len(), self.seen.capacity(), 16);
            if grown <= self.limit / 2 {
                self.seen.insert(fp);
                self.stats.peak_bytes = self.stats.peak_bytes.max(grown);
                self.stats.distinct += 1;
                return Ok(Offer::New);
            }
            self.start_spilling()?;
        }
        let Some(sp) = self.spill.as_mut() else {
            unreachable!("spilling started above")
        };
        if !sp.run_seen.insert(fp) {
            return Ok(Offer::Duplicate);
        }
        sp.seq += 1;
        let mut key = [0u8; 24];
        key[..16].copy_from_slice(&fp.to_be_bytes());
        key[16..].copy_from_slice(&sp.seq.to_be_bytes());
        sp.sorter.push(&key, &[DEFERRED])?;
        let len = u32::try_from(payload.len())
            .map_err(|_| io::Error::other("record too long to de-duplicate"))?;
        sp.log.write_all(&len.to_le_bytes())?;
        sp.log.write_all(payload)?;
        sp.log_bytes += 4 + payload.len() as u64;
        if sp.sorter.runs() != sp.runs {
            // A run went to disk: what it holds is decided at the merge.
            sp.runs = sp.sorter.runs();
            sp.run_seen.clear();
            sp.run_seen.insert(fp);
        }
        let bytes = sp.sorter.bytes() + table_bytes(sp.run_seen.capacity(), 16);
        self.stats.peak_bytes = self.stats.peak_bytes.max(bytes);
        Ok(Offer::Deferred)
    }

    fn start_spilling(&mut self) -> io::Result<()> {
        let mut sorter = ExtSorter::new(self.limit / 2, self.dir.clone())
            .with_combine(keep_first_of_fingerprint);
        for fp in self.seen.drain() {
            let mut key = [0u8; 24];
            key[..16].copy_from_slice(&fp.to_be_bytes());
            sorter.push(&key, &[PRINTED])?;
        }
        sorter.spill()?;
        self.seen = HashSet::default();
        let log = match &self.dir {
            Some(d) => tempfile::tempfile_in(d),
            None => tempfile::tempfile(),
        }?;
        self.spill = Some(Spill {
            runs: sorter.runs(),
            sorter,
            log: io::BufWriter::with_capacity(256 << 10, log),
            log_bytes: 0,
            run_seen: HashSet::default(),
            seq: 0,
        });
        Ok(())
    }

    /// Hand the deferred first occurrences to `out`, in input order, and
    /// say what the filter did.
    pub(crate) fn finish(self, mut out: impl FnMut(&[u8]) -> io::Result<()>) -> io::Result<Stats> {
        let mut stats = self.stats;
        let Some(sp) = self.spill else {
            return Ok(stats);
        };
        let Spill {
            mut sorter,
            log,
            log_bytes,
            run_seen,
            ..
        } = sp;
        drop(run_seen);
        // It has spilled: the records in memory go to disk too, counted.
        sorter.spill()?;
        stats.runs = sorter.runs();
        // The first occurrences among the deferred records, by fingerprint;
        // then their sequence numbers in order.
        let mut firsts = ExtSorter::new(self.limit, self.dir.clone());
        let mut last: Option<[u8; 16]> = None;
        let sorted_bytes = sorter.merge(|key, rec| {
            let fp: [u8; 16] = key[..16].try_into().unwrap_or_default();
            if last == Some(fp) {
                return Ok(()); // a later occurrence
            }
            last = Some(fp);
            if rec.first() == Some(&DEFERRED) {
                stats.distinct += 1;
                firsts.push(&key[16..], &[])?;
            }
            Ok(())
        })?;
        stats.spilled_bytes = sorted_bytes + log_bytes;
        if firsts.runs() > 0 {
            firsts.spill()?;
        }
        stats.runs += firsts.runs();
        // Read the log once, in input order, printing the records whose
        // sequence numbers came out.
        let mut log = log.into_inner().map_err(|e| e.into_error())?;
        log.seek(io::SeekFrom::Start(0))?;
        let mut log = io::BufReader::with_capacity(256 << 10, log);
        let (mut seq, mut buf) = (0u64, Vec::new());
        stats.spilled_bytes += firsts.merge(|key, _| {
            let want = u64::from_be_bytes(key.try_into().unwrap_or_default());
            loop {
                let mut len = [0u8; 4];
                log.read_exact(&mut len)?;
                buf.resize(u32::from_le_bytes(len) as usize, 0);
                log.read_exact(&mut buf)?;
                seq += 1;
                if seq == want {
                    return out(&buf);
                }
            }
        })?;
        Ok(stats)
    }
}

/// Counts per distinct key, in bounded memory.
///
/// In memory: a table from fingerprint to count and the key's first text.
/// Past the limit the table goes to disk as one run sorted by fingerprint
/// and starts again empty (runs merged before the end add up their counts
/// too); [`Counter::finish`] merges the runs, adds up the
/// counts of each fingerprint, and sorts the result by count (most frequent
/// first) and then key, on disk again if it does not fit.
pub(crate) struct Counter {
    limit: usize,
    dir: Option<PathBuf>,
    map: HashMap<u128, (u64, u32, u32), FpBuild>,
    arena: Vec<u8>,
    /// While the table fits with room to spare: the table in parts by
    /// [`part_of`], one per rayon thread, each owned by one task in
    /// [`Counter::add_batch`]. `map` and `arena` are then empty.
    parts: Option<Vec<CountPart>>,
    sorter: Option<ExtSorter>,
    stats: Stats,
}

/// One part of a [`Counter`]'s table.
#[derive(Clone, Default)]
struct CountPart {
    map: HashMap<u128, (u64, u32, u32), FpBuild>,
    arena: Vec<u8>,
}

impl CountPart {
    /// Count the records `b` of a batch; the number of new keys.
    fn add<'k>(&mut self, b: &[u32], fps: &[u128], key: &impl Fn(usize) -> &'k [u8]) {
        for &i in b {
            let i = i as usize;
            if let Some(e) = self.map.get_mut(&fps[i]) {
                e.0 += 1;
                continue;
            }
            let k = key(i);
            let off = self.arena.len() as u32;
            self.arena.extend_from_slice(k);
            self.map.insert(fps[i], (1, off, k.len() as u32));
        }
    }

    /// The most bytes the part may take while adding `more` records of
    /// `key_bytes` key bytes (old and new table and arena at once).
    fn room_needed(&self, more: usize, key_bytes: usize) -> usize {
        2 * table_bytes(self.map.len() + more, COUNT_ENTRY)
            + grown_vec(self.arena.len() + key_bytes, self.arena.capacity())
    }

    fn bytes(&self) -> usize {
        table_bytes(self.map.capacity(), COUNT_ENTRY) + self.arena.capacity()
    }
}

/// Bytes per table entry: fingerprint, count, key offset and length.
const COUNT_ENTRY: usize = 32;

/// [`Counter`]'s combiner: records of one fingerprint become one, with the
/// counts added up and the earlier record's key text.
fn add_counts(prev: &[u8], prev_rec: &mut [u8], key: &[u8], rec: &[u8]) -> bool {
    let (Some(a), Some(b)) = (prev_rec.get(..8), rec.get(..8)) else {
        return false;
    };
    if prev != key {
        return false;
    }
    let sum = u64::from_le_bytes(a.try_into().unwrap_or_default())
        + u64::from_le_bytes(b.try_into().unwrap_or_default());
    prev_rec[..8].copy_from_slice(&sum.to_le_bytes());
    true
}

impl Counter {
    /// A counter keeping about `limit` bytes in memory (`usize::MAX`: no
    /// limit), spilling into `dir` (the system's temporary directory when `None`).
    pub(crate) fn new(limit: usize, dir: Option<PathBuf>) -> Self {
        Self::with_parts(limit, dir, part_count())
    }

    /// [`Counter::new`] with `n` parts.
    fn with_parts(limit: usize, dir: Option<PathBuf>, n: usize) -> Self {
        Counter {
            limit: limit.max(1024),
            dir,
            map: HashMap::default(),
            arena: Vec::new(),
            parts: (n > 1).then(|| vec![CountPart::default(); n]),
            sorter: None,
            stats: Stats::default(),
        }
    }

    /// Count a batch of keys at once (fingerprint `fps[i]`, text `key(i)`),
    /// the same as [`Counter::add`] on each in order. While the table fits
    /// with room to spare, each part of it (by fingerprint, one per rayon
    /// thread) counts its own keys, in parallel; near the memory limit the
    /// parts become one table again and keys are added one by one,
    /// spilling as `add` does.
    pub(crate) fn add_batch<'k>(
        &mut self,
        fps: &[u128],
        key: impl Fn(usize) -> &'k [u8] + Sync,
    ) -> io::Result<()> {
        let Some(parts) = self.parts.as_mut() else {
            for (i, &fp) in fps.iter().enumerate() {
                self.add(fp, key(i))?;
            }
            return Ok(());
        };
        let n = parts.len();
        let buckets = buckets(fps, n);
        let budget = self.limit / 2 / n;
        let fits = parts.iter().zip(&buckets).all(|(p, b)| {
            let key_bytes: usize = b.iter().map(|&i| key(i as usize).len()).sum();
            p.room_needed(b.len(), key_bytes) <= budget
                && p.arena.len() + key_bytes <= u32::MAX as usize
        });
        if !fits {
            self.unpartition()?;
            return self.add_batch(fps, key);
        }
        let count = |(p, b): (&mut CountPart, &Vec<u32>)| p.add(b, fps, &key);
        if fps.len() < PAR_MIN {
            parts.iter_mut().zip(&buckets).for_each(count);
        } else {
            use rayon::prelude::*;
            parts.par_iter_mut().zip(&buckets).for_each(count);
        }
        self.stats.offered += fps.len() as u64;
        let bytes: usize = parts.iter().map(CountPart::bytes).sum();
        self.stats.peak_bytes = self.stats.peak_bytes.max(bytes);
        Ok(())
    }

    /// The parts become one table (near the memory limit, and at the end).
    fn unpartition(&mut self) -> io::Result<()> {
        let Some(parts) = self.parts.take() else {
            return Ok(());
        };
        let offered = self.stats.offered;
        for p in parts {
            for (fp, (count, off, len)) in p.map {
                self.add_n(fp, &p.arena[off as usize..(off + len) as usize], count)?;
            }
        }
        self.stats.offered = offered;
        Ok(())
    }

    /// Count one occurrence of `key` (with its fingerprint `fp`).
    pub(crate) fn add(&mut self, fp: u128, key: &[u8]) -> io::Result<()> {
        self.unpartition()?;
        self.add_n(fp, key, 1)
    }

    /// Count `n` occurrences of `key`.
    fn add_n(&mut self, fp: u128, key: &[u8], n: u64) -> io::Result<()> {
        self.stats.offered += n;
        if let Some(e) = self.map.get_mut(&fp) {
            e.0 += n;
            return Ok(());
        }
        let table = grown_bytes(self.map.len(), self.map.capacity(), COUNT_ENTRY);
        let need = self.arena.len() + key.len();
        let arena = grown_vec(need, self.arena.capacity());
        if !self.map.is_empty() && (table + arena > self.limit / 2 || need > u32::MAX as usize) {
            self.spill()?;
        }
        let table = grown_bytes(self.map.len(), self.map.capacity(), COUNT_ENTRY);
        let arena = grown_vec(self.arena.len() + key.len(), self.arena.capacity());
        self.stats.peak_bytes = self.stats.peak_bytes.max(table + arena);
        let off = self.arena.len() as u32;
        self.arena.extend_from_slice(key);
        self.map.insert(fp, (n, off, key.len() as u32));
        Ok(())
    }

    /// Move the table to disk as one run sorted by fingerprint.
    fn spill(&mut self) -> io::Result<()> {
        let sorter = self.sorter.get_or_insert_with(|| {
            ExtSorter::new(self.limit / 2, self.dir.clone()).with_combine(add_counts)
        });
        let mut rec = Vec::new();
        for (fp, &(count, off, len)) in &self.map {
            rec.clear();
            rec.extend_from_slice(&count.to_le_bytes());
            rec.extend_from_slice(&self.arena[off as usize..(off + len) as usize]);
            sorter.push(&fp.to_be_bytes(), &rec)?;
        }
        sorter.spill()?;
        self.map.clear();
        self.arena.clear();
        Ok(())
    }

    /// Hand `(count, key)` to `out`, most frequent first, ties by key
    /// (bytewise), and say what the counter did.
    pub(crate) fn finish(
        mut self,
        mut out: impl FnMut(u64, &[u8]) -> io::Result<()>,
    ) -> io::Result<Stats> {
        let mut stats = self.stats;
        if self.sorter.is_none() {
            return self.finish_in_memory(stats, &mut out);
        }
        self.unpartition()?;
        self.spill()?;
        self.map = HashMap::default();
        self.arena = Vec::new();
        let Some(sorter) = self.sorter.take() else {
            unreachable!("spilled above")
        };
        stats.runs = sorter.runs();
        // Merge by fingerprint, adding up counts; sort by (count desc, key).
        let mut by_count = ExtSorter::new(self.limit, self.dir.clone());
        let mut cur: Option<([u8; 16], u64, Vec<u8>)> = None;
        let emit = |c: u64, k: &[u8], s: &mut ExtSorter| {
            let mut key = Vec::with_capacity(8 + k.len());
            key.extend_from_slice(&(!c).to_be_bytes());
            key.extend_from_slice(k);
            s.push(&key, &[])
        };
        stats.spilled_bytes = sorter.merge(|fp, rec| {
            let fp: [u8; 16] = fp.try_into().unwrap_or_default();
            let count = u64::from_le_bytes(rec[..8].try_into().unwrap_or_default());
            match &mut cur {
                Some((f, c, _)) if *f == fp => *c += count,
                _ => {
                    if let Some((_, c, k)) = cur.take() {
                        emit(c, &k, &mut by_count)?;
                    }
                    cur = Some((fp, count, rec[8..].to_vec()));
                }
            }
            Ok(())
        })?;
        if let Some((_, c, k)) = cur.take() {
            emit(c, &k, &mut by_count)?;
        }
        if by_count.runs() > 0 {
            by_count.spill()?;
        }
        stats.runs += by_count.runs();
        stats.spilled_bytes += by_count.merge(|key, _| {
            stats.distinct += 1;
            let c = !u64::from_be_bytes(key[..8].try_into().unwrap_or_default());
            out(c, &key[8..])
        })?;
        Ok(stats)
    }

    /// [`Self::finish`] of a counter that never spilled: its rows (of the
    /// table, or of each of its parts) sorted in memory.
    fn finish_in_memory(
        mut self,
        mut stats: Stats,
        out: &mut impl FnMut(u64, &[u8]) -> io::Result<()>,
    ) -> io::Result<Stats> {
        // In memory: the rows of the table, or of each of its parts.
        let parts = self.parts.take().unwrap_or_default();
        let tables = std::iter::once((&self.map, &self.arena))
            .chain(parts.iter().map(|p| (&p.map, &p.arena)));
        // Each row with one number to sort by: the count, descending, and
        // the key's first 8 bytes as a big-endian number (zero-padded).
        // Most rows are told apart by that number alone; rows that tie on
        // it are then ordered by their keys.
        let mut rows: Vec<(u128, &[u8])> = tables
            .flat_map(|(map, arena)| {
                map.values().map(|&(c, off, len)| {
                    let k = &arena[off as usize..(off + len) as usize];
                    (sort_number(c, k), k)
                })
            })
            .collect();
        // Keys are distinct, so the order is total: the same for any
        // number of threads and any sort.
        if rows.len() < 1 << 17 || rayon::current_num_threads() == 1 {
            rows.sort_unstable_by_key(|r| r.0);
        } else {
            rows.par_sort_unstable_by_key(|r| r.0);
        }
        let mut i = 0;
        while i < rows.len() {
            let n = rows[i..].iter().take_while(|r| r.0 == rows[i].0).count();
            if n > 1 {
                rows[i..i + n].sort_unstable_by(|a, b| a.1.cmp(b.1));
            }
            i += n;
        }
        stats.distinct = rows.len() as u64;
        for (n, k) in rows {
            out(u64::MAX - (n >> 64) as u64, k)?;
        }
        Ok(stats)
    }
}

/// The number a row of count `c` and key `k` sorts by: `c` descending,
/// then [`key_prefix`] ascending (rows whose numbers differ are in the
/// order of the rows).
fn sort_number(c: u64, k: &[u8]) -> u128 {
    (u128::from(u64::MAX - c) << 64) | u128::from(key_prefix(k))
}

/// The first 8 bytes of `k` as a big-endian number, zero-padded: keys
/// whose numbers differ are in the order of those numbers.
fn key_prefix(k: &[u8]) -> u64 {
    let mut b = [0u8; 8];
    let n = k.len().min(8);
    b[..n].copy_from_slice(&k[..n]);
    u64::from_be_bytes(b)
}

#[cfg(test)]
mod tests {
    /// Rows in count order, then by key, also where keys share their
    /// first 8 bytes or are shorter than 8.
    #[test]
    fn count_rows_tied_on_the_prefix_are_ordered_by_key() {
        let keys: [&[u8]; 9] = [
            b"abcdefgh2",
            b"abcdefgh10",
            b"abcdefgh",
            b"abcdefgh1",
            b"ab",
            b"ab\0",
            b"abcdefgh1",
            b"zz",
            b"zz",
        ];
        let mut c = super::Counter::new(usize::MAX, None);
        for k in keys {
            c.add(super::fingerprint(k), k).unwrap();
        }
        let mut rows = Vec::new();
        c.finish(|n, k| {
            rows.push((n, k.to_vec()));
            Ok(())
        })
        .unwrap();
        let want: Vec<(u64, &[u8])> = vec![
            (2, b"abcdefgh1"),
            (2, b"zz"),
            (1, b"ab"),
            (1, b"ab\0"),
            (1, b"abcdefgh"),
            (1, b"abcdefgh10"),
            (1, b"abcdefgh2"),
        ];
        let want: Vec<(u64, Vec<u8>)> = want.into_iter().map(|(n, k)| (n, k.to_vec())).collect();
        assert_eq!(rows, want);
    }

    proptest::proptest! {
        #[test]
        fn sort_numbers_order_as_the_rows(
            ca in 0u64..4,
            cb in 0u64..4,
            a in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..12),
            b in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..12),
        ) {
            // Count descending, then key ascending.
            let want = cb.cmp(&ca).then(a.cmp(&b));
            let (na, nb) = (super::sort_number(ca, &a), super::sort_number(cb, &b));
            if na != nb {
                proptest::prop_assert_eq!(na.cmp(&nb), want);
            }
        }

        #[test]
        fn key_prefixes_order_as_the_keys(
            a in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..12),
            b in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..12),
        ) {
            let (pa, pb) = (super::key_prefix(&a), super::key_prefix(&b));
            if pa != pb {
                proptest::prop_assert_eq!(pa.cmp(&pb), a.cmp(&b));
            }
        }
    }

    use super::*;

    /// A reproducible stream of keys with many repeats.
    fn keys(n: usize, distinct: u64) -> Vec<Vec<u8>> {
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        (0..n)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                format!("http://h{}.example/p/{}", x % 7, x % distinct).into_bytes()
            })
            .collect()
    }

    fn unique(limit: usize, keys: &[Vec<u8>]) -> (Vec<Vec<u8>>, Stats) {
        let mut u = Unique::new(limit, None);
        let mut out = Vec::new();
        for k in keys {
            if u.offer(fingerprint(k), k).unwrap() == Offer::New {
                out.push(k.clone());
            }
        }
        let stats = u
            .finish(|p| {
                out.push(p.to_vec());
                Ok(())
            })
            .unwrap();
        (out, stats)
    }

    /// Offer `keys` in batches of `batch` to a filter of `parts` parts.
    fn unique_batched(limit: usize, parts: usize, batch: usize, keys: &[Vec<u8>]) -> Vec<Vec<u8>> {
        let mut u = Unique::with_parts(limit, None, parts);
        let mut out = Vec::new();
        let mut offers = Vec::new();
        for b in keys.chunks(batch) {
            let fps: Vec<u128> = b.iter().map(|k| fingerprint(k)).collect();
            u.offer_batch(&fps, |i| &b[i], &mut offers).unwrap();
            for (k, o) in b.iter().zip(&offers) {
                if *o == Offer::New {
                    out.push(k.clone());
                }
            }
        }
        u.finish(|p| {
            out.push(p.to_vec());
            Ok(())
        })
        .unwrap();
        out
    }

    #[test]
    fn unique_in_parts_equals_one_by_one() {
        // Parts in parallel (batches past PAR_MIN) and on the caller, with
        // limits that keep them, end them midway (then spilling), or never
        // allow them.
        let ks = keys(24_000, 8_000);
        let (expect, _) = unique(usize::MAX, &ks);
        for limit in [usize::MAX, 600 << 10, 200 << 10, 32 << 10] {
            let (one, _) = unique(limit, &ks);
            assert_eq!(one, expect, "limit {limit}: one by one");
            for parts in [1, 3, 8] {
                for batch in [1, 3000] {
                    let got = unique_batched(limit, parts, batch, &ks);
                    assert!(got == expect, "limit {limit} parts {parts} batch {batch}");
                }
            }
        }
    }

    #[test]
    fn counts_in_parts_equal_one_by_one() {
        let ks = keys(24_000, 8_000);
        let rows = |c: Counter| {
            let mut v = Vec::new();
            c.finish(|n, k| {
                v.push((n, k.to_vec()));
                Ok(())
            })
            .map(|_| v)
            .unwrap()
        };
        let mut one = Counter::with_parts(usize::MAX, None, 1);
        for k in &ks {
            one.add(fingerprint(k), k).unwrap();
        }
        let expect = rows(one);
        assert_eq!(expect.iter().map(|r| r.0).sum::<u64>(), ks.len() as u64);
        for limit in [usize::MAX, 600 << 10, 100 << 10] {
            for parts in [3, 8] {
                for batch in [1, 3000] {
                    let mut c = Counter::with_parts(limit, None, parts);
                    for b in ks.chunks(batch) {
                        let fps: Vec<u128> = b.iter().map(|k| fingerprint(k)).collect();
                        c.add_batch(&fps, |i| &b[i]).unwrap();
                    }
                    assert!(
                        rows(c) == expect,
                        "limit {limit} parts {parts} batch {batch}"
                    );
                }
            }
        }
    }

    #[test]
    fn unique_spilled_equals_in_memory() {
        let ks = keys(40_000, 9_000);
        let (mem, s0) = unique(usize::MAX, &ks);
        assert_eq!(s0.runs, 0);
        let mut expect = Vec::new();
        let mut seen = HashSet::new();
        for k in &ks {
            if seen.insert(k.clone()) {
                expect.push(k.clone());
            }
        }
        assert_eq!(mem, expect);
        assert_eq!(s0.distinct as usize, expect.len());
        for limit in [16 << 10, 64 << 10, 300 << 10] {
            let (disk, s) = unique(limit, &ks);
            assert!(s.runs > 1, "limit {limit}: {s:?}");
            assert_eq!(disk, expect, "limit {limit}");
            assert_eq!(s.distinct as usize, expect.len());
            assert!(s.peak_bytes <= limit.max(1024) * 2, "{s:?}");
        }
    }

    fn counts(limit: usize, keys: &[Vec<u8>]) -> (Vec<(u64, Vec<u8>)>, Stats) {
        let mut c = Counter::new(limit, None);
        for k in keys {
            c.add(fingerprint(k), k).unwrap();
        }
        let mut out = Vec::new();
        let stats = c
            .finish(|n, k| {
                out.push((n, k.to_vec()));
                Ok(())
            })
            .unwrap();
        (out, stats)
    }

    #[test]
    fn counter_spilled_equals_in_memory() {
        let ks = keys(30_000, 5_000);
        let (mem, s0) = counts(usize::MAX, &ks);
        assert_eq!(s0.runs, 0);
        let mut expect: HashMap<Vec<u8>, u64> = HashMap::new();
        for k in &ks {
            *expect.entry(k.clone()).or_default() += 1;
        }
        let mut expect: Vec<(u64, Vec<u8>)> = expect.into_iter().map(|(k, c)| (c, k)).collect();
        expect.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
        assert_eq!(mem, expect);
        for limit in [16 << 10, 100 << 10] {
            let (disk, s) = counts(limit, &ks);
            assert!(s.runs > 1, "limit {limit}: {s:?}");
            assert_eq!(disk, expect, "limit {limit}");
        }
    }

    #[test]
    fn spilled_bytes_grow_as_n_log_n() {
        // Distinct keys only: every one is spilled and merged.
        let distinct = |n: usize| -> Vec<Vec<u8>> {
            (0..n)
                .map(|i| format!("http://h{}.example/p/{i}", i % 97).into_bytes())
                .collect()
        };
        let (one, four) = (distinct(10_000), distinct(40_000));
        let limit = 16 << 10;
        let (c1, c4) = (counts(limit, &one).1, counts(limit, &four).1);
        assert!(c1.runs > 50, "{c1:?}");
        assert!(
            c4.spilled_bytes <= 6 * c1.spilled_bytes,
            "count: 4x {c4:?}, 1x {c1:?}"
        );
        let (u1, u4) = (unique(limit, &one).1, unique(limit, &four).1);
        assert!(u1.runs > 50, "{u1:?}");
        assert!(
            u4.spilled_bytes <= 6 * u1.spilled_bytes,
            "unique: 4x {u4:?}, 1x {u1:?}"
        );
    }

    #[test]
    fn rfc3986_equivalents_share_a_key_and_others_do_not() {
        // RFC 3986 6.2.2 / 6.2.3 examples.
        let k = |u: &str, l| key(u.as_bytes(), false, l).into_owned();
        for u in [
            "http://example.com",
            "http://example.com/",
            "http://example.com:/",
            "http://example.com:80/",
        ] {
            assert_eq!(k(u, KeyLevel::Scheme), b"http://example.com/", "{u}");
        }
        assert_eq!(
            k("example://a/b/c/%7Bfoo%7D", KeyLevel::Syntax),
            k("eXAMPLE://a/./b/../b/%63/%7bfoo%7d", KeyLevel::Syntax)
        );
        assert_eq!(
            k("HTTP://www.Example.com/", KeyLevel::Syntax),
            b"http://www.example.com/"
        );
        // 6.2.3 is not applied at the syntax level.
        assert_ne!(
            k("http://example.com", KeyLevel::Syntax),
            k("http://example.com:80/", KeyLevel::Syntax)
        );
        // Different URLs stay apart.
        for (a, b) in [
            ("http://example.com/a", "http://example.com/A"),
            ("http://example.com/%2F", "http://example.com//"),
            ("http://example.com/?q", "http://example.com/"),
            ("https://example.com/", "http://example.com/"),
            ("http://example.com:8080/", "http://example.com/"),
        ] {
            for l in [
                KeyLevel::Raw,
                KeyLevel::Syntax,
                KeyLevel::Scheme,
                KeyLevel::NoFragment,
            ] {
                assert_ne!(k(a, l), k(b, l), "{a} vs {b} at {l:?}");
            }
        }
        assert_ne!(
            k("http://a/#x", KeyLevel::Scheme),
            k("http://a/#y", KeyLevel::Scheme)
        );
        assert_eq!(
            k("http://a/#x", KeyLevel::NoFragment),
            k("http://a/#y", KeyLevel::NoFragment)
        );
    }

    #[test]
    fn fp_hasher_folds() {
        let mut h = FpHasher::default();
        h.write_u128(1 | (2u128 << 64));
        assert_eq!(h.finish(), 3);
    }
}

/// The examples of items private to the crate.
#[cfg(test)]
mod examples {
    #[test]
    fn module() {
        use crate::dedup::{KeyLevel, Offer, Unique, fingerprint, key};
        let mut u = Unique::new(usize::MAX, None);
        let mut printed = Vec::new();
        for url in [
            "HTTP://Example.COM/a",
            "http://example.com:80/%61",
            "http://example.com/b",
        ] {
            let k = key(url.as_bytes(), false, KeyLevel::Scheme);
            if u.offer(fingerprint(&k), url.as_bytes()).unwrap() == Offer::New {
                printed.push(url);
            }
        }
        assert_eq!(printed, ["HTTP://Example.COM/a", "http://example.com/b"]);
    }
    #[test]
    fn fingerprint() {
        use crate::dedup::fingerprint;
        assert_eq!(fingerprint(b"http://a/"), fingerprint(b"http://a/"));
        assert_ne!(fingerprint(b"http://a/"), fingerprint(b"http://b/"));
    }
    #[test]
    fn web_key_into() {
        use crate::dedup::{KeyLevel, web_key_into};
        let mut out = Vec::new();
        assert!(web_key_into(
            "www.例子.测试/a?b=1&a=2#x".as_bytes(),
            true,
            KeyLevel::Surt,
            &mut out
        ));
        assert_eq!(out, b"xn--0zwm56d,xn--fsqu00a)/a?a=2&b=1");
        out.clear();
        assert!(web_key_into(
            b"HTTP://xn--FSQU00A.xn--0zwm56d:80/a",
            false,
            KeyLevel::Whatwg,
            &mut out
        ));
        assert_eq!(out, b"http://xn--fsqu00a.xn--0zwm56d/a");
    }
    #[test]
    fn offer_batch() {
        use crate::dedup::{Offer, Unique, fingerprint};
        let keys = ["a", "b", "a", "c", "b"];
        let fps: Vec<u128> = keys.iter().map(|k| fingerprint(k.as_bytes())).collect();
        let mut u = Unique::new(usize::MAX, None);
        let mut out = Vec::new();
        u.offer_batch(&fps, |i| keys[i].as_bytes(), &mut out)
            .unwrap();
        assert_eq!(
            out,
            [
                Offer::New,
                Offer::New,
                Offer::Duplicate,
                Offer::New,
                Offer::Duplicate
            ]
        );
    }
    #[test]
    fn counter() {
        use crate::dedup::{Counter, fingerprint};
        let mut c = Counter::new(usize::MAX, None);
        for k in ["b", "a", "b", "c", "b", "a"] {
            c.add(fingerprint(k.as_bytes()), k.as_bytes()).unwrap();
        }
        let mut rows = Vec::new();
        c.finish(|n, k| {
            rows.push(format!("{n} {}", String::from_utf8_lossy(k)));
            Ok(())
        })
        .unwrap();
        assert_eq!(rows, ["3 b", "2 a", "1 c"]);
    }
    #[test]
    fn add_batch() {
        use crate::dedup::{Counter, fingerprint};
        let keys = ["b", "a", "b"];
        let fps: Vec<u128> = keys.iter().map(|k| fingerprint(k.as_bytes())).collect();
        let mut c = Counter::new(usize::MAX, None);
        c.add_batch(&fps, |i| keys[i].as_bytes()).unwrap();
        let mut rows = Vec::new();
        c.finish(|n, k| {
            rows.push((n, k.to_vec()));
            Ok(())
        })
        .unwrap();
        assert_eq!(rows, [(2, b"b".to_vec()), (1, b"a".to_vec())]);
    }
}
