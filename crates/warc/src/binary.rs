//! Payloads that are not text: by media type, and by sniffing their first
//! bytes (WHATWG MIME Sniffing's binary data bytes, 7.2, and the signatures
//! of images, fonts, audio, video and archives, 6.1 to 6.4).

/// How many bytes of a payload the sniff looks at (WHATWG's resource
/// header length).
const SNIFF: usize = 1445;

/// True for a media type (lowercased essence, parameters removed) whose
/// payload is binary: `image/` (except SVG), `audio/`, `video/`, `font/`,
/// `model/`, fonts and archives under `application/` (`zip`, `gzip`, `tar`,
/// `x-7z-compressed`, `x-rar-compressed`, `zstd`, `vnd.ms-fontobject`,
/// `font-woff`, `x-font-*`, `x-shockwave-flash`, `wasm`), and office
/// formats packed in a zip (`vnd.openxmlformats-*`, `vnd.oasis.opendocument.*`).
pub(crate) fn binary_type(essence: &str) -> bool {
    if essence.contains("svg") {
        return false;
    }
    let top = ["image/", "audio/", "video/", "font/", "model/"];
    if top.iter().any(|t| essence.starts_with(t)) {
        return true;
    }
    let Some(sub) = essence.strip_prefix("application/") else {
        return false;
    };
    matches!(
        sub,
        "zip"
            | "x-zip-compressed"
            | "gzip"
            | "x-gzip"
            | "x-tar"
            | "x-bzip2"
            | "x-xz"
            | "zstd"
            | "x-7z-compressed"
            | "x-rar-compressed"
            | "vnd.rar"
            | "java-archive"
            | "x-java-archive"
            | "vnd.android.package-archive"
            | "vnd.ms-fontobject"
            | "font-woff"
            | "font-woff2"
            | "font-sfnt"
            | "x-shockwave-flash"
            | "wasm"
            | "x-msdownload"
            | "x-executable"
            | "x-sharedlib"
    ) || sub.starts_with("x-font")
        || sub.starts_with("vnd.openxmlformats")
        || sub.starts_with("vnd.oasis.opendocument")
}

/// True for a payload whose first bytes say it is binary: a signature of
/// an image, font, audio or video format, an archive or a PDF (those
/// that hold a byte no text has; signatures of printable letters, such as
/// `BM` or `OTTO`, could start a text), or one of
/// WHATWG's binary data bytes (0x00-0x08, 0x0B, 0x0E-0x1A, 0x1C-0x1F) in
/// the first 1445 bytes. A UTF-16 or UTF-8 byte order mark says text.
pub(crate) fn sniff_binary(body: &[u8]) -> bool {
    let head = body.get(..SNIFF).unwrap_or(body);
    if [&b"\xfe\xff"[..], b"\xff\xfe", b"\xef\xbb\xbf"]
        .iter()
        .any(|bom| head.starts_with(bom))
    {
        return false;
    }
    const SIGNATURES: &[&[u8]] = &[
        b"GIF87a",
        b"GIF89a",
        b"\x89PNG\r\n\x1a\n",
        b"\xff\xd8\xff",
        b"\x00\x00\x01\x00",
        b"\x00\x00\x02\x00",
        b"\x00\x01\x00\x00",
        b"%PDF-",
        b"PK\x03\x04",
        b"\x1f\x8b\x08",
        b"Rar!\x1a\x07",
        b"7z\xbc\xaf\x27\x1c",
        b"OggS\x00",
        b"\x1a\x45\xdf\xa3",
        b"\x30\x82",
    ];
    if SIGNATURES.iter().any(|s| head.starts_with(s)) {
        return true;
    }
    if head.starts_with(b"RIFF")
        && head
            .get(8..12)
            .is_some_and(|t| t == b"WEBP" || t == b"WAVE" || t == b"AVI ")
    {
        return true;
    }
    if head.get(4..8).is_some_and(|t| t == b"ftyp") {
        return true;
    }
    head.iter()
        .any(|&b| matches!(b, 0x00..=0x08 | 0x0b | 0x0e..=0x1a | 0x1c..=0x1f))
}

/// The class of a media type (lowercased essence) [`binary_type`] says
/// is binary: `image`, `audio`, `video`, `font`, `model`, `archive`,
/// `office` (zip-packed office files) or `program`.
pub(crate) fn type_class(essence: &str) -> &'static str {
    for top in ["image", "audio", "video", "font", "model"] {
        if essence
            .strip_prefix(top)
            .is_some_and(|r| r.starts_with('/'))
        {
            return top;
        }
    }
    let sub = essence.strip_prefix("application/").unwrap_or(essence);
    if sub.contains("font") {
        "font"
    } else if sub.starts_with("vnd.openxmlformats") || sub.starts_with("vnd.oasis.opendocument") {
        "office"
    } else if matches!(
        sub,
        "x-shockwave-flash" | "wasm" | "x-msdownload" | "x-executable" | "x-sharedlib"
    ) {
        "program"
    } else {
        "archive"
    }
}

/// The class of a payload [`sniff_binary`] says is binary, by its
/// signature: `image`, `font`, `audio`, `video`, `archive`, `pdf`,
/// `certificate` (DER), or `data` (binary data bytes only).
pub(crate) fn sniff_class(body: &[u8]) -> &'static str {
    let sig: &[(&[u8], &str)] = &[
        (b"GIF8", "image"),
        (b"\x89PNG", "image"),
        (b"\xff\xd8\xff", "image"),
        (b"\x00\x00\x01\x00", "image"),
        (b"\x00\x00\x02\x00", "image"),
        (b"\x00\x01\x00\x00", "font"),
        (b"wOFF", "font"),
        (b"wOF2", "font"),
        (b"%PDF-", "pdf"),
        (b"PK\x03\x04", "archive"),
        (b"\x1f\x8b\x08", "archive"),
        (b"Rar!", "archive"),
        (b"7z\xbc\xaf", "archive"),
        (b"OggS", "audio"),
        (b"\x1a\x45\xdf\xa3", "video"),
        (b"\x30\x82", "certificate"),
    ];
    if let Some((_, class)) = sig.iter().find(|(s, _)| body.starts_with(s)) {
        return class;
    }
    match body.get(8..12) {
        Some(b"WEBP") if body.starts_with(b"RIFF") => return "image",
        Some(b"WAVE") if body.starts_with(b"RIFF") => return "audio",
        Some(b"AVI ") if body.starts_with(b"RIFF") => return "video",
        _ => {}
    }
    if body.get(4..8) == Some(b"ftyp") {
        return "video";
    }
    "data"
}

/// The class of a media type whose payload has links urlsift does not
/// read: `pdf`, `postscript`, `office` (Word, Excel, PowerPoint, RTF) or
/// `other`.
pub(crate) fn out_of_scope_class(essence: &str) -> &'static str {
    let sub = essence.strip_prefix("application/").unwrap_or(essence);
    if sub.contains("pdf") {
        "pdf"
    } else if sub == "postscript" {
        "postscript"
    } else if sub == "msword" || sub.starts_with("vnd.ms-") || sub.contains("rtf") {
        "office"
    } else {
        "other"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn types_and_signatures() {
        for t in [
            "image/png",
            "font/woff2",
            "application/zip",
            "application/x-font-ttf",
            "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
            "video/mp4",
        ] {
            assert!(binary_type(t), "{t}");
        }
        for t in [
            "image/svg+xml",
            "text/html",
            "application/json",
            "application/octet-stream",
            "text/plain",
        ] {
            assert!(!binary_type(t), "{t}");
        }
        for b in [
            &b"\x89PNG\r\n\x1a\nxx"[..],
            b"GIF89a",
            b"\x00\x01\x00\x00\x00\x10",
            b"text with a \x01 byte",
            b"\x30\x82\x05\x10 cert http://ocsp.verisign.com0",
        ] {
            assert!(sniff_binary(b), "{b:?}");
        }
        for b in [
            &b"<html>"[..],
            b"plain text, tabs\tand\r\nlines\x1b[0m",
            b"\xef\xbb\xbfhi",
            b"",
        ] {
            assert!(!sniff_binary(b), "{b:?}");
        }
    }
}
