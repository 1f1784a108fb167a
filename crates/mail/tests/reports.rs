//! Parts that mail readers show as text although their type is not
//! `text/*` (delivery reports, a multipart that cannot be split), and an
//! attachment cut short, which is not.

use urlsift_core::Extractor;

/// `(part, content_type, url)` for every URL of `mail`.
fn urls(mail: &str) -> Vec<(u32, String, String)> {
    let mut out = Vec::new();
    urlsift_mail::scan_archive(
        &Extractor::new(),
        mail.as_bytes(),
        |w, _, m| out.push((w.part, w.content_type.to_string(), m.url_str().to_string())),
        |_| {},
    );
    out
}

fn has(found: &[(u32, String, String)], ty: &str, url: &str) -> bool {
    found.iter().any(|(_, t, u)| t == ty && u == url)
}

/// A bounce as mailers write it (RFC 3464): the reason, with the page it
/// points to, is in the `message/delivery-status` part, and the returned
/// message's headers in a `message/rfc822-headers` part (a common label
/// for `text/rfc822-headers`).
const DSN: &str = "From: MAILER-DAEMON@mx.example\r\n\
Subject: Undelivered Mail Returned to Sender\r\n\
MIME-Version: 1.0\r\n\
Content-Type: multipart/report; report-type=delivery-status;\r\n\tboundary=\"B1\"\r\n\
\r\n\
--B1\r\n\
Content-Type: text/plain; charset=us-ascii\r\n\
\r\n\
Your message could not be delivered.\r\n\
--B1\r\n\
Content-Type: message/delivery-status\r\n\
\r\n\
Reporting-MTA: dns; mx.example\r\n\
\r\n\
Final-Recipient: rfc822; user@dest.example\r\n\
Action: failed\r\n\
Status: 5.7.1\r\n\
Diagnostic-Code: smtp; 550-5.7.1 blocked, see\r\n\
    https://support.dest.example/mail/?p=Unsolicited\r\n\
--B1\r\n\
Content-Type: message/rfc822-headers\r\n\
\r\n\
From: list@lists.example\r\n\
List-Unsubscribe: <https://lists.example/unsub?u=1>\r\n\
--B1--\r\n";

#[test]
fn delivery_status_and_returned_headers_are_read_as_text() {
    let found = urls(DSN);
    assert!(
        has(
            &found,
            "message/delivery-status",
            "https://support.dest.example/mail/?p=Unsolicited"
        ),
        "{found:?}"
    );
    assert!(
        has(
            &found,
            "message/rfc822-headers",
            "https://lists.example/unsub?u=1"
        ),
        "{found:?}"
    );
}

#[test]
fn delivery_status_is_read_beside_a_returned_message() {
    // A `message/rfc822` part sends the message to mail-parser rather than
    // the multipart walk: both read the report alike.
    let mail = DSN.replace(
        "--B1--\r\n",
        "--B1\r\nContent-Type: message/rfc822\r\n\r\nSubject: the original\r\n\r\n\
         body http://body.example/\r\n--B1--\r\n",
    );
    let found = urls(&mail);
    for (ty, url) in [
        (
            "message/delivery-status",
            "https://support.dest.example/mail/?p=Unsolicited",
        ),
        ("message/rfc822-headers", "https://lists.example/unsub?u=1"),
        ("text/plain", "http://body.example/"),
    ] {
        assert!(has(&found, ty, url), "{ty} {url}: {found:?}");
    }
}

#[test]
fn other_message_types_stay_skipped() {
    let mail = "Subject: x\nMIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=b\n\n\
                --b\nContent-Type: message/cpim\n\nFrom: <sip:alice@example.com>\n\
                NS: imdn <http://cpim.example/ns>\n--b--\n";
    assert_eq!(urls(mail), []);
}

#[test]
fn a_multipart_without_a_boundary_is_read_as_text() {
    // The boundary parameter is lost (cut off by a broken mailer): the
    // body cannot be split into parts, and a reader shows it as text.
    let mail = "From: a@b.example\nSubject: x\nMIME-Version: 1.0\n\
                Content-Type: multipart/report; report-type=delivery-status;\n\tbo\n\n\
                This is a MIME-encapsulated message\n\n--JAB03225\n\n\
                List-Archive: <http://lists.example/pipermail/l/>\n--JAB03225--\n";
    let found = urls(mail);
    assert!(
        has(
            &found,
            "multipart/report",
            "http://lists.example/pipermail/l/"
        ),
        "{found:?}"
    );
}

#[test]
fn an_attachment_cut_short_is_scanned_as_written_not_decoded() {
    // The closing boundary is missing (the message is truncated), so
    // mail-parser cannot end the last part. The attachment is a PDF whose
    // metadata names http://ns.example/xmp: no reader shows it, and it is
    // not decoded; a URL written in the part as it is still counts.
    let pdf = "%PDF-1.5 <x:xmpmeta xmlns:x=\"http://ns.example/xmp\"/> %%EOF";
    let b64 = base64(pdf.as_bytes());
    let mail = format!(
        "Subject: x\nMIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=b\n\n\
         --b\nContent-Type: text/plain\n\nsee http://text.example/\n\
         --b\nContent-Type: application/pdf\nContent-Transfer-Encoding: base64\n\n{b64}\n\
         http://written.example/\n"
    );
    let found = urls(&mail);
    let all: Vec<&str> = found.iter().map(|(_, _, u)| u.as_str()).collect();
    assert!(all.contains(&"http://text.example/"), "{found:?}");
    assert!(all.contains(&"http://written.example/"), "{found:?}");
    assert!(!all.contains(&"http://ns.example/xmp"), "{found:?}");
}

fn base64(data: &[u8]) -> String {
    const T: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for c in data.chunks(3) {
        let n = c
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, &b)| n | u32::from(b) << (16 - 8 * i));
        for i in 0..4 {
            out.push(if i <= c.len() {
                T[(n >> (18 - 6 * i) & 63) as usize] as char
            } else {
                '='
            });
        }
    }
    out
}
