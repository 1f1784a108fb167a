//! Stage 1: one classification pass over the input, 64 bytes at a time.
//!
//! The classifier finds *candidate anchors* (places where a URL may be
//! anchored) and *stop bytes* (bytes that end a bare URL). Stage 2
//! ([`crate::extract`]) applies the delimiting rules only at candidates.
//!
//! # Contract (every ISA gives exactly the same answers as [`naive`])
//!
//! A **candidate anchor** is an offset `i` into the whole haystack where either
//! - `hay[i] == b':'`, `i > 0`, `i + 1 < hay.len()`, and either
//!   - `hay[i+1] == b'/'` and `hay[i-1]` is a scheme character
//!     (`ALPHA / DIGIT / "+" / "-" / "."`): the end of `scheme:/`, or
//!   - `hay[i-1]` is a letter and `hay[i+1]` may begin the body of a scheme
//!     used without `//` (`mailto:x`): not an ASCII stop byte and not `:`
//!     (see `naive::may_follow_colon`), or
//! - `hay[i..i+4]` equals `www.` ASCII case-insensitively.
//!
//! The SIMD pass finds *events*, a superset of the anchors' key bytes: `:`
//! before `/`, `:` between a letter and a byte above `0x20` other than `:`,
//! and `.` after `w` or `W`. Each event is then checked exactly with a few
//! byte reads (the bytes around a colon, one table lookup each; `www` before
//! a dot). In prose most colons are followed by a space or a line end
//! (`Note: ...`) or lie between digits (`10:30`), and `w.` is rare, so most
//! blocks have no event at all and cost a handful of vector instructions.
//!
//! A **stop byte** is an ASCII control (`0x00..=0x20`, `0x7F`, so space too),
//! one of `" < > \ ^ ` { | }`, or any byte `>= 0x80` (non-ASCII, which stage 2
//! decodes to decide whether it ends the URL).

//!
//! # Layout
//!
//! - `tables`: the byte classes, defined once as byte sets, and the 256-entry
//!   scalar table and the two 16-entry nibble tables derived from them by
//!   `const fn` (Teddy / simdjson stage 1: `lo[b & 15] & hi[b >> 4]`).
//! - `generic`: the block algorithms, written once over a small `Vector`
//!   trait (a 64-byte block in registers) whose methods are `#[inline(always)]`.
//! - `scalar`, `x86_64/{sse2,avx2,avx512}`, `aarch64`: one small file per ISA
//!   implementing `Vector`, plus one `#[target_feature]` entry point per
//!   operation, so the whole block loop is compiled for that ISA.
//! - This file: [`Isa`], runtime detection, and [`Classifier`], which picks
//!   the kernels once and holds them as function pointers.
//!
//! Each 64-byte block becomes `u64` masks (bit `i` = byte `i`). The candidate
//! pass looks at the bytes on either side of each byte through overlapping
//! loads, so nothing is carried between its blocks. Blocks at either end of the
//! input are padded into a stack block (or, for [`Classifier::find_stop`],
//! read by one overlapping final load), so there is no scalar tail loop.
//!
//! # Choosing the ISA
//!
//! [`Extractor::new`](crate::Extractor::new) picks the fastest ISA this CPU can run unless the environment variable
//! `URLSIFT_ISA` names another (`auto`, `scalar`, `sse2`, `avx2`, `avx512`,
//! `neon`). An unknown or unavailable value there falls back to the best ISA;
//! use [`Classifier::from_env`] to get the error instead (the CLI does).
//!
//! Note: the `sse2` tier also needs SSSE3 (`pshufb`), which pure SSE2 lacks.

use std::fmt;
use std::sync::OnceLock;

mod generic;
mod scalar;

mod tables;

#[cfg(test)]
mod equivalence_tests;

#[cfg(target_arch = "x86_64")]
mod x86_64;

#[cfg(target_arch = "aarch64")]
mod aarch64;

/// The name of the environment variable that forces an ISA.
pub(crate) const ISA_ENV: &str = "URLSIFT_ISA";

/// An instruction set the classifier has a kernel for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Isa {
    /// Portable code, 64-byte blocks in plain arrays.
    Scalar,
    /// x86-64, 128-bit vectors (SSE2 + SSSE3).
    Sse2,
    /// x86-64, 256-bit vectors (AVX2 + BMI1 + BMI2 + POPCNT).
    Avx2,
    /// x86-64, 512-bit vectors (AVX-512F + AVX-512BW + BMI1 + BMI2 + POPCNT).
    Avx512,
    /// aarch64, 128-bit NEON vectors.
    Neon,
}

impl Isa {
    /// Every ISA, from the slowest to the fastest on its architecture.
    pub const ALL: [Isa; 5] = [Isa::Scalar, Isa::Sse2, Isa::Avx2, Isa::Avx512, Isa::Neon];

    /// The lower-case name used by `URLSIFT_ISA` and `--isa`.
    pub fn name(self) -> &'static str {
        match self {
            Isa::Scalar => "scalar",
            Isa::Sse2 => "sse2",
            Isa::Avx2 => "avx2",
            Isa::Avx512 => "avx512",
            Isa::Neon => "neon",
        }
    }

    /// The ISA with this name (ASCII case-insensitive), if any.
    pub(crate) fn from_name(name: &str) -> Option<Isa> {
        Isa::ALL
            .into_iter()
            .find(|isa| isa.name().eq_ignore_ascii_case(name))
    }

    /// True if this build has a kernel for the ISA (it matches the target architecture).
    pub(crate) fn is_compiled(self) -> bool {
        match self {
            Isa::Scalar => true,
            Isa::Sse2 | Isa::Avx2 | Isa::Avx512 => cfg!(target_arch = "x86_64"),
            Isa::Neon => cfg!(target_arch = "aarch64"),
        }
    }

    /// True if the kernel is compiled in and this CPU can run it (detected at run time).
    pub fn is_available(self) -> bool {
        match self {
            Isa::Scalar => true,
            #[cfg(target_arch = "x86_64")]
            Isa::Sse2 => x86_64::sse2::is_available(),
            #[cfg(target_arch = "x86_64")]
            Isa::Avx2 => x86_64::avx2::is_available(),
            #[cfg(target_arch = "x86_64")]
            Isa::Avx512 => x86_64::avx512::is_available(),
            #[cfg(target_arch = "aarch64")]
            Isa::Neon => aarch64::is_available(),
            #[allow(unreachable_patterns)]
            _ => false,
        }
    }

    /// The fastest available ISA.
    pub(crate) fn best() -> Isa {
        [Isa::Avx512, Isa::Avx2, Isa::Sse2, Isa::Neon]
            .into_iter()
            .find(|isa| isa.is_available())
            .unwrap_or(Isa::Scalar)
    }
}

/// The ISA of an [`Isa::name`], ASCII case-insensitive.
///
/// ```
/// use urlsift_core::{Isa, IsaError};
/// assert_eq!("AVX2".parse(), Ok(Isa::Avx2));
/// assert!(matches!("avx-2".parse::<Isa>(), Err(IsaError::Unknown(_))));
/// ```
impl std::str::FromStr for Isa {
    type Err = IsaError;

    fn from_str(name: &str) -> Result<Isa, IsaError> {
        Isa::from_name(name).ok_or_else(|| IsaError::Unknown(name.to_string()))
    }
}

impl fmt::Display for Isa {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// For `--version`: the ISAs compiled in, those this CPU can run, and the one
/// [`Extractor::new`](crate::Extractor::new) uses.
///
/// ```
/// let report = urlsift_core::isa_report();
/// assert!(report.contains("scalar"));
/// ```
pub fn isa_report() -> String {
    let list = |pred: fn(Isa) -> bool| {
        Isa::ALL
            .into_iter()
            .filter(|&i| pred(i))
            .map(Isa::name)
            .collect::<Vec<_>>()
            .join(" ")
    };
    format!(
        "SIMD: compiled: {}; available: {}; selected: {}",
        list(Isa::is_compiled),
        list(Isa::is_available),
        Classifier::auto().isa()
    )
}

/// Why an ISA choice cannot be used ([`Extractor::choose`]).
///
/// [`Extractor::choose`]: crate::Extractor::choose
///
/// ```
/// use urlsift_core::{Extractor, IsaError};
/// let e = Extractor::choose(Some("mmx")).unwrap_err();
/// assert!(matches!(e, IsaError::Unknown(_)));
/// assert!(e.to_string().starts_with("unknown ISA \"mmx\""));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum IsaError {
    /// Not the name of an ISA.
    Unknown(String),
    /// An ISA this build or this CPU cannot run.
    Unavailable(Isa),
    /// `URLSIFT_ISA` is not UTF-8.
    NotUtf8(std::ffi::OsString),
    /// `URLSIFT_ISA` names an ISA that cannot be used.
    InEnv(Box<IsaError>),
}

impl fmt::Display for IsaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IsaError::Unknown(name) => write!(
                f,
                "unknown ISA {name:?}: expected one of auto, scalar, sse2, avx2, avx512, neon"
            ),
            IsaError::Unavailable(isa) => {
                let available: Vec<_> = Isa::ALL
                    .into_iter()
                    .filter(|i| i.is_available())
                    .map(Isa::name)
                    .collect();
                write!(
                    f,
                    "ISA {isa} is not available on this machine (available: {})",
                    available.join(", ")
                )
            }
            IsaError::NotUtf8(v) => write!(f, "{ISA_ENV}: value is not UTF-8: {v:?}"),
            IsaError::InEnv(e) => write!(f, "{ISA_ENV}: {e}"),
        }
    }
}

impl std::error::Error for IsaError {}

/// The kernels of one ISA.
struct Kernels {
    candidates: unsafe fn(&[u8], usize, usize, &mut Vec<usize>),
    find_stop: unsafe fn(&[u8], usize) -> usize,
    find_run: unsafe fn(&[u8], usize) -> (usize, usize),
}

static SCALAR: Kernels = Kernels {
    candidates: scalar::candidates,
    find_stop: scalar::find_stop,
    find_run: scalar::find_run,
};

#[cfg(target_arch = "x86_64")]
static SSE2: Kernels = Kernels {
    candidates: x86_64::sse2::candidates,
    find_stop: x86_64::sse2::find_stop,
    find_run: x86_64::sse2::find_run,
};

#[cfg(target_arch = "x86_64")]
static AVX2: Kernels = Kernels {
    candidates: x86_64::avx2::candidates,
    find_stop: x86_64::avx2::find_stop,
    find_run: x86_64::avx2::find_run,
};

#[cfg(target_arch = "x86_64")]
static AVX512: Kernels = Kernels {
    candidates: x86_64::avx512::candidates,
    find_stop: x86_64::avx512::find_stop,
    find_run: x86_64::avx512::find_run,
};

#[cfg(target_arch = "aarch64")]
static NEON: Kernels = Kernels {
    candidates: aarch64::candidates,
    find_stop: aarch64::find_stop,
    find_run: aarch64::find_run,
};

/// The stage-1 classifier for one ISA: cheap to copy, chosen once. Its
/// public face is [`Extractor::choose`] and [`Extractor::candidates`].
///
/// Every ISA gives exactly the answers of the naive reference loops.
///
/// [`Extractor::choose`]: crate::Extractor::choose
/// [`Extractor::candidates`]: crate::Extractor::candidates
#[derive(Clone, Copy)]
pub(crate) struct Classifier {
    isa: Isa,
    kernels: &'static Kernels,
}

impl fmt::Debug for Classifier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Classifier")
            .field("isa", &self.isa)
            .finish()
    }
}

impl Classifier {
    /// The classifier for `isa`, or `None` if it is not compiled in or this
    /// CPU cannot run it.
    pub(crate) fn new(isa: Isa) -> Option<Classifier> {
        if !isa.is_available() {
            return None;
        }
        let kernels: &'static Kernels = match isa {
            Isa::Scalar => &SCALAR,
            #[cfg(target_arch = "x86_64")]
            Isa::Sse2 => &SSE2,
            #[cfg(target_arch = "x86_64")]
            Isa::Avx2 => &AVX2,
            #[cfg(target_arch = "x86_64")]
            Isa::Avx512 => &AVX512,
            #[cfg(target_arch = "aarch64")]
            Isa::Neon => &NEON,
            #[allow(unreachable_patterns)]
            _ => return None,
        };
        Some(Classifier { isa, kernels })
    }

    /// The classifier for [`Isa::best`].
    pub(crate) fn best() -> Classifier {
        Classifier::new(Isa::best()).unwrap_or(Classifier {
            isa: Isa::Scalar,
            kernels: &SCALAR,
        })
    }

    /// The process-wide classifier: [`Classifier::from_env`], decided on the
    /// first call and cached. An unknown or unavailable `URLSIFT_ISA` falls
    /// back to [`Classifier::best`].
    pub(crate) fn auto() -> Classifier {
        static AUTO: OnceLock<Classifier> = OnceLock::new();
        *AUTO.get_or_init(|| Classifier::from_env().unwrap_or_else(|_| Classifier::best()))
    }

    /// The classifier that `URLSIFT_ISA` asks for (the one for [`Isa::best`] when it
    /// is unset, empty or `auto`), or an error naming a bad value.
    pub(crate) fn from_env() -> Result<Classifier, IsaError> {
        match std::env::var_os(ISA_ENV) {
            None => Ok(Classifier::best()),
            Some(v) => match v.to_str() {
                Some(v) => Classifier::from_name(v).map_err(|e| IsaError::InEnv(Box::new(e))),
                None => Err(IsaError::NotUtf8(v)),
            },
        }
    }

    /// The classifier for a user's choice (`--isa`, `URLSIFT_ISA`): `auto`
    /// (or empty) for [`Isa::best`], else an [`Isa::name`]. Errors say
    /// why the value cannot be used.
    pub(crate) fn from_name(name: &str) -> Result<Classifier, IsaError> {
        let name = name.trim();
        if name.is_empty() || name.eq_ignore_ascii_case("auto") {
            return Ok(Classifier::best());
        }
        let Some(isa) = Isa::from_name(name) else {
            return Err(IsaError::Unknown(name.to_string()));
        };
        Classifier::new(isa).ok_or(IsaError::Unavailable(isa))
    }

    /// The ISA whose kernels this classifier runs.
    pub(crate) fn isa(&self) -> Isa {
        self.isa
    }

    /// Append every candidate anchor `i` with `start <= i < end` to `out`, in
    /// ascending order; exactly `naive::candidates`.
    #[inline]
    pub(crate) fn candidates(&self, hay: &[u8], start: usize, end: usize, out: &mut Vec<usize>) {
        // SAFETY: a `Classifier` holds the kernels of an ISA this CPU supports
        // (`Classifier::new` checked `is_available`).
        unsafe { (self.kernels.candidates)(hay, start, end, out) }
    }

    /// The first `i >= from` with a stop byte at `hay[i]`, else `hay.len()`
    /// (or `from` if it is past the end); exactly `naive::find_stop`.
    #[inline]
    pub(crate) fn find_stop(&self, hay: &[u8], from: usize) -> usize {
        // SAFETY: as in `candidates`, the ISA is supported.
        unsafe { (self.kernels.find_stop)(hay, from) }
    }

    /// [`Classifier::find_stop`], and the first `)` or `]` from `from` up to
    /// that stop (the stop itself if there is none): where a bare URL's run
    /// ends, and where its bracket balancing must start. Exactly
    /// `naive::find_run`.
    #[inline]
    pub(crate) fn find_run(&self, hay: &[u8], from: usize) -> (usize, usize) {
        // SAFETY: as in `candidates`, the ISA is supported.
        unsafe { (self.kernels.find_run)(hay, from) }
    }
}

/// The naive reference loops: the oracle every other implementation is tested against.
#[allow(clippy::if_same_then_else, reason = "the oracle spells out both rules")]
pub(crate) mod naive {
    /// True if `b` may appear in an RFC 3986 scheme after its first letter.
    #[inline]
    pub(crate) const fn is_scheme_char(b: u8) -> bool {
        b.is_ascii_alphanumeric() || b == b'+' || b == b'-' || b == b'.'
    }

    /// True if `b` is a stop byte (see the module docs).
    #[inline]
    pub(crate) const fn is_stop(b: u8) -> bool {
        b <= 0x20
            || b >= 0x7F
            || matches!(
                b,
                b'"' | b'<' | b'>' | b'\\' | b'^' | b'`' | b'{' | b'|' | b'}'
            )
    }

    /// True if `b` may follow the colon of a scheme used without `//`: not
    /// an ASCII stop byte, and not `:`. Non-ASCII bytes may (IRIs).
    #[inline]
    pub(crate) const fn may_follow_colon(b: u8) -> bool {
        b >= 0x80 || (!is_stop(b) && b != b':')
    }

    /// Append every candidate anchor `i` with `start <= i < end` to `out`.
    /// Look-behind and look-ahead may read `hay` outside `start..end`.
    #[cfg(test)]
    pub(crate) fn candidates(hay: &[u8], start: usize, end: usize, out: &mut Vec<usize>) {
        let end = end.min(hay.len());
        for i in start..end {
            let b = hay[i];
            if b == b':' && i > 0 && i + 1 < hay.len() {
                let (prev, next) = (hay[i - 1], hay[i + 1]);
                if (next == b'/' && is_scheme_char(prev))
                    || (prev.is_ascii_alphabetic() && may_follow_colon(next))
                {
                    out.push(i);
                }
            } else if (b | 0x20) == b'w'
                && i + 4 <= hay.len()
                && hay[i..i + 4].eq_ignore_ascii_case(b"www.")
            {
                out.push(i);
            }
        }
    }

    /// The first `i >= from` with a stop byte at `hay[i]`, or `hay.len()`.
    #[cfg(test)]
    pub(crate) fn find_stop(hay: &[u8], from: usize) -> usize {
        let mut i = from;
        while i < hay.len() && !is_stop(hay[i]) {
            i += 1;
        }
        i.max(from.min(hay.len()))
    }

    /// `(stop, closer)`: `stop` is [`find_stop`], and `closer` the first `i`
    /// in `from..stop` with `hay[i]` one of `)` `]`, else `stop`.
    #[cfg(test)]
    pub(crate) fn find_run(hay: &[u8], from: usize) -> (usize, usize) {
        let stop = find_stop(hay, from);
        let closer = (from..stop)
            .find(|&i| matches!(hay[i], b')' | b']'))
            .unwrap_or(stop);
        (stop, closer)
    }
}

/// Small enough for Miri (`scripts/miri.sh`): every ISA this build can run
/// agrees with the scalar reference on short inputs at every alignment, so
/// the unsafe loads and tail handling are checked for undefined behaviour.
#[cfg(test)]
mod small_tests {
    use super::*;

    const PATTERNS: [&[u8]; 7] = [
        b"(http://a.example/w_(x)y]z) [b](http://c.example/d) ))]]\xe2\x80\x9d)",
        b"see http://a.example/x?y#z, www.b.example and mailto:c@d.example.",
        b"<URL:ftp://e.example/f> a:b :// www. WWW.x (http://g.example/(h))",
        b"\x00\xff\xc3\xa9 https://\xe4\xbe\x8b.example/ \t\r\n: x:/ y:z",
        b"::::::::::::::::::::::::::::::::::::::::::::::::::::::::::::::::::::::",
        b"wwwwwwww.www.www.www.wwww.www.w.ww.www.www.www.www.www.www.www.www.",
        b"",
    ];

    fn inputs() -> Vec<Vec<u8>> {
        let mut v = Vec::new();
        for p in PATTERNS {
            for align in 0..8 {
                let mut b = vec![b'.'; align];
                b.extend_from_slice(p);
                v.push(b);
            }
        }
        v
    }

    #[test]
    fn every_isa_agrees_with_scalar_on_small_inputs() {
        let scalar = Classifier::new(Isa::Scalar).expect("scalar always runs");
        let isas: Vec<Classifier> = Isa::ALL
            .iter()
            .filter_map(|&i| Classifier::new(i))
            .collect();
        for buf in inputs() {
            let n = buf.len();
            // Every window start, a few window ends: the tails are where
            // out-of-bounds reads would hide.
            for start in 0..n.min(4) {
                for end in [n.saturating_sub(3).max(start), n] {
                    let mut want = Vec::new();
                    scalar.candidates(&buf, start, end, &mut want);
                    let mut oracle = Vec::new();
                    naive::candidates(&buf, start, end, &mut oracle);
                    assert_eq!(want, oracle, "scalar {start}..{end} of {buf:?}");
                    for c in &isas {
                        let mut got = Vec::new();
                        c.candidates(&buf, start, end, &mut got);
                        assert_eq!(got, want, "{:?} {start}..{end} of {buf:?}", c.isa());
                    }
                }
                let want = scalar.find_stop(&buf, start);
                for c in &isas {
                    assert_eq!(c.find_stop(&buf, start), want, "{:?} find_stop", c.isa());
                }
                let want = naive::find_run(&buf, start);
                for c in &isas {
                    assert_eq!(c.find_run(&buf, start), want, "{:?} find_run", c.isa());
                }
            }
        }
    }
}

#[cfg(test)]
mod doc_tests {
    use super::*;

    #[test]
    fn find_run_ends_at_the_stop_and_finds_the_bracket() {
        let text = b"see http://w.example/a_(b) now";
        assert_eq!(Classifier::auto().find_run(text, 4), (26, 25));
        assert_eq!(Classifier::auto().find_run(text, 27), (30, 30));
    }
}
