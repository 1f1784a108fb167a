//! RFC 3986 URI references: split, validate, resolve, normalize; RFC 1738 scheme rules.
//!
//! A [`UriRef`] is the original bytes plus a few offsets: nothing is allocated
//! until you [`normalize()`] or [`resolve()`].
//!
//! ```
//! use urlsift_uri::{HostKind, UriRef};
//!
//! let u = UriRef::parse(b"https://user@[::1]:8080/a/b?q=1#top").unwrap();
//! assert_eq!(u.scheme(), Some(&b"https"[..]));
//! assert_eq!(u.userinfo(), Some(&b"user"[..]));
//! assert_eq!(u.host(), Some(&b"[::1]"[..]));
//! assert_eq!(u.host_kind(), Some(HostKind::Ipv6));
//! assert_eq!(u.port(), Some(&b"8080"[..]));
//! assert_eq!(u.path(), b"/a/b");
//! assert_eq!(u.query(), Some(&b"q=1"[..]));
//! assert_eq!(u.fragment(), Some(&b"top"[..]));
//!
//! let err = UriRef::parse(b"http://example.com/a b").unwrap_err();
//! assert_eq!(err.to_string(), "invalid character in path at byte 20");
//!
//! assert_eq!(urlsift_uri::resolve(b"http://a/b/c/d;p?q", b"../../../g").unwrap(), "http://a/g");
//! let opts = urlsift_uri::NormalizeOptions::default();
//! assert_eq!(urlsift_uri::normalize(b"HTTP://Example.COM:80/%7euser/./a", &opts).unwrap(),
//!            "http://example.com/~user/a");
//! ```
//!
//! # Which parts do what
//!
//! - [`mod@parse`] holds the lenient [`UriRef::split`] (RFC 3986 Appendix B).
//! - [`mod@validate`] holds the strict single-pass parser
//!   ([`UriRef::parse`], RFC 3986 Appendix A) and its character tables.
//! - [`host`] parses IPv4, IPv6 (all nine ABNF forms) and IPvFuture literals.
//! - [`mod@resolve`] implements RFC 3986 5.2 (and 5.2.4 `remove_dot_segments`).
//! - [`mod@normalize`] implements RFC 3986 6.2.2 and 6.2.3.
//! - [`scheme`] holds the RFC 1738 scheme rules and default ports.
//!
//! # Error offsets
//!
//! [`Error::index`] is the offset of the first byte at which the text stops
//! being a prefix of any valid URI reference (the convention uriparser uses).
//! For example `http://w3c.org:80path1/path2` fails at byte 22, not 17: up to
//! the `/`, `w3c.org:80path1` could still have been a userinfo followed by `@`.
#![deny(missing_docs)]
#![warn(clippy::print_stderr, clippy::print_stdout)]

use std::fmt;

pub mod host;
pub mod normalize;
pub mod parse;
pub mod resolve;
pub mod scheme;
pub(crate) mod span;
mod swar;
pub mod validate;

/// Run the URI engine's span kernels as scalar code (`true`), or with the
/// CPU's vector unit when it has one (`false`, the default: SSSE3 on
/// x86-64, NEON on AArch64). Every kernel gives the same answers; this is
/// the command line's `--isa scalar`, also taken from `URLSIFT_ISA=scalar`
/// on first use. It applies to the whole process.
///
/// ```
/// urlsift_uri::use_scalar_kernels(true);
/// assert!(urlsift_uri::UriRef::parse(b"http://example.com/a%20b").is_ok());
/// urlsift_uri::use_scalar_kernels(false);
/// ```
pub fn use_scalar_kernels(scalar: bool) {
    span::set_scalar(scalar);
}

pub use normalize::{NormalizeOptions, normalize, normalize_into};
pub use resolve::{relativize, remove_dot_segments, resolve, resolve_parsed};
pub use scheme::{SchemeError, default_port};

/// A URI reference: the original bytes and the offsets of its components.
///
/// ```text
///   https://user:pass@example.com:1234/foo/bar?baz#quux
///   |    |  |         |          |    |       |   |   |
///   |    |  |         |          |    |       |   |   `- len
///   |    |  |         |          |    |       |   `----- frag_start ('#', or len)
///   |    |  |         |          |    |       `--------- query_start ('?', or frag_start)
///   |    |  |         |          |    `----------------- path_start (end of authority)
///   |    |  |         |          `---------------------- host_end (':' before the port, or path_start)
///   |    |  |         `--------------------------------- host_start (after '@', or auth_start)
///   |    |  `------------------------------------------- auth_start (after "//"; 0 = no authority)
///   |    `---------------------------------------------- scheme_end (the ':'; 0 = no scheme)
///   `--------------------------------------------------- 0
/// ```
///
/// A scheme is never empty and an authority always follows `//`, so 0 can
/// mark "absent" for both. Every accessor slices with `get`, so even a
/// [`UriRef::split`] of arbitrary bytes never panics.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct UriRef<'a> {
    pub(crate) text: &'a [u8],
    pub(crate) scheme_end: usize,
    pub(crate) auth_start: usize,
    pub(crate) host_start: usize,
    pub(crate) host_end: usize,
    pub(crate) path_start: usize,
    pub(crate) query_start: usize,
    pub(crate) frag_start: usize,
}

/// What kind of host an authority names (RFC 3986 3.2.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HostKind {
    /// A registered name (possibly empty), e.g. `example.com`.
    RegName,
    /// A dotted-decimal IPv4 address, e.g. `192.0.2.1`.
    Ipv4,
    /// A bracketed IPv6 literal, e.g. `[2001:db8::1]`.
    Ipv6,
    /// A bracketed future IP literal, e.g. `[v7.addr]`.
    IpvFuture,
}

impl HostKind {
    /// The kind as the CLI and JSON output name it: `reg-name`, `ipv4`, `ipv6`, `ipvfuture`.
    pub fn as_str(self) -> &'static str {
        match self {
            HostKind::RegName => "reg-name",
            HostKind::Ipv4 => "ipv4",
            HostKind::Ipv6 => "ipv6",
            HostKind::IpvFuture => "ipvfuture",
        }
    }
}

/// Why a URI reference is not valid RFC 3986, and where.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Error {
    /// Byte offset of the first byte that cannot continue a valid URI reference
    /// (the length of the text when it ends too early).
    pub index: usize,
    /// What is wrong there.
    pub kind: ErrorKind,
}

/// The kinds of [`Error`]; each has a one-line [`message`](ErrorKind::message).
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// A byte >= 0x80: an IRI (RFC 3987) is not a valid URI until its
    /// non-ASCII characters are percent-encoded.
    NonAscii,
    /// A `%` not followed by two hexadecimal digits.
    PercentEncoding,
    /// The text before the first `:` is neither a scheme nor a relative path
    /// segment (a scheme starts with a letter; a relative path's first segment
    /// has no `:`).
    Scheme,
    /// A byte not allowed in userinfo.
    Userinfo,
    /// A byte not allowed in a registered name or IPv4 address.
    Host,
    /// A malformed IPv6 address literal.
    Ipv6,
    /// A malformed IPvFuture literal.
    IpvFuture,
    /// An IP literal without its closing `]`.
    UnclosedBracket,
    /// A port that is not all digits.
    Port,
    /// A byte not allowed in a path.
    Path,
    /// A byte not allowed in a query.
    Query,
    /// A byte not allowed in a fragment.
    Fragment,
    /// A base URI without a scheme (resolution needs an absolute base).
    BaseNotAbsolute,
}

impl ErrorKind {
    /// The one-line message for this kind.
    pub fn message(self) -> &'static str {
        match self {
            ErrorKind::NonAscii => "non-ASCII byte (an IRI must be percent-encoded to be a URI)",
            ErrorKind::PercentEncoding => "invalid percent-encoding",
            ErrorKind::Scheme => "invalid scheme (or ':' in the first segment of a relative path)",
            ErrorKind::Userinfo => "invalid character in userinfo",
            ErrorKind::Host => "invalid character in host",
            ErrorKind::Ipv6 => "invalid IPv6 address",
            ErrorKind::IpvFuture => "invalid IPvFuture address",
            ErrorKind::UnclosedBracket => "IP literal without closing ']'",
            ErrorKind::Port => "invalid port (digits only)",
            ErrorKind::Path => "invalid character in path",
            ErrorKind::Query => "invalid character in query",
            ErrorKind::Fragment => "invalid character in fragment",
            ErrorKind::BaseNotAbsolute => "base URI has no scheme",
        }
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.message())
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at byte {}", self.kind.message(), self.index)
    }
}

impl std::error::Error for Error {}

#[inline]
fn sub(text: &[u8], start: usize, end: usize) -> &[u8] {
    text.get(start..end).unwrap_or_default()
}

impl<'a> UriRef<'a> {
    /// Split any bytes into components by the RFC 3986 Appendix B regular
    /// expression. Never fails, never panics, never allocates; does not validate.
    ///
    /// Inside the authority, the userinfo ends at the last `@`; the port
    /// starts at the first `:` after the host (after `]` for an IP literal).
    ///
    /// ```
    /// use urlsift_uri::UriRef;
    /// let u = UriRef::split(b"http://a b/<c>");
    /// assert_eq!(u.host(), Some(&b"a b"[..]));
    /// assert_eq!(u.path(), b"/<c>");
    /// assert!(u.validate().is_err());
    /// ```
    pub fn split(text: &'a [u8]) -> UriRef<'a> {
        parse::split(text)
    }

    /// The host of [`split`](UriRef::split)`(text)` ([`UriRef::host`]),
    /// found without splitting the path, query and fragment: what a key by
    /// host needs.
    ///
    /// ```
    /// use urlsift_uri::UriRef;
    /// assert_eq!(UriRef::host_of(b"http://u@Example.com:80/p?q"), Some(&b"Example.com"[..]));
    /// assert_eq!(UriRef::host_of(b"mailto:a@b.example"), None);
    /// ```
    pub fn host_of(text: &'a [u8]) -> Option<&'a [u8]> {
        parse::host(text)
    }

    /// Split and validate strictly against RFC 3986 Appendix A (`URI-reference`).
    ///
    /// ```
    /// use urlsift_uri::{ErrorKind, UriRef};
    /// assert!(UriRef::parse(b"mailto:user@example.org").is_ok());
    /// let e = UriRef::parse(b"http://[::1/").unwrap_err();
    /// assert_eq!((e.index, e.kind), (11, ErrorKind::UnclosedBracket));
    /// ```
    pub fn parse(text: &'a [u8]) -> Result<UriRef<'a>, Error> {
        validate::parse(text, false)
    }

    /// Like [`parse`](UriRef::parse), but accept bytes >= 0x80 wherever RFC 3987
    /// allows non-ASCII characters in an IRI reference (userinfo, reg-name,
    /// path, query, fragment). The bytes are not checked to be UTF-8 or
    /// `ucschar`s; [`normalize()`] percent-encodes them.
    ///
    /// ```
    /// use urlsift_uri::UriRef;
    /// let u = UriRef::parse_iri("http://ƒøø.example/Köln".as_bytes()).unwrap();
    /// assert_eq!(u.path(), "/Köln".as_bytes());
    /// assert!(UriRef::parse("http://ƒøø.example/".as_bytes()).is_err());
    /// ```
    pub fn parse_iri(text: &'a [u8]) -> Result<UriRef<'a>, Error> {
        validate::parse(text, true)
    }

    /// Validate the text this reference was split from against RFC 3986 Appendix A.
    pub fn validate(&self) -> Result<(), Error> {
        validate::parse(self.text, false).map(|_| ())
    }

    /// The whole text.
    pub fn as_bytes(&self) -> &'a [u8] {
        self.text
    }

    /// True if the reference has a scheme (it is a URI, not a relative reference).
    pub fn is_absolute(&self) -> bool {
        self.scheme_end > 0
    }

    /// The scheme, without the `:`.
    pub fn scheme(&self) -> Option<&'a [u8]> {
        (self.scheme_end > 0).then(|| sub(self.text, 0, self.scheme_end))
    }

    /// The authority, without the leading `//`.
    pub fn authority(&self) -> Option<&'a [u8]> {
        (self.auth_start > 0).then(|| sub(self.text, self.auth_start, self.path_start))
    }

    /// The userinfo, without the `@`.
    pub fn userinfo(&self) -> Option<&'a [u8]> {
        (self.auth_start > 0 && self.host_start > self.auth_start)
            .then(|| sub(self.text, self.auth_start, self.host_start - 1))
    }

    /// The host, with the brackets of an IP literal; `Some(b"")` for `file:///`.
    pub fn host(&self) -> Option<&'a [u8]> {
        (self.auth_start > 0).then(|| sub(self.text, self.host_start, self.host_end))
    }

    /// What kind of host this is. For a [`split`](UriRef::split) of invalid
    /// text this is a best guess from the first bytes.
    pub fn host_kind(&self) -> Option<HostKind> {
        let h = self.host()?;
        Some(match h {
            [b'[', b'v' | b'V', ..] => HostKind::IpvFuture,
            [b'[', ..] => HostKind::Ipv6,
            _ if host::is_ipv4(h) => HostKind::Ipv4,
            _ => HostKind::RegName,
        })
    }

    /// The port, without the `:`; `Some(b"")` for `http://a:/`.
    pub fn port(&self) -> Option<&'a [u8]> {
        (self.auth_start > 0 && self.host_end < self.path_start)
            .then(|| sub(self.text, self.host_end + 1, self.path_start))
    }

    /// The path (always present, possibly empty).
    pub fn path(&self) -> &'a [u8] {
        sub(self.text, self.path_start, self.query_start)
    }

    /// The query, without the `?`.
    pub fn query(&self) -> Option<&'a [u8]> {
        (self.query_start < self.frag_start)
            .then(|| sub(self.text, self.query_start + 1, self.frag_start))
    }

    /// The fragment, without the `#`.
    pub fn fragment(&self) -> Option<&'a [u8]> {
        (self.frag_start < self.text.len())
            .then(|| sub(self.text, self.frag_start + 1, self.text.len()))
    }

    /// Append the RFC 3986 section 6 normal form of this reference to `out`
    /// (what [`normalize()`] returns, without parsing again or allocating a
    /// `String`). The reference should come from [`parse`](UriRef::parse) or
    /// [`parse_iri`](UriRef::parse_iri); for a [`split`](UriRef::split) of
    /// invalid text the output is unspecified (but this never panics).
    ///
    /// ```
    /// use urlsift_uri::{NormalizeOptions, UriRef};
    /// let u = UriRef::parse(b"HTTP://Example.COM:80/a/./b/%7e").unwrap();
    /// let mut out = Vec::new();
    /// u.normalize_into(&NormalizeOptions::default(), &mut out);
    /// assert_eq!(out, b"http://example.com/a/b/~");
    /// ```
    pub fn normalize_into(&self, opts: &NormalizeOptions, out: &mut Vec<u8>) {
        normalize::normalize_parsed(self, opts, out);
    }

    /// Check the RFC 1738 rules of the schemes it defines (ftp, http, gopher,
    /// mailto, news, nntp, telnet, wais, file, prospero). Other schemes pass.
    /// This is separate from RFC 3986 validity: `telnet://host/path` is a valid
    /// URI that breaks the telnet rule.
    ///
    /// ```
    /// use urlsift_uri::UriRef;
    /// assert!(UriRef::parse(b"ftp://host/file;type=i").unwrap().check_scheme().is_ok());
    /// let e = UriRef::parse(b"telnet://host/path").unwrap().check_scheme().unwrap_err();
    /// assert_eq!(e.index, 14);
    /// ```
    pub fn check_scheme(&self) -> Result<(), SchemeError> {
        scheme::check(self)
    }
}

impl fmt::Debug for UriRef<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = |b: Option<&[u8]>| b.map(|b| String::from_utf8_lossy(b).into_owned());
        f.debug_struct("UriRef")
            .field("scheme", &s(self.scheme()))
            .field("userinfo", &s(self.userinfo()))
            .field("host", &s(self.host()))
            .field("port", &s(self.port()))
            .field("path", &String::from_utf8_lossy(self.path()))
            .field("query", &s(self.query()))
            .field("fragment", &s(self.fragment()))
            .finish()
    }
}
