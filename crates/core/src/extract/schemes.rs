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
#[cfg(test)]
pub(crate) const SCHEMES_WITHOUT_SLASHES: &[&str] = &[
    "mailto", "news", "urn", "tel", "fax", "sms", "sip", "sips", "xmpp", "im", "pres", "magnet",
    "geo", "cid", "mid", "data", "doi",
];

/// True if `scheme` (any case) is in [`SCHEMES_WITHOUT_SLASHES`].
pub(crate) fn is_known_without_slashes(scheme: &[u8]) -> bool {
    // Most words before a colon are no scheme: one `match` on the lower-cased
    // word instead of a walk through the list (a test checks the two agree).
    let mut low = [0u8; 6];
    let Some(low) = low.get_mut(..scheme.len()) else {
        return false;
    };
    for (l, b) in low.iter_mut().zip(scheme) {
        *l = b.to_ascii_lowercase();
    }
    matches!(
        &*low,
        b"mailto"
            | b"news"
            | b"urn"
            | b"tel"
            | b"fax"
            | b"sms"
            | b"sip"
            | b"sips"
            | b"xmpp"
            | b"im"
            | b"pres"
            | b"magnet"
            | b"geo"
            | b"cid"
            | b"mid"
            | b"data"
            | b"doi"
    )
}

/// Whether `body` (the text after `scheme:`) looks like that scheme's syntax,
/// so that code such as `data::Matrix` or `data:expr` is not taken for a URI.
/// The checks are the first rule of each scheme's grammar, nothing more:
///
/// | scheme | body must |
/// |---|---|
/// | `mailto` | contain `@` or start with `?` (RFC 6068) |
/// | `data` | contain `,` (RFC 2397) |
/// | `urn` | be `NID:NSS` (RFC 8141) |
/// | `tel`, `fax`, `sms` | start with `+`, a digit or `*`/`#` |
/// | `geo` | start with a digit or `-` |
/// | `magnet` | start with `?` |
/// | `doi` | start with `10.` |
/// | `sip`, `sips`, `xmpp`, `im`, `pres` | start with a letter, digit or `%` and contain no `=` |
/// | `news` | be `*`, a group name (letter first) or a message-id (`@`) |
/// | `cid`, `mid` | contain `@` |
pub(crate) fn plausible_body(scheme: &[u8], body: &[u8]) -> bool {
    let first = body.first().copied().unwrap_or(0);
    let lower = scheme.to_ascii_lowercase();
    match lower.as_slice() {
        b"mailto" => body.contains(&b'@') || first == b'?',
        b"data" => body.contains(&b','),
        b"urn" => {
            let nid = body
                .iter()
                .take_while(|b| b.is_ascii_alphanumeric() || **b == b'-')
                .count();
            nid >= 1 && body.get(nid) == Some(&b':') && body.len() > nid + 1
        }
        b"tel" | b"fax" | b"sms" => {
            first == b'+' || first.is_ascii_digit() || first == b'*' || first == b'#'
        }
        b"geo" => first.is_ascii_digit() || first == b'-',
        b"magnet" => first == b'?',
        b"doi" => body.starts_with(b"10."),
        b"sip" | b"sips" | b"xmpp" | b"im" | b"pres" => {
            (first.is_ascii_alphanumeric() || first == b'%') && !body.contains(&b'=')
        }
        b"news" => first == b'*' || first.is_ascii_alphabetic() || body.contains(&b'@'),
        b"cid" | b"mid" => body.contains(&b'@'),
        _ => !body.is_empty(),
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_without_slashes_is_the_list() {
        for s in SCHEMES_WITHOUT_SLASHES {
            assert!(is_known_without_slashes(s.as_bytes()), "{s}");
            assert!(is_known_without_slashes(s.to_uppercase().as_bytes()), "{s}");
            // One byte more or less, or changed, is another word.
            assert!(!is_known_without_slashes(&s.as_bytes()[1..]) || s.len() == 1);
            assert!(!is_known_without_slashes(format!("{s}s").as_bytes()) || *s == "sip");
            assert!(!is_known_without_slashes(format!("x{s}").as_bytes()));
        }
        for w in [
            "", "http", "url", "note", "mailtos", "e", "URL", "std", "c", "re",
        ] {
            assert!(!is_known_without_slashes(w.as_bytes()), "{w}");
        }
    }
}
