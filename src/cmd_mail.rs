//! `--mail` and `--stats`: the CLI glue over [`urlsift::input::mail`].

use std::io;

use urlsift::extract::Extractor;
use urlsift::input::Opened;
use urlsift::input::mail::{self, MailStats};
use urlsift::output::{Parts, Record, Sink};

/// Problems printed per file; the rest are only counted (`--stats`).
const MAX_PROBLEMS_SHOWN: u64 = 10;

/// State of a `--mail` run.
pub struct MailRun<'a> {
    pub ex: &'a Extractor,
    pub strict: bool,
    pub stats: MailStats,
}

impl MailRun<'_> {
    /// Scan one input as a mail archive or message. URLs go to `sink`
    /// (counted in `count`); a write error stops the output and is kept in
    /// `write_err`. Returns the number of errors (an unreadable input).
    pub fn scan(
        &mut self,
        name: &str,
        opened: Opened,
        sink: &mut dyn Sink,
        count: &mut u64,
        write_err: &mut Option<io::Error>,
    ) -> u64 {
        let mut shown = 0u64;
        let strict = self.strict;
        let on_match = |w: &mail::MailWhere, line: u64, m: &urlsift::extract::Match<'static>| {
            if write_err.is_some() || (strict && !Parts::new(m).valid()) {
                return;
            }
            *count += 1;
            let rec = Record {
                file: name,
                line,
                m,
                mail: Some(w),
            };
            if let Err(e) = sink.record(&rec) {
                *write_err = Some(e);
            }
        };
        let on_problem = |p: &mail::Problem| {
            shown += 1;
            if shown <= MAX_PROBLEMS_SHOWN {
                eprintln!(
                    "urlsift: {name}: byte {}: message {}: {}",
                    p.offset, p.message, p.what
                );
            }
        };
        // A stream (stdin, .gz) is read block by block, a message at a time.
        let (stats, errors) = match opened {
            Opened::Whole(data) => (mail::scan_archive(self.ex, &data, on_match, on_problem), 0),
            Opened::Stream(r) => {
                match mail::scan_reader(self.ex, r, mail::STREAM_BLOCK, on_match, on_problem) {
                    Ok(s) => (s, 0),
                    Err(e) => {
                        eprintln!("urlsift: {name}: {e}");
                        (MailStats::default(), 1)
                    }
                }
            }
        };
        if shown > MAX_PROBLEMS_SHOWN {
            eprintln!(
                "urlsift: {name}: {} more problems not shown",
                shown - MAX_PROBLEMS_SHOWN
            );
        }
        self.stats += &stats;
        errors
    }
}

/// Plain mode: a one-line hint on standard error when an input looks like
/// mail (an mbox or a message, or a name ending in `.eml`). Output is unchanged.
pub fn hint(name: &str, data: &[u8]) {
    let eml = name.len() > 4 && name[name.len() - 4..].eq_ignore_ascii_case(".eml");
    if eml || mail::mbox::looks_like_mail(data) {
        eprintln!(
            "urlsift: {name}: looks like mail; --mail decodes quoted-printable, base64 and HTML parts"
        );
    }
}
