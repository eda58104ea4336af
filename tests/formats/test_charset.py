"""Which charset a page that is not UTF-8 is read in."""

from __future__ import annotations

import pytest

from docent.formats.charset import codec, decode, header_charset, meta_charset


def test_valid_utf8_is_read_as_utf8_whatever_the_page_declares():
    # A server labelling every page ISO-8859-1 must not turn "café" into "cafÃ©".
    assert decode("caf\u00e9".encode(), "cp1252") == "caf\u00e9"
    assert decode(b"\xef\xbb\xbfplain", None) == "plain"


def test_latin1_and_ascii_labels_mean_windows_1252_as_in_browsers():
    assert codec("ISO-8859-1") == codec("latin1") == codec("us-ascii") == "cp1252"
    assert decode(b"\x93quoted\x94 caf\xe9", codec("iso-8859-1")) == "\u201cquoted\u201d caf\u00e9"
    assert codec("shift_jis") == "shift_jis" and codec("no-such-charset") is None


def test_a_declared_charset_is_found_in_the_header_or_the_first_kilobyte():
    assert header_charset('text/html; charset="ISO-8859-1"') == "cp1252"
    assert header_charset("text/html") is None
    assert meta_charset(b"<html><head><META CHARSET=windows-1252>") == "cp1252"
    assert meta_charset(b'<meta http-equiv="Content-Type" content="text/html; charset=koi8-r">'
                        ) == "koi8-r"
    assert meta_charset(b" " * 1100 + b"<meta charset='koi8-r'>") is None


def test_bytes_neither_utf8_nor_declared_are_an_error():
    with pytest.raises(UnicodeDecodeError):
        decode(b"caf\xe9", None)
    assert decode(b"caf\x81", "cp1252") == "caf\ufffd"  # a byte the charset lacks
