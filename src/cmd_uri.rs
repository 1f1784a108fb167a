//! The `parse`, `normalize` and `resolve` subcommands (binary only; `main.rs`
//! parses the arguments and calls these).
//!
//! The references come from the arguments or, with none, from standard
//! input, one per line ([`Refs`]). Exit codes follow the CLI contract: 0 when
//! every reference was fine, 2 when any was not (every reference is still
//! processed) or standard input could not be read.

use std::borrow::Cow;
use std::io::{self, BufRead, Write};

use serde::Serialize;
use urlsift_printer::dedup::KeyLevel;
use urlsift_uri::{self as uri, NormalizeOptions, UriRef};

/// Where the references come from.
pub enum Refs<'a> {
    /// Command-line arguments, one reference each.
    Args(&'a [String]),
    /// Lines of a stream (standard input), one reference each: a trailing
    /// `\n` or `\r\n` is removed and nothing else, so an empty line is an
    /// empty reference. Read as bytes, one line at a time into one buffer.
    /// The bytes go to the URI engine as they are, as an argument's and the
    /// scan's URLs do, UTF-8 or not (a non-ASCII byte makes a reference
    /// invalid for `parse` and `resolve`; `normalize` percent-encodes it);
    /// text shown from them (JSON strings, messages) is converted lossily,
    /// U+FFFD per invalid sequence.
    Lines(&'a mut dyn BufRead),
}

impl<'a> Refs<'a> {
    /// The arguments, or with none, the lines of `lines`.
    pub fn or_lines(args: &'a [String], lines: &'a mut dyn BufRead) -> Self {
        if args.is_empty() {
            Refs::Lines(lines)
        } else {
            Refs::Args(args)
        }
    }

    /// Call `f` on each reference, with `err` for its messages; `f` says
    /// whether the reference was fine. Returns 0 if all were, 2 otherwise.
    /// A read error is reported on `err` as `urlsift: CMD: reading standard
    /// input: ...` and ends the references, with 2.
    fn each(
        self,
        cmd: &str,
        err: &mut dyn Write,
        mut f: impl FnMut(&[u8], &mut dyn Write) -> io::Result<bool>,
    ) -> io::Result<i32> {
        let mut code = 0;
        match self {
            Refs::Args(args) => {
                for a in args {
                    if !f(a.as_bytes(), err)? {
                        code = 2;
                    }
                }
            }
            Refs::Lines(reader) => {
                let mut line = Vec::new();
                loop {
                    line.clear();
                    match reader.read_until(b'\n', &mut line) {
                        Ok(0) => break,
                        Ok(_) => {}
                        Err(e) => {
                            writeln!(err, "urlsift: {cmd}: reading standard input: {e}")?;
                            return Ok(2);
                        }
                    }
                    let mut r = line.as_slice();
                    if let Some(l) = r.strip_suffix(b"\n") {
                        r = l.strip_suffix(b"\r").unwrap_or(l);
                    }
                    if !f(r, err)? {
                        code = 2;
                    }
                }
            }
        }
        Ok(code)
    }
}

#[derive(Serialize)]
struct Problem {
    offset: usize,
    message: String,
}

/// One `parse` record: the fields it shares with the scan's JSON Lines
/// (`urlsift --format json`) under the same names and in the same order,
/// then its own.
#[derive(Serialize)]
struct Parsed<'a> {
    url: Cow<'a, str>,
    valid: bool,
    scheme: Option<Cow<'a, str>>,
    userinfo: Option<Cow<'a, str>>,
    host: Option<Cow<'a, str>>,
    host_kind: Option<&'static str>,
    port: Option<Cow<'a, str>>,
    path: Cow<'a, str>,
    query: Option<Cow<'a, str>>,
    fragment: Option<Cow<'a, str>>,
    host_ascii: Option<String>,
    domain: Option<String>,
    error: Option<Problem>,
    scheme_error: Option<Problem>,
}

fn text(b: &[u8]) -> Cow<'_, str> {
    String::from_utf8_lossy(b)
}

/// `urlsift parse [URL...]`: one JSON object per URL on `out`.
///
/// Components come from the RFC 3986 Appendix B split, so they are shown
/// even for an invalid URL; `valid` and `error` say whether it is RFC 3986.
/// `scheme_error` reports an RFC 1738 scheme rule broken by the components
/// (independent of RFC 3986 validity).
/// Returns 0 if all are valid, 2 otherwise.
pub fn parse_cmd(refs: Refs<'_>, out: &mut dyn Write, err: &mut dyn Write) -> io::Result<i32> {
    refs.each("parse", err, |input, _| {
        let u = UriRef::split(input);
        let error = u.validate().err();
        let scheme_error = u.check_scheme().err();
        let valid = error.is_none();
        let (host_ascii, domain) = urlsift_printer::host_keys(u.host(), u.host_kind());
        let rec = Parsed {
            url: text(input),
            valid,
            scheme: u.scheme().map(text),
            userinfo: u.userinfo().map(text),
            host: u.host().map(text),
            host_kind: u.host_kind().map(|k| k.as_str()),
            port: u.port().map(text),
            path: text(u.path()),
            query: u.query().map(text),
            fragment: u.fragment().map(text),
            host_ascii,
            domain,
            error: error.map(|e| Problem {
                offset: e.index,
                message: e.kind.message().to_string(),
            }),
            scheme_error: scheme_error.map(|e| Problem {
                offset: e.index,
                message: e.message.to_string(),
            }),
        };
        serde_json::to_writer(&mut *out, &rec).map_err(io::Error::from)?;
        out.write_all(b"\n")?;
        Ok(valid)
    })
}

/// `urlsift normalize [URL...]`: one normalized URL per line on `out`; a bad
/// URL gets a message on `err` naming it and the byte offset.
/// Returns 0 if all normalized, 2 otherwise.
pub fn normalize_cmd(
    refs: Refs<'_>,
    scheme_based: bool,
    drop_fragment: bool,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> io::Result<i32> {
    let opts = NormalizeOptions {
        scheme_based,
        drop_fragment,
    };
    let mut n = Vec::new();
    refs.each("normalize", err, |input, err| {
        n.clear();
        match uri::normalize_into(input, &opts, &mut n) {
            Ok(()) => {
                n.push(b'\n');
                out.write_all(&n)?;
                Ok(true)
            }
            Err(e) => {
                writeln!(err, "urlsift: normalize: {:?}: {e}", text(input))?;
                Ok(false)
            }
        }
    })
}

/// `urlsift normalize --dedup-key LEVEL [--base URL] [URL...]`: each URL's
/// key at `level` (as `--unique --dedup-key LEVEL` compares them; `raw`:
/// the URL itself), one line per URL. A URL without a key at that level
/// gets an empty line and a message on `err`. `base` (for
/// [`KeyLevel::Whatwg`] only) is the base URL each input is parsed
/// against; one that does not parse is reported once and fails every URL.
/// Returns 0 if every URL had a key, 2 otherwise.
pub fn key_cmd(
    refs: Refs<'_>,
    level: KeyLevel,
    base: Option<&str>,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> io::Result<i32> {
    if let Some(b) = base {
        if level != KeyLevel::Whatwg {
            writeln!(
                err,
                "urlsift: normalize: --base is for --dedup-key whatwg (the other levels take absolute URLs)"
            )?;
            return Ok(2);
        }
        if let Err(e) = urlsift_keys::whatwg(b, None) {
            writeln!(err, "urlsift: normalize: base {b:?}: {e}")?;
            return Ok(2);
        }
    }
    let mut line = Vec::new();
    refs.each("normalize", err, |input, err| {
        line.clear();
        let ok = match level {
            KeyLevel::Raw => {
                line.extend_from_slice(input);
                Ok(())
            }
            KeyLevel::Whatwg => {
                if urlsift_keys::whatwg_into(input, base, &mut line) {
                    Ok(())
                } else {
                    Err("not a URL by the WHATWG URL Standard".to_string())
                }
            }
            KeyLevel::Surt => urlsift_keys::surt_into(input, &mut line).map_err(|e| e.to_string()),
            _ => {
                let opts = level.normalize_options().unwrap_or_default();
                uri::normalize_into(input, &opts, &mut line).map_err(|e| e.to_string())
            }
        };
        if let Err(e) = &ok {
            line.clear();
            writeln!(
                err,
                "urlsift: normalize: {:?}: {level} key: {e}",
                text(input),
            )?;
        }
        line.push(b'\n');
        out.write_all(&line)?;
        Ok(ok.is_ok())
    })
}

/// `base` as a base URI: an absolute URI (RFC 3986 4.3), or why it is not
/// one (the message `resolve` and `--base` give).
pub fn parse_base(base: &str) -> Result<UriRef<'_>, String> {
    match UriRef::parse(base.as_bytes()) {
        Ok(b) if b.is_absolute() => Ok(b),
        Ok(_) => Err("base URI has no scheme".into()),
        Err(e) => Err(e.to_string()),
    }
}

/// `urlsift resolve BASE [REF...]`: one resolved target per line on `out`
/// (RFC 3986 5.2). A bad base is reported once and every reference fails
/// (standard input is then not read); a bad reference gets a message on
/// `err`. Returns 0 if all resolved, 2 otherwise.
pub fn resolve_cmd(
    base: &str,
    refs: Refs<'_>,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> io::Result<i32> {
    let b = match parse_base(base) {
        Ok(b) => b,
        Err(e) => {
            writeln!(err, "urlsift: resolve: base {base:?}: {e}")?;
            return Ok(2);
        }
    };
    refs.each("resolve", err, |r, err| {
        match UriRef::parse(r).and_then(|u| uri::resolve::resolve_parsed(&b, &u)) {
            Ok(t) => {
                writeln!(out, "{t}")?;
                Ok(true)
            }
            Err(e) => {
                writeln!(err, "urlsift: resolve: {:?}: {e}", text(r))?;
                Ok(false)
            }
        }
    })
}
