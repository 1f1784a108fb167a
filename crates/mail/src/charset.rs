//! Charset conversion for text parts. mail-parser's decoders are used for
//! every charset it knows; for the single-byte ones (ISO-8859-x, Windows-125x,
//! KOI8, ...) its decoder pushes one `char` at a time, so the same table is
//! read out of the decoder once per part and applied here: ASCII runs are
//! copied 8 bytes at a time and each other byte becomes its UTF-8 encoding.
//! The result is the decoder's, byte for byte.

/// A charset decoder: mail-parser's `charset_decoder` gives these.
pub(crate) type Decoder = fn(&[u8]) -> String;

/// The names mail-parser maps to a single-byte table decoder (from its
/// `decoders/charsets/map.rs`), as it normalizes them: ASCII lower case, `-`
/// as `_`. Sorted, for a binary search.
const SINGLE_BYTE: &[&str] = &[
    "850",
    "ansi_x3.4_1968",
    "arabic",
    "ascii",
    "asmo_708",
    "cp1250",
    "cp1251",
    "cp1252",
    "cp1253",
    "cp1254",
    "cp1255",
    "cp1256",
    "cp1257",
    "cp1258",
    "cp819",
    "cp850",
    "csiso885913",
    "csiso885914",
    "csiso885915",
    "csiso885916",
    "csiso88596e",
    "csiso88596i",
    "csiso88598e",
    "csiso88598i",
    "csisolatin1",
    "csisolatin2",
    "csisolatin3",
    "csisolatin4",
    "csisolatin5",
    "csisolatin6",
    "csisolatin9",
    "csisolatinarabic",
    "csisolatincyrillic",
    "csisolatingreek",
    "csisolatinhebrew",
    "cskoi8r",
    "cskoi8u",
    "csmacintosh",
    "cspc850multilingual",
    "cstis620",
    "cswindows1250",
    "cswindows1251",
    "cswindows1252",
    "cswindows1253",
    "cswindows1254",
    "cswindows1255",
    "cswindows1256",
    "cswindows1257",
    "cswindows1258",
    "cyrillic",
    "ecma_114",
    "ecma_118",
    "elot_928",
    "greek",
    "greek8",
    "hebrew",
    "ibm819",
    "ibm850",
    "iso88591",
    "iso885910",
    "iso885911",
    "iso885913",
    "iso885914",
    "iso885915",
    "iso88592",
    "iso88593",
    "iso88594",
    "iso88595",
    "iso88596",
    "iso88597",
    "iso88598",
    "iso88599",
    "iso8859_1",
    "iso8859_10",
    "iso8859_11",
    "iso8859_13",
    "iso8859_14",
    "iso8859_15",
    "iso8859_2",
    "iso8859_3",
    "iso8859_4",
    "iso8859_5",
    "iso8859_6",
    "iso8859_7",
    "iso8859_8",
    "iso8859_9",
    "iso_8859_1",
    "iso_8859_10",
    "iso_8859_10:1992",
    "iso_8859_11",
    "iso_8859_13",
    "iso_8859_14",
    "iso_8859_14:1998",
    "iso_8859_15",
    "iso_8859_16",
    "iso_8859_16:2001",
    "iso_8859_1:1987",
    "iso_8859_2",
    "iso_8859_2:1987",
    "iso_8859_3",
    "iso_8859_3:1988",
    "iso_8859_4",
    "iso_8859_4:1988",
    "iso_8859_5",
    "iso_8859_5:1988",
    "iso_8859_6",
    "iso_8859_6:1987",
    "iso_8859_6_e",
    "iso_8859_6_i",
    "iso_8859_7",
    "iso_8859_7:1987",
    "iso_8859_8",
    "iso_8859_8:1988",
    "iso_8859_8_e",
    "iso_8859_8_i",
    "iso_8859_9",
    "iso_8859_9:1989",
    "iso_celtic",
    "iso_ir_100",
    "iso_ir_101",
    "iso_ir_109",
    "iso_ir_110",
    "iso_ir_126",
    "iso_ir_127",
    "iso_ir_138",
    "iso_ir_144",
    "iso_ir_148",
    "iso_ir_157",
    "iso_ir_199",
    "iso_ir_226",
    "koi",
    "koi8",
    "koi8_r",
    "koi8_ru",
    "koi8_u",
    "l1",
    "l10",
    "l2",
    "l3",
    "l4",
    "l5",
    "l6",
    "l8",
    "l9",
    "latin1",
    "latin10",
    "latin2",
    "latin3",
    "latin4",
    "latin5",
    "latin6",
    "latin8",
    "latin_9",
    "logical",
    "mac",
    "macintosh",
    "sun_eu_greek",
    "tis_620",
    "us_ascii",
    "visual",
    "windows_1250",
    "windows_1251",
    "windows_1252",
    "windows_1253",
    "windows_1254",
    "windows_1255",
    "windows_1256",
    "windows_1257",
    "windows_1258",
    "x_cp1250",
    "x_cp1251",
    "x_cp1252",
    "x_cp1253",
    "x_cp1254",
    "x_cp1255",
    "x_cp1256",
    "x_cp1257",
    "x_cp1258",
    "x_mac_roman",
];

/// The UTF-8 encoding of each byte from 0x80 to 0xff in a single-byte
/// charset.
pub(crate) struct Table([([u8; 4], u8); 128]);

impl Table {
    /// The table of `charset` (whose decoder is `dec`), when it is a
    /// single-byte charset that leaves ASCII as it is.
    pub(crate) fn new(charset: &str, dec: Decoder) -> Option<Table> {
        let name = charset.as_bytes();
        if name.is_empty() || name.len() > 45 {
            return None;
        }
        let norm: Vec<u8> = name
            .iter()
            .map(|&b| match b {
                b'A'..=b'Z' => b + 32,
                b'-' => b'_',
                _ => b,
            })
            .collect();
        SINGLE_BYTE
            .binary_search(&&*String::from_utf8_lossy(&norm))
            .ok()?;
        let all: Vec<u8> = (0..=255u8).collect();
        let chars: Vec<char> = dec(&all).chars().collect();
        if chars.len() != 256 || (0..128).any(|b| chars[b] as u32 != b as u32) {
            return None;
        }
        let mut t = [([0u8; 4], 0u8); 128];
        for (e, c) in t.iter_mut().zip(&chars[128..]) {
            e.1 = c.encode_utf8(&mut e.0).len() as u8;
        }
        Some(Table(t))
    }

    /// Append the UTF-8 text of `src` to `out`.
    pub(crate) fn convert(&self, src: &[u8], out: &mut Vec<u8>) {
        out.reserve(src.len() + src.len() / 4);
        let mut i = 0;
        while i < src.len() {
            let run = ascii_run(&src[i..]);
            out.extend_from_slice(&src[i..i + run]);
            i += run;
            while let Some(&b) = src.get(i).filter(|&&b| b >= 0x80) {
                let (bytes, len) = &self.0[usize::from(b - 0x80)];
                out.extend_from_slice(&bytes[..usize::from(*len)]);
                i += 1;
            }
        }
    }
}

/// How many bytes at the start of `s` are ASCII.
fn ascii_run(s: &[u8]) -> usize {
    let mut i = 0;
    while let Some(c) = s.get(i..i + 8) {
        let w = u64::from_le_bytes(c.try_into().unwrap_or_default());
        if w & 0x8080_8080_8080_8080 != 0 {
            break;
        }
        i += 8;
    }
    i + s[i..].iter().take_while(|b| b.is_ascii()).count()
}

#[cfg(test)]
mod tests {
    use super::*;
    use mail_parser::decoders::charsets::map::charset_decoder;

    #[test]
    fn names_are_sorted() {
        assert!(SINGLE_BYTE.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn tables_give_the_decoders_output() {
        let text: Vec<u8> = (0..2000u32).map(|i| (i * 7 % 256) as u8).collect();
        let mut with_table = 0;
        for &name in SINGLE_BYTE {
            for spelled in [name.to_owned(), name.replace('_', "-").to_ascii_uppercase()] {
                let dec = charset_decoder(spelled.as_bytes()).unwrap();
                let Some(t) = Table::new(&spelled, dec) else {
                    continue;
                };
                with_table += 1;
                for len in [0, 1, 7, 8, 9, 100, 2000] {
                    let mut out = b"x".to_vec();
                    t.convert(&text[..len], &mut out);
                    assert_eq!(&out[1..], dec(&text[..len]).as_bytes(), "{spelled} {len}");
                }
            }
        }
        assert!(with_table > 100, "{with_table}");
        let dec = charset_decoder(b"shift_jis").unwrap();
        assert!(Table::new("shift_jis", dec).is_none());
    }
}
