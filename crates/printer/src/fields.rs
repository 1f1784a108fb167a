//! The fields of a record, defined once: their names in output order, their
//! types, which records have them and what they hold. The CSV/TSV header,
//! the Parquet and Arrow schema, the man page's JSON FIELDS and the Python
//! package's `Match.to_dict` come from [`FIELDS`]; the JSON Lines and CSV
//! writers, the Python stub and `urlsift parse` are tested to write exactly
//! these, in this order.
//!
//! ```
//! use urlsift_printer::fields::{Group, names};
//! let csv: Vec<_> = names(&[Group::Record]).collect();
//! assert_eq!(&csv[..5], ["file", "start", "end", "line", "url"]);
//! ```

/// The type of a field's values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Type {
    /// Text (UTF-8; bytes that are not are replaced).
    Text,
    /// An unsigned 64-bit count or offset.
    U64,
    /// An unsigned 32-bit number.
    U32,
    /// `true` or `false`.
    Bool,
}

/// Which records have a field.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Group {
    /// Every record.
    Record,
    /// With `--normalize`.
    Normalized,
    /// When a `key` field is asked for (`--key-field`).
    Key,
    /// With `--mail`: the message and part.
    Mail,
    /// In a web archive: the link's place and its record.
    Web,
}

/// One field of a record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Field {
    /// Its name in JSON, CSV headers and Parquet.
    pub name: &'static str,
    /// Its values' type.
    pub ty: Type,
    /// Whether it may be null (empty in CSV).
    pub nullable: bool,
    /// Which records have it.
    pub group: Group,
    /// What it holds (the man page's JSON FIELDS; fields that share one
    /// text are described together, see [`described`]).
    pub doc: &'static str,
}

const fn f(name: &'static str, ty: Type, nullable: bool, group: Group, doc: &'static str) -> Field {
    Field {
        name,
        ty,
        nullable,
        group,
        doc,
    }
}

use Group::{Key, Mail, Normalized, Record, Web};
use Type::{Bool, Text, U32, U64};

/// The byte offsets of `start` and `end`.
const START_END: &str = "byte offsets of the URL in the input, end exclusive, delimiters excluded";

/// The meaning of the mail fields, together.
const MAIL_DOC: &str = "with --mail: the message and MIME part the URL came from, and its position in the decoded part (start and line are in the file)";

/// The meaning of the web fields, together.
const WEB_DOC: &str = "in a web archive or an HTML input: the link as written, where it was (text, attribute, header; tag@attribute or header name), and its record (warc_offset: of the gzip member; the warc fields are null for an HTML input); in a web archive, start and end are in the decoded payload. CSV, TSV and Parquet always have these columns, after the others, empty or null for other URLs; CSV and TSV have no mail columns";

/// Every field, in output order.
pub const FIELDS: [Field; 40] = [
    f(
        "file",
        Text,
        false,
        Record,
        "the input's name; - for standard input",
    ),
    f("start", U64, false, Record, START_END),
    f("end", U64, false, Record, START_END),
    f(
        "line",
        U64,
        false,
        Record,
        "the 1-based line of the URL's first byte",
    ),
    f(
        "url",
        Text,
        false,
        Record,
        "the URL as found (whitespace removed from a wrapped URL)",
    ),
    f(
        "normalized",
        Text,
        true,
        Normalized,
        "with --normalize: the RFC 3986 normal form, or null",
    ),
    f(
        "key",
        Text,
        true,
        Key,
        "with --key-field: the URL's --dedup-key form (raw, syntax, scheme, no-fragment, whatwg, surt), or null",
    ),
    f(
        "style",
        Text,
        false,
        Record,
        "how it was delimited: bare, quoted, angle, url-prefix",
    ),
    f(
        "kind",
        Text,
        false,
        Record,
        "uri (with a scheme) or www (an abbreviated www. URL)",
    ),
    f(
        "valid",
        Bool,
        false,
        Record,
        "true if it is a valid RFC 3986 URI",
    ),
    f(
        "ambiguous",
        Bool,
        false,
        Record,
        "true if a hyphen at a line break was kept",
    ),
    f("scheme", Text, true, Record, "the scheme, or null"),
    f(
        "userinfo",
        Text,
        true,
        Record,
        "the user information, or null",
    ),
    f("host", Text, true, Record, "the host, or null"),
    f(
        "host_kind",
        Text,
        true,
        Record,
        "reg-name, ipv4, ipv6 or ipvfuture, or null",
    ),
    f("port", Text, true, Record, "the port, as text, or null"),
    f("path", Text, false, Record, "the path, possibly empty"),
    f("query", Text, true, Record, "the query, or null"),
    f("fragment", Text, true, Record, "the fragment, or null"),
    f(
        "host_ascii",
        Text,
        true,
        Record,
        "the host in ASCII: a registered name percent-decoded and processed by UTS #46 (punycode), an IP literal in lower case; null without a host or when UTS #46 refuses it",
    ),
    f(
        "domain",
        Text,
        true,
        Record,
        "the registrable domain (eTLD+1, Public Suffix List ICANN and private sections) of a registered name; null for IP addresses, invalid hosts and public suffixes",
    ),
    f("message", U64, true, Mail, MAIL_DOC),
    f("message_id", Text, true, Mail, MAIL_DOC),
    f("message_offset", U64, true, Mail, MAIL_DOC),
    f("part", U32, true, Mail, MAIL_DOC),
    f("content_type", Text, true, Mail, MAIL_DOC),
    f("part_offset", U64, true, Mail, MAIL_DOC),
    f("part_start", U64, true, Mail, MAIL_DOC),
    f("part_line", U64, true, Mail, MAIL_DOC),
    f("found", Text, true, Web, WEB_DOC),
    f("source", Text, true, Web, WEB_DOC),
    f("source_name", Text, true, Web, WEB_DOC),
    f("warc_target_uri", Text, true, Web, WEB_DOC),
    f("warc_record_id", Text, true, Web, WEB_DOC),
    f("warc_date", Text, true, Web, WEB_DOC),
    f("warc_type", Text, true, Web, WEB_DOC),
    f("warc_offset", U64, true, Web, WEB_DOC),
    f(
        "warc_length",
        U64,
        true,
        Web,
        "in a web archive: the record's length in the file (in a .warc.gz, of its gzip member), so that the bytes warc_offset to warc_offset + warc_length are the record alone, as a byte range request fetches it; null when the record shares its gzip member with others (a whole-file gzip) or breaks off",
    ),
    f(
        "http_status",
        U32,
        true,
        Web,
        "in a web archive: the HTTP status code of a response or revisit record (301), or null",
    ),
    f(
        "rel",
        Text,
        true,
        Web,
        "for a link from an attribute of <a>, <area>, <link> or <form>: the tag's rel, its link types in lower case separated by one space (nofollow noopener), or null",
    ),
];

/// The fields with their meanings, for a reader: each field's name and
/// [`Field::doc`], in output order, consecutive fields with one text joined
/// into one entry (`start, end`).
///
/// ```
/// let d = urlsift_printer::fields::described();
/// assert_eq!(d[0].0, "file");
/// assert_eq!(d[1].0, "start, end");
/// assert!(d.iter().any(|(names, _)| names.starts_with("message, message_id")));
/// ```
pub fn described() -> Vec<(String, &'static str)> {
    let mut out: Vec<(String, &'static str)> = Vec::new();
    for f in &FIELDS {
        match out.last_mut() {
            Some((names, doc)) if *doc == f.doc => {
                names.push_str(", ");
                names.push_str(f.name);
            }
            _ => out.push((f.name.to_string(), f.doc)),
        }
    }
    out
}

/// The fields of the `groups`, in output order.
pub(crate) fn fields(groups: &[Group]) -> impl Iterator<Item = &'static Field> + '_ {
    FIELDS.iter().filter(move |f| groups.contains(&f.group))
}

/// The names of the fields of the `groups`, in output order.
pub fn names(groups: &[Group]) -> impl Iterator<Item = &'static str> + '_ {
    fields(groups).map(|f| f.name)
}

/// One column of a table of records (Parquet, Arrow): a field, its index in
/// [`FIELDS`], and whether the column may hold nulls.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Column {
    /// The field.
    pub field: &'static Field,
    /// Its index in [`FIELDS`] (and in a row of [`Format::Rows`](crate::Format::Rows)).
    pub index: usize,
    /// Whether the column may hold nulls: a nullable field, or one that not
    /// every record has.
    pub nullable: bool,
}

/// The columns of a table of records, the one schema of `--format parquet`
/// and of the Python package's Arrow batches: the record's fields,
/// `normalized`, `key` (null unless a key is asked for), with `mail` the
/// `--mail` fields, and the web fields
/// (always: null for a record that is not a web link, so that tables made
/// from text and from web archives can be merged), in [`FIELDS`] order.
///
/// ```
/// use urlsift_printer::fields::columns;
/// let c: Vec<_> = columns(false).collect();
/// assert_eq!((c[1].field.name, c[1].nullable), ("start", false));
/// assert_eq!((c[5].field.name, c[5].nullable), ("normalized", true));
/// assert!(!c.iter().any(|c| c.field.name == "message_id"));
/// assert!(columns(true).any(|c| c.field.name == "message_id"));
/// ```
pub fn columns(mail: bool) -> impl Iterator<Item = Column> {
    let groups: &'static [Group] = if mail {
        &[
            Group::Record,
            Group::Normalized,
            Group::Key,
            Group::Web,
            Group::Mail,
        ]
    } else {
        &[Group::Record, Group::Normalized, Group::Key, Group::Web]
    };
    FIELDS
        .iter()
        .enumerate()
        .filter(move |(_, f)| groups.contains(&f.group))
        .map(|(index, field)| Column {
            field,
            index,
            nullable: field.nullable || field.group != Group::Record,
        })
}
