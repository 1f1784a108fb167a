//! Property tests of the internal helpers on arbitrary and mail-like bytes:
//! the transfer decoders, the mbox splitter and unquoting, the header
//! helpers. None may panic; the decoders invert simple encoders; the
//! splitter's ranges and unquoting's offset map stay within the input.

use proptest::prelude::*;

use super::decode::{self, Base64End};
use super::{mbox, message, simple};

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
/// else (line breaks included) as `=XX`, soft line breaks every 72 bytes
/// (`=` CRLF or `=` with trailing white space).
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

/// Bytes built from pieces of mbox archives and MIME messages, with some
/// arbitrary bytes among them, so the splitter and unquoting meet separator
/// lines, quoted `>From ` lines and headers.
fn mail_like() -> impl Strategy<Value = Vec<u8>> {
    let piece = prop_oneof![
        Just(b"From a@b Sat Jan  1 00:00:00 2000\n".to_vec()),
        Just(b">From x\n".to_vec()),
        Just(b">>From y\n".to_vec()),
        Just(b"From \n".to_vec()),
        Just(b"Subject: hi\n".to_vec()),
        Just(b"Content-Type: text/plain\n".to_vec()),
        Just(b"Content-Transfer-Encoding: base64\n".to_vec()),
        Just(b" folded\r\n".to_vec()),
        Just(b"\n".to_vec()),
        Just(b"\r\n".to_vec()),
        Just(b"http://example.com/a=3D1\n".to_vec()),
        proptest::collection::vec(any::<u8>(), 0..12),
    ];
    proptest::collection::vec(piece, 0..40).prop_map(|v| v.concat())
}

fn any_bytes() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![proptest::collection::vec(any::<u8>(), 0..600), mail_like()]
}

proptest! {
    #[test]
    fn decoders_take_any_bytes(data in any_bytes()) {
        let mut out = Vec::new();
        decode::quoted_printable(&data, &mut out);
        out.clear();
        if let Base64End::Invalid(i) = decode::base64(&data, &mut out) {
            prop_assert!(i < data.len(), "Invalid({}) past the end", i);
        }
    }

    #[test]
    fn decoders_invert_encoders(data in proptest::collection::vec(any::<u8>(), 0..600)) {
        let mut out = Vec::new();
        prop_assert_eq!(decode::base64(&base64_encode(&data), &mut out), Base64End::Complete);
        prop_assert_eq!(&out, &data, "base64 round trip");
        out.clear();
        decode::quoted_printable(&qp_encode(&data), &mut out);
        prop_assert_eq!(&out, &data, "quoted-printable round trip");
    }

    #[test]
    fn header_helpers_take_any_bytes(data in any_bytes()) {
        let unfolded = message::unfold(&data);
        prop_assert!(unfolded.len() <= data.len());
        if let Some(s) = simple::parse(&data) {
            prop_assert!(s.body <= data.len());
        }
        if mbox::is_mbox(&data) {
            prop_assert!(mbox::looks_like_mail(&data));
        }
    }

    #[test]
    fn split_and_unquote_stay_in_the_input(data in any_bytes()) {
        for r in mbox::split(&data) {
            prop_assert!(r.start <= r.end && r.end <= data.len(), "split range {:?}", r);
            let msg = &data[r.clone()];
            let u = mbox::unquote(msg);
            for (k, &b) in u.text.iter().enumerate() {
                prop_assert_eq!(msg.get(u.original(k)), Some(&b), "unquote offset {} maps wrong", k);
            }
        }
    }
}
