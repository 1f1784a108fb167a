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
