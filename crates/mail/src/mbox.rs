//! mbox archives: finding the messages (`From ` separator lines) and undoing
//! mboxrd `>From ` quoting.
//!
//! A separator is a line that starts with `From ` at the start of the file
//! (after any blank lines in its first 4 KiB: the first message's) or
//! after a newline, and that is either preceded by a blank line (as mbox(5)
//! writes it) or followed by a header line (`Name: value`). The second rule
//! accepts archives written without blank lines; the first keeps an unquoted
//! `From ` line in a body (mboxo) from splitting a message, unless the line
//! after it also looks like a header.

use std::borrow::Cow;
use std::ops::Range;

use memchr::memmem;

/// True if `data` looks like an mbox archive: it starts with a `From ` line
/// followed by a header line.
pub(crate) fn is_mbox(data: &[u8]) -> bool {
    data.starts_with(b"From ") && header_like(next_line(data, 0))
}

/// True if `data` looks like a mail message or archive (for the hint that
/// suggests `--mail`): an mbox, or a first line that is a common mail header.
pub(crate) fn looks_like_mail(data: &[u8]) -> bool {
    if is_mbox(data) {
        return true;
    }
    const FIRST: &[&[u8]] = &[
        b"return-path:",
        b"received:",
        b"delivered-to:",
        b"x-original-to:",
        b"message-id:",
        b"path:",
        b"mime-version:",
    ];
    let head = &data[..data.len().min(20)];
    FIRST
        .iter()
        .any(|h| head.len() >= h.len() && head[..h.len()].eq_ignore_ascii_case(h))
}

/// True if `data` can be mail at all: after any leading blank lines, it
/// starts with an mbox `From ` line, or with a header block (`Name: value`
/// lines, the name of letters, digits, `-` and `_`, and their folded
/// continuation lines) in which at least one field is a mail or news header
/// (`is_mail_field`). Only the first [`crate::HEAD`] bytes are read, so a
/// file and a stream of the same bytes are judged alike. An input that is
/// not mail is scanned as plain text under `--mail`: a list of URLs
/// (`http://...` has the shape of a field) or a log (`12:00:01 ...`) has
/// no mail field.
///
/// ```
/// use urlsift_mail::mbox::starts_like_mail;
/// assert!(starts_like_mail(b"From a@b Mon Jan  1 00:00:00 2024\nTo: x\n"));
/// assert!(starts_like_mail(b"\nX-Mailer: m\nSubject: hi\n\nbody\n"));
/// assert!(starts_like_mail(b"Subject: a long\n subject\nTo: x\n\nbody"));
/// assert!(!starts_like_mail(b"http://a.example/\nhttp://b.example/\n"));
/// assert!(!starts_like_mail(b"12:00:01 GET /index.html\n"));
/// assert!(!starts_like_mail(b"Note: see below\nSubject to change.\n"));
/// ```
pub fn starts_like_mail(data: &[u8]) -> bool {
    // The head alone is judged, and a full head may end inside a line:
    // every caller (with the head or with more) decides alike.
    let cut = data.len() >= crate::HEAD;
    let data = &data[..data.len().min(crate::HEAD)];
    let (first, mut d) = from_first_line(data);
    if first == data.len() || d.starts_with(b"From ") {
        return true;
    }
    let whole = if cut {
        // The last line may be cut at the head's end: it is judged only if
        // its field name is whole (a `:` within its first 80 bytes).
        memchr::memrchr(b'\n', d).map_or(0, |n| n + 1)
    } else {
        d.len()
    };
    if cut && d.len() - whole < 80 && memchr::memchr(b':', &d[whole..]).is_none() {
        d = &d[..whole.saturating_sub(1)];
    }
    header_says(d).unwrap_or(false)
}

/// The offset of the first byte of `data` that is not blank (its length if
/// none), and `data` from the start of that byte's line.
fn from_first_line(data: &[u8]) -> (usize, &[u8]) {
    let first = data
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(data.len());
    let start = data[..first]
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |n| n + 1);
    (first, &data[start..])
}

/// What the lines of `d` say of a header block, in order: mail at the
/// first mail field, not mail at a line that is not a field or at the
/// blank line that ends the block; `None` when its lines end first.
fn header_says(d: &[u8]) -> Option<bool> {
    for (i, line) in d.split(|&b| b == b'\n').enumerate() {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        match line.first() {
            None => return Some(false),              // the end of the header block
            Some(b' ' | b'\t') if i > 0 => continue, // a folded field
            _ => match field_name(line) {
                Some(name) if is_mail_field(name) => return Some(true),
                Some(_) => {}
                None => return Some(false),
            },
        }
    }
    None
}

/// Whether [`starts_like_mail`] (and [`crate::is_plain_text`]) on `data`,
/// a stream's start that may be cut short (it paused), gives the answer it
/// gives on any longer start of the same stream: `data` holds the whole
/// [`crate::HEAD`], or the first line that is not blank is an mbox `From `
/// line, or whole lines (each ended by a newline) decide it. Lines shaped
/// like fields with no mail field among them (a list of URLs, a log) leave
/// it undecided until a line that is not a field, a blank line, or the
/// whole head.
///
/// ```
/// use urlsift_mail::mbox::decided_early;
/// assert!(decided_early(b"\nFrom a@b Mon Jan  1 00:00:00 2024\n"));
/// assert!(decided_early(b"X-Spam: no\nSubject: hi"));
/// assert!(decided_early(b"Note: see below\nSubject to change.\n"));
/// // Field-shaped lines with no mail field: more may follow.
/// assert!(!decided_early(b"http://a.example/\nhttp://b.example/\n"));
/// assert!(!decided_early(b"Fro"));
/// assert!(!decided_early(b"Foo: no\nSubj"));
/// ```
pub fn decided_early(data: &[u8]) -> bool {
    if data.len() >= crate::HEAD {
        return true;
    }
    let (first, d) = from_first_line(data);
    if first == data.len() {
        return false;
    }
    if d.starts_with(b"From ") {
        return true;
    }
    // `From` cut short has no newline: undecided, as any cut line.
    memchr::memrchr(b'\n', d).is_some_and(|n| header_says(&d[..n]).is_some())
}

/// The name of a header field line (`Name: value`), if it is one: letters,
/// digits, `-` and `_`, then `:`.
fn field_name(line: &[u8]) -> Option<&[u8]> {
    let n = line
        .iter()
        .take(80)
        .take_while(|b| b.is_ascii_alphanumeric() || **b == b'-' || **b == b'_')
        .count();
    (n > 0 && line.get(n) == Some(&b':')).then(|| &line[..n])
}

/// True if `name` is a field of mail (RFC 5322, MIME, mailing lists,
/// transport and authentication) or of news (RFC 5536), or an extension
/// field (`X-...`), whatever its case.
pub(crate) fn is_mail_field(name: &[u8]) -> bool {
    const NAMES: &[&[u8]] = &[
        b"from",
        b"to",
        b"cc",
        b"bcc",
        b"subject",
        b"date",
        b"message-id",
        b"sender",
        b"reply-to",
        b"in-reply-to",
        b"references",
        b"comments",
        b"keywords",
        b"received",
        b"return-path",
        b"delivered-to",
        b"envelope-to",
        b"mime-version",
        b"organization",
        b"user-agent",
        b"importance",
        b"priority",
        b"precedence",
        b"thread-topic",
        b"thread-index",
        b"authentication-results",
        b"received-spf",
        b"newsgroups",
        b"path",
        b"followup-to",
        b"distribution",
        b"lines",
        b"xref",
        b"nntp-posting-host",
        b"nntp-posting-date",
        b"injection-info",
        b"injection-date",
        b"approved",
        b"expires",
        b"summary",
    ];
    const PREFIXES: &[&[u8]] = &[
        b"x-",
        b"content-",
        b"list-",
        b"resent-",
        b"dkim-",
        b"arc-",
        b"original-",
    ];
    NAMES.iter().any(|n| name.eq_ignore_ascii_case(n))
        || PREFIXES
            .iter()
            .any(|p| name.len() > p.len() && name[..p.len()].eq_ignore_ascii_case(p))
}

/// The line after the one that starts at `at` (empty at the end, or when
/// the line at `at` is longer than [`FROM_LINE_MAX`]).
fn next_line(data: &[u8], at: usize) -> &[u8] {
    let end = data.len().min(at.saturating_add(FROM_LINE_MAX + 1));
    match memchr::memchr(b'\n', &data[at..end]) {
        Some(n) => {
            let s = at + n + 1;
            let e = memchr::memchr(b'\n', &data[s..]).map_or(data.len(), |k| s + k);
            &data[s..e]
        }
        None => &[],
    }
}

/// `Name: value`: a field name of printable ASCII without spaces, then `:`.
fn header_like(line: &[u8]) -> bool {
    let lim = line.len().min(HEADER_LOOK);
    match memchr::memchr(b':', &line[..lim]) {
        Some(0) | None => false,
        Some(c) => line[..c].iter().all(|&b| (b'!'..=b'~').contains(&b)),
    }
}

/// Split `data` into messages. A file that is not an mbox is one message.
///
/// Each message's range leaves out its `From ` line. A `From ` line is a
/// message's first if a blank line comes before it, or if the line after
/// it looks like a header field; so whether one starts a message depends
/// on the bytes before it and at most `DECIDED_AFTER` after it.
///
/// ```
/// let mbox = b"From a\nSubject: x\n\nbody\n\nFrom b\nSubject: y\n\nmore\n";
/// let msgs = urlsift_mail::mbox::split(mbox);
/// assert_eq!(msgs.len(), 2);
/// assert!(mbox[msgs[1].clone()].starts_with(b"Subject: y"));
/// ```
pub fn split(data: &[u8]) -> Vec<Range<usize>> {
    let Some(first) = mbox_start(data) else {
        #[allow(clippy::single_range_in_vec_init)] // one message: the whole file
        return vec![0..data.len()];
    };
    split_from(data, first)
}

/// [`split`] of an mbox's bytes that start within a `From ` line that
/// starts a message (its start let go, see `read_archive`).
pub(crate) fn split_in_from_line(data: &[u8]) -> Vec<Range<usize>> {
    split_from(data, 0)
}

/// The messages of `data`, the first starting with the `From ` line at
/// `first`.
fn split_from(data: &[u8], first: usize) -> Vec<Range<usize>> {
    let mut starts = vec![first];
    starts.extend(message_starts(data, first));
    messages(data, &starts)
}

/// Where the first `From ` line of an mbox starts: `data`'s start, or the
/// start of its first line that is not blank, within its first
/// [`crate::HEAD`] bytes. `None`: not an mbox.
pub(crate) fn mbox_start(data: &[u8]) -> Option<usize> {
    first_line_start(data).filter(|&start| data[start..].starts_with(b"From "))
}

/// Where the first line of `data` that is not blank starts, if it starts
/// within the first [`crate::HEAD`] bytes.
fn first_line_start(data: &[u8]) -> Option<usize> {
    let head = &data[..data.len().min(crate::HEAD)];
    let (first, line) = from_first_line(head);
    (first < head.len()).then_some(head.len() - line.len())
}

/// Whether the first bytes of a stream, `data`, are enough to say what
/// [`mbox_start`] says of the whole stream.
pub(crate) fn mbox_start_known(data: &[u8]) -> bool {
    match first_line_start(data) {
        // The first line that is not blank is a `From ` line or not.
        Some(start) => data.len() - start >= 5 || !b"From ".starts_with(&data[start..]),
        // Blank so far: known once the head is.
        None => data.len() >= crate::HEAD,
    }
}

/// [`split`] of an mbox's bytes from within a message on: the range from
/// `from` to the first `From ` line after it that starts a message, then
/// the messages after it (each without its `From ` line). The bytes before
/// `from` (two are enough) say whether a `From ` line right after it
/// follows a blank line.
pub(crate) fn split_within(data: &[u8], from: usize) -> Vec<Range<usize>> {
    let starts = message_starts(data, from);
    let before = from..starts.first().copied().unwrap_or(data.len());
    let mut out = Vec::with_capacity(starts.len() + 1);
    out.push(before);
    out.extend(messages(data, &starts));
    out
}

/// Where the `From ` lines that start a message are, after `from`: a
/// `From ` line after a blank line, or followed by a header-like line.
fn message_starts(data: &[u8], from: usize) -> Vec<usize> {
    let mut starts = Vec::new();
    for p in memmem::find_iter(&data[from.min(data.len())..], b"\nFrom ").map(|p| p + from) {
        let blank_before = (p >= 1 && data[p - 1] == b'\n')
            || (p >= 2 && data[p - 1] == b'\r' && data[p - 2] == b'\n');
        if blank_before || header_like(next_line(data, p + 1)) {
            starts.push(p + 1);
        }
    }
    starts
}

/// The messages that start at `starts` (sorted), each without its `From `
/// line, the last to the end of `data`.
fn messages(data: &[u8], starts: &[usize]) -> Vec<Range<usize>> {
    let mut out = Vec::with_capacity(starts.len());
    for (i, &s) in starts.iter().enumerate() {
        let end = starts.get(i + 1).copied().unwrap_or(data.len());
        let body = memchr::memchr(b'\n', &data[s..end]).map_or(end, |n| s + n + 1);
        out.push(body..end);
    }
    out
}

/// The longest `From ` line read as one: a longer one starts a message
/// only after a blank line.
const FROM_LINE_MAX: usize = 4096;

/// Whether a `From ` line starts a message is decided by at most this
/// many bytes after the line's start (the line, and the start of the next).
pub(crate) const DECIDED_AFTER: usize = FROM_LINE_MAX + 1 + HEADER_LOOK;

/// How much of a line [`header_like`] reads.
const HEADER_LOOK: usize = 80;

/// A message with mboxrd quoting undone (`>From ` -> `From `, `>>From ` ->
/// `>From `), and where bytes were removed, to map offsets back.
pub(crate) struct Unquoted<'a> {
    /// The unquoted message.
    pub text: Cow<'a, [u8]>,
    /// For each removed `>`: its offset in `text` coordinates (where the
    /// byte after it landed), ascending.
    removed: Vec<usize>,
}

impl<'a> Unquoted<'a> {
    /// A message that needs no unquoting (not from an mbox).
    pub(crate) fn borrowed(msg: &'a [u8]) -> Unquoted<'a> {
        Unquoted {
            text: Cow::Borrowed(msg),
            removed: Vec::new(),
        }
    }

    /// The offset in the original message of offset `u` in the unquoted one.
    pub(crate) fn original(&self, u: usize) -> usize {
        u + self.removed.partition_point(|&r| r <= u)
    }

    /// The offset in `text` of `s`, when `s` is a slice of `text`.
    pub(crate) fn index_of(&self, s: &[u8]) -> Option<usize> {
        let (t, p) = (self.text.as_ptr() as usize, s.as_ptr() as usize);
        (p >= t && p + s.len() <= t + self.text.len()).then(|| p - t)
    }
}

/// Undo mboxrd quoting in `msg`: at the start of a line, one `>` is removed
/// from `>+From `. Borrows when there is nothing to undo.
pub(crate) fn unquote(msg: &[u8]) -> Unquoted<'_> {
    let mut cuts = Vec::new();
    for p in memmem::find_iter(msg, b">From ") {
        let mut s = p;
        while s > 0 && msg[s - 1] == b'>' {
            s -= 1;
        }
        if s == 0 || msg[s - 1] == b'\n' {
            cuts.push(s);
        }
    }
    if cuts.is_empty() {
        return Unquoted {
            text: Cow::Borrowed(msg),
            removed: cuts,
        };
    }
    let mut text = Vec::with_capacity(msg.len());
    let mut prev = 0;
    let mut removed = Vec::with_capacity(cuts.len());
    for &c in &cuts {
        text.extend_from_slice(&msg[prev..c]);
        removed.push(text.len());
        prev = c + 1;
    }
    text.extend_from_slice(&msg[prev..]);
    Unquoted {
        text: Cow::Owned(text),
        removed,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_on_from_lines() {
        let d = b"From a@b Mon\nSubject: x\n\nbody\nFrom here on\n\nFrom c@d Tue\nTo: y\n\nz\n";
        let parts = split(d);
        assert_eq!(parts.len(), 2);
        assert_eq!(
            &d[parts[0].clone()],
            b"Subject: x\n\nbody\nFrom here on\n\n"
        );
        assert_eq!(&d[parts[1].clone()], b"To: y\n\nz\n");
        assert_eq!(split(b"Subject: x\n\nb"), vec![0..13]);
        assert!(is_mbox(d));
        assert!(!is_mbox(b"From here on, text"));
        assert!(looks_like_mail(b"Received: from x"));
    }

    #[test]
    fn the_head_alone_decides() {
        // A file and the head a stream is judged by are judged alike, also
        // when the head ends inside a line.
        let long =
            |name: &str, n: usize| format!("{name}: {}\nSubject: hi\n\nbody\n", "a".repeat(n));
        let mut cases = vec![
            long("X-Big", 5000),
            long("Note", 5000),
            long("http", 5000),
            format!("{}Subject: hi\n\nbody", "Foo: bar\n".repeat(455)),
            format!("{}Subj", "Foo: bar\n".repeat(454)),
            format!("{}Subject: hi\n", "Foo: bar\n".repeat(454)),
        ];
        cases.push("Subject: x\n".repeat(400));
        for c in cases {
            let c = c.as_bytes();
            let head = &c[..c.len().min(crate::HEAD)];
            assert_eq!(
                starts_like_mail(c),
                starts_like_mail(head),
                "{:?}",
                &c[..40]
            );
        }
        assert!(starts_like_mail(long("X-Big", 5000).as_bytes()));
        assert!(!starts_like_mail(long("Note", 5000).as_bytes()));
    }

    #[test]
    fn unquotes_mboxrd() {
        let m = b">From x\n>>From y\na>From z\n";
        let u = unquote(m);
        assert_eq!(&*u.text, b"From x\n>From y\na>From z\n");
        assert_eq!(u.original(0), 1);
        assert_eq!(u.original(7), 9);
        assert_eq!(u.original(14), 16);
        assert!(matches!(unquote(b"plain").text, Cow::Borrowed(_)));
    }
}

#[cfg(test)]
mod doc_tests {
    use super::*;

    #[test]
    fn split_within_starts_inside_a_message() {
        let rest = b"\nmore of a message\n\nFrom b\nSubject: y\n\nbody\n";
        let r = split_within(rest, 1);
        assert_eq!(r[0], 1..20);
        assert!(rest[r[1].clone()].starts_with(b"Subject: y"));
    }

    #[test]
    fn mbox_start_known_after_the_first_line() {
        assert!(!mbox_start_known(b"\n\nFro"));
        assert!(mbox_start_known(b"\n\nFrom "));
        assert!(mbox_start_known(b"\nSubj"));
    }

    #[test]
    fn mbox_start_is_the_first_from_line() {
        assert_eq!(mbox_start(b"From a\nSubject: x\n"), Some(0));
        assert_eq!(mbox_start(b"\n\r\nFrom a\nSubject: x\n"), Some(3));
        assert_eq!(mbox_start(b"Subject: x\n\nFrom a\n"), None);
        assert_eq!(mbox_start(b"\n  From a\n"), None);
    }

    #[test]
    fn mail_fields_are_known_names() {
        assert!(is_mail_field(b"Message-ID"));
        assert!(is_mail_field(b"x-spam-status"));
        assert!(is_mail_field(b"Content-Type"));
        assert!(!is_mail_field(b"http"));
    }
}
