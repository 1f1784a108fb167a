//! Diagnostics: every message urlsift prints on standard error goes through
//! [`report`] (by the [`report!`](crate::report!) and
//! [`report_error!`](crate::report_error!) macros), which never panics.
//!
//! `eprintln!` panics when standard error is closed or full
//! (`urlsift DIR 2>&1 | head -1`); a diagnostic must never stop or fail a
//! run, so a message that cannot be written is dropped. Each message is
//! written with one `write` call, so lines from several threads never
//! interleave.
//!
//! ```
//! urlsift_core::report!("{}: byte {}: {}", "notes.txt", 42, "an example");
//! ```

use std::fmt;
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};

static QUIET: AtomicBool = AtomicBool::new(false);

/// Silence (or restore) the messages written by [`report!`](crate::report!):
/// grep's `-s` silences the messages about inputs and warnings, not the
/// exit status.
pub fn set_quiet(quiet: bool) {
    QUIET.store(quiet, Ordering::Relaxed);
}

/// Write `urlsift: MESSAGE` and a newline on standard error: `always`
/// ([`report_error!`](crate::report_error!)), or unless [`set_quiet`]
/// silenced the messages ([`report!`](crate::report!)). Errors writing it
/// (a closed pipe, a full disk) are ignored.
///
/// ```
/// urlsift_core::diag::set_quiet(true);
/// urlsift_core::report_error!("writing output: {}", "No space left on device");
/// ```
pub fn report(args: fmt::Arguments<'_>, always: bool) {
    if !always && QUIET.load(Ordering::Relaxed) {
        return;
    }
    let mut line = Vec::with_capacity(128);
    let _ = line.write_fmt(format_args!("urlsift: {args}\n"));
    let _ = std::io::stderr().lock().write_all(&line);
}

/// A message with `format!` arguments: `report!("{file}: {err}")`
/// ([`diag::report`](crate::diag::report)), silenced by
/// [`set_quiet`](crate::diag::set_quiet).
#[macro_export]
macro_rules! report {
    ($($arg:tt)*) => {
        $crate::diag::report(format_args!($($arg)*), false)
    };
}

/// [`report!`](crate::report!) printed even under `-s`: for what fails the run itself (its
/// arguments, its output).
#[macro_export]
macro_rules! report_error {
    ($($arg:tt)*) => {
        $crate::diag::report(format_args!($($arg)*), true)
    };
}

/// The message of a caught panic's payload (`&str` or `String`; anything
/// else is named as such).
///
/// ```
/// let p = std::panic::catch_unwind(|| panic!("boom {}", 1)).unwrap_err();
/// assert_eq!(urlsift_core::diag::panic_message(p.as_ref()), "boom 1");
/// ```
pub fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "a panic with no message".to_string()
    }
}
