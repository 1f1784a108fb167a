//! Inputs: memory-mapped files, streamed pipes, gzip and zstd, directory walks.
//!
//! A regular file is memory-mapped (falling back to reading it whole if the
//! map fails); everything else (standard input, pipes, `.gz`, `.zst`) is read
//! as a stream of large blocks, so memory stays bounded whatever the input size
//! (see [`urlsift_core::Finder::scan_reader`]).
//!
//! Compression is recognised by content (magic bytes), never by file name.
//! Binary files (a NUL byte near the start, see [`looks_binary`]) and hidden
//! files are scanned like any other: every byte sequence is valid input.

use std::fs::File;
use std::io::{self, Read};
use std::ops::Deref;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use urlsift_core::stream::Filled;

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

impl Data {
    /// Say that `range` of a mapped file will not be read again: the pages
    /// wholly inside it are unmapped from this process now (with
    /// `MADV_DONTNEED`), so that closing a large map at the end of a scan
    /// does not unmap them all at once, on one thread. Bytes read in memory
    /// are kept. Reading the range again is still correct: the pages come
    /// back from the file. Ranges whose ends are [`Data::release_point`]s
    /// let go of whole huge pages, which a map of a file cached in large
    /// folios has: a range that cuts one splits its mapping.
    ///
    /// ```
    /// let dir = tempfile::tempdir().unwrap();
    /// let path = dir.path().join("big.txt");
    /// std::fs::write(&path, b"see http://a.example/ ".repeat(100_000)).unwrap();
    /// let data = urlsift_search::input::map_file(&std::fs::File::open(&path).unwrap()).unwrap();
    /// data.done_with(0..data.release_point(data.len() / 2));
    /// assert!(data.starts_with(b"see http://a.example/"));
    /// ```
    pub fn done_with(&self, range: std::ops::Range<usize>) {
        #[cfg(unix)]
        if let Data::Mapped(m) = self {
            let page = page_size();
            let start = range.start.div_ceil(page) * page;
            let end = range.end.min(m.len()) / page * page;
            if start < end {
                // SAFETY: the map is shared and read-only, so its pages hold
                // no changes of ours to lose: a later read maps them again
                // from the file (the hazard of a file changed by another
                // process is that of the map itself, see `map_file`).
                let _ = unsafe {
                    m.unchecked_advise_range(memmap2::UncheckedAdvice::DontNeed, start, end - start)
                };
            }
        }
        #[cfg(not(unix))]
        let _ = range;
    }

    /// The last offset at or before `at` that starts a huge page (2 MiB)
    /// of the map, where [`Data::done_with`] ranges best end; 0 for bytes
    /// read in memory.
    ///
    /// ```
    /// let data = urlsift_search::input::Data::Owned(vec![0; 10]);
    /// assert_eq!(data.release_point(7), 0);
    /// ```
    pub fn release_point(&self, at: usize) -> usize {
        const HUGE: usize = 2 << 20;
        match self {
            Data::Mapped(m) => {
                let base = m.as_ptr() as usize;
                let at = at.min(m.len());
                ((base + at) / HUGE * HUGE).saturating_sub(base)
            }
            Data::Owned(_) => 0,
        }
    }
}

/// The size of a memory page.
#[cfg(unix)]
fn page_size() -> usize {
    // SAFETY: sysconf has no preconditions.
    usize::try_from(unsafe { libc::sysconf(libc::_SC_PAGESIZE) })
        .unwrap_or(4096)
        .max(1)
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
    /// Zstandard (RFC 8878), possibly several frames.
    Zstd,
}

/// The zstd frame magic number, little-endian.
const ZSTD_MAGIC: [u8; 4] = [0x28, 0xb5, 0x2f, 0xfd];

/// Sniff the encoding from the first bytes (gzip magic `1f 8b 08`, zstd
/// magic `28 b5 2f fd`).
pub fn sniff(head: &[u8]) -> Encoding {
    if head.starts_with(&[0x1f, 0x8b, 0x08]) {
        Encoding::Gzip
    } else if head.starts_with(&ZSTD_MAGIC) {
        Encoding::Zstd
    } else {
        Encoding::Plain
    }
}

/// True if `head` looks binary: it has a NUL byte in its first 8 KiB (the
/// heuristic of grep and ripgrep). Binary input is still scanned: this only
/// informs the caller.
pub fn looks_binary(head: &[u8]) -> bool {
    memchr::memchr(0, &head[..head.len().min(8192)]).is_some()
}

/// Whether `head` holds enough to say what a stream is: the bytes that
/// say how it is compressed, and after its leading whitespace a line, or
/// more than the longest start of HTML or a web archive
/// ([`urlsift_html::sniff_html`], [`is_warc`]); a UTF-8 byte order mark
/// before them does not count.
fn head_says(head: &[u8]) -> bool {
    const LONGEST: usize = b"<!DOCTYPE HTML ".len();
    let bom = if head.starts_with(b"\xef\xbb\xbf") {
        3
    } else {
        0
    };
    let text = head
        .iter()
        .skip(bom)
        .position(|b| !b.is_ascii_whitespace())
        .map(|t| t + bom);
    head.len() >= 4
        && text.is_some_and(|t| {
            head.len() - t > LONGEST || memchr::memchr(b'\n', &head[t..]).is_some()
        })
}

/// A decoder for `enc` over `r` (plain: `r` itself).
fn decoder(enc: Encoding, r: Box<dyn Read + Send>) -> io::Result<Box<dyn Read + Send>> {
    Ok(match enc {
        Encoding::Plain => r,
        Encoding::Gzip => Box::new(flate2::read::MultiGzDecoder::new(r)),
        Encoding::Zstd => Box::new(zstd::stream::read::Decoder::new(r)?),
    })
}

/// An opened input, ready to scan.
pub enum Opened {
    /// The whole input is in memory (or mapped).
    Whole(Data),
    /// The input is a stream (decoded, for gzip and zstd), to be read block
    /// by block; its first bytes are read ahead ([`Stream::head`]).
    Stream(Stream),
    /// A web archive (WARC, plain or a gzip member per record), as it is
    /// stored: its reader needs the gzip members to give record offsets.
    Warc(Box<dyn Read + Send>),
}

/// True if `head`, the first bytes of an input, starts a WARC file: plain
/// (`WARC/1.` for WARC 1.0 and 1.1, `WARC/0.17` and `WARC/0.18` for the
/// drafts Heritrix 1 and ClueWeb09 wrote), an ARC file (`filedesc://`),
/// or gzip or LZ4 frames whose first member or frame
/// inflates to it. A gzip head is looked at up to 4 KiB after its
/// gzip header, however long that header is (a long `FNAME` or `FEXTRA`);
/// an LZ4 head up to the end of its first block, which is decoded whole
/// ([`lz4_first_block_end`]).
///
/// ```
/// use urlsift_search::input::is_warc;
/// assert!(is_warc(b"WARC/1.1\r\nWARC-Type: warcinfo\r\n"));
/// assert!(is_warc(b"WARC/0.18\r\nWARC-Type: warcinfo\r\n"));
/// assert!(is_warc(b"filedesc://crawl.arc 0.0.0.0 20140216050221 text/plain 76\n"));
/// assert!(!is_warc(b"see http://example.com/"));
/// ```
pub fn is_warc(head: &[u8]) -> bool {
    fn magic(b: &[u8]) -> bool {
        b.starts_with(b"WARC/1.")
            || b.starts_with(b"WARC/0.17")
            || b.starts_with(b"WARC/0.18")
            || b.starts_with(b"filedesc://")
    }
    if magic(head) {
        return true;
    }
    if head.starts_with(LZ4_MAGIC) {
        // LZ4 frames (a frame per record, as FastWARC writes them): a block
        // is decoded whole, so the first block is given whole.
        let end = lz4_first_block_end(head).map_or(head.len(), |e| e.min(head.len()));
        let mut first = [0u8; 11];
        let mut d = lz4_flex::frame::FrameDecoder::new(&head[..end]);
        let mut n = 0;
        while n < first.len() {
            match d.read(&mut first[n..]) {
                Ok(0) | Err(_) => break,
                Ok(k) => n += k,
            }
        }
        return magic(&first[..n]);
    }
    if sniff(head) != Encoding::Gzip {
        return false;
    }
    let end = gzip_header_len(head).map_or(head.len(), |h| h + HEAD);
    let mut first = [0u8; 11];
    let mut d = flate2::read::GzDecoder::new(&head[..head.len().min(end)]);
    let mut n = 0;
    while n < first.len() {
        match d.read(&mut first[n..]) {
            Ok(0) | Err(_) => break,
            Ok(k) => n += k,
        }
    }
    magic(&first[..n])
}

/// The length of the gzip member header (RFC 1952 2.3: the fixed ten
/// bytes, then `FEXTRA`, `FNAME`, `FCOMMENT`, `FHCRC` as its flags say) at
/// the start of `head`; `None` when `head` does not hold all of it.
///
/// ```
/// use urlsift_search::input::gzip_header_len;
/// let mut h = vec![0x1f, 0x8b, 8, 0x08, 0, 0, 0, 0, 0, 3];
/// h.extend_from_slice(b"name.warc\0");
/// assert_eq!(gzip_header_len(&h), Some(20));
/// assert_eq!(gzip_header_len(&h[..15]), None);
/// ```
pub fn gzip_header_len(head: &[u8]) -> Option<usize> {
    let flags = *head.get(3)?;
    let mut at = 10usize;
    if head.len() < at {
        return None;
    }
    if flags & 0x04 != 0 {
        let xlen = u16::from_le_bytes([*head.get(10)?, *head.get(11)?]);
        at += 2 + usize::from(xlen);
    }
    for bit in [0x08, 0x10] {
        if flags & bit != 0 {
            at += memchr::memchr(0, head.get(at..)?)? + 1;
        }
    }
    if flags & 0x02 != 0 {
        at += 2;
    }
    (head.len() >= at).then_some(at)
}

/// The most bytes of a gzip stream read ahead to get past its first
/// member's header.
const GZIP_HEAD_MAX: usize = 1 << 20;

/// The LZ4 frame magic number, little-endian.
const LZ4_MAGIC: &[u8; 4] = b"\x04\x22\x4d\x18";

/// The largest first block an LZ4 frame may have (its 4 MiB block size,
/// with the frame header, block size and checksums around it).
const LZ4_HEAD_MAX: usize = (4 << 20) + 64;

/// Where the first block of the LZ4 frame at the start of `head` ends, its
/// checksum included (the LZ4 frame format: magic, `FLG`, `BD`, optional
/// content size and dictionary id, header checksum, then each block's
/// 4-byte size, its bytes and an optional checksum); `None` when `head`
/// does not hold the frame header and the first block's size. The block
/// is decoded only once all of it is read, so a sniffer must read this far.
///
/// ```
/// use urlsift_search::input::lz4_first_block_end;
/// // FLG 0x60 (version 1, independent blocks), BD 0x70, header checksum,
/// // then a block of 300 bytes stored uncompressed (high bit set).
/// let mut f = b"\x04\x22\x4d\x18\x60\x70\x73".to_vec();
/// f.extend_from_slice(&(300u32 | 1 << 31).to_le_bytes());
/// assert_eq!(lz4_first_block_end(&f), Some(7 + 4 + 300));
/// assert_eq!(lz4_first_block_end(&f[..9]), None);
/// ```
pub fn lz4_first_block_end(head: &[u8]) -> Option<usize> {
    let flg = *head.get(4)?;
    let descriptor = 2 + 8 * usize::from(flg & 0x08 != 0) + 4 * usize::from(flg & 0x01 != 0) + 1;
    let at = 4 + descriptor;
    let size = head.get(at..at + 4)?;
    let size = u32::from_le_bytes([size[0], size[1], size[2], size[3]]) & 0x7fff_ffff;
    let checksum = 4 * usize::from(flg & 0x10 != 0);
    Some(at + 4 + (size as usize).min(LZ4_HEAD_MAX) + checksum)
}

/// Open `path` (`None`: standard input). Regular plain files are mapped;
/// gzip files (by content, not by name) and standard input are streams.
pub fn open(path: Option<&Path>) -> io::Result<Opened> {
    let Some(path) = path else {
        return sniffed(waiting(io::stdin()));
    };
    opened(File::open(path)?, true, None)
}

/// Open one input of a run: `mmap` says whether a regular file may be
/// memory-mapped (see [`map_file`]); without it, every input is a stream.
/// A file found in a directory walk ([`Source::Walked`]) is opened only if it
/// is a regular file: it is opened without blocking and checked after the
/// open, so a FIFO or a device put in its place never blocks the run.
pub fn open_source(src: &Source, mmap: bool) -> io::Result<Opened> {
    open_source_counting(src, mmap, None)
}

/// [`open_source`], adding to `read` the bytes read from an input that is
/// not a regular file (standard input, a pipe, a device), as they are read
/// (before any decoding): the size of such an input, once it is read to
/// its end. A regular file's size is its length.
///
/// ```
/// use std::sync::Arc;
/// use std::sync::atomic::{AtomicU64, Ordering};
/// use urlsift_search::input::{Source, open_source_counting};
/// let d = tempfile::tempdir().unwrap();
/// let p = d.path().join("a.txt");
/// std::fs::write(&p, "http://a.example/").unwrap();
/// let read = Arc::new(AtomicU64::new(0));
/// open_source_counting(&Source::Path(p), true, Some(&read)).unwrap();
/// assert_eq!(read.load(Ordering::Relaxed), 0, "a regular file is not counted");
/// ```
pub fn open_source_counting(
    src: &Source,
    mmap: bool,
    read: Option<&Arc<AtomicU64>>,
) -> io::Result<Opened> {
    match src {
        Source::Stdin => sniffed(counted(waiting(io::stdin()), read)),
        Source::Path(p) => opened(File::open(p)?, mmap, read),
        Source::Walked(p) => {
            let file = open_nonblocking(p)?;
            if !file.metadata()?.is_file() {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidInput,
                    "not a regular file (skipped)",
                ));
            }
            opened(file, mmap, read)
        }
        Source::Error(e) => Err(io::Error::other(e.clone())),
    }
}

/// `r`, adding the bytes read from it to `read` (when there is one).
fn counted(r: Box<dyn Read + Send>, read: Option<&Arc<AtomicU64>>) -> Box<dyn Read + Send> {
    match read {
        Some(n) => Box::new(Counted {
            inner: r,
            read: n.clone(),
        }),
        None => r,
    }
}

/// A reader that adds the bytes read from it to a shared count.
struct Counted {
    inner: Box<dyn Read + Send>,
    read: Arc<AtomicU64>,
}

impl Read for Counted {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.read.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

/// Whether `src` can be opened as an input, without reading a byte of it
/// (grep's `-m 0`): standard input always can; a path must open and not be
/// a directory; a file found in a walk must be a regular file.
///
/// ```
/// use urlsift_search::input::{Source, check_source};
/// let d = tempfile::tempdir().unwrap();
/// let p = d.path().join("a.txt");
/// std::fs::write(&p, "http://a.example/").unwrap();
/// assert!(check_source(&Source::Path(p)).is_ok());
/// assert!(check_source(&Source::Path(d.path().to_path_buf())).is_err());
/// assert!(check_source(&Source::Path(d.path().join("missing"))).is_err());
/// ```
pub fn check_source(src: &Source) -> io::Result<()> {
    let meta = match src {
        Source::Stdin => return Ok(()),
        // A FIFO named on the command line is opened as a scan opens it.
        Source::Path(p) => File::open(p)?.metadata()?,
        Source::Walked(p) => open_nonblocking(p)?.metadata()?,
        Source::Error(e) => return Err(io::Error::other(e.clone())),
    };
    if meta.is_dir() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "is a directory",
        ));
    }
    if matches!(src, Source::Walked(_)) && !meta.is_file() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "not a regular file (skipped)",
        ));
    }
    Ok(())
}

#[cfg(unix)]
fn open_nonblocking(p: &Path) -> io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    // O_NONBLOCK: opening a FIFO with no writer returns at once; reads
    // of a regular file are not affected by it.
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(p)
}

#[cfg(not(unix))]
fn open_nonblocking(p: &Path) -> io::Result<File> {
    File::open(p)
}

fn opened(file: File, mmap: bool, read: Option<&Arc<AtomicU64>>) -> io::Result<Opened> {
    let meta = file.metadata()?;
    if meta.is_dir() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "is a directory",
        ));
    }
    if !meta.is_file() {
        return sniffed(counted(waiting(file), read));
    }
    if !mmap {
        return sniffed(Box::new(file));
    }
    let data = map_file(&file)?;
    if is_warc(&data) {
        return Ok(Opened::Warc(Box::new(io::Cursor::new(DataReader(data)))));
    }
    match sniff(&data) {
        Encoding::Plain => Ok(Opened::Whole(data)),
        enc => {
            let owned: Box<dyn Read + Send> = Box::new(io::Cursor::new(DataReader(data)));
            Ok(Opened::Stream(Stream::read_ahead(decoder(enc, owned)?)))
        }
    }
}

/// `r` (standard input, a FIFO, a device), read so that a read it waits on
/// ends once the read is abandoned
/// ([`urlsift_core::read_abandoned`]): a stream stops at `-q` or
/// `-m` without waiting for input it would not read. A regular file (as
/// standard input) never waits, and is read as it is.
///
/// It reads its own descriptor of `r`'s file, unbuffered: standard input's
/// buffer would hold bytes a poll of the descriptor cannot see.
#[cfg(unix)]
fn waiting<R: Read + Send + std::os::fd::AsFd + 'static>(r: R) -> Box<dyn Read + Send> {
    match r.as_fd().try_clone_to_owned().map(File::from) {
        Ok(f) if f.metadata().is_ok_and(|m| !m.is_file()) => Box::new(Waiting {
            inner: f,
            since: None,
        }),
        _ => Box::new(r),
    }
}

#[cfg(not(unix))]
fn waiting<R: Read + Send + 'static>(r: R) -> Box<dyn Read + Send> {
    Box::new(r)
}

/// A reader that waits for its input a little at a time (see [`waiting`]).
///
/// It also says when what it gave is worth scanning now: one read fails
/// with [`io::ErrorKind::WouldBlock`] ([`urlsift_core::stream::fill`])
/// when its source paused after giving something (nothing more for
/// [`PAUSE`]), or gives it slowly (less than [`SLOW`] bytes while reads
/// waited [`PAUSE`] in all: `tail -f` on a busy log). Then what came is
/// scanned and printed without waiting for a whole block; a fast stream is
/// read in whole blocks. Only the time reads wait for the source counts,
/// not the time the scan takes between them.
#[cfg(unix)]
struct Waiting<R> {
    inner: R,
    /// Bytes came that it has not said: how long reads waited since the
    /// first of them, and how many came.
    since: Option<(std::time::Duration, usize)>,
}

/// How long a stream may be quiet, or slow, before what it gave is
/// scanned without waiting for more, in milliseconds.
#[cfg(unix)]
const PAUSE: u16 = 100;

/// A stream that gives less than this while reads wait [`PAUSE`] is slow.
#[cfg(unix)]
const SLOW: usize = 1 << 20;

#[cfg(unix)]
impl<R: Read + std::os::fd::AsFd> Read for Waiting<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        use std::os::fd::AsRawFd;
        let pause = std::time::Duration::from_millis(PAUSE.into());
        if let Some((waited, n)) = self.since
            && waited >= pause
        {
            if n < SLOW {
                self.since = None;
                return Err(io::ErrorKind::WouldBlock.into());
            }
            // Fast: read on, and judge the next while afresh.
            self.since = Some((std::time::Duration::ZERO, 0));
        }
        let poll = |ms: u16| {
            let mut pfd = libc::pollfd {
                fd: self.inner.as_fd().as_raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            };
            // SAFETY: `pfd` is one valid pollfd for the length of the call.
            // Ready, at its end, or in error (EINTR too): the read says.
            unsafe { libc::poll(&mut pfd, 1, ms.into()) != 0 }
        };
        // Ready at once (a fast source): no clock is read.
        if !poll(0) {
            let t = std::time::Instant::now();
            while !poll(PAUSE) {
                if urlsift_core::stream::read_abandoned() {
                    return Err(io::Error::other("read abandoned: the scan stopped"));
                }
                if self.since.take().is_some() {
                    return Err(io::ErrorKind::WouldBlock.into());
                }
            }
            if let Some((waited, _)) = &mut self.since {
                *waited += t.elapsed();
            }
        }
        let n = self.inner.read(buf)?;
        if n > 0 {
            let (waited, had) = self.since.unwrap_or_default();
            self.since = Some((waited, had + n));
        }
        Ok(n)
    }
}

struct DataReader(Data);

impl AsRef<[u8]> for DataReader {
    fn as_ref(&self) -> &[u8] {
        &self.0
    }
}

/// Read from `r` onto the end of `buf` until it holds `want` bytes, the
/// stream ends, or (with `pause_after`) it pauses
/// ([`urlsift_core::stream::fill`], on this thread: there is no work to
/// overlap).
pub(crate) fn fill(
    r: &mut (impl Read + Send),
    buf: &mut Vec<u8>,
    want: usize,
    pause_after: Option<usize>,
) -> io::Result<Filled> {
    let no_work = None::<fn() -> bool>;
    urlsift_core::stream::fill(r, buf, (want, pause_after), no_work).1
}

/// How many bytes of a stream are read first, to tell a web archive (of the
/// stream as stored), HTML and, under `--mail`, mail (of the decoded
/// stream).
pub(crate) const HEAD: usize = 4096;
const _: () = assert!(HEAD >= urlsift_mail::HEAD);

/// Open a stream: a web archive as it is, anything else decoded by its
/// first bytes.
fn sniffed(mut r: Box<dyn Read + Send>) -> io::Result<Opened> {
    let mut head = Vec::with_capacity(HEAD);
    // A stream that pauses sooner is judged by what came before the pause,
    // once that holds what says whether it is HTML or a web archive; a
    // compressed head is read whole.
    let paused = loop {
        let after = head.len();
        let paused = fill(&mut r, &mut head, HEAD, Some(after))? == Filled::Paused;
        if !paused || (sniff(&head) == Encoding::Plain && head_says(&head)) {
            break paused;
        }
    };
    let enc = sniff(&head);
    if enc == Encoding::Gzip {
        // A long gzip header (`FNAME`, `FEXTRA`): read past it, so that a
        // stream is judged on what a file is judged on.
        loop {
            let want = gzip_header_len(&head)
                .map_or(head.len().saturating_mul(2), |h| h + HEAD)
                .clamp(HEAD, GZIP_HEAD_MAX);
            if head.len() >= want || (fill(&mut r, &mut head, want, None)? == Filled::End) {
                break;
            }
        }
    }
    if head.starts_with(LZ4_MAGIC) {
        // An LZ4 frame's first block is decoded whole: read all of it, so
        // that a stream is judged on what a file is judged on.
        let want = lz4_first_block_end(&head).map_or(HEAD, |e| e.clamp(HEAD, LZ4_HEAD_MAX));
        if head.len() < want {
            fill(&mut r, &mut head, want, None)?;
        }
    }
    if enc == Encoding::Plain && !is_warc(&head) {
        // The head read is the decoded head; its reader meets the pause
        // after it.
        let pause = paused.then(|| io::ErrorKind::WouldBlock.into());
        return Ok(Opened::Stream(Stream::new(head, r, pause)));
    }
    // Decoders and the archive reader wait out pauses: a pause is not an
    // error to them.
    let r = Unpaused(r);
    let chained: Box<dyn Read + Send> = Box::new(io::Cursor::new(head.clone()).chain(r));
    if is_warc(&head) {
        return Ok(Opened::Warc(chained));
    }
    Ok(Opened::Stream(Stream::read_ahead(decoder(enc, chained)?)))
}

/// A reader that waits out its source's pauses (reads that fail with
/// [`io::ErrorKind::WouldBlock`], see [`Waiting`]).
struct Unpaused<R>(R);

impl<R: Read> Read for Unpaused<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            match self.0.read(buf) {
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
                other => return other,
            }
        }
    }
}

/// A stream whose first bytes (after decoding) were read ahead, so what it
/// holds can be sniffed ([`Stream::head`]); reading it gives those bytes,
/// then the rest.
///
/// ```
/// use std::io::Read;
/// use urlsift_search::input::Stream;
/// let mut s = Stream::read_ahead(Box::new(&b"<p>hello"[..]));
/// assert_eq!(s.head(), b"<p>hello");
/// let mut all = String::new();
/// s.read_to_string(&mut all).unwrap();
/// assert_eq!(all, "<p>hello");
/// ```
pub struct Stream {
    head: Vec<u8>,
    /// How much of `head` was read.
    at: usize,
    rest: Box<dyn Read + Send>,
    /// An error met while reading the head: returned after its bytes, where
    /// a reader of the stream meets it.
    error: Option<io::Error>,
}

impl Stream {
    fn new(head: Vec<u8>, rest: Box<dyn Read + Send>, error: Option<io::Error>) -> Stream {
        Stream {
            head,
            at: 0,
            rest,
            error,
        }
    }

    /// `r`, with its first 4 KiB (or all of it, if shorter) read ahead.
    pub fn read_ahead(mut r: Box<dyn Read + Send>) -> Stream {
        let mut head = Vec::with_capacity(HEAD);
        let error = fill(&mut r, &mut head, HEAD, None).err();
        Stream::new(head, r, error)
    }

    /// The stream's first bytes (4 KiB, fewer when it is shorter or paused
    /// sooner), as read ahead.
    pub fn head(&self) -> &[u8] {
        &self.head
    }

    /// Read the head to its 4 KiB (or the end), waiting out the pause that
    /// ended it sooner, for a judgement the whole head makes (mail), unless
    /// `decided` says that what came before a pause decides it already
    /// (then the stream's reader meets that pause after the head).
    ///
    /// ```
    /// use urlsift_search::input::Stream;
    /// // A stream read whole at once: the head is all there is.
    /// let mut s = Stream::read_ahead(Box::new(&b"Subject: hi\n\nbody"[..]));
    /// s.complete_head(urlsift_mail::mbox::decided_early);
    /// assert_eq!(s.head(), b"Subject: hi\n\nbody");
    /// ```
    ///
    /// A stream that paused (standard input) is read on until `decided`
    /// holds: tests/faults.rs shows it with a pipe.
    pub fn complete_head(&mut self, decided: impl Fn(&[u8]) -> bool) {
        let paused = self
            .error
            .as_ref()
            .is_some_and(|e| e.kind() == io::ErrorKind::WouldBlock);
        if self.at > 0 || !paused {
            return;
        }
        while !decided(&self.head) {
            let after = self.head.len();
            match fill(&mut self.rest, &mut self.head, HEAD, Some(after)) {
                Ok(Filled::Paused) => {}
                Ok(Filled::Full | Filled::End) => {
                    self.error = None;
                    return;
                }
                Err(e) => {
                    self.error = Some(e);
                    return;
                }
            }
        }
    }
}

impl Read for Stream {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if let Some(left) = self.head.get(self.at..).filter(|l| !l.is_empty()) {
            let n = left.len().min(buf.len());
            buf[..n].copy_from_slice(&left[..n]);
            self.at += n;
            return Ok(n);
        }
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        self.rest.read(buf)
    }
}

/// One input of a run, in command-line and walk order.
#[derive(Clone, Debug)]
pub enum Source {
    /// Standard input (no path, or `-`).
    Stdin,
    /// A path named on the command line: any kind of file (a FIFO such as
    /// `<(cmd)` included).
    Path(PathBuf),
    /// A file found in a directory walk: opened only if it is a regular file.
    Walked(PathBuf),
    /// A walk error (an unreadable directory, a loop): reported in its place.
    Error(String),
}

impl Source {
    /// The name to print: `-` for standard input.
    pub fn name(&self) -> String {
        match self {
            Source::Stdin => "-".into(),
            Source::Path(p) | Source::Walked(p) => p.display().to_string(),
            Source::Error(_) => String::new(),
        }
    }

    /// The path, `None` for standard input.
    pub fn path(&self) -> Option<&Path> {
        match self {
            Source::Path(p) | Source::Walked(p) => Some(p),
            _ => None,
        }
    }

    /// The size in bytes of a regular file (0 for anything else).
    pub fn size(&self) -> u64 {
        match self.path() {
            Some(p) => std::fs::metadata(p)
                .ok()
                .filter(|m| m.is_file())
                .map_or(0, |m| m.len()),
            None => 0,
        }
    }
}

/// How directories are walked: which files in them are inputs.
#[derive(Clone, Debug, Default)]
pub struct WalkOptions {
    /// Glob patterns, as ripgrep's `-g`: a file in a walk is an input only
    /// if it matches one of the patterns without `!` (when there are any),
    /// and none of the `!` patterns. Patterns match the path relative to
    /// the directory named on the command line; a pattern that ends in `/`
    /// or names a directory prunes it.
    pub globs: Vec<String>,
    /// Descend at most this many levels below a directory named on the
    /// command line (`Some(1)`: its own files only).
    pub max_depth: Option<usize>,
    /// Skip the paths that `.gitignore`, `.ignore` and git's exclude files
    /// name (by default every file is read: a mail folder may be ignored
    /// by git and still be mail).
    pub ignore_vcs: bool,
    /// Follow symbolic links to directories (`-L`). A link that leads back
    /// to a directory above it is reported as an error naming it
    /// ([`Source::Error`]), and the walk goes on.
    pub follow_links: bool,
}

/// Version control directories, never walked into.
const VCS_DIRS: [&str; 7] = [".git", ".hg", ".svn", ".bzr", "_darcs", ".pijul", "CVS"];

/// Expand the command line into inputs. No path, or `-`, is standard input.
/// Directories are walked recursively, entries sorted by file name, hidden
/// files included, version control directories (`.git`, `.hg`, `.svn`, ...)
/// skipped. In a walk, regular files and symbolic links to regular files are
/// inputs (a dangling link is one, and fails to open with an error naming
/// it); links to directories are not followed (no loops; see
/// [`WalkOptions::follow_links`]), and FIFOs,
/// sockets and devices, linked or not, are skipped (reading one could block
/// forever, or never end). Named on the command line, any path is an input.
///
/// ```
/// let d = tempfile::tempdir().unwrap();
/// std::fs::create_dir(d.path().join(".git")).unwrap();
/// std::fs::write(d.path().join(".git/config"), "url = http://a/").unwrap();
/// std::fs::write(d.path().join("a.txt"), "http://a/").unwrap();
/// let found = urlsift_search::input::expand(&[d.path().to_path_buf()]);
/// assert_eq!(found.len(), 1);
/// assert!(found[0].name().ends_with("a.txt"));
/// ```
pub fn expand(paths: &[PathBuf]) -> Vec<Source> {
    // Without globs, the options cannot fail.
    expand_with(paths, &WalkOptions::default()).unwrap_or_default()
}

/// [`expand`] with walk options; fails on a glob that does not parse.
pub fn expand_with(paths: &[PathBuf], opts: &WalkOptions) -> Result<Vec<Source>, String> {
    let mut v = Vec::new();
    if paths.is_empty() {
        v.push(Source::Stdin);
    }
    for p in paths {
        if p.as_os_str() == "-" {
            v.push(Source::Stdin);
        } else if p.is_dir() {
            walk(p, opts, &mut v)?;
        } else {
            v.push(Source::Path(p.clone()));
        }
    }
    Ok(v)
}

fn walk(root: &Path, opts: &WalkOptions, v: &mut Vec<Source>) -> Result<(), String> {
    let mut overrides = ignore::overrides::OverrideBuilder::new(root);
    for g in &opts.globs {
        overrides.add(g).map_err(|e| format!("--glob {g}: {e}"))?;
    }
    let overrides = overrides.build().map_err(|e| format!("--glob: {e}"))?;
    let mut w = ignore::WalkBuilder::new(root);
    w.standard_filters(false)
        .hidden(false)
        .follow_links(opts.follow_links)
        .max_depth(opts.max_depth)
        .overrides(overrides)
        .sort_by_file_name(|a, b| a.cmp(b))
        .filter_entry(|e| {
            !(e.depth() > 0
                && e.file_type().is_some_and(|t| t.is_dir())
                && e.file_name()
                    .to_str()
                    .is_some_and(|n| VCS_DIRS.contains(&n)))
        });
    if opts.ignore_vcs {
        w.git_ignore(true)
            .git_exclude(true)
            .git_global(true)
            .ignore(true)
            .parents(true)
            .require_git(false);
    }
    for entry in w.build() {
        match entry {
            Ok(e) => {
                let Some(t) = e.file_type() else { continue };
                let input = if t.is_symlink() {
                    // Follow the link to see what it names.
                    std::fs::metadata(e.path()).map_or(true, |m| m.is_file())
                } else {
                    t.is_file()
                };
                if input {
                    v.push(Source::Walked(e.into_path()));
                }
            }
            Err(e) => v.push(Source::Error(walk_error(&e))),
        }
    }
    Ok(())
}

/// A walk error as the other input errors read: `PATH: what went wrong`,
/// the path once, and an I/O error as the system says it.
fn walk_error(e: &ignore::Error) -> String {
    match e {
        ignore::Error::WithPath { path, err } => match walk_io(err) {
            Some(io) => format!("{}: {io}", path.display()),
            None => format!("{}: {}", path.display(), walk_error(err)),
        },
        ignore::Error::WithDepth { err, .. } | ignore::Error::WithLineNumber { err, .. } => {
            walk_error(err)
        }
        ignore::Error::Loop { ancestor, child } => format!(
            "{}: a link back to {} (a loop): not followed",
            child.display(),
            ancestor.display()
        ),
        other => walk_io(other).map_or_else(|| other.to_string(), |io| io.to_string()),
    }
}

/// The system's error under a walk error, without the walker's wording.
fn walk_io(e: &ignore::Error) -> Option<io::Error> {
    let io = e.io_error()?;
    // The system's code may be a few errors down the chain.
    let mut cause: Option<&(dyn std::error::Error + 'static)> = Some(io);
    while let Some(c) = cause {
        if let Some(code) = c.downcast_ref::<io::Error>().and_then(|e| e.raw_os_error()) {
            return Some(io::Error::from_raw_os_error(code));
        }
        cause = c.source();
    }
    Some(io::Error::new(io.kind(), io.kind().to_string()))
}

/// Read the paths listed in `r`, one per line (`nul`: NUL-separated), as
/// `--files-from` does; empty entries are skipped.
///
/// ```
/// let paths = urlsift_search::input::read_path_list(&b"a.txt\nb c.txt\n\n"[..], false).unwrap();
/// assert_eq!(paths, [std::path::PathBuf::from("a.txt"), "b c.txt".into()]);
/// ```
pub fn read_path_list(r: impl Read, nul: bool) -> io::Result<Vec<PathBuf>> {
    use std::io::BufRead;
    let sep = if nul { 0 } else { b'\n' };
    let mut out = Vec::new();
    let mut buf = Vec::new();
    let mut r = io::BufReader::new(r);
    loop {
        buf.clear();
        if r.read_until(sep, &mut buf)? == 0 {
            return Ok(out);
        }
        if buf.last() == Some(&sep) {
            buf.pop();
        }
        if !nul && buf.last() == Some(&b'\r') {
            buf.pop();
        }
        if !buf.is_empty() {
            out.push(path_from_bytes(&buf));
        }
    }
}

#[cfg(unix)]
fn path_from_bytes(b: &[u8]) -> PathBuf {
    use std::os::unix::ffi::OsStrExt;
    PathBuf::from(std::ffi::OsStr::from_bytes(b))
}

#[cfg(not(unix))]
fn path_from_bytes(b: &[u8]) -> PathBuf {
    PathBuf::from(String::from_utf8_lossy(b).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    /// An error as a walker wraps the system's: its own wording, the
    /// system's error as its source.
    #[derive(Debug)]
    struct Wrapped(io::Error);

    impl std::fmt::Display for Wrapped {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            write!(f, "IO error for operation on d: {}", self.0)
        }
    }

    impl std::error::Error for Wrapped {
        fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
            Some(&self.0)
        }
    }

    #[test]
    fn a_walk_error_names_its_path_once_with_the_systems_words() {
        let denied = || io::Error::from_raw_os_error(13);
        let with_path = |err| ignore::Error::WithPath {
            path: PathBuf::from("d"),
            err: Box::new(ignore::Error::Io(err)),
        };
        let want = format!("d: {}", denied());
        assert_eq!(walk_error(&with_path(denied())), want);
        let wrapped = io::Error::new(io::ErrorKind::PermissionDenied, Wrapped(denied()));
        assert_eq!(walk_error(&with_path(wrapped)), want);
        let deep = ignore::Error::WithDepth {
            depth: 2,
            err: Box::new(with_path(denied())),
        };
        assert_eq!(walk_error(&deep), want);
        let looped = ignore::Error::WithDepth {
            depth: 3,
            err: Box::new(ignore::Error::Loop {
                ancestor: PathBuf::from("d"),
                child: PathBuf::from("d/e/up"),
            }),
        };
        assert_eq!(
            walk_error(&looped),
            "d/e/up: a link back to d (a loop): not followed"
        );
    }

    fn stream(r: Box<dyn Read + Send>) -> Stream {
        match sniffed(r).unwrap() {
            Opened::Stream(s) => s,
            _ => panic!("not a plain stream"),
        }
    }

    #[test]
    fn warc_is_recognised_plain_and_gzip() {
        let rec = b"WARC/1.1\r\nWARC-Type: warcinfo\r\nContent-Length: 0\r\n\r\n\r\n\r\n";
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        e.write_all(rec).unwrap();
        let gz = e.finish().unwrap();
        for data in [rec.to_vec(), gz] {
            assert!(is_warc(&data));
            let Ok(Opened::Warc(mut r)) = sniffed(Box::new(io::Cursor::new(data.clone()))) else {
                panic!("not a web archive");
            };
            let mut back = Vec::new();
            r.read_to_end(&mut back).unwrap();
            assert_eq!(back, data, "read as stored");
        }
        assert!(!is_warc(b"WARC/2.0"));
    }

    #[test]
    fn gzip_is_sniffed_and_streamed() {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        e.write_all(b"see http://example.com/ now").unwrap();
        let gz = e.finish().unwrap();
        assert_eq!(sniff(&gz), Encoding::Gzip);
        let mut s = stream(Box::new(io::Cursor::new(gz)));
        let mut out = String::new();
        s.read_to_string(&mut out).unwrap();
        assert_eq!(out, "see http://example.com/ now");
        let mut p = stream(Box::new(io::Cursor::new(b"ab".to_vec())));
        let mut out = String::new();
        p.read_to_string(&mut out).unwrap();
        assert_eq!(out, "ab");
    }

    #[test]
    fn a_compressed_streams_head_is_decoded() {
        let page = b"<!DOCTYPE html><title>t</title>".repeat(300);
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        e.write_all(&page).unwrap();
        let gz = e.finish().unwrap();
        for data in [gz, zstd::encode_all(&page[..], 1).unwrap(), page.clone()] {
            let mut s = stream(Box::new(io::Cursor::new(data)));
            assert_eq!(s.head(), &page[..HEAD]);
            let mut back = Vec::new();
            s.read_to_end(&mut back).unwrap();
            assert_eq!(back, page);
        }
    }

    #[test]
    fn an_error_reading_ahead_comes_after_the_bytes_before_it() {
        struct Breaks(usize);
        impl Read for Breaks {
            fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
                if self.0 == 0 {
                    return Err(io::Error::other("broken"));
                }
                let n = self.0.min(buf.len()).min(3);
                buf[..n].fill(b'x');
                self.0 -= n;
                Ok(n)
            }
        }
        let mut s = Stream::read_ahead(Box::new(Breaks(10)));
        assert_eq!(s.head(), b"xxxxxxxxxx");
        let mut back = Vec::new();
        let e = s.read_to_end(&mut back).unwrap_err();
        assert_eq!((back.len(), e.to_string().as_str()), (10, "broken"));
    }

    #[test]
    fn zstd_is_sniffed_and_streamed() {
        let z = zstd::encode_all(&b"see http://example.com/ now"[..], 1).unwrap();
        assert_eq!(sniff(&z), Encoding::Zstd);
        let mut s = stream(Box::new(io::Cursor::new(z)));
        let mut out = String::new();
        s.read_to_string(&mut out).unwrap();
        assert_eq!(out, "see http://example.com/ now");
    }

    #[test]
    fn binary_is_detected() {
        assert!(looks_binary(b"ab\0cd"));
        assert!(!looks_binary(b"abcd"));
    }
}
