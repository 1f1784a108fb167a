//! The run's outputs: option combinations refused before a scan, and the
//! files written under temporary names, never over an input, and renamed
//! into place at the end when they were written whole.

use std::io::{self, BufWriter};
use std::path::{Path, PathBuf};

use crate::args::{CountByArg, FormatArg, ScanArgs, ShardByArg};
use urlsift_search::input::Source;
use urlsift_search::run::RecordWriter;

/// Refuse option combinations that cannot work, before scanning: a flag
/// is honoured or refused, never silently ignored.
pub(crate) fn check_output_args(args: &ScanArgs, parquet: bool) -> Result<(), String> {
    let table = args.count || args.count_by.is_some();
    check_shards(args, parquet, table)?;
    check_tables(args, table)?;
    check_keys(args)?;
    check_vimgrep(args)?;
    check_list(args)?;
    check_plain(args)
}

/// `--shards`, `--shard-by` and Parquet: where their records go.
fn check_shards(args: &ScanArgs, parquet: bool, table: bool) -> Result<(), String> {
    if args.shards == Some(0) {
        return Err("--shards must be at least 1".into());
    }
    let sharded = args.shards.is_some();
    if parquet && args.output.is_none() {
        return Err("--format parquet needs --output FILE (or --output DIR with --shards)".into());
    }
    if parquet && table {
        return Err(
            "--format parquet writes one row per URL; -c and --count-by print tables".into(),
        );
    }
    if sharded {
        if args.output.is_none() {
            return Err("--shards needs --output DIR".into());
        }
        if table || args.quiet {
            return Err("--shards splits records; -c, -q and --count-by print none".into());
        }
    }
    if args.shard_by.is_some() && !sharded {
        return Err("--shard-by needs --shards N".into());
    }
    Ok(())
}

/// `-c` and `--count-by` (a `table`): what a count has no room for.
fn check_tables(args: &ScanArgs, table: bool) -> Result<(), String> {
    let csv = matches!(args.format, FormatArg::Csv | FormatArg::Tsv);
    let what = if args.count { "-c" } else { "--count-by" };
    if table {
        if args.count && args.count_by.is_some() {
            return Err("-c counts URLs per input; --count-by counts per key: use one".into());
        }
        if args.unique {
            return Err(format!(
                "{what} prints counts, --unique prints URLs: use one (--count-by url counts each distinct URL)"
            ));
        }
        for (on, flag) in [(args.line_number, "-n"), (args.byte_offset, "-b")] {
            if on {
                return Err(format!(
                    "{what} prints counts, which have no {flag} position"
                ));
            }
        }
        if csv {
            return Err(format!(
                "{what} prints text or JSON (--format json), not CSV/TSV"
            ));
        }
    }
    if args.count_by.is_some() && args.with_filename {
        return Err("--count-by counts over every input; -H has no file to name".into());
    }
    if args.count && args.normalize {
        return Err(
            "-c counts URLs; --normalize changes no count (use --count-by url --normalize)".into(),
        );
    }
    Ok(())
}

/// `--dedup-key` and `--key-field` need a use; `--html` is not for mail.
fn check_keys(args: &ScanArgs) -> Result<(), String> {
    let sharded = args.shards.is_some();
    let by_url = matches!(args.count_by, Some(CountByArg::Url));
    let sharded_by_url =
        sharded && !matches!(args.shard_by, Some(ShardByArg::Host | ShardByArg::Domain));
    if args.dedup_key.is_some() && !(args.unique || by_url || sharded_by_url || args.key_field) {
        return Err(
            "--dedup-key sets what --unique, --count-by url, --shards and --key-field compare; none is given"
                .into(),
        );
    }
    if args.key_field
        && !matches!(
            args.format,
            FormatArg::Json | FormatArg::Csv | FormatArg::Tsv | FormatArg::Parquet
        )
    {
        return Err(
            "--key-field adds a field to JSON, CSV/TSV and Parquet records; text has none".into(),
        );
    }
    if args.html && args.mail {
        return Err(
            "--mail reads the HTML parts of mail as HTML; --html is for other inputs".into(),
        );
    }
    Ok(())
}

/// `--vimgrep` prints its own lines.
fn check_vimgrep(args: &ScanArgs) -> Result<(), String> {
    if args.vimgrep {
        let other = [
            (!matches!(args.format, FormatArg::Text), "--format"),
            (args.count, "-c"),
            (args.count_by.is_some(), "--count-by"),
            (args.files_with_matches, "-l"),
            (args.files_without_match, "--files-without-match"),
            (args.quiet, "-q"),
            (args.byte_offset, "-b"),
            (args.no_filename, "-I"),
        ];
        if let Some((_, flag)) = other.iter().find(|(on, _)| *on) {
            return Err(format!(
                "--vimgrep prints PATH:LINE:COLUMN:URL; {flag} prints otherwise"
            ));
        }
    }
    Ok(())
}

/// `-l` and `--files-without-match` print file names only.
fn check_list(args: &ScanArgs) -> Result<(), String> {
    let sharded = args.shards.is_some();
    let list = if args.files_with_matches {
        Some("-l")
    } else if args.files_without_match {
        Some("--files-without-match")
    } else {
        None
    };
    if let Some(l) = list {
        let other = [
            (args.count, "-c"),
            (args.count_by.is_some(), "--count-by"),
            (args.unique, "--unique"),
            (args.line_number, "-n"),
            (args.byte_offset, "-b"),
            (args.normalize, "--normalize"),
            (sharded, "--shards"),
            (!matches!(args.format, FormatArg::Text), "--format"),
        ];
        if let Some((_, flag)) = other.iter().find(|(on, _)| *on) {
            return Err(format!("{l} prints file names; {flag} shapes URLs"));
        }
    }
    Ok(())
}

/// `-0`, `--files-from -` and `-q`.
fn check_plain(args: &ScanArgs) -> Result<(), String> {
    if args.null && !matches!(args.format, FormatArg::Text) {
        return Err("-0 ends file names in text output; JSON, CSV and Parquet quote them".into());
    }
    if args
        .files_from
        .as_deref()
        .is_some_and(|f| f.as_os_str() == "-")
        && args.paths.iter().any(|p| p.as_os_str() == "-")
    {
        return Err("--files-from - reads standard input: it cannot be an input too".into());
    }
    if args.quiet {
        let printing = [
            (args.output.is_some(), "--output"),
            (args.count, "-c"),
            (args.count_by.is_some(), "--count-by"),
            (args.unique, "--unique"),
            (!matches!(args.format, FormatArg::Text), "--format"),
        ];
        if let Some((_, flag)) = printing.iter().find(|(on, _)| *on) {
            return Err(format!("-q prints nothing; {flag} shapes output"));
        }
    }
    Ok(())
}

/// The outputs of a run, written under temporary names in their directory
/// and renamed into place by [`Outputs::commit`] at the end: a reader never
/// sees a half-written output. An input that cannot be read does not stop
/// that (as in grep, the run goes on, exits 2, and its output holds the
/// URLs of the other inputs); an output that could not be written whole (a
/// failed write or spill, a worker that died) leaves the old one.
pub(crate) struct Outputs {
    /// Each temporary file, where it goes, and the name messages give it
    /// (the output as given: a link, not the file it names).
    pending: Vec<(tempfile::TempPath, PathBuf, PathBuf)>,
    /// Shard files of an earlier run that this run does not write, deleted
    /// once the new ones are in place.
    stale: Vec<PathBuf>,
}

impl Outputs {
    /// Rename every output into place if they were written `whole`, or
    /// remove them all.
    pub(crate) fn commit(self, whole: bool) -> Result<(), String> {
        // A signal that ends the run meanwhile waits for this to end.
        let mut temps = TEMPS.lock().unwrap_or_else(|p| p.into_inner());
        temps.clear();
        if !whole {
            return Ok(()); // the temporary files are removed on drop
        }
        for (tmp, dest, name) in self.pending {
            tmp.persist(&dest)
                .map_err(|e| format!("{}: {}", name.display(), e.error))?;
        }
        for p in self.stale {
            std::fs::remove_file(&p).map_err(|e| format!("{}: {e}", p.display()))?;
        }
        Ok(())
    }
}

/// The temporary files of the outputs, until they are renamed into place
/// or removed: a signal that ends the run removes them.
static TEMPS: std::sync::Mutex<Vec<PathBuf>> = std::sync::Mutex::new(Vec::new());

/// From now on, SIGINT, SIGTERM or SIGHUP remove the outputs' temporary
/// files ([`TEMPS`]), then end the run as the signal does by default: a
/// run stopped with Ctrl-C leaves no half-written file behind, and the old
/// outputs as they were.
fn remove_temps_on_signal() {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP]) else {
            return;
        };
        let _ = std::thread::Builder::new()
            .name("urlsift-signals".into())
            .spawn(move || {
                if let Some(sig) = signals.forever().next() {
                    let temps = TEMPS.lock().unwrap_or_else(|p| p.into_inner());
                    for p in temps.iter() {
                        let _ = std::fs::remove_file(p);
                    }
                    let _ = signal_hook::low_level::emulate_default_handler(sig);
                    std::process::exit(128 + sig);
                }
            });
    });
}

/// The identity of a file (device and inode), following links.
fn file_id(m: &std::fs::Metadata) -> (u64, u64) {
    use std::os::unix::fs::MetadataExt;
    (m.dev(), m.ino())
}

/// A copy of standard output's or standard error's descriptor, if the file
/// `m` describes is the regular file it writes to.
fn own_descriptor(m: &std::fs::Metadata) -> Option<std::fs::File> {
    use std::os::fd::AsFd;
    if !m.is_file() {
        return None;
    }
    let fds = [
        io::stdout().as_fd().try_clone_to_owned(),
        io::stderr().as_fd().try_clone_to_owned(),
    ];
    fds.into_iter()
        .flatten()
        .map(std::fs::File::from)
        .find(|f| {
            f.metadata()
                .is_ok_and(|own| own.is_file() && file_id(&own) == file_id(m))
        })
}

/// The identity of every input that exists (standard input included).
fn input_ids(sources: &[Source]) -> Vec<((u64, u64), String)> {
    use std::os::fd::AsFd;
    sources
        .iter()
        .filter_map(|src| {
            let meta = match src.path() {
                Some(p) => std::fs::metadata(p).ok()?,
                None => {
                    let fd = io::stdin().as_fd().try_clone_to_owned().ok()?;
                    std::fs::File::from(fd).metadata().ok()?
                }
            };
            Some((file_id(&meta), src.name()))
        })
        .collect()
}

/// A temporary file in `dir`, with the permissions of `like` if it exists
/// (else those a new file gets). Its error is the system's alone, without
/// the temporary name: the caller names the output.
fn temp_in(dir: &std::path::Path, like: &std::path::Path) -> io::Result<tempfile::NamedTempFile> {
    use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
    let mode = match std::fs::metadata(like) {
        Ok(m) => m.permissions().mode() & 0o7777,
        Err(_) => 0o666,
    };
    tempfile::Builder::new()
        .prefix(".urlsift-")
        .suffix(".tmp")
        .make_in(dir, |p| {
            std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(mode)
                .open(p)
        })
}

/// The file `path` names: through links, even one to a file that does not
/// exist yet (which the output creates, as a shell's `>` does); `path`
/// itself when it is no link.
fn link_target(path: &std::path::Path) -> PathBuf {
    if let Ok(p) = std::fs::canonicalize(path) {
        return p;
    }
    let mut p = path.to_path_buf();
    // A chain of links ends within as many as the system follows.
    for _ in 0..40 {
        match std::fs::symlink_metadata(&p) {
            Ok(m) if m.file_type().is_symlink() => {}
            _ => return p,
        }
        let Ok(to) = std::fs::read_link(&p) else {
            return p;
        };
        p = match p.parent() {
            Some(dir) if to.is_relative() => dir.join(to),
            _ => to,
        };
    }
    path.to_path_buf()
}

/// A shard file name of ours: `part-NNNNN.EXT`.
fn is_shard_name(name: &str) -> bool {
    let Some(rest) = name.strip_prefix("part-") else {
        return false;
    };
    let (num, ext) = rest.split_once('.').unwrap_or((rest, ""));
    num.len() == 5
        && num.bytes().all(|b| b.is_ascii_digit())
        && matches!(ext, "txt" | "jsonl" | "csv" | "tsv" | "parquet")
}

/// The output file, or with `shards` (1 too) the shard files
/// `DIR/part-00000.EXT` (the directory is created; it may hold only the
/// shard files of earlier runs, as regular files: this run replaces those
/// it writes and, once it is written whole, deletes the others, of a run
/// with more shards or another format). An output that is also an input is
/// refused.
pub(crate) fn open_outputs(
    path: &Path,
    shards: Option<usize>,
    ext: &str,
    mail: bool,
    sources: &[Source],
) -> Result<(Writers, Outputs), String> {
    let opener = Opener {
        parquet: ext == "parquet",
        mail,
        inputs: input_ids(sources),
    };
    let nothing_pending = || Outputs {
        pending: Vec::new(),
        stale: Vec::new(),
    };
    if shards.is_none()
        && let Ok(m) = std::fs::metadata(path)
        && let Some(w) = opener.in_place(path, &m)?
    {
        return Ok((vec![w], nothing_pending()));
    }
    let Some(shards) = shards else {
        // Through a link: replace the file it names, keep the link.
        let dest = link_target(path);
        let (w, tmp) = opener.open(&dest, path)?;
        let mut outputs = nothing_pending();
        outputs.pending.push((tmp, dest, path.to_path_buf()));
        return Ok((vec![w], outputs));
    };
    open_shards(&opener, path, shards, ext, sources)
}

/// The writers of a run's outputs.
type Writers = Vec<Box<dyn RecordWriter + 'static>>;

/// How output files are opened: as Parquet or text, never over an input.
struct Opener {
    parquet: bool,
    /// Parquet files get the mail columns.
    mail: bool,
    /// The inputs' file ids and names ([`input_ids`]).
    inputs: Vec<((u64, u64), String)>,
}

/// The message of the error `e` on the file `p`.
fn shown(p: &Path, e: io::Error) -> String {
    format!("{}: {e}", p.display())
}

impl Opener {
    /// The writer of the output file `f`, named `dest` in messages.
    fn writer(&self, f: std::fs::File, dest: &Path) -> Result<Box<dyn RecordWriter>, String> {
        if self.parquet {
            #[cfg(feature = "parquet")]
            {
                let w = urlsift_printer::ParquetWriter::new(BufWriter::new(f), self.mail)
                    .map_err(|e| format!("{}: {e}", dest.display()))?;
                return Ok(Box::new(w));
            }
            #[cfg(not(feature = "parquet"))]
            {
                let _ = (self.mail, f, dest);
                return Err("this urlsift was built without the parquet feature".into());
            }
        }
        Ok(Box::new(BufWriter::with_capacity(1 << 16, f)))
    }

    /// `dest` opened under a temporary name in its directory; messages
    /// call it `name`.
    fn open(
        &self,
        dest: &Path,
        name: &Path,
    ) -> Result<(Box<dyn RecordWriter>, tempfile::TempPath), String> {
        if let Ok(m) = std::fs::metadata(dest) {
            if m.is_dir() {
                return Err(format!("{}: is a directory", name.display()));
            }
            if let Some((_, input)) = self.inputs.iter().find(|(id, _)| *id == file_id(&m)) {
                return Err(format!("input file {input} is also the output"));
            }
        }
        let dir = match dest.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        remove_temps_on_signal();
        let (f, tmp) = temp_in(dir, dest).map_err(|e| shown(name, e))?.into_parts();
        TEMPS
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(tmp.to_path_buf());
        Ok((self.writer(f, name)?, tmp))
    }

    /// The output `path` (of metadata `m`) written where it is, when it is
    /// not a regular file nor a directory, or the run's own standard output
    /// or error; `None` for a file replaced by a rename.
    fn in_place(
        &self,
        path: &Path,
        m: &std::fs::Metadata,
    ) -> Result<Option<Box<dyn RecordWriter>>, String> {
        if let Some(f) = own_descriptor(m) {
            // The run's own standard output or error (`--output /dev/stdout`
            // into `>> log`): written through it, where the shell left it,
            // so what the file held and what follows stay; a rename would
            // put a new file in its place and cut the descriptor off it.
            return self.writer(f, path).map(Some);
        }
        if m.is_file() || m.is_dir() {
            return Ok(None);
        }
        use std::os::unix::fs::FileTypeExt;
        let ty = m.file_type();
        if (ty.is_fifo() || ty.is_socket())
            && let Some((_, name)) = self.inputs.iter().find(|(id, _)| *id == file_id(m))
        {
            // Writing into the pipe being read (`--output /dev/stdin`) would
            // keep it open, and the input would never end.
            return Err(format!("input file {name} is also the output"));
        }
        // A device, a FIFO or a socket (`--output /dev/null`): written as it
        // is; only a regular file is replaced by a rename.
        let f = std::fs::OpenOptions::new()
            .write(true)
            .open(path)
            .map_err(|e| shown(path, e))?;
        self.writer(f, path).map(Some)
    }
}

/// The shard files `DIR/part-00000.EXT` in the directory `path` (see
/// [`open_outputs`]).
fn open_shards(
    opener: &Opener,
    path: &Path,
    shards: usize,
    ext: &str,
    sources: &[Source],
) -> Result<(Writers, Outputs), String> {
    std::fs::create_dir_all(path).map_err(|e| shown(path, e))?;
    let dir = std::fs::canonicalize(path).map_err(|e| shown(path, e))?;
    for src in sources {
        if let Some(p) = src.path()
            && std::fs::canonicalize(p).is_ok_and(|c| c.starts_with(&dir))
        {
            return Err(format!(
                "input file {} is in the output directory {}",
                src.name(),
                path.display()
            ));
        }
    }
    let names: Vec<PathBuf> = (0..shards)
        .map(|i| path.join(format!("part-{i:05}.{ext}")))
        .collect();
    let stale = stale_shards(path, &names)?;
    let (mut outs, mut pending) = (Vec::new(), Vec::new());
    for dest in names {
        let (w, tmp) = opener.open(&dest, &dest)?;
        outs.push(w);
        pending.push((tmp, dest.clone(), dest));
    }
    Ok((outs, Outputs { pending, stale }))
}

/// The shard files in the directory `path` that are not among `names`: to
/// delete once the new ones are in place. A file urlsift did not write
/// there is refused.
fn stale_shards(path: &Path, names: &[PathBuf]) -> Result<Vec<PathBuf>, String> {
    let mut stale = Vec::new();
    for entry in std::fs::read_dir(path).map_err(|e| shown(path, e))? {
        let entry = entry.map_err(|e| shown(path, e))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with(".urlsift-") {
            continue; // a temporary file of a run that did not finish
        }
        // Only a regular file of ours is replaced or deleted: a directory
        // or a link that bears a shard's name is not.
        let ours = is_shard_name(&name) && entry.file_type().is_ok_and(|t| t.is_file());
        if !ours {
            return Err(format!(
                "{}: holds {name}, which urlsift did not write; give an empty or new directory",
                path.display()
            ));
        }
        let p = path.join(&name);
        if !names.contains(&p) {
            stale.push(p);
        }
    }
    Ok(stale)
}
