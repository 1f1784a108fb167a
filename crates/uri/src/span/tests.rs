//! Every kernel against its scalar reference, called directly (each kernel
//! this CPU can run, whatever `URLSIFT_ISA` says) and through [`dispatch`]
//! (the kernels `URLSIFT_ISA` chose: run the tests with it set to `scalar`,
//! `sse2` and unset to take each path).

use super::*;

/// [`span_scalar`], with the fastest kernel this CPU has, chosen per call.
fn span(text: &[u8], from: usize, class: &NibbleClass) -> usize {
    if text.len() < 16 || from >= text.len() {
        return span_scalar(text, from, class);
    }
    #[cfg(target_arch = "x86_64")]
    {
        if ssse3::is_available() {
            // SAFETY: SSSE3 (and so SSE2) was just detected.
            return unsafe { ssse3::span(text, from, class) };
        }
    }
    #[cfg(all(target_arch = "aarch64", target_feature = "neon"))]
    {
        // SAFETY: NEON is enabled at compile time for this target.
        return unsafe { neon::span(text, from, class) };
    }
    #[allow(unreachable_code)]
    span_scalar(text, from, class)
}

/// [`span_dots_scalar`], with the fastest kernel this CPU has.
fn span_dots(text: &[u8], from: usize, class: &NibbleClass) -> usize {
    if text.len() < 16 || from >= text.len() {
        return span_dots_scalar(text, from, class);
    }
    #[cfg(target_arch = "x86_64")]
    {
        if ssse3::is_available() {
            // SAFETY: SSSE3 (and so SSE2) was just detected.
            return unsafe { ssse3::span_dots(text, from, class) };
        }
    }
    #[cfg(all(target_arch = "aarch64", target_feature = "neon"))]
    {
        // SAFETY: NEON is enabled at compile time for this target.
        return unsafe { neon::span_dots(text, from, class) };
    }
    #[allow(unreachable_code)]
    span_dots_scalar(text, from, class)
}

/// A class table like the URI engine's: bit 1 = letters, digits and
/// `-._~!$&'()*+,;=:@/?`; bit 2 = bit 1 plus every byte >= 0x80;
/// bit 4 = letters only.
const fn in_set(c: u8, s: &[u8]) -> bool {
    let mut k = 0;
    while k < s.len() {
        if s[k] == c {
            return true;
        }
        k += 1;
    }
    false
}

const fn table() -> [u8; 256] {
    let mut t = [0u8; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        let mut v = 0;
        if c.is_ascii_alphanumeric() || in_set(c, b"-._~!$&'()*+,;=:@/?") {
            v |= 3;
        }
        if c >= 0x80 {
            v |= 2;
        }
        if c.is_ascii_alphabetic() {
            v |= 4;
        }
        t[b] = v;
        b += 1;
    }
    t
}
const T: [u8; 256] = table();
const CLASSES: [NibbleClass; 3] = [
    NibbleClass::new(&T, 1),
    NibbleClass::new(&T, 2),
    NibbleClass::new(&T, 4),
];

#[test]
fn nibble_lookup_is_exact() {
    for (c, bit) in CLASSES.iter().zip([1u8, 2, 4]) {
        for b in 0..=255u8 {
            assert_eq!(c.contains(b), T[b as usize] & bit != 0, "{b:#x}");
        }
    }
}

/// Every kernel ([`span`] and [`span_dots`]) against its scalar
/// reference on `text` from `from`; returns how many vector kernels ran.
fn check(text: &[u8], from: usize) -> usize {
    let mut n = 0;
    for c in &CLASSES {
        let want = span_scalar(text, from, c);
        let want_dots = span_dots_scalar(text, from, c);
        assert_eq!(span(text, from, c), want, "{text:?} {from}");
        assert_eq!(span_dots(text, from, c), want_dots, "dots {text:?} {from}");
        struct Both<'a>(&'a [u8], usize, &'a NibbleClass);
        impl WithSpans for Both<'_> {
            type Output = (usize, usize);
            fn run<S: Spans>(self, s: S) -> (usize, usize) {
                (
                    s.span(self.0, self.1, self.2),
                    s.span_dots(self.0, self.1, self.2),
                )
            }
        }
        assert_eq!(dispatch(Both(text, from, c)), (want, want_dots), "dispatch");
        let direct = text.len() >= 16 && from < text.len();
        #[cfg(target_arch = "x86_64")]
        if direct && ssse3::is_available() {
            // SAFETY: SSSE3 detected; length and start as required.
            let got = unsafe { (ssse3::span(text, from, c), ssse3::span_dots(text, from, c)) };
            assert_eq!(got, (want, want_dots), "ssse3 {text:?} {from}");
            n += 1;
        }
        #[cfg(all(target_arch = "aarch64", target_feature = "neon"))]
        if direct {
            // SAFETY: NEON enabled; length and start as required.
            let got = unsafe { (neon::span(text, from, c), neon::span_dots(text, from, c)) };
            assert_eq!(got, (want, want_dots), "neon {text:?} {from}");
            n += 1;
        }
        let _ = direct;
    }
    n
}

/// Every text length 0..=80, every start, a stop byte at every position
/// (and none), on two fills: one without `/.`, one full of them.
#[test]
fn kernels_match_scalar_at_every_offset() {
    let fills: [&[u8]; 2] = [
        b"abcdefghijklmnopqrstuvwxyz0123456789-._~/?:@ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnop",
        b"/./a/../b.c/d/.e/f./g//./h/i/j/k.l/m/n/o/p/q/r/s/t/u/v/w/x/y/z/./../././/..//a/b/c/d",
    ];
    let stops = [
        b' ', b'%', b'#', 0u8, 0x80, 0xFF, b'"', b'[', b'7', b'\x7f', b'.', b'/',
    ];
    let mut n = 0;
    for fill in fills {
        for len in 0..=80usize {
            for stop_at in (0..=len).chain([usize::MAX]) {
                for &stop in &stops {
                    let mut text = fill[..len].to_vec();
                    if let Some(b) = text.get_mut(stop_at) {
                        *b = stop;
                    }
                    for from in 0..=len + 1 {
                        n += check(&text, from);
                    }
                    if stop_at == usize::MAX {
                        break;
                    }
                }
            }
        }
    }
    #[cfg(target_arch = "x86_64")]
    if ssse3::is_available() {
        assert!(n > 0, "the SSSE3 kernels never ran");
    }
    #[cfg(all(target_arch = "aarch64", target_feature = "neon"))]
    assert!(n > 0, "the NEON kernels never ran");
    let _ = n;
}

/// Random bytes from a small alphabet that mixes in and out of class.
#[test]
fn kernels_match_scalar_on_random_text() {
    let alphabet = b"ab/.-:@?%# \x00\x80\xC3\xA9Z9~";
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    for _ in 0..20_000 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let len = (x % 70) as usize;
        let mut y = x;
        let text: Vec<u8> = (0..len)
            .map(|_| {
                y = y
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                // Mostly in-class bytes, so runs are long.
                if (y >> 60) < 13 {
                    b'a'
                } else {
                    alphabet[(y >> 33) as usize % alphabet.len()]
                }
            })
            .collect();
        let from = (x >> 40) as usize % (len + 1);
        for c in &CLASSES {
            assert_eq!(
                span(&text, from, c),
                span_scalar(&text, from, c),
                "{text:?} {from}"
            );
        }
    }
}

/// Every text length 0..=256 and every start, with a stop byte (none, or
/// one of four) at the start, one byte after it, and either side of the
/// next two 16-byte boundaries: where the vector loop and its overlapping
/// final load meet.
#[test]
fn kernels_match_scalar_up_to_256_bytes() {
    let fills: [&[u8]; 2] = [
        b"abcdefghijklmnopqrstuvwxyz0123456789-._~/?:@ABCDEFGHIJKLMNOPQRSTUVWXYZ",
        b"/./a/../b.c/d/.e/f./g//./h/i/j/k.l/m/n/o/p/q/r/s/t/u/v/w/x/y/z/./../",
    ];
    let stops = [b' ', 0x80, b'.', b'/'];
    let mut n = 0;
    for fill in fills {
        let long: Vec<u8> = fill.iter().copied().cycle().take(256).collect();
        for len in 0..=256usize {
            for from in 0..=len + 1 {
                let at = [0, 1, 15, 16, 17, 31, 32, 33].map(|d| from + d);
                for (k, stop_at) in at.into_iter().map(Some).chain([None]).enumerate() {
                    let mut text = long[..len].to_vec();
                    if let Some(b) = stop_at.and_then(|i| text.get_mut(i)) {
                        *b = stops[(k + len) % stops.len()];
                    }
                    n += check(&text, from);
                }
            }
        }
    }
    #[cfg(target_arch = "x86_64")]
    if ssse3::is_available() {
        assert!(n > 0, "the SSSE3 kernels never ran");
    }
    let _ = n;
}

/// The classifier's ISA names choose the span kernels by the table in the
/// module docs.
#[test]
fn isa_names_choose_the_documented_kernels() {
    let best = SpanIsa::best();
    let or_best = |isa: SpanIsa| if isa.is_available() { isa } else { best };
    assert_eq!(SpanIsa::for_choice("scalar"), SpanIsa::Scalar);
    assert_eq!(SpanIsa::for_choice(" SCALAR\n"), SpanIsa::Scalar);
    for name in ["sse2", "avx2", "AVX512"] {
        assert_eq!(SpanIsa::for_choice(name), or_best(SpanIsa::Ssse3), "{name}");
    }
    assert_eq!(SpanIsa::for_choice("neon"), or_best(SpanIsa::Neon));
    for name in ["auto", "", "mmx"] {
        assert_eq!(SpanIsa::for_choice(name), best, "{name:?}");
    }
    #[cfg(target_arch = "x86_64")]
    assert_eq!(best == SpanIsa::Ssse3, ssse3::is_available());
    #[cfg(all(target_arch = "aarch64", target_feature = "neon"))]
    assert_eq!(best, SpanIsa::Neon);
}

/// [`dispatch`] runs the kernels that `URLSIFT_ISA` names (no test in this
/// crate calls [`set_scalar`]): run with `URLSIFT_ISA=scalar` and
/// `URLSIFT_ISA=sse2`, the other tests take the scalar and the SSSE3 path.
#[test]
fn dispatch_runs_the_kernels_urlsift_isa_names() {
    struct Which;
    impl WithSpans for Which {
        type Output = SpanIsa;
        fn run<S: Spans>(self, _: S) -> SpanIsa {
            match std::any::type_name::<S>().rsplit("::").next() {
                Some("Scalar") => SpanIsa::Scalar,
                Some("Ssse3") => SpanIsa::Ssse3,
                Some("Neon") => SpanIsa::Neon,
                other => panic!("unknown kernels {other:?}"),
            }
        }
    }
    let want = SpanIsa::from_env();
    assert_eq!(dispatch(Which), want);
    assert_eq!(chosen(), want);
    assert!(want.is_available());
    if std::env::var("URLSIFT_ISA").is_ok_and(|v| v == "scalar") {
        assert_eq!(want, SpanIsa::Scalar);
    }
}
