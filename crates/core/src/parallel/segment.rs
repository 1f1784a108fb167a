//! Where the input is cut: segments (ending at cut points or forced cuts)
//! and the chunks within them.

use super::*;

/// The cuts between chunks: `0 = b0 < b1 < ... < bn = hay.len()`, each inner
/// cut at an ASCII stop byte at or after a multiple of `chunk_size`.
#[cfg(test)]
pub(crate) fn cuts(hay: &[u8], chunk_size: usize) -> Vec<usize> {
    cuts_from(&Classifier::auto(), hay, 0, chunk_size)
}

/// [`cuts`] of `hay[start..]`: `start = b0 < b1 < ... < bn = hay.len()`.
pub(super) fn cuts_from(c: &Classifier, hay: &[u8], start: usize, chunk_size: usize) -> Vec<usize> {
    let step = chunk_size.max(1);
    let mut v = vec![start];
    let mut next = start + step;
    while next < hay.len() {
        let i = find_cut(c, hay, next, hay.len());
        if i >= hay.len() {
            break;
        }
        if i > *v.last().unwrap_or(&start) {
            v.push(i);
        }
        next = i + step;
    }
    v.push(hay.len());
    v.dedup();
    v
}

/// True if the text may be cut before `hay[i]`: no URL, scheme or `www.`
/// runs across it (a URL wrapped in `<...>` may, and stitching handles it).
/// That is an ASCII stop byte (whitespace, `<`, `"`, ...), or the first byte
/// of a non-ASCII character that ends a URL (Unicode whitespace, CJK and
/// full-width punctuation, see [`crate::extract`]), or of bytes that are not
/// UTF-8. A UTF-8 continuation byte is never a cut point.
pub(crate) fn is_cut(hay: &[u8], i: usize) -> bool {
    match hay.get(i) {
        None => false,
        Some(&b) if b < 0x80 => naive::is_stop(b),
        Some(0x80..=0xBF) => false,
        Some(_) => match unicode::decode(hay, i) {
            Some((c, _)) => unicode::ends_url(c),
            None => true,
        },
    }
}

/// The first cut point ([`is_cut`]) in `hay[from..limit]`, else `limit`.
/// Whether a byte before `limit` is a cut point is judged on the whole of
/// `hay`: a character that starts before `limit` may end after it.
fn find_cut(c: &Classifier, hay: &[u8], from: usize, limit: usize) -> usize {
    let limit = limit.min(hay.len());
    let mut i = from;
    loop {
        // Every non-ASCII byte is a stop byte to the classifier.
        i = c.find_stop(&hay[..limit], i);
        if i >= limit || is_cut(hay, i) {
            return i.min(limit);
        }
        i += 1;
    }
}

/// The last cut point in `hay[lo..hi]`, if any.
fn rfind_cut(hay: &[u8], lo: usize, hi: usize) -> Option<usize> {
    (lo..hi.min(hay.len())).rev().find(|&j| is_cut(hay, j))
}

/// A run of this many bytes with no cut point ([`is_cut`]) is cut, so that
/// memory stays bounded and every way of reading the same bytes (mapped,
/// streamed, decompressed) finds the same URLs: a *forced cut* falls at every
/// offset `k * MAX_RUN` of the input (moved back to a UTF-8 character
/// boundary) that has no cut point in the `MAX_RUN` bytes before it. No URL
/// runs across a forced cut. Text never has such runs: only binary data
/// and hostile input do.
pub(crate) const MAX_RUN: usize = 4 << 20;

/// Where a segment ends: see [`Segmenter::next`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SegEnd {
    /// At a cut point (the scan may read past it).
    Cut(usize),
    /// At a forced cut: the scan reads nothing at or past it.
    Forced(usize),
    /// At the end of the input.
    End(usize),
    /// No end can be decided in the bytes there are: read more.
    More,
}

/// The one segmenter of the input, shared by every reader: segments end at
/// cut points ([`is_cut`]) or at forced cuts ([`MAX_RUN`]), which depend on
/// the bytes alone, never on how they were read.
#[derive(Debug, Default)]
pub(crate) struct Segmenter {
    /// The absolute offset of the last cut point before the current
    /// segment's start (`None`: none since the input began).
    last_cut: Option<u64>,
}

impl Segmenter {
    /// The end of the segment starting at `hay[start]`, `hay[0]` being at
    /// absolute offset `base`: the first cut point at or after
    /// `start + target`, or the first forced cut after `start` when one
    /// comes first. A segment end is at most `avail`; with `eof`, `hay`
    /// ends the input, and `avail` is `hay.len()`.
    pub(crate) fn next(
        &mut self,
        c: &Classifier,
        hay: &[u8],
        base: u64,
        (start, target, avail): (usize, usize, usize),
        eof: bool,
    ) -> SegEnd {
        let want = start.saturating_add(target.max(1));
        // 2 * MAX_RUN bytes without a cut point hold a forced cut: look no
        // further (so a long run is searched once, not once per segment).
        let reach = want.saturating_add(2 * MAX_RUN).min(avail);
        let mut end = if want < avail {
            find_cut(c, hay, want, reach)
        } else {
            avail
        };
        if end >= avail && eof {
            end = hay.len();
        }
        // The forced cuts in (start, end]: the first wins.
        let run = MAX_RUN as u64;
        let mut q = ((base + start as u64) / run + 1) * run;
        while q <= base + end as u64 {
            let qi = (q - base) as usize;
            if qi >= hay.len() {
                break;
            }
            if self.forced_at(hay, base, start, qi) {
                // Back to a character boundary (at most 3 continuation bytes).
                let mut at = qi;
                while at > start + 1 && at + 3 > qi && (0x80..0xC0).contains(&hay[at]) {
                    at -= 1;
                }
                if at > start {
                    if let Some(k) = rfind_cut(hay, start, at) {
                        self.last_cut = Some(base + k as u64);
                    }
                    return SegEnd::Forced(at);
                }
            }
            q += run;
        }
        if end >= hay.len() && eof {
            return SegEnd::End(hay.len());
        }
        if end >= avail {
            return SegEnd::More;
        }
        if !is_cut(hay, end) {
            // Unreachable: a window of 2 * MAX_RUN bytes without a cut point
            // holds a forced cut, found above. Stay safe and deterministic.
            return SegEnd::Forced(end);
        }
        self.last_cut = Some(base + end as u64);
        SegEnd::Cut(end)
    }

    /// True if the `MAX_RUN` bytes before `hay[qi]` hold no cut point
    /// (looking before `hay[start]` through `last_cut`).
    fn forced_at(&self, hay: &[u8], base: u64, start: usize, qi: usize) -> bool {
        let window = (base + qi as u64).saturating_sub(MAX_RUN as u64);
        let lo = window.saturating_sub(base) as usize;
        if rfind_cut(hay, lo.max(start), qi).is_some() {
            return false;
        }
        if window >= base + start as u64 {
            return true;
        }
        self.last_cut.is_none_or(|k| k < window)
    }
}

/// One segment of a buffer: `hay[start..end]`. A scan of it may read past
/// `end` to finish its last URL, unless the cut is `forced` (no cut point
/// for [`MAX_RUN`] bytes): then it reads nothing at or past `end`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Segment {
    /// Where the segment starts.
    pub(crate) start: usize,
    /// Where it ends.
    pub(crate) end: usize,
    /// The end is a forced cut.
    pub(crate) forced: bool,
}

impl Segment {
    /// Scan the segment from `floor` with `scan(hay, start, end, floor)`
    /// (an [`Extractor::scan`] or [`scan_range`] call), on the bytes it may
    /// read; returns the floor after it.
    pub(crate) fn scan<'h>(
        &self,
        hay: &'h [u8],
        floor: usize,
        scan: impl FnOnce(&'h [u8], usize, usize, usize) -> usize,
    ) -> usize {
        if self.forced {
            scan(&hay[..self.end], self.start, self.end, floor).max(self.end)
        } else {
            scan(hay, self.start, self.end, floor)
        }
    }
}

/// The segments of a whole buffer, in order: each ends at the first cut
/// point ([`is_cut`]) at least `target` bytes after its start, or at a
/// forced cut; the last ends at the buffer's end. Every scan of a whole
/// buffer goes through these, so they all find the same URLs.
pub(crate) fn segments(c: Classifier, hay: &[u8], target: usize) -> Segments<'_> {
    Segments {
        c,
        hay,
        target,
        seg: Segmenter::default(),
        start: 0,
    }
}

/// The iterator of [`segments`].
#[derive(Debug)]
pub(crate) struct Segments<'h> {
    c: Classifier,
    hay: &'h [u8],
    target: usize,
    seg: Segmenter,
    start: usize,
}

impl Iterator for Segments<'_> {
    type Item = Segment;

    fn next(&mut self) -> Option<Segment> {
        let (hay, start) = (self.hay, self.start);
        if start >= hay.len() {
            return None;
        }
        let (end, forced) =
            match self
                .seg
                .next(&self.c, hay, 0, (start, self.target, hay.len()), true)
            {
                SegEnd::Cut(e) | SegEnd::End(e) => (e, false),
                SegEnd::Forced(e) => (e, true),
                // Unreachable with the whole buffer at hand: the rest is one segment.
                SegEnd::More => (hay.len(), false),
            };
        self.start = end;
        Some(Segment { start, end, forced })
    }
}

#[cfg(test)]
mod doc_tests {
    use super::*;

    #[test]
    fn cuts_are_at_cut_points() {
        let hay = (0..5000)
            .map(|i| format!("w{i} <http://h{i}.example/a\n b> x\u{3000}y "))
            .collect::<String>();
        let hay = hay.as_bytes();
        for chunk in [1, 2, 3, 17, 64, 1000] {
            let cuts = cuts(hay, chunk);
            assert_eq!(cuts.first(), Some(&0));
            assert_eq!(cuts.last(), Some(&hay.len()));
            for w in cuts.windows(2) {
                assert!(w[0] < w[1]);
            }
            for &c in &cuts[1..cuts.len() - 1] {
                assert!(is_cut(hay, c), "{c}");
            }
        }
    }

    #[test]
    fn segments_tile_the_buffer() {
        let text = b"one http://a.example/ two http://b.example/ three";
        let segs: Vec<_> = segments(Classifier::auto(), text, 10).collect();
        assert_eq!(segs.first().unwrap().start, 0);
        assert_eq!(segs.last().unwrap().end, text.len());
        assert!(segs.windows(2).all(|w| w[0].end == w[1].start));
    }

    #[test]
    fn cut_points_are_stop_bytes_and_ending_characters() {
        let t = "a b。c中".as_bytes();
        assert!(is_cut(t, 1)); // ' '
        assert!(is_cut(t, 3)); // '。' (U+3002)
        assert!(!is_cut(t, 4)); // inside '。'
        assert!(!is_cut(t, 7)); // '中' may be part of an IRI
    }
}
