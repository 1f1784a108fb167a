//! Hosts (RFC 3986 3.2.2): IPv4 addresses, IPv6 and IPvFuture literals.
//!
//! ```text
//! IP-literal    = "[" ( IPv6address / IPvFuture  ) "]"
//! IPvFuture     = "v" 1*HEXDIG "." 1*( unreserved / sub-delims / ":" )
//! IPv6address   =                            6( h16 ":" ) ls32
//!               /                       "::" 5( h16 ":" ) ls32
//!               / [               h16 ] "::" 4( h16 ":" ) ls32
//!               / [ *1( h16 ":" ) h16 ] "::" 3( h16 ":" ) ls32
//!               / [ *2( h16 ":" ) h16 ] "::" 2( h16 ":" ) ls32
//!               / [ *3( h16 ":" ) h16 ] "::"    h16 ":"   ls32
//!               / [ *4( h16 ":" ) h16 ] "::"              ls32
//!               / [ *5( h16 ":" ) h16 ] "::"              h16
//!               / [ *6( h16 ":" ) h16 ] "::"
//! ls32          = ( h16 ":" h16 ) / IPv4address
//! h16           = 1*4HEXDIG
//! IPv4address   = dec-octet "." dec-octet "." dec-octet "." dec-octet
//! dec-octet     = DIGIT / %x31-39 DIGIT / "1" 2DIGIT / "2" %x30-34 DIGIT / "25" %x30-35
//! ```
//!
//! The nine IPv6 forms are one rule: at most one `::`, which stands for at
//! least one zero group; without it exactly 8 pieces, with it at most 7
//! (an IPv4 tail counts as 2 pieces and may only come last). The parser
//! below checks that left to right, so an error points at the first byte
//! that cannot continue an address.

use super::validate::{TABLE, USERINFO, at, is_hex};
use super::{Error, ErrorKind};

/// True if `s` is exactly an RFC 3986 `IPv4address` (no leading zeros, 0-255).
///
/// ```
/// assert!(urlsift_uri::host::is_ipv4(b"192.0.2.255"));
/// assert!(!urlsift_uri::host::is_ipv4(b"192.0.2.01"));
/// ```
pub fn is_ipv4(s: &[u8]) -> bool {
    ipv4(s, 0) == Ok(s.len())
}

/// True if `s` is exactly an RFC 3986 `IPv6address` (no brackets, no zone).
///
/// ```
/// assert!(urlsift_uri::host::is_ipv6(b"::ffff:192.0.2.1"));
/// assert!(!urlsift_uri::host::is_ipv6(b"1::2::3"));
/// ```
pub fn is_ipv6(s: &[u8]) -> bool {
    ipv6(s, 0) == Ok(s.len())
}

/// One dec-octet at `i`; returns its end or the index of the offending byte.
fn dec_octet(t: &[u8], i: usize) -> Result<usize, usize> {
    let d = at(t, i);
    if !d.is_ascii_digit() {
        return Err(i);
    }
    if d == b'0' {
        return Ok(i + 1);
    }
    let mut v = u32::from(d - b'0');
    let mut j = i + 1;
    while j < i + 3 && at(t, j).is_ascii_digit() {
        v = v * 10 + u32::from(at(t, j) - b'0');
        if v > 255 {
            return Err(j);
        }
        j += 1;
    }
    Ok(j)
}

/// An IPv4address at `i`; returns its end (the caller checks what follows).
pub(crate) fn ipv4(t: &[u8], i: usize) -> Result<usize, usize> {
    let mut j = dec_octet(t, i)?;
    for _ in 0..3 {
        if at(t, j) != b'.' {
            return Err(j);
        }
        j = dec_octet(t, j + 1)?;
    }
    Ok(j)
}

/// An IPv6address at `i`; returns its end (the caller checks what follows).
pub(crate) fn ipv6(t: &[u8], start: usize) -> Result<usize, usize> {
    let mut i = start;
    let mut pieces = 0u32;
    let mut double = false;
    if at(t, i) == b':' {
        if at(t, i + 1) != b':' {
            return Err(i + 1);
        }
        double = true;
        i += 2;
        if !is_hex(at(t, i)) {
            return Ok(i);
        }
    }
    loop {
        let seg = i;
        let mut n = 0;
        while n < 4 && is_hex(at(t, i)) {
            i += 1;
            n += 1;
        }
        if n == 0 {
            return Err(i);
        }
        let max = if double { 7 } else { 8 };
        if at(t, i) == b'.' {
            // ls32 as an IPv4address: the last two pieces.
            if n == 4 || pieces + 2 > max || (!double && pieces != 6) {
                return Err(i);
            }
            return ipv4(t, seg);
        }
        pieces += 1;
        if at(t, i) != b':' {
            return if double || pieces == 8 { Ok(i) } else { Err(i) };
        }
        if pieces == max {
            return Err(i);
        }
        if at(t, i + 1) == b':' {
            if double {
                return Err(i + 1);
            }
            double = true;
            i += 2;
            if !is_hex(at(t, i)) {
                return Ok(i);
            }
            if pieces >= 7 {
                return Err(i);
            }
        } else {
            i += 1;
        }
    }
}

/// `"v" 1*HEXDIG "." 1*( unreserved / sub-delims / ":" )` at `i` (at the `v`).
fn ipvfuture(t: &[u8], i: usize) -> Result<usize, usize> {
    let mut j = i + 1;
    while is_hex(at(t, j)) {
        j += 1;
    }
    if j == i + 1 || at(t, j) != b'.' {
        return Err(j);
    }
    j += 1;
    let s = j;
    while TABLE[at(t, j) as usize] & USERINFO != 0 {
        j += 1;
    }
    if j == s { Err(j) } else { Ok(j) }
}

/// The inside of an IP literal starting at `i` (just after `[`); returns the
/// index after the closing `]`.
pub(crate) fn ip_literal(t: &[u8], i: usize) -> Result<usize, Error> {
    let (end, kind) = if matches!(at(t, i), b'v' | b'V') {
        (ipvfuture(t, i), ErrorKind::IpvFuture)
    } else {
        (ipv6(t, i), ErrorKind::Ipv6)
    };
    let end = end.map_err(|index| Error { index, kind })?;
    match t.get(end) {
        Some(b']') => Ok(end + 1),
        None | Some(b'/' | b'?' | b'#') => Err(Error {
            index: end,
            kind: ErrorKind::UnclosedBracket,
        }),
        Some(_) => Err(Error { index: end, kind }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nine_forms() {
        for s in [
            "1:2:3:4:5:6:7:8",
            "1:2:3:4:5:6:1.2.3.4",
            "::2:3:4:5:6:7:8",
            "::2:3:4:5:6:1.2.3.4",
            "1::3:4:5:6:7:8",
            "::3:4:5:6:7:8",
            "1::4:5:6:7:8",
            "1:2::4:5:6:7:8",
            "1:2:3::5:6:7:8",
            "1:2:3:4::6:7:8",
            "1:2:3:4:5::7:8",
            "1:2:3:4:5:6::8",
            "1:2:3:4:5:6:7::",
            "1::8",
            "::8",
            "1::",
            "::",
            "::1.2.3.4",
            "1::1.2.3.4",
            "1:2:3:4:5::1.2.3.4",
            "ABCD:ef01::",
        ] {
            assert!(is_ipv6(s.as_bytes()), "{s}");
        }
        for s in [
            "1:2:3:4:5:6:7",
            "1:2:3:4:5:6:7:8:9",
            "1::2:3:4:5:6:7:8",
            "1:2:3:4:5:6::1.2.3.4",
            "1:2:3:4:5:6:7:1.2.3.4",
            ":1::",
            "1::2::3",
            "12345::",
            "::1.2.3",
            "::1.2.3.04",
            "::256.1.1.1",
            "1:2:3:4:5:6:7:8::",
            "",
            ":",
            ":::",
        ] {
            assert!(!is_ipv6(s.as_bytes()), "{s}");
        }
    }

    #[test]
    fn ipv4_octets() {
        assert!(is_ipv4(b"0.0.0.0"));
        assert!(is_ipv4(b"255.255.255.255"));
        assert!(is_ipv4(b"249.199.99.9"));
        for s in [
            "256.0.0.0",
            "1.2.3",
            "1.2.3.4.",
            "01.2.3.4",
            "1.2.3.4.5",
            "a.b.c.d",
            "",
        ] {
            assert!(!is_ipv4(s.as_bytes()), "{s}");
        }
    }
}
