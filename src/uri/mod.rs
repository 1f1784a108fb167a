//! RFC 3986 URI references: split, validate, resolve, normalize (placeholder).
