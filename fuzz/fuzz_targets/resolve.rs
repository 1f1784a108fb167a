//! `resolve(base, reference)` never panics (the input is split at its first
//! `\n`); when both are valid and the base is absolute, the result parses and
//! is absolute.
#![no_main]

use libfuzzer_sys::fuzz_target;
use urlsift_uri::{UriRef, resolve};

fuzz_target!(|data: &[u8]| {
    let (base, reference) = match memchr_nl(data) {
        Some(i) => (&data[..i], &data[i + 1..]),
        None => (data, &b""[..]),
    };
    let out = resolve(base, reference);
    let valid_base = UriRef::parse(base).is_ok_and(|b| b.is_absolute());
    if valid_base && UriRef::parse(reference).is_ok() {
        let t = out.unwrap_or_else(|e| {
            panic!("resolve({base:?}, {reference:?}) failed on valid inputs: {e}")
        });
        let u = UriRef::parse(t.as_bytes()).unwrap_or_else(|e| {
            panic!("resolve({base:?}, {reference:?}) = {t:?} does not parse: {e}")
        });
        assert!(
            u.is_absolute(),
            "resolve({base:?}, {reference:?}) = {t:?} is not absolute"
        );
    }
    let _ = urlsift_uri::relativize(base, reference, false);
    let _ = urlsift_uri::relativize(base, reference, true);
});

fn memchr_nl(data: &[u8]) -> Option<usize> {
    data.iter().position(|&b| b == b'\n')
}
