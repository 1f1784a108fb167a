//! The schemes that are found in bare text without `//`.
//!
//! Any RFC 3986 scheme followed by `://` is found. Without `//`, a word followed
//! by a colon is far more often prose (`Note:`, `Re:`) than a URI, so only the
//! schemes below are recognized, and only when a URI character follows the
//! colon directly (`mailto:x@y` yes, `News: today` no).
//!
//! | scheme | why |
//! |---|---|
//! | `mailto`, `news` | RFC 1738 schemes that never take `//` |
//! | `urn` | RFC 8141 names (`urn:isbn:...`, `urn:ietf:rfc:3986`) |
//! | `tel`, `fax`, `sms` | RFC 3966 / 5724 phone numbers |
//! | `sip`, `sips` | RFC 3261 addresses |
//! | `xmpp`, `im`, `pres` | RFC 5122 / 3860 / 3859 addresses |
//! | `magnet` | magnet links (`magnet:?xt=urn:...`) |
//! | `geo` | RFC 5870 locations |
//! | `cid`, `mid` | RFC 2392 message and content ids (mail archives) |
//! | `data` | RFC 2397 inline data |
//! | `doi` | DOI names as written in papers (`doi:10.1000/182`) |

/// The schemes recognized without `//`, lower case.
pub const SCHEMES_WITHOUT_SLASHES: &[&str] = &[
    "mailto", "news", "urn", "tel", "fax", "sms", "sip", "sips", "xmpp", "im", "pres", "magnet",
    "geo", "cid", "mid", "data", "doi",
];

/// True if `scheme` (any case) is in [`SCHEMES_WITHOUT_SLASHES`].
pub fn is_known_without_slashes(scheme: &[u8]) -> bool {
    scheme.len() <= 6
        && SCHEMES_WITHOUT_SLASHES
            .iter()
            .any(|s| s.as_bytes().eq_ignore_ascii_case(scheme))
}

/// The common schemes used with `//`, for choosing a scheme inside a run like
/// `go.http://` (the text's `go.` is not part of the scheme).
pub(crate) fn is_common_with_slashes(scheme: &[u8]) -> bool {
    const COMMON: &[&str] = &[
        "http", "https", "ftp", "ftps", "sftp", "file", "gopher", "nntp", "telnet", "wais",
        "prospero", "ws", "wss", "git", "ssh", "svn", "rtsp", "irc", "ircs", "ldap", "ldaps",
    ];
    COMMON
        .iter()
        .any(|s| s.as_bytes().eq_ignore_ascii_case(scheme))
}
