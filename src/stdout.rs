//! Standard output as the program found it. A closed standard output
//! (`urlsift FILE >&-`) makes every write fail with "Bad file descriptor",
//! as in grep; a run that writes nothing to it (`-q`, `--output FILE`, no URL
//! found) is not affected.
//!
//! Rust's runtime opens /dev/null on a standard descriptor that is closed
//! when the program starts, so a write to `io::stdout()` would succeed and
//! the output vanish. Whether descriptor 1 is open is recorded before that,
//! by a function the loader runs before the runtime starts.

use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, Ordering};

static CLOSED: AtomicBool = AtomicBool::new(false);

/// Record whether descriptor 1 is open. Runs before the Rust runtime
/// starts: it touches nothing but the descriptor and an atomic.
extern "C" fn record_stdout() {
    // SAFETY: F_GETFD only reads the descriptor's flags; a closed
    // descriptor makes it return -1 (EBADF).
    let open = unsafe { libc::fcntl(libc::STDOUT_FILENO, libc::F_GETFD) } != -1;
    CLOSED.store(!open, Ordering::Relaxed);
}

// SAFETY: the loader calls each function in `.init_array` (or
// `__mod_init_func`) before `main`; the C calling convention lets a
// function of no arguments ignore the ones it is given, and
// `record_stdout` needs nothing initialised.
#[cfg(not(target_vendor = "apple"))]
#[used]
#[unsafe(link_section = ".init_array")]
static RECORD_STDOUT: extern "C" fn() = record_stdout;

#[cfg(target_vendor = "apple")]
#[used]
#[unsafe(link_section = "__DATA,__mod_init_func")]
static RECORD_STDOUT: extern "C" fn() = record_stdout;

/// Whether standard output was closed when the program started.
pub(crate) fn closed() -> bool {
    CLOSED.load(Ordering::Relaxed)
}

/// The error of a write to a closed standard output.
pub(crate) fn closed_error() -> io::Error {
    io::Error::from_raw_os_error(libc::EBADF)
}

/// Standard output, locked for the run: every write fails with
/// [`closed_error`] when it was closed at the start.
pub(crate) struct Stdout(io::StdoutLock<'static>);

impl Stdout {
    pub(crate) fn lock() -> Self {
        Stdout(io::stdout().lock())
    }
}

impl Write for Stdout {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if closed() {
            return Err(closed_error());
        }
        self.0.write(buf)
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        if closed() && !buf.is_empty() {
            return Err(closed_error());
        }
        self.0.write_all(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.0.flush()
    }
}
