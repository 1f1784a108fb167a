//! Stage 2: the delimiting rules of RFC 3986 Appendix C and RFC 2396 Appendix E,
//! applied at the candidates that [`crate::classify`] finds.
//!
//! (API skeleton; the engine is being written.)

use std::borrow::Cow;

/// How a URL was delimited in the text.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Style {
    /// No delimiter: the URL ends at whitespace or a stop character.
    Bare,
    /// Inside double quotes: `"http://example.com/"`.
    Quoted,
    /// Inside angle brackets: `<http://example.com/>`.
    Angle,
    /// With the `URL:` prefix, as in `<URL:http://example.com/>` or `URL: http://...`.
    UrlPrefix,
}

impl Style {
    /// The name used in JSON output: `bare`, `quoted`, `angle` or `url-prefix`.
    pub fn as_str(self) -> &'static str {
        match self {
            Style::Bare => "bare",
            Style::Quoted => "quoted",
            Style::Angle => "angle",
            Style::UrlPrefix => "url-prefix",
        }
    }
}

/// What was found.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    /// A URI with a scheme.
    Uri,
    /// An abbreviated `www.` URI (RFC 2396bis Appendix F), no scheme.
    Www,
}

impl Kind {
    /// The name used in JSON output: `uri` or `www`.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Uri => "uri",
            Kind::Www => "www",
        }
    }
}

/// One URL found in the input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Match<'h> {
    /// Byte offset of the first byte of the URL in the input (delimiters excluded).
    pub start: usize,
    /// Byte offset one past the last byte of the URL in the input (delimiters excluded).
    pub end: usize,
    /// The URL text: borrowed from the input unless whitespace had to be removed.
    pub url: Cow<'h, [u8]>,
    /// How the URL was delimited.
    pub style: Style,
    /// Whether it has a scheme or is an abbreviated `www.` URI.
    pub kind: Kind,
    /// True when the result depends on a guess (a hyphen at a line break was kept).
    pub ambiguous: bool,
}

/// Find every URL in `hay`, in input order.
pub fn extract(hay: &[u8]) -> Vec<Match<'_>> {
    let _ = hay;
    Vec::new()
}
