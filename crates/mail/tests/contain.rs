//! mail-parser's panics stay inside the mail crate: the caller installs no
//! panic hook, and the hook it has is not called for them.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use urlsift_core::Extractor;

#[test]
fn a_mail_parser_panic_is_caught_and_not_shown() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/data/mail/own/fuzz-mail-parser-panic.eml"
    );
    let msg = std::fs::read(path).unwrap();
    let shown = Arc::new(AtomicUsize::new(0));
    let seen = Arc::clone(&shown);
    std::panic::set_hook(Box::new(move |_| {
        seen.fetch_add(1, Ordering::SeqCst);
    }));
    let mut problems = Vec::new();
    let stats = urlsift_mail::scan_archive(
        &Extractor::new(),
        &msg,
        |_, _, _| {},
        |p| problems.push(p.what.clone()),
    );
    assert_eq!(stats.messages, 1);
    // mail-parser panics only where overflows are checked (debug builds).
    if cfg!(debug_assertions) {
        assert!(
            problems.iter().any(|p| p.contains("MIME parser failed")),
            "{problems:?}"
        );
    }
    assert_eq!(
        shown.load(Ordering::SeqCst),
        0,
        "the panic reached the hook"
    );
    // Every other panic still reaches the hook installed before.
    let _ = std::panic::catch_unwind(|| panic!("another"));
    assert_eq!(shown.load(Ordering::SeqCst), 1);
}
