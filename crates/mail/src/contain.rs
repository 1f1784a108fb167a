//! mail-parser's panics, contained: it panics on some malformed messages
//! (an arithmetic overflow where overflows are checked), and such a message
//! is read as plain text with a problem of its own. The panic's message is
//! not shown; every other panic is, by whatever hook was installed before.

use std::cell::Cell;
use std::panic::{self, AssertUnwindSafe};
use std::sync::Once;

thread_local! {
    /// This thread is inside [`catch`]: a panic here is caught and quiet.
    static QUIET: Cell<bool> = const { Cell::new(false) };
}

static HOOK: Once = Once::new();

/// `f()` (a call into mail-parser), or `None` when it panicked. The first
/// call installs a panic hook that stays quiet on a thread inside `catch`
/// and hands every other panic to the hook installed before it.
pub(crate) fn catch<T>(f: impl FnOnce() -> T) -> Option<T> {
    HOOK.call_once(|| {
        let before = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            if !QUIET.with(Cell::get) {
                before(info);
            }
        }));
    });
    let was = QUIET.with(|q| q.replace(true));
    let got = panic::catch_unwind(AssertUnwindSafe(f));
    QUIET.with(|q| q.set(was));
    got.ok()
}
