//! `normalize` never panics, is idempotent, and its output is a valid URI
//! reference with the same components present as the input.
#![no_main]

use libfuzzer_sys::fuzz_target;
use urlsift_uri::{NormalizeOptions, UriRef, normalize};

fuzz_target!(|data: &[u8]| {
    let opts = NormalizeOptions::default();
    let syntax = NormalizeOptions {
        scheme_based: false,
        drop_fragment: false,
    };
    for o in [&opts, &syntax] {
        let Ok(n) = normalize(data, o) else {
            continue;
        };
        let again = normalize(n.as_bytes(), o);
        assert_eq!(
            again.as_deref(),
            Ok(n.as_str()),
            "not idempotent: {data:?} -> {n:?}"
        );
        let out = UriRef::parse(n.as_bytes())
            .unwrap_or_else(|e| panic!("normalized form {n:?} of {data:?} does not parse: {e}"));
        // Normalizing changes how components are spelled, never which are there.
        // normalize takes IRIs too (it percent-encodes them).
        let inp = UriRef::parse_iri(data).expect("normalize accepted an invalid reference");
        assert_eq!(
            inp.scheme().is_some(),
            out.scheme().is_some(),
            "scheme: {data:?} -> {n:?}"
        );
        assert_eq!(
            inp.authority().is_some(),
            out.authority().is_some(),
            "authority: {data:?} -> {n:?}"
        );
        assert_eq!(
            inp.query().is_some(),
            out.query().is_some(),
            "query: {data:?} -> {n:?}"
        );
        assert_eq!(
            inp.fragment().is_some(),
            out.fragment().is_some(),
            "fragment: {data:?} -> {n:?}"
        );
        // Re-parsing the output of the second pass gives the same components.
        let twice = normalize(n.as_bytes(), o).unwrap();
        let t = UriRef::parse(twice.as_bytes()).unwrap();
        assert_eq!(
            (t.scheme(), t.authority(), t.path(), t.query(), t.fragment()),
            (
                out.scheme(),
                out.authority(),
                out.path(),
                out.query(),
                out.fragment()
            ),
            "components differ after re-normalizing {n:?}"
        );
    }
});
