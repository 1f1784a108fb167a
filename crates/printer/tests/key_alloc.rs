//! `dedup::key_into` allocates nothing once its buffers have grown: not
//! for URLs with a scheme, and not for abbreviated `www.` URIs, at every
//! level (counted by a global allocator that counts).

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use urlsift_printer::dedup::{KeyLevel, key, key_into};

/// The system allocator, counting this thread's allocations.
struct Counting;

thread_local! {
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
}

// SAFETY: every call is passed on to the system allocator as it is.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
        // SAFETY: the caller's contract, passed on.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller's contract, passed on.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
        // SAFETY: the caller's contract, passed on.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static COUNTING: Counting = Counting;

fn allocations() -> usize {
    ALLOCATIONS.with(Cell::get)
}

#[test]
fn key_into_reuses_its_buffers_for_www_uris() {
    // (URL, abbreviated `www.` URI, SURT by its fast path)
    let urls: [(&[u8], bool, bool); 6] = [
        (b"www.Example.com/a/./b?b=1&a=2#x", true, false),
        (b"www.example.org:80/", true, true),
        (b"www.example.net", true, true),
        (
            b"www.example.com:8080/path/to/page.html?q=1&b=2",
            true,
            true,
        ),
        (b"HTTP://www.Example.com:80/%7Euser", false, false),
        (b"https://example.com/a/b?c=d", false, true),
    ];
    let levels = [
        KeyLevel::Raw,
        KeyLevel::Syntax,
        KeyLevel::Scheme,
        KeyLevel::NoFragment,
        KeyLevel::Whatwg,
        KeyLevel::Surt,
    ];
    let mut buf = Vec::new();
    // The first round grows the buffers (and checks the keys).
    for &(u, www, _) in &urls {
        for level in levels {
            assert_eq!(key_into(u, www, level, &mut buf), &*key(u, www, level));
        }
    }
    let mut total = 0;
    for &(u, www, surt_fast) in &urls {
        for level in levels {
            // SURT's step-by-step path (decoding, dot segments) allocates.
            if level == KeyLevel::Surt && !surt_fast {
                continue;
            }
            let before = allocations();
            for _ in 0..10 {
                total += key_into(u, www, level, &mut buf).len();
            }
            let n = allocations() - before;
            assert_eq!(n, 0, "{} at {level:?}", String::from_utf8_lossy(u));
        }
    }
    assert!(total > 0);
}
