//! Transfer decoding (RFC 2045 6.7 quoted-printable, 6.8 base64), written for
//! speed: one pass, output appended to a reused buffer, and `memchr` to jump
//! between the bytes that need work (mail-parser's own decoders go byte by
//! byte).

/// Append the quoted-printable decoding of `src` to `out`. A soft line break
/// (`=` and optional trailing blanks before the line end) is removed; `=XX`
/// gives its byte (either case of hex digits); any other `=` is kept as it is.
pub(crate) fn quoted_printable(src: &[u8], out: &mut Vec<u8>) {
    out.reserve(src.len());
    let mut i = 0;
    while let Some(n) = memchr::memchr(b'=', &src[i..]) {
        let e = i + n;
        out.extend_from_slice(&src[i..e]);
        let rest = &src[e + 1..];
        if let [a, b, ..] = rest
            && let (Some(h), Some(l)) = (hex(*a), hex(*b))
        {
            out.push(h << 4 | l);
            i = e + 3;
            continue;
        }
        // A soft break: blanks then CRLF or LF (or the end of the input).
        let blanks = rest
            .iter()
            .take_while(|&&b| b == b' ' || b == b'\t')
            .count();
        match &rest[blanks..] {
            [b'\n', ..] => i = e + 1 + blanks + 1,
            [b'\r', b'\n', ..] => i = e + 1 + blanks + 2,
            [] => i = src.len(),
            _ => {
                out.push(b'=');
                i = e + 1;
            }
        }
    }
    out.extend_from_slice(&src[i..]);
}

fn hex(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'A'..=b'F' => Some(b - b'A' + 10),
        b'a'..=b'f' => Some(b - b'a' + 10),
        _ => None,
    }
}

const INVALID: u8 = 0xff;
const SKIP: u8 = 0xfe;

const B64: [u8; 256] = {
    let mut t = [INVALID; 256];
    let alphabet = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut i = 0;
    while i < 64 {
        t[alphabet[i] as usize] = i as u8;
        i += 1;
    }
    t[b' ' as usize] = SKIP;
    t[b'\t' as usize] = SKIP;
    t[b'\r' as usize] = SKIP;
    t[b'\n' as usize] = SKIP;
    t
};

/// Set in a [`SHIFTED`] entry for a byte outside the alphabet.
const BAD: u32 = 1 << 31;

/// [`B64`] values shifted into their place in a 24-bit group (one table per
/// position), so a group is four lookups ORed; [`BAD`] marks the rest.
static SHIFTED: [[u32; 256]; 4] = {
    let mut t = [[BAD; 256]; 4];
    let mut b = 0;
    while b < 256 {
        let v = B64[b];
        if v < 64 {
            let mut k = 0;
            while k < 4 {
                t[k][b] = (v as u32) << (18 - 6 * k);
                k += 1;
            }
        }
        b += 1;
    }
    t
};

/// Four characters as a 24-bit group, or with [`BAD`] set.
#[inline(always)]
fn group(c: &[u8; 4]) -> u32 {
    SHIFTED[0][c[0] as usize]
        | SHIFTED[1][c[1] as usize]
        | SHIFTED[2][c[2] as usize]
        | SHIFTED[3][c[3] as usize]
}

/// How a base64 body ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Base64End {
    /// Whole 4-character groups (with `=` padding or none).
    Complete,
    /// It stopped inside a group: the body was cut (the whole groups before
    /// it were decoded).
    Truncated,
    /// A character outside the alphabet at this offset; decoding stopped
    /// there (what came before was decoded).
    Invalid(usize),
}

/// Append the base64 decoding of `src` to `out`. Whitespace is skipped;
/// decoding ends at `=` padding.
///
/// The output is written into room made for it up front, 8 characters (6
/// bytes) at a time while the input is whole groups of the alphabet (most of
/// a 76-character line), then byte by byte over line ends and the rest.
pub(crate) fn base64(src: &[u8], out: &mut Vec<u8>) -> Base64End {
    let start = out.len();
    // Room for every group plus the 2 bytes an 8-byte store writes past its 6.
    out.resize(start + src.len() / 4 * 3 + 8, 0);
    let mut d = Decoder {
        out: &mut out[..],
        o: start,
        acc: 0,
        n: 0,
    };
    let end = d.run(src);
    let o = d.o;
    out.truncate(o);
    end
}

struct Decoder<'a> {
    out: &'a mut [u8],
    /// Bytes written so far (an index into `out`).
    o: usize,
    /// The characters of a partial group, 6 bits each.
    acc: u32,
    /// How many there are (0..=3).
    n: u32,
}

impl Decoder<'_> {
    fn run(&mut self, src: &[u8]) -> Base64End {
        let mut i = 0;
        while i < src.len() {
            if self.n == 0 {
                // Whole groups: 8 characters, then 4.
                while let Some(c) = src[i..].first_chunk::<8>() {
                    let x = group(&[c[0], c[1], c[2], c[3]]);
                    let y = group(&[c[4], c[5], c[6], c[7]]);
                    if (x | y) & BAD != 0 {
                        break;
                    }
                    let w = u64::from(x) << 40 | u64::from(y) << 16;
                    self.out[self.o..self.o + 8].copy_from_slice(&w.to_be_bytes());
                    self.o += 6;
                    i += 8;
                }
                if let Some(c) = src[i..].first_chunk::<4>() {
                    let x = group(c);
                    if x & BAD == 0 {
                        self.out[self.o..self.o + 3].copy_from_slice(&x.to_be_bytes()[1..]);
                        self.o += 3;
                        i += 4;
                        continue;
                    }
                }
                if i >= src.len() {
                    break;
                }
            }
            // One character: whitespace, padding, a partial group.
            let v = B64[src[i] as usize];
            if v < 64 {
                self.acc = self.acc << 6 | u32::from(v);
                self.n += 1;
                if self.n == 4 {
                    self.out[self.o..self.o + 3].copy_from_slice(&self.acc.to_be_bytes()[1..]);
                    self.o += 3;
                    self.acc = 0;
                    self.n = 0;
                }
            } else if v == INVALID {
                return self.finish(src, i);
            }
            i += 1;
        }
        if self.n == 0 {
            Base64End::Complete
        } else {
            Base64End::Truncated
        }
    }

    /// A non-alphabet byte at `i`: `=` padding ends a group, anything else
    /// is invalid.
    fn finish(&mut self, src: &[u8], i: usize) -> Base64End {
        if src[i] != b'=' {
            return Base64End::Invalid(i);
        }
        match self.n {
            2 => {
                self.out[self.o] = (self.acc >> 4) as u8;
                self.o += 1;
            }
            3 => {
                let b = ((self.acc >> 2) as u16).to_be_bytes();
                self.out[self.o..self.o + 2].copy_from_slice(&b);
                self.o += 2;
            }
            0 => {}
            _ => return Base64End::Invalid(i),
        }
        Base64End::Complete
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn qp(s: &[u8]) -> Vec<u8> {
        let mut v = Vec::new();
        quoted_printable(s, &mut v);
        v
    }

    fn b64(s: &[u8]) -> (Vec<u8>, Base64End) {
        let mut v = Vec::new();
        let e = base64(s, &mut v);
        (v, e)
    }

    #[test]
    fn quoted_printable_cases() {
        assert_eq!(qp(b"a=3Db=3db"), b"a=b=b");
        assert_eq!(qp(b"http://x/very=\nlong"), b"http://x/verylong");
        assert_eq!(qp(b"a= \t\r\nb="), b"ab");
        assert_eq!(qp(b"a=zz=4"), b"a=zz=4");
        assert_eq!(qp(b"caf=C3=A9"), "café".as_bytes());
        assert_eq!(qp(b""), b"");
    }

    /// Byte at a time: the definition the fast loops must agree with.
    fn b64_naive(src: &[u8]) -> (Vec<u8>, Base64End) {
        let (mut out, mut acc, mut n) = (Vec::new(), 0u32, 0);
        for (i, &b) in src.iter().enumerate() {
            let v = B64[b as usize];
            if v < 64 {
                acc = acc << 6 | u32::from(v);
                n += 1;
                if n == 4 {
                    out.extend_from_slice(&acc.to_be_bytes()[1..]);
                    (acc, n) = (0, 0);
                }
            } else if v == INVALID {
                let end = match (b, n) {
                    (b'=', 2) => {
                        out.push((acc >> 4) as u8);
                        Base64End::Complete
                    }
                    (b'=', 3) => {
                        out.extend_from_slice(&((acc >> 2) as u16).to_be_bytes());
                        Base64End::Complete
                    }
                    (b'=', 0) => Base64End::Complete,
                    _ => Base64End::Invalid(i),
                };
                return (out, end);
            }
        }
        let end = if n == 0 {
            Base64End::Complete
        } else {
            Base64End::Truncated
        };
        (out, end)
    }

    #[test]
    fn base64_equals_the_naive_loop() {
        let chars = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/AAAAAAAAAAAAAAAA \t\r\n=*";
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        for len in 0..400usize {
            for _ in 0..8 {
                let v: Vec<u8> = (0..len)
                    .map(|_| {
                        seed ^= seed << 13;
                        seed ^= seed >> 7;
                        seed ^= seed << 17;
                        // Mostly alphabet, sometimes anything.
                        let k = (seed >> 8) as usize % (chars.len() * 8);
                        chars.get(k).copied().unwrap_or(chars[k % 64])
                    })
                    .collect();
                let mut out = b"prefix".to_vec();
                let end = base64(&v, &mut out);
                let (want, want_end) = b64_naive(&v);
                assert_eq!((&out[6..], end), (&want[..], want_end), "{v:?}");
            }
        }
    }

    #[test]
    fn base64_matches_a_reference() {
        let alphabet = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        for len in 0..200usize {
            let data: Vec<u8> = (0..len).map(|i| (i * 37 + len) as u8).collect();
            // Reference encoder, wrapped at 76 with CRLF.
            let mut enc = Vec::new();
            for c in data.chunks(3) {
                let w = c.iter().fold(0u32, |w, &b| w << 8 | u32::from(b)) << (8 * (3 - c.len()));
                for k in 0..4 {
                    if k <= c.len() {
                        enc.push(alphabet[(w >> (18 - 6 * k) & 63) as usize]);
                    } else {
                        enc.push(b'=');
                    }
                }
            }
            let wrapped: Vec<u8> = enc
                .chunks(76)
                .flat_map(|l| l.iter().copied().chain(*b"\r\n"))
                .collect();
            assert_eq!(b64(&wrapped), (data.clone(), Base64End::Complete), "{len}");
            assert_eq!(b64(&enc).0, data, "{len}");
        }
        assert_eq!(
            b64(b"aGVsbG8gd29y"),
            (b"hello wor".to_vec(), Base64End::Complete)
        );
        assert_eq!(
            b64(b"aGVsbG8gd29yb"),
            (b"hello wor".to_vec(), Base64End::Truncated)
        );
        assert_eq!(b64(b"aGVs*G8"), (b"hel".to_vec(), Base64End::Invalid(4)));
    }
}
