"""The text of a page that is not UTF-8: the charset it declares.

Older doc sites are still served in a legacy charset (ISO-8859-1, Windows-1252, Shift_JIS),
declared in the HTTP header or in the page's own `<meta charset>`. Bytes that are valid
UTF-8 are read as UTF-8 whatever a page declares: a server that labels every page
ISO-8859-1 is a common misconfiguration, and legacy text is almost never valid UTF-8.
Otherwise the declared charset is used as a browser uses it: the labels ISO-8859-1, Latin-1
and ASCII mean Windows-1252 (the WHATWG Encoding Standard), and a byte the charset lacks
becomes U+FFFD.
"""

from __future__ import annotations

import codecs
import re

# The HTML prescan looks at the first 1024 bytes for `<meta charset=...>` or
# `<meta http-equiv="Content-Type" content="text/html; charset=...">`.
_PRESCAN_BYTES = 1024
_META = re.compile(rb"<meta\b[^>]*?charset\s*=\s*[\"']?\s*([A-Za-z0-9._:-]+)", re.I)
_PARAM = re.compile(r"charset\s*=\s*[\"']?\s*([A-Za-z0-9._:-]+)", re.I)
_WINDOWS_1252 = frozenset(
    "iso-8859-1 iso8859-1 iso_8859-1 latin1 latin-1 l1 us-ascii ascii".split())


def codec(label: str | None) -> str | None:
    """Python's codec for a charset label; None for no label or one Python does not know."""
    if not label:
        return None
    name = label.strip().lower()
    if name in _WINDOWS_1252:
        name = "cp1252"
    try:
        return codecs.lookup(name).name
    except LookupError:
        return None


def header_charset(content_type: str) -> str | None:
    """The codec a Content-Type header declares (`text/html; charset=iso-8859-1`)."""
    m = _PARAM.search(content_type)
    return codec(m.group(1)) if m else None


def meta_charset(data: bytes) -> str | None:
    """The codec an HTML page declares in a `<meta>` of its first 1024 bytes."""
    m = _META.search(data[:_PRESCAN_BYTES])
    return codec(m.group(1).decode("ascii")) if m else None


def decode(data: bytes, charset: str | None) -> str:
    """The text of `data`: UTF-8 (a byte-order mark dropped) when it is valid UTF-8, else
    decoded with `charset`. UnicodeDecodeError (UTF-8's) when neither applies."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        if charset is None or charset in ("utf-8", "utf-8-sig"):
            raise
        return data.decode(charset, errors="replace")
