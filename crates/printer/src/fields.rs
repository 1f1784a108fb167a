//! The fields of a record, defined once: their names in output order, their
//! types and which records have them. The CSV/TSV header, the Parquet
//! schema and the man page's field list come from [`FIELDS`]; the JSON Lines
//! and CSV writers are tested to write exactly these, in this order.
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
}

const fn f(name: &'static str, ty: Type, nullable: bool, group: Group) -> Field {
    Field {
        name,
        ty,
        nullable,
        group,
    }
}

use Group::{Key, Mail, Normalized, Record, Web};
use Type::{Bool, Text, U32, U64};

/// Every field, in output order.
pub const FIELDS: [Field; 37] = [
    f("file", Text, false, Record),
    f("start", U64, false, Record),
    f("end", U64, false, Record),
    f("line", U64, false, Record),
    f("url", Text, false, Record),
    f("normalized", Text, true, Normalized),
    f("key", Text, true, Key),
    f("style", Text, false, Record),
    f("kind", Text, false, Record),
    f("valid", Bool, false, Record),
    f("ambiguous", Bool, false, Record),
    f("scheme", Text, true, Record),
    f("userinfo", Text, true, Record),
    f("host", Text, true, Record),
    f("host_kind", Text, true, Record),
    f("port", Text, true, Record),
    f("path", Text, false, Record),
    f("query", Text, true, Record),
    f("fragment", Text, true, Record),
    f("host_ascii", Text, true, Record),
    f("domain", Text, true, Record),
    f("message", U64, true, Mail),
    f("message_id", Text, true, Mail),
    f("message_offset", U64, true, Mail),
    f("part", U32, true, Mail),
    f("content_type", Text, true, Mail),
    f("part_offset", U64, true, Mail),
    f("part_start", U64, true, Mail),
    f("part_line", U64, true, Mail),
    f("found", Text, true, Web),
    f("source", Text, true, Web),
    f("source_name", Text, true, Web),
    f("warc_target_uri", Text, true, Web),
    f("warc_record_id", Text, true, Web),
    f("warc_date", Text, true, Web),
    f("warc_type", Text, true, Web),
    f("warc_offset", U64, true, Web),
];

/// The fields of the `groups`, in output order.
pub fn fields(groups: &[Group]) -> impl Iterator<Item = &'static Field> + '_ {
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
    /// Its index in [`FIELDS`] (and in a row of [`crate::rows`]).
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
