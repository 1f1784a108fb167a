//! The rows of `--format parquet` ([`Format::Rows`](crate::Format::Rows)),
//! as the [`pipeline`](crate::pipeline) carries them: every field of
//! [`FIELDS`] in order, in a compact binary form that the Parquet writer
//! and the Arrow batches are built from column by column (no text is
//! formatted and parsed again).
//!
//! A row is a `u32` (little-endian) byte length, then its values: text as a
//! `u32` length and the UTF-8 bytes (length `u32::MAX`: null), an integer
//! as a tag byte (0: null, 1: a value) and a `u64`, a boolean as one byte
//! (0: false, 1: true, 2: null).

use std::io;

use crate::fields::{FIELDS, Type};

/// The most bytes one row may have: anything longer is not a row.
pub(crate) const MAX_ROW: usize = 1 << 30;

/// Null text: the length that marks it.
const NULL_TEXT: u32 = u32::MAX;

/// Writes one row: one call per field of [`FIELDS`], in order, each of the
/// field's type (a field of another type, or too few or too many, is an
/// error of [`RowWriter::end`]).
pub(crate) struct RowWriter<'o> {
    out: &'o mut Vec<u8>,
    at: usize,
    next: usize,
    wrong: bool,
}

impl<'o> RowWriter<'o> {
    /// A row appended to `out`.
    pub(crate) fn new(out: &'o mut Vec<u8>) -> Self {
        let at = out.len();
        out.extend_from_slice(&[0; 4]);
        RowWriter {
            out,
            at,
            next: 0,
            wrong: false,
        }
    }

    fn field(&mut self, ty: Type) {
        let ok = FIELDS.get(self.next).is_some_and(|f| same_kind(f.ty, ty));
        self.wrong |= !ok;
        self.next += 1;
    }

    /// The next field, text.
    pub(crate) fn text(&mut self, v: Option<&str>) {
        self.field(Type::Text);
        match v {
            Some(s) => {
                // A longer string cannot be in a row at all: cut to fit, and
                // `end` refuses the row.
                let n = u32::try_from(s.len()).unwrap_or(NULL_TEXT - 1);
                self.out.extend_from_slice(&n.to_le_bytes());
                self.out.extend_from_slice(s.as_bytes());
            }
            None => self.out.extend_from_slice(&NULL_TEXT.to_le_bytes()),
        }
    }

    /// The next field, an integer.
    pub(crate) fn int(&mut self, v: Option<u64>) {
        self.field(Type::U64);
        self.out.push(u8::from(v.is_some()));
        self.out.extend_from_slice(&v.unwrap_or(0).to_le_bytes());
    }

    /// The next field, a boolean.
    pub(crate) fn bool(&mut self, v: Option<bool>) {
        self.field(Type::Bool);
        self.out.push(match v {
            Some(b) => u8::from(b),
            None => 2,
        });
    }

    /// The end of the row: its length written in front.
    pub(crate) fn end(self) -> io::Result<()> {
        let len = self.out.len() - self.at - 4;
        if self.wrong || self.next != FIELDS.len() || len > MAX_ROW {
            self.out.truncate(self.at);
            return Err(io::Error::other(format!(
                "a row of {} fields does not match the {} fields of a record",
                self.next,
                FIELDS.len()
            )));
        }
        self.out[self.at..self.at + 4].copy_from_slice(&(len as u32).to_le_bytes());
        Ok(())
    }
}

/// Integers of any width are one kind of value in a row.
fn same_kind(a: Type, b: Type) -> bool {
    let int = |t| matches!(t, Type::U64 | Type::U32);
    a == b || (int(a) && int(b))
}

/// One value of a row.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Value<'a> {
    /// Text (UTF-8 as the record had it), or null.
    Text(Option<&'a [u8]>),
    /// An integer, or null.
    Int(Option<u64>),
    /// A boolean, or null.
    Bool(Option<bool>),
}

fn bad(what: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, format!("not a row: {what}"))
}

/// The length of the row that starts `buf`, once its 4 length bytes are
/// there (`None` before).
pub(crate) fn row_len(buf: &[u8]) -> io::Result<Option<usize>> {
    let Some(head) = buf.first_chunk::<4>() else {
        return Ok(None);
    };
    let n = u32::from_le_bytes(*head) as usize;
    if n > MAX_ROW {
        return Err(bad("a row longer than 1 GiB"));
    }
    Ok(Some(4 + n))
}

/// The rows of a buffer of whole rows, in order.
pub(crate) struct Rows<'a> {
    buf: &'a [u8],
}

impl<'a> Rows<'a> {
    /// The rows of `buf`.
    pub(crate) fn new(buf: &'a [u8]) -> Self {
        Rows { buf }
    }
}

impl<'a> Iterator for Rows<'a> {
    type Item = io::Result<Row<'a>>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.buf.is_empty() {
            return None;
        }
        let r = match row_len(self.buf) {
            Ok(Some(n)) if n <= self.buf.len() => {
                let (row, rest) = self.buf.split_at(n);
                self.buf = rest;
                return Some(Ok(Row { body: &row[4..] }));
            }
            Ok(_) => Err(bad("the last row is cut short")),
            Err(e) => Err(e),
        };
        self.buf = &[];
        Some(r)
    }
}

/// One row: its values, one per field of [`FIELDS`].
#[derive(Clone, Copy, Debug)]
pub(crate) struct Row<'a> {
    body: &'a [u8],
}

impl<'a> Row<'a> {
    /// The values, in [`FIELDS`] order; an error for bytes that are not a
    /// row (the iterator ends after it).
    pub(crate) fn values(&self) -> Values<'a> {
        Values {
            body: self.body,
            next: 0,
            failed: false,
            check: None,
        }
    }

    /// [`Row::values`], checking the text of field `i` as UTF-8 only where
    /// `check[i]` (the other values' lengths and tags only): for a caller
    /// that keeps some of the fields.
    #[cfg_attr(not(feature = "arrow"), allow(dead_code))]
    pub(crate) fn values_checking(&self, check: &'a [bool]) -> Values<'a> {
        Values {
            check: Some(check),
            ..self.values()
        }
    }

    /// The values of the fields `i` where `keep[i]`, handed to `each` in
    /// [`FIELDS`] order with their field's index, as one loop over the row
    /// (the column writers' path: no iterator per row). Kept text is
    /// checked as UTF-8; the other values' lengths and tags only, and a row
    /// that [`Row::values`] refuses is refused with the same error.
    #[cfg_attr(not(feature = "parquet"), allow(dead_code))]
    #[inline]
    pub(crate) fn visit(
        &self,
        keep: &[bool],
        mut each: impl FnMut(usize, Value<'a>) -> io::Result<()>,
    ) -> io::Result<()> {
        let cut = || bad("a value is cut short");
        let mut body = self.body;
        for (i, f) in FIELDS.iter().enumerate() {
            let kept = keep.get(i).copied().unwrap_or(false);
            let v = match f.ty {
                Type::Text => {
                    let (head, rest) = body.split_first_chunk::<4>().ok_or_else(cut)?;
                    let n = u32::from_le_bytes(*head);
                    if n == NULL_TEXT {
                        body = rest;
                        Value::Text(None)
                    } else {
                        let n = n as usize;
                        if rest.len() < n {
                            return Err(cut());
                        }
                        let (s, rest) = rest.split_at(n);
                        body = rest;
                        if kept && !s.is_ascii() && std::str::from_utf8(s).is_err() {
                            return Err(bad("text that is not UTF-8"));
                        }
                        Value::Text(Some(s))
                    }
                }
                Type::U64 | Type::U32 => {
                    let (&[tag, ref n @ ..], rest) =
                        body.split_first_chunk::<9>().ok_or_else(cut)?;
                    body = rest;
                    match tag {
                        0 => Value::Int(None),
                        1 => Value::Int(Some(u64::from_le_bytes(*n))),
                        _ => return Err(bad("an integer's tag")),
                    }
                }
                Type::Bool => {
                    let (&b, rest) = body.split_first().ok_or_else(cut)?;
                    body = rest;
                    match b {
                        0 => Value::Bool(Some(false)),
                        1 => Value::Bool(Some(true)),
                        2 => Value::Bool(None),
                        _ => return Err(bad("a boolean")),
                    }
                }
            };
            if kept {
                each(i, v)?;
            }
        }
        if !body.is_empty() {
            return Err(bad("bytes after the last field"));
        }
        Ok(())
    }
}

/// The values of a [`Row`].
pub(crate) struct Values<'a> {
    body: &'a [u8],
    next: usize,
    failed: bool,
    check: Option<&'a [bool]>,
}

impl<'a> Values<'a> {
    fn take(&mut self, n: usize) -> io::Result<&'a [u8]> {
        if self.body.len() < n {
            return Err(bad("a value is cut short"));
        }
        let (v, rest) = self.body.split_at(n);
        self.body = rest;
        Ok(v)
    }

    fn value(&mut self, ty: Type, check: bool) -> io::Result<Value<'a>> {
        Ok(match ty {
            Type::Text => {
                let n = u32::from_le_bytes(self.take(4)?.try_into().unwrap_or_default());
                if n == NULL_TEXT {
                    Value::Text(None)
                } else {
                    let s = self.take(n as usize)?;
                    if check && std::str::from_utf8(s).is_err() {
                        return Err(bad("text that is not UTF-8"));
                    }
                    Value::Text(Some(s))
                }
            }
            Type::U64 | Type::U32 => {
                let v = self.take(9)?;
                let n = u64::from_le_bytes(v[1..].try_into().unwrap_or_default());
                match v[0] {
                    0 => Value::Int(None),
                    1 => Value::Int(Some(n)),
                    _ => return Err(bad("an integer's tag")),
                }
            }
            Type::Bool => match self.take(1)?[0] {
                0 => Value::Bool(Some(false)),
                1 => Value::Bool(Some(true)),
                2 => Value::Bool(None),
                _ => return Err(bad("a boolean")),
            },
        })
    }
}

impl<'a> Iterator for Values<'a> {
    type Item = io::Result<Value<'a>>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        let Some(f) = FIELDS.get(self.next) else {
            if self.body.is_empty() {
                return None;
            }
            self.failed = true;
            return Some(Err(bad("bytes after the last field")));
        };
        let check = self
            .check
            .is_none_or(|c| c.get(self.next).copied().unwrap_or(true));
        self.next += 1;
        let v = self.value(f.ty, check);
        self.failed = v.is_err();
        Some(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A row of every field, each from `pick`.
    fn row(out: &mut Vec<u8>, pick: impl Fn(usize, Type) -> u8) -> io::Result<()> {
        let mut w = RowWriter::new(out);
        for (i, f) in FIELDS.iter().enumerate() {
            match (f.ty, pick(i, f.ty)) {
                (Type::Text, 0) => w.text(None),
                (Type::Text, n) => w.text(Some(&"é".repeat(n as usize))),
                (Type::U64 | Type::U32, 0) => w.int(None),
                (Type::U64 | Type::U32, n) => w.int(Some(u64::MAX - u64::from(n))),
                (Type::Bool, n) => w.bool([None, Some(false), Some(true)][n as usize % 3]),
            }
        }
        w.end()
    }

    #[test]
    fn rows_read_back_as_written() {
        let mut buf = Vec::new();
        for r in 0..3u8 {
            row(&mut buf, |i, _| (i as u8 + r) % 4).unwrap();
        }
        assert_eq!(Rows::new(&buf).count(), 3);
        let no = vec![false; FIELDS.len()];
        for (r, row) in Rows::new(&buf).enumerate() {
            let row = row.unwrap();
            let values: Vec<Value> = row.values().collect::<io::Result<_>>().unwrap();
            let unchecked: Vec<Value> =
                row.values_checking(&no).collect::<io::Result<_>>().unwrap();
            assert_eq!(values, unchecked);
            assert_eq!(values.len(), FIELDS.len());
            for (i, v) in values.iter().enumerate() {
                let k = (i as u8 + r as u8) % 4;
                let s = "é".repeat(k as usize);
                let want = match FIELDS[i].ty {
                    Type::Text => Value::Text((k > 0).then_some(s.as_bytes())),
                    Type::Bool => Value::Bool([None, Some(false), Some(true)][k as usize % 3]),
                    _ => Value::Int((k > 0).then(|| u64::MAX - u64::from(k))),
                };
                assert_eq!(*v, want, "row {r} field {}", FIELDS[i].name);
            }
        }
    }

    /// The kept values of `row` by [`Row::visit`], or its error.
    fn visited<'a>(row: &Row<'a>, keep: &[bool]) -> io::Result<Vec<(usize, Value<'a>)>> {
        let mut out = Vec::new();
        row.visit(keep, |i, v| {
            out.push((i, v));
            Ok(())
        })?;
        Ok(out)
    }

    /// The kept values of `row` by [`Row::values_checking`], or its first
    /// error.
    fn iterated<'a>(row: &Row<'a>, keep: &'a [bool]) -> io::Result<Vec<(usize, Value<'a>)>> {
        let mut out = Vec::new();
        for (i, v) in row.values_checking(keep).enumerate() {
            let v = v?;
            if keep[i] {
                out.push((i, v));
            }
        }
        Ok(out)
    }

    #[test]
    fn visit_keeps_the_values_and_errors_of_the_iterator() {
        let all = vec![true; FIELDS.len()];
        let some: Vec<bool> = (0..FIELDS.len()).map(|i| i % 3 == 1).collect();
        let mut good = Vec::new();
        row(&mut good, |i, _| i as u8 % 4).unwrap();
        // Every byte changed and every cut: the same values, or an error
        // for both (with the same message).
        let mut cases = vec![good.clone()];
        for at in 4..good.len() {
            for b in [0u8, 1, 2, 3, 0x7f, 0xe9, 0xff] {
                let mut bad = good.clone();
                bad[at] = b;
                cases.push(bad);
            }
        }
        for cut in 4..good.len() {
            let mut short = good[..cut].to_vec();
            short[..4].copy_from_slice(&(cut as u32 - 4).to_le_bytes());
            cases.push(short);
        }
        let mut errors = 0;
        for case in &cases {
            let r = Row { body: &case[4..] };
            for keep in [&all, &some] {
                match (visited(&r, keep), iterated(&r, keep)) {
                    (Ok(a), Ok(b)) => assert_eq!(a, b),
                    (Err(a), Err(b)) => {
                        assert_eq!(a.to_string(), b.to_string());
                        errors += 1;
                    }
                    (a, b) => panic!("{a:?} / {b:?}"),
                }
            }
        }
        assert!(errors > cases.len() / 2);
    }

    #[test]
    fn a_row_of_the_wrong_fields_is_refused() {
        let mut buf = b"kept".to_vec();
        let mut w = RowWriter::new(&mut buf);
        w.text(Some("a"));
        assert!(w.end().is_err());
        let mut w = RowWriter::new(&mut buf);
        w.bool(Some(true));
        for _ in 1..FIELDS.len() {
            w.text(None);
        }
        assert!(w.end().is_err());
        assert_eq!(buf, b"kept");
    }

    /// Every row of `buf` and every value: the first error, if any.
    fn check_all(buf: &[u8]) -> io::Result<usize> {
        let mut n = 0;
        for row in Rows::new(buf) {
            for v in row?.values() {
                v?;
            }
            n += 1;
        }
        Ok(n)
    }

    #[test]
    fn bytes_that_are_not_rows_are_errors() {
        let mut good = Vec::new();
        row(&mut good, |i, _| i as u8 % 3).unwrap();
        assert_eq!(check_all(&good).unwrap(), 1);
        // Every cut, and every byte changed, is an error or still a row:
        // never a panic.
        for cut in 0..good.len() {
            assert!(check_all(&good[..cut]).is_err() || cut == 0);
        }
        for at in 0..good.len() {
            for b in [0u8, 3, 0x7f, 0xff] {
                let mut bad = good.clone();
                bad[at] = b;
                let _ = check_all(&bad);
                for r in Rows::new(&bad).flatten() {
                    let _ = r.values().count();
                }
            }
        }
        // Trailing bytes inside a row.
        let mut long = good.clone();
        let n = u32::from_le_bytes(long[..4].try_into().unwrap()) + 1;
        long[..4].copy_from_slice(&n.to_le_bytes());
        long.push(0);
        assert!(check_all(&long).is_err());
        assert!(check_all(b"\x01\x00\x00\x00").is_err());
        // Text that is not UTF-8, checked only where asked.
        let mut latin = Vec::new();
        row(&mut latin, |i, _| u8::from(i == 0)).unwrap();
        let at = latin.windows(2).position(|w| w == "é".as_bytes()).unwrap();
        latin[at] = 0xe9;
        latin[at + 1] = b' ';
        assert!(check_all(&latin).is_err());
        let r = Rows::new(&latin).next().unwrap().unwrap();
        let mut skip = vec![true; FIELDS.len()];
        skip[0] = false;
        assert!(r.values_checking(&skip).all(|v| v.is_ok()));
    }
}

/// The examples of items private to the crate.
#[cfg(test)]
mod examples {
    #[test]
    fn module() {
        use crate::rows::{Rows, Value};
        use crate::{Format, Formatter, Options, Record};
        let m = &urlsift_core::find(b"see http://a.example/x").collect::<Vec<_>>()[0];
        let mut f = Formatter::new(&Options {
            format: Format::Rows,
            normalize: true,
            ..Options::default()
        });
        let mut bytes = Vec::new();
        f.format(
            &Record {
                file: "f",
                line: 1,
                m,
                mail: None,
                web: None,
            },
            &mut bytes,
        )
        .unwrap();
        let row = Rows::new(&bytes).next().unwrap().unwrap();
        let values: Vec<Value> = row.values().collect::<Result<_, _>>().unwrap();
        assert_eq!(values[0], Value::Text(Some(b"f")));
        assert_eq!(values[1], Value::Int(Some(4)));
        assert_eq!(values[4], Value::Text(Some(b"http://a.example/x")));
    }
    #[test]
    fn row_len() {
        use crate::rows::row_len;
        assert_eq!(row_len(&[5, 0]).unwrap(), None);
        assert_eq!(row_len(&[5, 0, 0, 0, 9]).unwrap(), Some(9));
        assert!(row_len(&[255, 255, 255, 255]).is_err());
    }
}
