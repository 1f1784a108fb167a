//! The stream plumbing of the crates that read streams: every stream is
//! read through [`fill`], a large block at a time, and a block can be read
//! on a thread of its own while the one before is worked on.
//!
//! ```
//! use urlsift_core::stream::{Filled, fill};
//! let mut buf = b"ab".to_vec();
//! let mut r = std::io::Read::chain(&b"cd"[..], &b"efg"[..]);
//! let no_work = None::<fn() -> bool>;
//! assert_eq!(fill(&mut r, &mut buf, (4, None), no_work).1.unwrap(), Filled::Full);
//! assert_eq!(buf, b"abcd");
//! assert_eq!(fill(&mut r, &mut buf, (100, None), no_work).1.unwrap(), Filled::End);
//! assert_eq!(buf, b"abcdefg");
//! ```

use std::io::{self, Read};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// How a [`fill`] ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Filled {
    /// The buffer holds what was wanted.
    Full,
    /// The source paused with less: it is still open, and has nothing more
    /// for now.
    Paused,
    /// The stream ended.
    End,
}

/// Read from `r` onto the end of `buf` until it holds at least `want`
/// bytes (reads are of at least 4 KiB) or the stream ends. On an error,
/// `buf` holds what was read before it. Returns whether `work` went on
/// (true without), and how the read ended.
///
/// With `work`, it runs while the read goes on a thread of its own, so
/// that reading and work overlap, when the read is of 64 KiB or more and a
/// thread can be had; else the read comes after it. `work` says whether
/// the run goes on; should it stop or die, the read stops at its next read
/// of `r` rather than read the block to its end ([`read_abandoned`]), and
/// ends as [`Filled::Full`] (a read after `work` is not made).
///
/// With `pause_after`, the read also ends when the source pauses once `buf`
/// holds more than that many bytes (an earlier pause is waited out: after a
/// pause, pass the length then, so that the next one ends a read only once
/// something new came); without, every pause is waited out. A reader says that its
/// source paused by failing a read with [`io::ErrorKind::WouldBlock`] once it
/// has waited a while for more (standard input read through a pipe from
/// `tail -f`, say): what was read before the pause is then worth scanning
/// now, and the next read waits again. Such a reader must wait before it
/// says so; one that does not (a raw non-blocking descriptor) is read again
/// after a millisecond.
///
/// ```
/// use std::io::{self, Read};
/// use urlsift_core::stream::{Filled, fill};
/// /// Gives its bytes, then pauses once, then ends.
/// struct Pausing(Vec<u8>, bool);
/// impl Read for Pausing {
///     fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
///         if !self.0.is_empty() {
///             let n = self.0.len().min(buf.len());
///             buf[..n].copy_from_slice(&self.0[..n]);
///             self.0.drain(..n);
///             return Ok(n);
///         }
///         if std::mem::take(&mut self.1) {
///             return Err(io::ErrorKind::WouldBlock.into());
///         }
///         Ok(0)
///     }
/// }
/// let mut r = Pausing(b"see http://a.example/\n".to_vec(), true);
/// let mut buf = Vec::new();
/// // A block read on a thread while the work runs: the pause ends it.
/// let (go, read) = fill(&mut r, &mut buf, (1 << 20, Some(0)), Some(|| true));
/// assert_eq!((go, read.unwrap()), (true, Filled::Paused));
/// assert_eq!(buf, b"see http://a.example/\n");
/// let after = buf.len();
/// let (_, read) = fill(&mut r, &mut buf, (1 << 20, Some(after)), None::<fn() -> bool>);
/// assert_eq!(read.unwrap(), Filled::End);
/// // The work stopped: nothing is read after it.
/// let (go, read) = fill(&mut &b"x"[..], &mut buf, (100, None), Some(|| false));
/// assert!(!go);
/// assert_eq!(read.unwrap(), Filled::Full);
/// assert_eq!(buf, b"see http://a.example/\n");
/// ```
pub fn fill<R: Read + Send>(
    r: &mut R,
    buf: &mut Vec<u8>,
    (want, pause_after): (usize, Option<usize>),
    work: Option<impl FnOnce() -> bool>,
) -> (bool, io::Result<Filled>) {
    let mut room = Room::from_vec(std::mem::take(buf));
    let (go, read) = match work {
        Some(work) => fill_room_ahead(r, &mut room, (want, pause_after), || {
            let go = work();
            (go, go)
        }),
        None => (true, None),
    };
    let read = match read {
        Some(read) => read,
        None if go => fill_room(r, &mut room, want, &AtomicBool::new(false), pause_after),
        None => Ok(Filled::Full),
    };
    *buf = room.into_vec();
    (go, read)
}

/// How much room [`fill`] zeroes at a time.
const ROOM_STEP: usize = 1 << 20;

/// A read buffer: the bytes read, then room that is zeroed once and kept
/// when the bytes are let go, so a buffer read into block after block is
/// not zeroed again each time (a pass over memory as costly as the read).
#[derive(Default)]
pub(crate) struct Room {
    /// The bytes read (`..len`), then zeroed room.
    bytes: Vec<u8>,
    pub(crate) len: usize,
}

impl Room {
    /// The bytes of `v`, with no room past them.
    pub(crate) fn from_vec(v: Vec<u8>) -> Room {
        let len = v.len();
        Room { bytes: v, len }
    }

    /// The bytes read, as a vector.
    pub(crate) fn into_vec(mut self) -> Vec<u8> {
        self.bytes.truncate(self.len);
        self.bytes
    }

    /// Let go of every byte, keeping the room.
    pub(crate) fn clear(&mut self) {
        self.len = 0;
    }

    /// Let go of the first `n` bytes: those after move to the front.
    pub(crate) fn drop_front(&mut self, n: usize) {
        let n = n.min(self.len);
        self.bytes.copy_within(n..self.len, 0);
        self.len -= n;
    }

    /// Add `more` after the bytes.
    pub(crate) fn extend_from_slice(&mut self, more: &[u8]) {
        let end = self.len + more.len();
        if self.bytes.len() < end {
            self.bytes.resize(end, 0);
        }
        self.bytes[self.len..end].copy_from_slice(more);
        self.len = end;
    }

    /// The room after the bytes, made at least `min` and at most `max`
    /// bytes long when there is none.
    pub(crate) fn spare(&mut self, min: usize, max: usize) -> &mut [u8] {
        if self.len == self.bytes.len() {
            self.bytes.resize(self.len + max.max(min), 0);
        }
        &mut self.bytes[self.len..]
    }
}

impl std::ops::Deref for Room {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        &self.bytes[..self.len]
    }
}

/// [`fill`] into a [`Room`] (what it has zeroed is read into first),
/// ending early (not at the end of the stream) once `quit` is set: it is
/// looked at before each read.
pub(crate) fn fill_room(
    r: &mut impl Read,
    buf: &mut Room,
    want: usize,
    quit: &AtomicBool,
    pause_after: Option<usize>,
) -> io::Result<Filled> {
    // Room is zeroed a step at a time, and each read fills the next of
    // it: a pipe or a decoder gives a little at a time, and a source that
    // pauses often has little room zeroed for it each time.
    loop {
        let at = buf.len;
        if at >= want || quit.load(Ordering::Relaxed) {
            return Ok(Filled::Full);
        }
        let spare = buf.spare(4096, want.min(at + ROOM_STEP) - at);
        let limit = spare.len().min(want.saturating_sub(at).max(4096));
        match r.read(&mut spare[..limit]) {
            Ok(0) => return Ok(Filled::End),
            Ok(n) => buf.len += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                if pause_after.is_some_and(|p| at > p) {
                    return Ok(Filled::Paused);
                }
                std::thread::sleep(std::time::Duration::from_millis(1));
            }
            Err(e) => return Err(e),
        }
    }
}

/// Run `work` while the next block of `r` is read onto `next` (to `want`
/// bytes, ending early at a pause of the source once `next` holds more
/// than `pause_after` bytes, see [`fill`]) on a thread of its own. Returns
/// `work`'s result (and whether it went on) and the read's, or `None`
/// when no thread could be had, or the read is too small to pay for one
/// (under [`READ_AHEAD_MIN`]): then nothing was read.
pub(crate) fn fill_room_ahead<R: Read + Send, T>(
    r: &mut R,
    next: &mut Room,
    (want, pause_after): (usize, Option<usize>),
    work: impl FnOnce() -> (T, bool),
) -> (T, Option<io::Result<Filled>>) {
    if want < READ_AHEAD_MIN {
        return (work().0, None);
    }
    let quit = Arc::new(AtomicBool::new(false));
    std::thread::scope(|s| {
        let reader = std::thread::Builder::new()
            .name("urlsift-read".into())
            .spawn_scoped(s, || {
                READ_QUIT.with(|q| *q.borrow_mut() = Some(Arc::clone(&quit)));
                fill_room(r, next, want, &quit, pause_after)
            });
        let _quit = SetOnDrop(&quit);
        let (res, go) = work();
        if !go {
            quit.store(true, Ordering::Relaxed);
        }
        let read = match reader {
            Ok(h) => Some(h.join().unwrap_or_else(|p| std::panic::resume_unwind(p))),
            Err(_) => None,
        };
        (res, read)
    })
}

thread_local! {
    /// On a thread that [`fill`] reads on: set once its work ended.
    static READ_QUIT: std::cell::RefCell<Option<Arc<AtomicBool>>> = const { std::cell::RefCell::new(None) };
}

/// Whether the read under way on this thread may stop now: it is a
/// [`fill`] read on a thread of its own whose work has ended (the scan stopped at
/// `-q`, `-m` or an error, or died), so the block is not wanted. A reader
/// that can wait long for its input (a pipe, a terminal) looks at this
/// while it waits, and gives up with an error, so that the scan ends
/// without waiting for input it will not read. Elsewhere, false.
///
/// ```
/// assert!(!urlsift_core::stream::read_abandoned());
/// ```
pub fn read_abandoned() -> bool {
    READ_QUIT.with(|q| {
        q.borrow()
            .as_ref()
            .is_some_and(|q| q.load(Ordering::Relaxed))
    })
}

/// The least [`fill`] reads on a thread of its own: a smaller read
/// is quicker than starting a thread.
pub(crate) const READ_AHEAD_MIN: usize = 64 << 10;

/// Sets its flag when dropped (at the end of a scope, or as a panic
/// unwinds through it).
struct SetOnDrop<'a>(&'a AtomicBool);

impl Drop for SetOnDrop<'_> {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A room read into again, after its bytes were let go, holds only what
    /// was read, and keeps its zeroed room.
    #[test]
    fn a_room_read_into_again_holds_only_what_was_read() {
        let quit = AtomicBool::new(false);
        let mut room = Room::default();
        let full = fill_room(&mut &[7u8; 5000][..], &mut room, 5000, &quit, None);
        assert_eq!(full.unwrap(), Filled::Full);
        room.drop_front(4990);
        assert_eq!(&room[..], &[7u8; 10][..]);
        let end = fill_room(&mut &b"abc"[..], &mut room, 100, &quit, None);
        assert_eq!(end.unwrap(), Filled::End);
        assert_eq!(&room[..], b"\x07\x07\x07\x07\x07\x07\x07\x07\x07\x07abc");
        room.clear();
        room.extend_from_slice(b"xy");
        assert_eq!(&room[..], b"xy");
        assert!(room.bytes.len() >= 5000);
        assert_eq!(room.into_vec(), b"xy");
    }
}
