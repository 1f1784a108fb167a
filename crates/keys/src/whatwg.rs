//! The WHATWG URL Standard's serialization (`href`), by the `ada-url` crate.
//!
//! ada passes every case of the web-platform-tests `urltestdata.json` this
//! repository tests against (`tests/whatwg.rs`): hosts through UTS #46,
//! backslashes as slashes in special schemes, tabs and newlines removed,
//! default ports dropped, IPv4 in any of its numeric forms, paths
//! percent-encoded as browsers do.

use std::fmt;

/// Why an input has no WHATWG serialization: the URL parser returned
/// failure (for instance an invalid host, or a relative reference without
/// a base).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WhatwgError {
    /// The input, as given (lossily decoded if it was not UTF-8).
    pub input: String,
}

impl fmt::Display for WhatwgError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "not a URL by the WHATWG URL Standard: {:?}", self.input)
    }
}

impl std::error::Error for WhatwgError {}

/// The WHATWG serialization of `input` parsed against `base` (the URL
/// Standard's *basic URL parser*; `base` must itself parse).
///
/// ```
/// use urlsift_keys::whatwg;
/// assert_eq!(whatwg("HTTPS://EXAMPLE.com:443\\a\\..\\b\t?x#y", None).unwrap(), "https://example.com/b?x#y");
/// assert_eq!(whatwg("http://例子.测试/", None).unwrap(), "http://xn--fsqu00a.xn--0zwm56d/");
/// assert_eq!(whatwg("../c", Some("http://a/b/d/e")).unwrap(), "http://a/b/c");
/// assert!(whatwg("http://exa mple.com/", None).is_err());
/// assert!(whatwg("/relative", None).is_err());
/// ```
pub fn whatwg(input: &str, base: Option<&str>) -> Result<String, WhatwgError> {
    match ada_url::Url::parse(input, base) {
        Ok(u) => Ok(u.href().to_owned()),
        Err(_) => Err(WhatwgError {
            input: input.to_owned(),
        }),
    }
}

/// [`whatwg`] of bytes (text that is not UTF-8 is decoded as the URL
/// Standard decodes it, each invalid sequence a U+FFFD), appended to `out`.
/// Returns `false`, writing nothing, when the parser fails.
///
/// ```
/// let mut out = Vec::new();
/// assert!(urlsift_keys::whatwg_into(b"http://Example.COM", None, &mut out));
/// assert_eq!(out, b"http://example.com/");
/// assert!(!urlsift_keys::whatwg_into(b"http://[::1/", None, &mut out));
/// ```
pub fn whatwg_into(input: &[u8], base: Option<&str>, out: &mut Vec<u8>) -> bool {
    let text = String::from_utf8_lossy(input);
    match ada_url::Url::parse(text.as_ref(), base) {
        Ok(u) => {
            out.extend_from_slice(u.href().as_bytes());
            true
        }
        Err(_) => false,
    }
}
