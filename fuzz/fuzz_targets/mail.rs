//! The mail input path never panics on arbitrary bytes: the transfer
//! decoders, the mbox splitter, the header helpers and `scan_archive`.
//! The decoders also invert simple encoders: decode(encode(x)) == x.
#![no_main]

use libfuzzer_sys::fuzz_target;
use urlsift_core::{Extractor, Isa};
use urlsift_mail::{self as mail, decode, mbox, message, simple};

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// RFC 2045 base64 with `=` padding, lines of 76 characters ending in CRLF.
fn base64_encode(src: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut line = 0;
    for c in src.chunks(3) {
        let w = u32::from(c[0]) << 16
            | u32::from(*c.get(1).unwrap_or(&0)) << 8
            | u32::from(*c.get(2).unwrap_or(&0));
        let n = c.len() + 1;
        for k in 0..4 {
            out.push(if k < n {
                ALPHABET[(w >> (18 - 6 * k) & 63) as usize]
            } else {
                b'='
            });
        }
        line += 4;
        if line >= 76 {
            out.extend_from_slice(b"\r\n");
            line = 0;
        }
    }
    out
}

/// RFC 2045 quoted-printable: printable ASCII but `=` literally, everything
/// else (line breaks included) as `=XX`, soft line breaks every 72 bytes.
fn qp_encode(src: &[u8]) -> Vec<u8> {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    let mut out = Vec::new();
    let mut line = 0;
    for &b in src {
        if (b'!'..=b'~').contains(&b) && b != b'=' {
            out.push(b);
            line += 1;
        } else {
            out.extend_from_slice(&[b'=', HEX[usize::from(b >> 4)], HEX[usize::from(b & 15)]]);
            line += 3;
        }
        if line >= 72 {
            out.extend_from_slice(if b & 1 == 0 { b"=\r\n" } else { b"= \t\n" });
            line = 0;
        }
    }
    out
}

fuzz_target!(
    init: {
        // mail-parser panics on some malformed messages; scan_archive catches
        // that and reports the message as a problem, so such a panic is not a
        // failure. libfuzzer-sys's hook aborts on every panic, caught or not:
        // it runs for every other panic.
        let abort_hook = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if info.location().is_some_and(|l| l.file().contains("mail-parser")) {
                return;
            }
            abort_hook(info);
        }));
    },
    |data: &[u8]| {
    // Decoders on arbitrary bytes.
    let mut out = Vec::new();
    decode::quoted_printable(data, &mut out);
    out.clear();
    let end = decode::base64(data, &mut out);
    if let decode::Base64End::Invalid(i) = end {
        assert!(i < data.len(), "Invalid({i}) past the end");
    }

    // Round trips.
    out.clear();
    assert_eq!(
        decode::base64(&base64_encode(data), &mut out),
        decode::Base64End::Complete
    );
    assert_eq!(out, data, "base64 round trip");
    out.clear();
    decode::quoted_printable(&qp_encode(data), &mut out);
    assert_eq!(out, data, "quoted-printable round trip");

    // Helpers.
    let _ = message::unfold(data);
    let _ = simple::parse(data);
    let _ = mbox::is_mbox(data);
    let _ = mbox::looks_like_mail(data);
    let msgs = mbox::split(data);
    for r in &msgs {
        assert!(
            r.start <= r.end && r.end <= data.len(),
            "split range {r:?} out of bounds"
        );
        let u = mbox::unquote(&data[r.clone()]);
        let msg = &data[r.clone()];
        for (k, &b) in u.text.iter().enumerate() {
            assert_eq!(
                msg.get(u.original(k)),
                Some(&b),
                "unquote offset {k} maps wrong"
            );
        }
    }

    // The whole archive path.
    let ex = Extractor::with_isa(Isa::Scalar).unwrap();
    let _ = mail::scan_archive(&ex, data, |_, _, _| {}, |_| {});
});
