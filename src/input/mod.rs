//! Inputs: memory-mapped files, streamed pipes and gzip, directory walks.
//!
//! A regular file is memory-mapped (falling back to reading it whole if the
//! map fails); everything else (standard input, pipes, `.gz`) is read as a
//! stream of large blocks, so memory stays bounded whatever the input size
//! (see [`crate::parallel::scan_reader`]).

pub mod mail;

use std::fs::File;
use std::io::{self, Read};
use std::ops::Deref;
use std::path::Path;

/// The bytes of one input: a memory map, or bytes read into memory.
pub enum Data {
    /// A memory-mapped regular file.
    Mapped(memmap2::Mmap),
    /// Bytes read into memory (small files, or when mapping failed).
    Owned(Vec<u8>),
}

impl Deref for Data {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            Data::Mapped(m) => m,
            Data::Owned(v) => v,
        }
    }
}

/// Files smaller than this are read rather than mapped: a map costs more
/// than a read for small files.
const MAP_MIN: u64 = 1 << 20;

/// Map (or read) the regular file `file`.
///
/// Mapping is an explicit choice (as in ripgrep): it is the fastest way to
/// scan a large file, at the cost that a file truncated by another process
/// while it is scanned can raise `SIGBUS`. Scan files that are being written
/// through standard input instead.
pub fn map_file(file: &File) -> io::Result<Data> {
    let len = file.metadata()?.len();
    if len >= MAP_MIN {
        // SAFETY: the map is read-only and private to this process. The only
        // hazard is another process truncating the file while it is mapped,
        // documented above (it cannot cause silent wrong output, only a signal).
        if let Ok(m) = unsafe { memmap2::Mmap::map(file) } {
            #[cfg(unix)]
            let _ = m.advise(memmap2::Advice::Sequential);
            return Ok(Data::Mapped(m));
        }
    }
    let mut v = Vec::with_capacity(len as usize);
    let mut f = file;
    f.read_to_end(&mut v)?;
    Ok(Data::Owned(v))
}

/// What kind of stream an input is, by its first bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Encoding {
    /// Bytes as they are.
    Plain,
    /// gzip (RFC 1952), possibly several members.
    Gzip,
}

/// Sniff the encoding from the first bytes (gzip magic `1f 8b 08`).
pub fn sniff(head: &[u8]) -> Encoding {
    if head.starts_with(&[0x1f, 0x8b, 0x08]) {
        Encoding::Gzip
    } else {
        Encoding::Plain
    }
}

/// An opened input, ready to scan.
pub enum Opened {
    /// The whole input is in memory (or mapped).
    Whole(Data),
    /// The input is a stream, to be read block by block.
    Stream(Box<dyn Read + Send>),
}

/// Open `path` (`None`: standard input). Regular plain files are mapped;
/// gzip files (by content, not by name) and standard input are streams.
pub fn open(path: Option<&Path>) -> io::Result<Opened> {
    let Some(path) = path else {
        let stdin = io::stdin();
        return Ok(Opened::Stream(Box::new(Sniffed::new(Box::new(stdin))?)));
    };
    let file = File::open(path)?;
    let meta = file.metadata()?;
    if meta.is_dir() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "is a directory",
        ));
    }
    if !meta.is_file() {
        return Ok(Opened::Stream(Box::new(Sniffed::new(Box::new(file))?)));
    }
    let data = map_file(&file)?;
    if sniff(&data) == Encoding::Gzip {
        let owned: Box<dyn Read + Send> = Box::new(io::Cursor::new(DataReader(data)));
        return Ok(Opened::Stream(Box::new(flate2::read::MultiGzDecoder::new(
            owned,
        ))));
    }
    Ok(Opened::Whole(data))
}

struct DataReader(Data);

impl AsRef<[u8]> for DataReader {
    fn as_ref(&self) -> &[u8] {
        &self.0
    }
}

/// A stream whose first bytes were read to sniff its encoding.
struct Sniffed {
    inner: Box<dyn Read + Send>,
}

impl Sniffed {
    fn new(mut r: Box<dyn Read + Send>) -> io::Result<Sniffed> {
        let mut head = Vec::with_capacity(3);
        while head.len() < 3 {
            let mut b = [0u8; 3];
            let n = r.read(&mut b[..3 - head.len()])?;
            if n == 0 {
                break;
            }
            head.extend_from_slice(&b[..n]);
        }
        let chained: Box<dyn Read + Send> = Box::new(io::Cursor::new(head.clone()).chain(r));
        let inner: Box<dyn Read + Send> = match sniff(&head) {
            Encoding::Gzip => Box::new(flate2::read::MultiGzDecoder::new(chained)),
            Encoding::Plain => chained,
        };
        Ok(Sniffed { inner })
    }
}

impl Read for Sniffed {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.inner.read(buf)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn gzip_is_sniffed_and_streamed() {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        e.write_all(b"see http://example.com/ now").unwrap();
        let gz = e.finish().unwrap();
        assert_eq!(sniff(&gz), Encoding::Gzip);
        let mut s = Sniffed::new(Box::new(io::Cursor::new(gz))).unwrap();
        let mut out = String::new();
        s.read_to_string(&mut out).unwrap();
        assert_eq!(out, "see http://example.com/ now");
        let mut p = Sniffed::new(Box::new(io::Cursor::new(b"ab".to_vec()))).unwrap();
        let mut out = String::new();
        p.read_to_string(&mut out).unwrap();
        assert_eq!(out, "ab");
    }
}
