//! The mail input path never panics on arbitrary bytes: the mbox splitter
//! and `scan_archive`, which runs every decoder and header helper on what
//! it reads. The helpers' own properties (decoders invert encoders, the
//! unquoting offset map) are the mail crate's property tests.
#![no_main]

use libfuzzer_sys::fuzz_target;
use urlsift_core::{Extractor, Isa};
use urlsift_mail::{self as mail, mbox};

fuzz_target!(
    init: {
        // mail-parser panics on some malformed messages; scan_archive catches
        // that and reports the message as a problem, so such a panic is not a
        // failure. libfuzzer-sys's hook aborts on every panic, caught or not:
        // it runs for every other panic.
        let abort_hook = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if info.location().is_some_and(|l| l.file().contains("mail-parser")) {
                return;
            }
            abort_hook(info);
        }));
    },
    |data: &[u8]| {
    // The splitter's ranges stay within the input.
    for r in mbox::split(data) {
        assert!(
            r.start <= r.end && r.end <= data.len(),
            "split range {r:?} out of bounds"
        );
    }

    // The whole archive path.
    let ex = Extractor::choose(Some(Isa::Scalar.name())).unwrap();
    let _ = mail::scan_archive(&ex, data, |_, _, _| {}, |_| {});
});
