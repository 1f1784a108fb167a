//! `UriRef::split` and `UriRef::parse` never panic on arbitrary bytes; where
//! both urlsift and fluent-uri accept a (UTF-8) input, the components agree.
#![no_main]

use libfuzzer_sys::fuzz_target;
use urlsift_uri::UriRef;

fn exercise(u: &UriRef<'_>) {
    let _ = (
        u.scheme(),
        u.authority(),
        u.userinfo(),
        u.host(),
        u.host_kind(),
    );
    let _ = (u.port(), u.path(), u.query(), u.fragment(), u.is_absolute());
    let _ = u.check_scheme();
}

fn st(b: Option<&[u8]>) -> Option<&str> {
    b.map(|b| std::str::from_utf8(b).expect("component of a valid URI is ASCII"))
}

fuzz_target!(|data: &[u8]| {
    let split = UriRef::split(data);
    exercise(&split);
    let _ = split.validate();
    if let Ok(u) = UriRef::parse_iri(data) {
        exercise(&u);
    }
    let ours = UriRef::parse(data);
    if let Ok(u) = &ours {
        exercise(u);
    }
    let Ok(s) = std::str::from_utf8(data) else {
        return;
    };
    let (Ok(u), Ok(p)) = (ours, fluent_uri::UriRef::parse(s)) else {
        return;
    };
    assert_eq!(
        st(u.scheme()),
        p.scheme().map(|x| x.as_str()),
        "scheme of {s:?}"
    );
    let pa = p.authority();
    assert_eq!(
        st(u.authority()),
        pa.map(|a| a.as_str()),
        "authority of {s:?}"
    );
    assert_eq!(
        st(u.userinfo()),
        pa.and_then(|a| a.userinfo()).map(|x| x.as_str()),
        "userinfo of {s:?}"
    );
    assert_eq!(st(u.host()), pa.map(|a| a.host()), "host of {s:?}");
    assert_eq!(
        st(u.port()),
        pa.and_then(|a| a.port()).map(|x| x.as_str()),
        "port of {s:?}"
    );
    assert_eq!(st(Some(u.path())), Some(p.path().as_str()), "path of {s:?}");
    assert_eq!(
        st(u.query()),
        p.query().map(|x| x.as_str()),
        "query of {s:?}"
    );
    assert_eq!(
        st(u.fragment()),
        p.fragment().map(|x| x.as_str()),
        "fragment of {s:?}"
    );
});
