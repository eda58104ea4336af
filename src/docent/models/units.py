"""A passage cut into answer units: sentences, list items, table rows and code blocks.

Docs-builder markup (mkdocs includes, admonition fences), link-only lines (not a link whose
text says what its page teaches), page chrome and
headings are not units; tables a crawl flattened to one cell a line are put back together.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Literal

from docent.models.text import CODE_SPAN, sentences
from docent.retrieval.markdown import heading_title
from docent.retrieval.tables import (
    DIRECTIVE,
    heads_table,
    is_rule,
    pipe_cells,
    rebuild_tables,
    row_text,
)

UnitKind = Literal["prose", "item", "row", "code"]

_HEADING = re.compile(r"^#{1,6}\s+(?=\S)")
_LIST_ITEM = re.compile(r"^([-*+]|\d+\\?[.)])\s+")
_MKDOCSTRINGS = re.compile(r"^:::\s+[\w.]+\s*$")  # "::: fastapi.responses.ORJSONResponse"
_MEMBER = re.compile(r"^[ \t]+-\s+(\w+)\s*$")  # "            - receive_bytes"
_HTML_ONLY = re.compile(r"^(</?[A-Za-z][^>]*>\s*)+$")
# (markup too: an HTML comment, an element's tag: "<!-- helmet by ... -->", "<m-model ...>")
_CODE_HINT = re.compile(r"[{}();=]|^\s*(//|#|\$ |<!--|<[a-zA-Z][\w-]*(?:\s|/?>|$))")
_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_URL = re.compile(r"<?https?://\S+>?")
_MAX_ITEM_CHARS = 400
_LABEL_WORDS = 8  # at most, for a list item naming what its nested items describe
# Inline HTML that docs write in markdown (`<abbr title="...">ORMs</abbr>`, `<dfn>`,
# `<kbd>`): an answer shows what the reader of the page sees, the element's text. Code
# spans keep theirs as written.
_TAGGED = re.compile(
    r"<(abbr|dfn|kbd|span|b|strong|em|i|u|small|mark|sub|sup|ins|q|cite|var|samp)\b[^<>]*>"
    r"([^<>]*)</\1\s*>",
    re.I,
)
# An abbreviation with its expansion ("<abbr title="Asynchronous Server Gateway
# Interface">ASGI</abbr>"): the page shows the expansion on hover, an answer in brackets
# ("ASGI (Asynchronous Server Gateway Interface)"), up to a colon or a full stop that
# starts a gloss, after the letters that follow it ("...>ORM</abbr>s": "ORMs (...)").
_ABBR = re.compile(r"<abbr\b[^<>]*?\btitle=\"([^\"<>:.]{2,80})[^\"<>]*\"[^<>]*>"
                   r"([^<>]*)</abbr\s*>(\w*)", re.I)
_HTML_CODE = re.compile(r"<code\b[^<>]*>([^<>`]+)</code\s*>", re.I)
_HTML_LINK = re.compile(r"<a\b[^<>]*?\bhref=\"([^\"<>\s]+)\"[^<>]*>([^<>\[\]]+)</a\s*>", re.I)
_BREAK = re.compile(r"<br\s*/?>", re.I)
# An HTML table or a collapsed <details> block inside a markdown table's cell (FastAPI's
# `license_info` fields): read as its rows, each cell after the other, without its header.
_SUMMARY = re.compile(r"<summary\b[^<>]*>(.*?)</summary\s*>", re.I | re.S)
_TABLE_HEAD = re.compile(r"<thead\b.*?</thead\s*>", re.I | re.S)
_CELL_BREAK = re.compile(r"</t[dh]\s*>\s*<t[dh]\b[^<>]*>", re.I)
_ROW_END = re.compile(r"(?<![.!?:])\s*</tr\s*>", re.I)
_LAST_CELL = re.compile(r"</t[dh]\s*>\s*(?=</tr\b)", re.I)
_BLOCK_TAG = re.compile(r"</?(?:table|thead|tbody|tfoot|tr|td|th|details)\b[^<>]*>", re.I)


@dataclass(frozen=True)
class Unit:
    """One candidate answer piece of a passage.

    `block` numbers the paragraph, list, table or code block it came from, so neighbours
    that belong together can be found.
    """

    text: str
    kind: UnitKind
    block: int
    depth: int = 0  # a list item's indent: a nested item is deeper than the one it is under
    heading: str = ""  # the passage's heading above it, if the passage has one

    @property
    def is_code(self) -> bool:
        return self.kind == "code"

    @property
    def announces(self) -> bool:
        """Ends in a colon, or in "the following" and what it is ("First add the following
        javascript."): it announces what follows ("...on every replica:")."""
        text = self.text.rstrip()
        return text.endswith(":") or bool(_FOLLOWING.search(text))

    @property
    def is_word(self) -> bool:
        """A list item of one word, a name in a list ("ReDoc.", "`Cookie()`")."""
        return self.kind == "item" and _one_word(self.text)

    @property
    def is_empty_code(self) -> bool:
        """A code block with nothing between its fences (ingestion may drop a line that
        looks like a secret, a sample token say) but include directives (`{!> ../../
        docs_src/app.js!}`, which a docs build replaces with a file): nothing to show."""
        return self.is_code and not "".join(
            line for line in self.text.splitlines()
            if not FENCE.match(line.strip()) and not DIRECTIVE.fullmatch(line.strip())
        ).strip()

    @property
    def is_diagram(self) -> bool:
        """A diagram's source (a ```mermaid block): it draws on a docs site and reads as
        noise in an answer, which shows it as text."""
        return self.is_code and _DIAGRAM.match(self.text.lstrip()) is not None


FENCE = re.compile(r"^(`{3,}|~{3,})")  # a line opening or closing a code block
_DIAGRAM = re.compile(r"^(?:`{3,}|~{3,})\s*\{?\s*\.?(?:mermaid|plantuml|dot|graphviz)\b", re.I)
_ANSWER_LABEL = re.compile(r"^(?:\*\*)?(?:A|Answer)\s*:(?:\*\*)?\s+(?=\S)")


# "[Use **RainbowKit** to offer a customizable wallet connection UI](/...)": a link whose
# text says what is there in five words or more, not a breadcrumb or a page's title.
# "[`MMLPositionEnterEvent`](https://...)": a link named by code names an API; breadcrumbs
# and "see also" links are named in words.
_CODE_LINK = re.compile(r"\[`[^`\]]+`\]\([^)]*\)")
_DESCRIBED_LINK = re.compile(r"\[(?!https?:)(?:[^\]\s]+\s+){4,}[^\]\s]+\]\([^)]*\)")


def is_chrome(text: str) -> bool:
    """A unit with no content of its own: only links or URLs, a bare label or a heading-like line.

    Link-only lines (breadcrumbs, "see also" lists), one- or two-word lines ("Copy",
    "Previous"), a bold line standing in for a heading, and questions (FAQ headings).
    """
    if re.fullmatch(r"\*\*[^*]+\*\*:?", text.strip()) or text.rstrip("*_ ").endswith("?"):
        return True
    if _LABELLED.match(text.strip()):  # "EntryPoint v0.7: [0x0000…](…)": a label, its value
        return False
    if _DESCRIBED_LINK.fullmatch(text.strip()):  # a guide's list of what each page teaches
        return False
    if _CODE_LINK.fullmatch(text.strip()):  # a reference's list of the names it documents
        return False
    rest = _URL.sub(" ", _LINK.sub(" ", text))
    words = re.findall(r"\w+", rest)
    # A label with its value is content ("EID: 30380"); a lone word is not ("Copy").
    if len(words) < 2 or not any(re.search(r"[A-Za-z]", w) for w in words):
        return True
    linked = sum(len(m.group(1)) for m in _LINK.finditer(text))
    return linked > 0.6 * len(text.strip()) and len(re.findall(r"\w+", rest)) < 4


def _one_word(text: str) -> bool:
    """A single word, no link: "ReDoc.", "`Cookie()`"."""
    return not _LINK.search(text) and not _URL.search(text) and len(
        [w for w in re.findall(r"\w+", text) if re.search(r"[A-Za-z]", w)]) == 1


def _announced(units: list[Unit], depth: int, heading: str) -> bool:
    """Whether a list item at `depth` is in a list announced by the line before it ("...
    including 2 alternative user interfaces:" over "Swagger UI." and "ReDoc."): the item it
    is nested in, or the sentence before the list, ends in a colon."""
    for unit in reversed(units):
        if unit.heading != heading or unit.kind in ("code", "row"):
            return False
        if unit.kind == "item" and unit.depth >= depth:
            continue  # an earlier item of the same list
        return unit.announces
    return False


def untag(text: str) -> str:
    """`text` with its inline HTML elements replaced by what they show: their text, a
    `<code>` element as a code span, a link as a markdown link."""
    if "<" not in text:
        return text
    parts = CODE_SPAN.split(text)
    for i in range(0, len(parts), 2):  # even parts are outside code spans
        part = _HTML_CODE.sub(r"`\1`", _BREAK.sub(" ", _ABBR.sub(r"\2\3 (\1)", parts[i])))
        # Nested elements, from the inside out.
        while (plain := _TAGGED.sub(r"\2", _HTML_LINK.sub(r"[\2](\1)", part))) != part:
            part = plain
        parts[i] = _untable(part)
    return "".join(parts).strip()


def _untable(text: str) -> str:
    """`text` with the markup of an HTML table or <details> block replaced: its summary as
    a label ("`license_info` fields:"), its rows as statements, cells joined by dashes."""
    low = text.lower()
    if "<t" not in low and "<d" not in low and "<s" not in low:
        return text
    text = _SUMMARY.sub(lambda m: f"{m.group(1).strip().rstrip(':')}: ", text)
    text = _CELL_BREAK.sub(" — ", _TABLE_HEAD.sub(" ", text))
    text = _BLOCK_TAG.sub(" ", _ROW_END.sub(".", _LAST_CELL.sub("", text)))
    return re.sub(r"\s{2,}", " ", text)


# An API reference's endpoint line, "POST `/api/contract/verify/single-file`": short, and
# what the section documents.
_ENDPOINT = re.compile(r"(?:GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS)\s+`?/\S*`?")


def _is_label(text: str) -> bool:
    """A short line without a sentence's end, such as a table cell or a caption (not an
    endpoint's method and path)."""
    return (len(text.split()) < 4 and not text.rstrip("*_`").endswith((".", "!", ":"))
            and not _LABELLED.match(text) and not _ENDPOINT.fullmatch(text.strip()))


# What reads as noise in a quote: a crawl's empty link after a URL ("<https://mml.io/...>[](
# https://mml.io/...)"), or an image with no text in a sentence, which an answer shows as a
# bare "(https://...)" or "!(https://...)" once the empty brackets go; bold markers around
# nothing ("and**** modal"); zero-width spaces.
_UNSHOWN = re.compile(r"!?\[\]\([^()\s]*\)|(?<!\*)\*\*\*\*(?!\*)|[\u200b\u200c\u200d\ufeff]")
# A crawl's bold code span ("`**chainKey**`**:** `somnia`"): the stars show inside a code span.
_BOLD_CODE = re.compile(r"`\*\*([^`*\n]+)\*\*`")


def _shown(text: str) -> str:
    """Prose as a reader sees it on the page, less the noise (`_UNSHOWN`, `_BOLD_CODE`)."""
    return _BOLD_CODE.sub(r"`\1`", _UNSHOWN.sub("", text))


def split_units(body: str) -> list[Unit]:
    """A passage as answer units: sentences, list items, table rows and whole code blocks.

    Headings, table rules, docs-builder directives and link-only or one-word lines are
    dropped, except a grid of page cards (one unit naming the pages) and a one-word label
    over a list ("Testnet:"). A list item or table row stays one unit (long items are split
    into sentences); the items of one list, or the rows of one table, share a block.
    """
    units: list[Unit] = []
    lines = _labelled_values(_named_paragraphs(_announced_list(rebuild_tables(
        _file_embeds(_code_opening(body.splitlines()))))))
    paragraph: list[str] = []
    header: list[str] = []
    block = 0
    opening = range(0)  # the units of a list item the passage opens on
    heading = ""

    def add(text: str, kind: UnitKind, depth: int = 0, *, label: bool = False) -> None:
        nonlocal block
        # A new paragraph or code block, or a list/table after something else, starts a block.
        if units and (kind in ("prose", "code") or units[-1].kind != kind):
            block += 1
        if kind != "code":
            # A paragraph's sentences are shown already (`flush`); items and rows not yet.
            shown = text if kind == "prose" else _shown(text)
            text = _ANSWER_LABEL.sub("", shown)  # FAQ pages: "A: The limit is 3."
        if kind == "code" or label or not is_chrome(text) or (
                kind == "item" and (_one_word(text) or _NAMED_LINK.search(text))
                and _announced(units, depth, heading)):
            units.append(Unit(text, kind, block, depth, heading=heading))

    def flush() -> None:
        # Untagged before it is split: an HTML title's "." would end a sentence.
        text = _shown(untag(" ".join(paragraph).strip()))
        paragraph.clear()
        if text:
            kept = [s for s in sentences(text) if not is_chrome(s) and not _is_label(s)]
            if kept:
                add(kept[0], "prose")
                units.extend(Unit(s, "prose", units[-1].block, heading=heading)
                             for s in kept[1:])

    i = 0
    while i < len(lines):
        stripped = lines[i].strip()
        fence = FENCE.match(stripped)
        if fence:
            flush()
            code = [lines[i]]
            i += 1
            while i < len(lines) and not lines[i].strip().startswith(fence.group(1)):
                code.append(lines[i])
                i += 1
            if i < len(lines):
                code.append(lines[i])
            add("\n".join(code), "code")
        elif (cells := pipe_cells(stripped)) is not None:
            flush()
            if heads_table(lines, i):
                header = cells
            elif not is_rule(stripped):
                add(untag(row_text(cells, header)), "row")
        elif _indented_code(lines, i):
            # An indented code block (crawled pages lose their fences): up to the next
            # line that is neither blank nor indented.
            flush()
            code = []
            while i < len(lines) and (not lines[i].strip() or lines[i].startswith(("    ", "\t"))):
                code.append(lines[i])
                i += 1
            i -= 1
            add("```\n" + textwrap.dedent("\n".join(code)).strip("\n") + "\n```", "code")
        elif _MKDOCSTRINGS.match(stripped):
            flush()
            # Its indented options ("options:", "members:" and a list of names) configure
            # the docs build; the page shows the object's reference in their place, so
            # the names it lists are what the page says of it: "`fastapi.UploadFile`
            # members: `file`, `filename`, ...". Listing none, it documents the object
            # itself, and its name is what the page says: "API reference: `fastapi.Request`."
            members = []
            while i + 1 < len(lines) and re.match(r"[ \t]+\S", lines[i + 1]):
                i += 1
                member = _MEMBER.match(lines[i])
                if member:
                    members.append(member.group(1))
            if members:
                add(listing_statement(stripped[3:].strip(), members), "prose")
            else:
                add(reference_statement(stripped[3:].strip()), "prose")
        elif _HEADING.match(stripped):
            flush()
            heading = heading_title(_HEADING.sub("", stripped))[0]  # "CSRF Risk { #csrf-risk }"
        elif (
            not stripped
            or stripped.startswith("#")
            or DIRECTIVE.fullmatch(stripped)
            or _HTML_ONLY.fullmatch(stripped)
        ):
            flush()
        elif _LIST_ITEM.match(stripped):
            flush()
            item = _LIST_ITEM.sub("", stripped)
            depth = _indent(lines[i])
            before, at_start = len(units), i == 0
            # A wrapped item continues on the following indented lines that start nothing new.
            while (
                i + 1 < len(lines)
                and lines[i + 1].startswith((" ", "\t"))
                and lines[i + 1].strip()
                and not _LIST_ITEM.match(lines[i + 1].strip())
                and not re.match(r"^(`{3,}|~{3,}|\|)", lines[i + 1].strip())
            ):
                i += 1
                item += " " + lines[i].strip()
            item = untag(item)
            if _names_its_sub_items(item):  # "`datetime.timedelta`:" and what it is
                subs, last = _sub_items(lines, i + 1, _indent(lines[i]))
                merged = _with_sub_items(item, subs)
                if subs and len(merged) <= _MAX_ITEM_CHARS:
                    item, i = merged, last
            for piece in [item] if len(item) <= _MAX_ITEM_CHARS else sentences(item):
                add(piece, "item", depth)
            if at_start:  # its indent went with the passage's stripped start
                opening = range(before, len(units))
        elif not paragraph and (cards := _cards(stripped)):
            # A section's landing page lists its pages as cards, links run together with
            # nothing between: what the section holds ("Elix.fi, Meme Coins, NFTs2Me...").
            add(cards, "prose", label=True)
        elif not paragraph and _LIST_LABEL.fullmatch(stripped) and _list_follows(lines, i):
            # "Testnet:" over "Chain ID: 50312", "Currency: STT": one word, yet it says
            # whose the items are ("Mainnet:" has a list of its own), so it stays.
            add(stripped, "prose", label=True)
        else:
            paragraph.append(stripped)
        i += 1
    flush()
    return _first_item_depth(units, opening)


# The statement of a reference page's object documented without a list of members.
_REFERENCE = re.compile(r"^API reference: `([\w.]+)`\.$")


def reference_statement(name: str) -> str:
    """What a reference page says of an object it documents without listing members."""
    return f"API reference: `{name}`."


def referenced(text: str) -> str | None:
    """The object a unit of `reference_statement` names ("fastapi.security.APIKeyHeader");
    None for any other unit."""
    found = _REFERENCE.match(text)
    return found.group(1) if found else None


# The statement of a reference page's object listed with its members.
_LISTING = re.compile(r"^`([\w.]+)` members: (`[\w.]+`(?:, `[\w.]+`)*)\.$")


def listing_statement(name: str, members: Sequence[str]) -> str:
    """What a reference page says of an object it documents by a list of members:
    "`fastapi.UploadFile` members: `file`, `filename`, ..."."""
    return f"`{name}` members: {', '.join(f'`{m}`' for m in members)}."


def listed(text: str) -> tuple[str, list[str]] | None:
    """(the object, its members) of a unit of `listing_statement`; None for any other."""
    found = _LISTING.match(text)
    if found is None:
        return None
    return found.group(1), re.findall(r"`([\w.]+)`", found.group(2))


# A one-word label over a list: "Testnet:", "Pre-requisites:" (not a FAQ's "A:", nor a
# sentence's end after code: "`from .routers import items`" then "means:").
_LIST_LABEL = re.compile(r"(?:\*\*)?[A-Z][\w-]{2,}(?:\*\*)?:(?:\*\*)?")


# Three or more links run together, as a crawl writes a grid of page cards; "Previous"
# and "Next" links run together too, and are chrome.
_CARDS = re.compile(r"(?:\[[^\]\n]+\]\([^)\s]*\)){3,}")
_PAGER = re.compile(r"\[(?:Previous|Next)", re.I)


def _cards(line: str) -> str:
    """The pages a grid of cards (`_CARDS`) links to, named by their text in a sentence;
    "" when `line` is no such grid."""
    if not _CARDS.fullmatch(line) or _PAGER.match(line):
        return ""
    return f"{', '.join(m.group(1).strip() for m in _LINK.finditer(line))}."


def _list_follows(lines: list[str], i: int) -> bool:
    """Whether the first line after line `i` that is not blank is a list item."""
    after = next((line.strip() for line in lines[i + 1 :] if line.strip()), "")
    return bool(_LIST_ITEM.match(after))


def _code_opening(lines: list[str]) -> list[str]:
    """A passage opening inside an indented code block lost its first line's indent
    (passages are stripped): `<m-model id="dice" ...>` over lines indented by six. That line
    is code again when it looks like code, is no list item nor a sentence, and the line
    right after it is indented by four or more."""
    if len(lines) < 2 or not lines[0].strip() or lines[0].startswith((" ", "\t")):
        return lines
    first = lines[0].rstrip()
    if (re.match(r"(?: {4,}|\t)\S", lines[1]) and _CODE_HINT.search(first)
            and not _LIST_ITEM.match(first) and not first.endswith((".", "!", "?", ":"))):
        return ["    " + first, *lines[1:]]
    return lines


def _first_item_depth(units: list[Unit], opening: range) -> list[Unit]:
    """A passage opening on a list item lost that item's indent (passages are stripped):
    it is as deep as the shallowest other item of its list. "  * A", "  * B" are one level
    and "- A", "  - B", "- C" two; "- A", "  - B" alone read as one level, B's nesting
    lost."""
    if not opening:
        return units
    block = units[opening[0]].block
    rest = [u.depth for k, u in enumerate(units)
            if k not in opening and u.block == block and u.kind == "item"]
    depth = min(rest, default=0)
    for k in opening:
        units[k] = replace(units[k], depth=depth)
    return units


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))


def _names_its_sub_items(item: str) -> bool:
    """A short list item ending in ":" ("`datetime.timedelta`:", "API keys in:"): a label
    whose nested items say what it is."""
    return item.rstrip().endswith(":") and len(item.split()) <= _LABEL_WORDS


def _sub_items(lines: list[str], start: int, indent: int) -> tuple[list[str], int]:
    """The items nested under a list item at `indent` (each with its wrapped lines), and
    the index of the last line they take."""
    subs: list[str] = []
    last = start - 1
    j = start
    while j < len(lines):
        line = lines[j]
        if not line.strip():
            j += 1
            continue
        if _indent(line) <= indent:
            break
        if _LIST_ITEM.match(line.strip()):
            subs.append(_LIST_ITEM.sub("", line.strip()))
        elif subs and not FENCE.match(line.strip()):
            subs[-1] += " " + line.strip()  # a nested item's wrapped line
        else:
            break  # nested code or prose: not a list of what the label is
        last = j
        j += 1
    return subs, last


def _with_sub_items(label: str, subs: list[str]) -> str:
    """A label item and its nested items as one statement ("API keys in: Headers; Query
    parameters; Cookies, etc."): an item without an end of its own gets ";", the last "."."""
    parts = []
    for k, sub in enumerate(untag(s).strip() for s in subs):
        end = "" if sub.endswith((".", "!", "?", ":", ";")) else "." if k == len(subs) - 1 else ";"
        parts.append(sub + end)
    return " ".join([label.rstrip(), *parts])


# A link named in words (not an image): an announced list's item may be only that.
_NAMED_LINK = re.compile(r"(?<!!)\[[^\]]*\w[^\]]*\]\([^)]*\)")
# GitBook's file block, as crawled: its size, the file's link, its type and an "Open" link,
# each a line of its own ("488KB", "[Somnia_White Paper.pdf](…)", "PDF", "Download[Open](…)").
_FILE_SIZE = re.compile(r"\d+(?:\.\d+)?\s?[KMGT]?B")
_FILE_LINK = re.compile(r"\[[^\]]+\]\([^)\s]+\)")
_FILE_TYPE = re.compile(r"[A-Z0-9]{2,5}")
_FILE_OPEN = re.compile(r"Download\s*\[Open\]\([^)\s]+\)")


def _file_embeds(lines: list[str]) -> list[str]:
    """A crawled file block as the one line a reader takes from it, "[Somnia_White
    Paper.pdf](…): PDF, 488KB.", instead of four lines of chrome (a size, a link, a word)."""
    if not any("[Open](" in line for line in lines):
        return lines  # (no file block: most passages)
    kept = [(i, line.strip()) for i, line in enumerate(lines) if line.strip()]
    out = list(lines)
    for k in range(len(kept) - 3):
        (at, size), (_, link), (_, kind), (end, opener) = kept[k : k + 4]
        if (_FILE_SIZE.fullmatch(size) and _FILE_LINK.fullmatch(link)
                and _FILE_TYPE.fullmatch(kind) and _FILE_OPEN.fullmatch(opener)):
            out[at : end + 1] = [f"{link}: {kind}, {size}."] + [""] * (end - at)
    return out


_LINK_LABEL = re.compile(r"^\[(?:\*\*)?([^\]*]{1,60})(?:\*\*)?\]\([^)]*\)$")


def _named_paragraphs(lines: list[str]) -> list[str]:
    """A line (or a list item) that is only a short link ("[**Slither**](https://...)")
    standing alone before a paragraph names what that paragraph describes (a crawled table
    or definition list): the two become one line, "Slither: Detects ...", instead of a
    dropped link."""
    out: list[str] = []
    i = 0
    while i < len(lines):
        stripped = lines[i].strip()
        # Or a list item of only that link, a paragraph under each ("* [`MMLClickEvent`](…)"
        # over "Received when a user clicks on a 3D object."): it stays an item.
        item = _LIST_ITEM.match(stripped)
        label = _LINK_LABEL.match(stripped[item.end():] if item else stripped)
        alone = label is not None and (i == 0 or not lines[i - 1].strip())
        if alone and label is not None:
            j = i + 1
            while j < len(lines) and not lines[j].strip():
                j += 1
            following = lines[j].strip() if j < len(lines) else ""
            if following and following[0].isalpha() and following.endswith((".", "!")) and (
                len(following.split()) >= 4
            ):
                indent = lines[i][: len(lines[i]) - len(lines[i].lstrip())]
                opening = indent + item.group() if item else ""
                out.append(f"{opening}{label.group(1).strip()}: {following}")
                i = j + 1
                continue
        out.append(lines[i])
        i += 1
    return out


# A value line of a crawled key-value list: one URL, one address or one number, bare or as
# a link's text (a URL in angle brackets may carry the crawl's empty link to itself; a
# WebSocket endpoint is one too). A link named otherwise ("[Binance](…)") is a cell of a
# table, not a label's value: "CEX", "DEX", then "[Binance](…)", "Quickswap" are a header
# and a row.
_VALUE = (
    r"(?:<(?:https?|wss?)://\S+>|\[(?:(?:https?|wss?)://[^\]\s]{1,120}|`?0x[0-9a-fA-F]{6,}`?)\]"
    r"\(\S+\)|(?:https?|wss?)://\S+|`?0x[0-9a-fA-F]{6,}`?|\d[\d,.]*)"
)
_VALUE_LINE = re.compile(rf"^{_VALUE}(?:\[\]\([^)]*\))?$")
_LABEL = r"[A-Za-z][^!?:;|<>\[\]`#*]{0,48}(?<![.,])"  # "EntryPoint v0.7", no sentence
_LABEL_LINE = re.compile(rf"^{_LABEL}$")
_LABELLED = re.compile(rf"^{_LABEL}: {_VALUE}(?:, {_VALUE})*$")


_FOLLOWING = re.compile(r"\bthe\s+following(?:\s+[\w-]+){0,2}\s*\.$", re.I)
_ANNOUNCES = re.compile(r"^(?![-*+#|]|\d+[.)]\s)[^:]{12,}:$")
_SHORT_LINK = re.compile(r"\[([^\]]+)\]\([^)]*\)")
# What such a line may hold: a name or a short label ("Gate.io", "Space – Jump"), no markup.
_NAME_TEXT = re.compile(r"\w[\w .&'+()–—-]*[\w)]|\w")


def _announced_list(lines: list[str]) -> list[str]:
    """Short lines, each alone, after a sentence announcing them ("...from the list of
    exchanges below:", then "[Binance](...)", "Quickswap", "[Gate.io](...)"): a crawl's
    list that lost its bullets, joined to the sentence by their text ("...below: Binance,
    Quickswap, Gate.io."), not dropped as loose labels and links."""
    out = list(lines)
    i = 0
    while i < len(out):
        if not _ANNOUNCES.match(out[i].strip()):
            i += 1
            continue
        items, j = [], i + 1
        while True:
            k = j
            while k < len(out) and not out[k].strip():
                k += 1
            if k >= len(out):
                break
            text = _SHORT_LINK.sub(r"\1", out[k].strip())
            if (k == j or out[k].startswith(("    ", "\t")) or len(text.split()) > 4
                    or not _NAME_TEXT.fullmatch(text)):
                break
            items.append((k, text))
            j = k + 1
        if len(items) >= 2:
            out[i] = f"{out[i].rstrip()} {', '.join(text for _, text in items)}."
            for k, _ in items:
                out[k] = ""
        i = j if items else i + 1
    return out


def _labelled_values(lines: list[str]) -> list[str]:
    """A short label standing alone before lines that are each only a link, a URL, an
    address or a number (a crawl's key-value list or flattened table: "EntryPoint v0.7",
    then its address; "Google Cloud Faucet", then its URL) becomes one line, "EntryPoint
    v0.7: [0x0000…](…)", instead of a dropped label and dropped links."""
    out: list[str] = []
    i = 0
    while i < len(lines):
        label = lines[i].strip()
        alone = i == 0 or not lines[i - 1].strip()
        if alone and _LABEL_LINE.match(label) and len(label.split()) <= 6:
            values, j = [], i + 1
            while True:
                k = j
                while k < len(lines) and not lines[k].strip():
                    k += 1
                if k >= len(lines) or not _VALUE_LINE.match(lines[k].strip()):
                    break
                values.append(lines[k].strip())
                j = k + 1
            if values and j - i >= 3:  # each value on a line of its own, after a blank
                out += [f"{label}: {', '.join(values)}", ""]  # "<url>[](url)": see _shown
                i = j
                continue
        out.append(lines[i])
        i += 1
    return out


def _indented_code(lines: list[str], i: int) -> bool:
    """Whether an indented code block starts at line `i`: after a blank line, indented by
    four or more, not a list item, and code-like (braces, `=`, `;`, comments, a prompt) or
    announced by the paragraph before it ("To compile the contract, run the command:" over
    `forge build`: a crawl turns a fenced command into an indented line)."""
    line = lines[i]
    if not line.startswith(("    ", "\t")) or _LIST_ITEM.match(line.strip()):
        return False
    if i and lines[i - 1].strip():
        return False
    if _CODE_HINT.search(line):
        return True
    before = next((b for b in reversed(lines[:i]) if b.strip()), "")
    # Not the continuation of a list item, which is indented the same way.
    return (
        before.rstrip().endswith(":") and not before.startswith((" ", "\t"))
        and not _LIST_ITEM.match(before.strip())
    )
