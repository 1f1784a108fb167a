//! The `parse`, `normalize` and `resolve` subcommands (binary only; `main.rs`
//! parses the arguments and calls these).
//!
//! Exit codes follow the CLI contract: 0 when every argument was fine, 2 when
//! any was not (every argument is still processed).

use std::io::{self, Write};

use serde::Serialize;
use urlsift::uri::{self, NormalizeOptions, UriRef};

#[derive(Serialize)]
struct Problem {
    offset: usize,
    message: String,
}

#[derive(Serialize)]
struct Parsed<'a> {
    input: &'a str,
    valid: bool,
    scheme: Option<String>,
    userinfo: Option<String>,
    host: Option<String>,
    host_kind: Option<&'static str>,
    port: Option<String>,
    path: String,
    query: Option<String>,
    fragment: Option<String>,
    error: Option<Problem>,
    scheme_error: Option<Problem>,
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// `urlsift parse URL...`: one JSON object per URL on `out`.
///
/// Components come from the RFC 3986 Appendix B split, so they are shown
/// even for an invalid URL; `valid` and `error` say whether it is RFC 3986.
/// `scheme_error` reports an RFC 1738 scheme rule broken by the components
/// (independent of RFC 3986 validity).
/// Returns 0 if all are valid, 2 otherwise.
pub fn parse_cmd(urls: &[String], out: &mut dyn Write, err: &mut dyn Write) -> io::Result<i32> {
    let _ = err;
    let mut code = 0;
    for input in urls {
        let u = UriRef::split(input.as_bytes());
        let error = u.validate().err();
        let scheme_error = u.check_scheme().err();
        if error.is_some() {
            code = 2;
        }
        let rec = Parsed {
            input,
            valid: error.is_none(),
            scheme: u.scheme().map(text),
            userinfo: u.userinfo().map(text),
            host: u.host().map(text),
            host_kind: u.host_kind().map(|k| k.as_str()),
            port: u.port().map(text),
            path: text(u.path()),
            query: u.query().map(text),
            fragment: u.fragment().map(text),
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
    }
    Ok(code)
}

/// `urlsift normalize URL...`: one normalized URL per line on `out`; a bad
/// URL gets a message on `err` naming the argument and the byte offset.
/// Returns 0 if all normalized, 2 otherwise.
pub fn normalize_cmd(
    urls: &[String],
    scheme_based: bool,
    drop_fragment: bool,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> io::Result<i32> {
    let opts = NormalizeOptions {
        scheme_based,
        drop_fragment,
    };
    let mut code = 0;
    for input in urls {
        match uri::normalize(input.as_bytes(), &opts) {
            Ok(n) => writeln!(out, "{n}")?,
            Err(e) => {
                code = 2;
                writeln!(err, "urlsift: normalize: {input:?}: {e}")?;
            }
        }
    }
    Ok(code)
}

/// `urlsift resolve BASE REF...`: one resolved target per line on `out`
/// (RFC 3986 5.2). A bad base is reported once and every reference fails;
/// a bad reference gets a message on `err`. Returns 0 if all resolved, 2 otherwise.
pub fn resolve_cmd(
    base: &str,
    refs: &[String],
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> io::Result<i32> {
    let b = match UriRef::parse(base.as_bytes()) {
        Ok(b) if b.is_absolute() => b,
        Ok(_) => {
            writeln!(
                err,
                "urlsift: resolve: base {base:?}: base URI has no scheme"
            )?;
            return Ok(2);
        }
        Err(e) => {
            writeln!(err, "urlsift: resolve: base {base:?}: {e}")?;
            return Ok(2);
        }
    };
    let mut code = 0;
    for r in refs {
        let resolved =
            UriRef::parse(r.as_bytes()).and_then(|u| uri::resolve::resolve_parsed(&b, &u));
        match resolved {
            Ok(t) => writeln!(out, "{t}")?,
            Err(e) => {
                code = 2;
                writeln!(err, "urlsift: resolve: {r:?}: {e}")?;
            }
        }
    }
    Ok(code)
}
