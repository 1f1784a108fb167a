//! RFC 2047 encoded words in header blocks (`=?utf-8?q?...?=`,
//! `=?iso-8859-1?b?...?=`), decoded before the (unfolded) headers are
//! scanned, so a URL in an encoded Subject or display name is found.
//!
//! The rule: an encoded word is `=?charset?Q?text?=` or `=?charset?B?text?=`
//! (either case; `charset*language` allowed), with no blanks and no `?` in
//! its text, that stands alone: it starts the block or follows a blank, a
//! line end or one of `( " ' : , <`, and it ends the block or is followed by
//! a blank, a line end or one of `) " ' , > ;`. Q text gives `_` as a space
//! and `=XX` as its byte; B text is base64 (bad base64 leaves the word as
//! written). The bytes are converted from the charset to UTF-8 (mail-parser's
//! charset tables); a word in a charset that is not known is left as written.
//! Blanks between two encoded words are removed (RFC 2047 6.2). One pass,
//! linear in the block.

use std::borrow::Cow;

use mail_parser::decoders::charsets::map::charset_decoder;

use super::decode::{self, Base64End};

/// The longest charset name looked at.
const MAX_CHARSET: usize = 40;

/// Decode the encoded words of `text`; borrows when there are none.
pub(crate) fn decode_words(text: &[u8]) -> Cow<'_, [u8]> {
    let mut out: Option<Vec<u8>> = None;
    // Where the text not yet copied starts; where the last word ended.
    let mut copied = 0;
    let mut last_word_end = None;
    let mut search = 0;
    while let Some(n) = memchr::memmem::find(&text[search..], b"=?") {
        let at = search + n;
        let Some((end, decoded)) = word(text, at) else {
            search = at + 2;
            continue;
        };
        let o = out.get_or_insert_with(|| Vec::with_capacity(text.len()));
        let between = &text[copied..at];
        let only_blanks = between.iter().all(|&b| b == b' ' || b == b'\t');
        if !(last_word_end == Some(copied) && only_blanks) {
            o.extend_from_slice(between);
        }
        o.extend_from_slice(&decoded);
        copied = end;
        last_word_end = Some(end);
        search = end;
    }
    match out {
        None => Cow::Borrowed(text),
        Some(mut o) => {
            o.extend_from_slice(&text[copied..]);
            Cow::Owned(o)
        }
    }
}

fn starts_word(b: Option<&u8>) -> bool {
    b.is_none_or(|&b| b" \t\r\n(\"':,<".contains(&b))
}

fn ends_word(b: Option<&u8>) -> bool {
    b.is_none_or(|&b| b" \t\r\n)\"',>;".contains(&b))
}

/// The encoded word at `at` (which starts `=?`): its end and its text.
fn word(text: &[u8], at: usize) -> Option<(usize, Vec<u8>)> {
    if at > 0 && !starts_word(text.get(at - 1)) {
        return None;
    }
    let rest = &text[at + 2..];
    let q1 = rest.iter().take(MAX_CHARSET + 1).position(|&b| b == b'?')?;
    let charset = &rest[..q1];
    let charset = charset.split(|&b| b == b'*').next().unwrap_or_default();
    if charset.is_empty() || !charset.iter().all(|&b| b.is_ascii_graphic()) {
        return None;
    }
    let enc = *rest.get(q1 + 1)?;
    if rest.get(q1 + 2) != Some(&b'?') {
        return None;
    }
    let body_start = q1 + 3;
    let len = rest[body_start..]
        .iter()
        .position(|&b| b == b'?' || b.is_ascii_whitespace())?;
    let body = &rest[body_start..body_start + len];
    if rest.get(body_start + len..body_start + len + 2) != Some(b"?=") {
        return None;
    }
    let end = at + 2 + body_start + len + 2;
    if !ends_word(text.get(end)) {
        return None;
    }
    let mut bytes = Vec::with_capacity(body.len());
    match enc {
        b'q' | b'Q' => q_decode(body, &mut bytes),
        b'b' | b'B' => {
            if decode::base64(body, &mut bytes) != Base64End::Complete {
                return None;
            }
        }
        _ => return None,
    }
    let cs = String::from_utf8_lossy(charset);
    let utf8 = ["utf-8", "utf8", "us-ascii", "ascii"]
        .iter()
        .any(|c| cs.eq_ignore_ascii_case(c));
    if utf8 {
        return Some((end, bytes));
    }
    let dec = charset_decoder(charset)?;
    Some((end, dec(&bytes).into_bytes()))
}

/// RFC 2047 4.2: `_` is a space, `=XX` a byte, anything else itself.
fn q_decode(body: &[u8], out: &mut Vec<u8>) {
    let mut i = 0;
    while i < body.len() {
        match body[i] {
            b'_' => out.push(b' '),
            b'=' => {
                let hex = |b: u8| (b as char).to_digit(16);
                match (
                    body.get(i + 1).and_then(|&b| hex(b)),
                    body.get(i + 2).and_then(|&b| hex(b)),
                ) {
                    (Some(h), Some(l)) => {
                        out.push((h << 4 | l) as u8);
                        i += 3;
                        continue;
                    }
                    _ => out.push(b'='),
                }
            }
            b => out.push(b),
        }
        i += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(s: &str) -> String {
        String::from_utf8(decode_words(s.as_bytes()).into_owned()).unwrap()
    }

    #[test]
    fn decodes_encoded_words() {
        assert_eq!(
            d("Subject: =?utf-8?q?see_http://example.com/a=3Fb=3D1?=\n"),
            "Subject: see http://example.com/a?b=1\n"
        );
        assert_eq!(
            d("Subject: =?UTF-8?B?aHR0cDovL2V4YW1wbGUuY29tL2I=?= ok\n"),
            "Subject: http://example.com/b ok\n"
        );
        // Blanks between words go; other text stays.
        assert_eq!(d("S: =?utf-8?q?a?= =?utf-8?q?b?= c\n"), "S: ab c\n");
        assert_eq!(d("S: =?iso-8859-1*fr?q?caf=E9?=\n"), "S: café\n");
        // Not encoded words: left as they are.
        for s in [
            "S: http://x/?a=?utf-8?q?b?=\n",
            "S: =?unknown-cs?q?a?=\n",
            "S: =?utf-8?x?a?=\n",
            "S: =?utf-8?q?a b?=\n",
            "S: =?utf-8?b?!!!!?=\n",
            "S: =?utf-8?q?a?=b\n",
            "S: =?=?\n",
        ] {
            assert_eq!(d(s), s);
        }
        assert!(matches!(decode_words(b"plain: header\n"), Cow::Borrowed(_)));
    }
}
