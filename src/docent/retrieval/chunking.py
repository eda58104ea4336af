"""Heading-aware chunks of a markdown page, sized for the embedding model."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from urllib.parse import urlsplit

from docent.retrieval.markdown import LIST_ITEM, Block, Section, parse_markdown
from docent.retrieval.tables import flattened_tables
from docent.retrieval.types import Chunk

TokenCounter = Callable[[str], int]

_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_INCLUDE = re.compile(r"\{\*.*?\*\}")  # mkdocs snippet includes name a file, not content
_BLANKS = re.compile(r"\n{3,}")
_SENTENCE = re.compile(r"(?<=[.!?])\s+")
# An image or file inlined as a data URI ("![logo](data:image/png;base64,iVBORw0...)") is
# kilobytes of base64 no reader reads: its payload is left out of the chunk.
_DATA_URI = re.compile(
    r"(data:[\w.+-]+/[\w.+-]+(?:;[\w.+-]+=[\w.+-]+)*;base64,)[A-Za-z0-9+/=]{64,}")


# A link whose text says nothing of where it goes ("request test tokens [here](https://
# cloud.google.com/...)"): its site is what it names.
_BARE_LINK = re.compile(
    r"\[(\**(?:here|this|link|this\s+link|click\s+here|this\s+page|website|the\s+website)\**)\]"
    r"\((https?://(?:www\.)?([\w.-]+)[^)]*)\)",
    re.I,
)
_PATH_PART = re.compile(r"[/_.-]+")
_FILE_ENDINGS = frozenset({"htm", "html", "php", "aspx", "pdf"})


def name_bare_links(text: str, path_words: bool = False) -> str:
    """`text` with the site of each link whose text is only "here" or "this link" added
    to that text: "[here (cloud.google.com)](https://cloud.google.com/...)"; with
    `path_words`, the words of its path too ("cloud.google.com application web3 faucet
    somnia shannon"), as a reader hovering over the link would read them."""
    if "](http" not in text:
        return text

    def named(m: re.Match[str]) -> str:
        where = m.group(3)
        if path_words:
            # Words only: not ids, versions ("v2") or file endings ("html").
            words = [w for w in _PATH_PART.split(urlsplit(m.group(2)).path)
                     if len(w) > 2 and w.isalpha() and w.lower() not in _FILE_ENDINGS]
            where = " ".join([where, *words])
        return f"[{m.group(1)} ({where})]({m.group(2)})"

    return _BARE_LINK.sub(named, text)


# A link right after another, as a crawl writes a grid of page cards: "[Elix.fi](…)[Meme
# Coins](…)" is two names, not "Elix.fiMeme Coins".
_RUN_TOGETHER = re.compile(r"(?<=\]\()([^)\s]*\))(?=!?\[)")


def clean_for_embedding(text: str) -> str:
    """Markdown minus what only adds noise to a vector: link targets (a bare "here" link
    keeps the name of its site) and include paths. Links run together are told apart."""
    text = _LINK.sub(r"\1", _RUN_TOGETHER.sub(r"\1, ", name_bare_links(text)))
    return _BLANKS.sub("\n\n", _INCLUDE.sub("", text)).strip()


def _header(title: str, section_title: str) -> str:
    if section_title and section_title != title:
        return f"{title}\n{section_title}"
    return title


def embedding_text(chunk: Chunk) -> str:
    """What is embedded and keyword-indexed: page title, heading path, then the body."""
    return f"{_header(chunk.title, chunk.section_title)}\n\n{clean_for_embedding(chunk.text)}"


def pretty_stem(source_file: str) -> str:
    """A title from a file name: `docs/query-params.md` -> "Query params"."""
    path = PurePosixPath(source_file)
    stem = path.parent.name if path.stem == "index" and path.parent.name else path.stem
    words = re.sub(r"[-_]+", " ", stem).strip()
    return words[:1].upper() + words[1:] if words else source_file


def page_url(base_url: str | None, source_file: str, slug: str) -> str:
    """Deep link to a heading: base + the page's path + #slug. A source's extension goes
    (`.md`, `.markdown`, `.mdx`; `.rst` becomes `.html`, as Sphinx builds it), a built page
    keeps its own; an index page links to its folder."""
    if not base_url:
        return ""
    path = re.sub(r"\.(md|markdown|mdx)$", "", source_file, flags=re.IGNORECASE)
    path = re.sub(r"\.rst$", ".html", path, flags=re.IGNORECASE)
    path = re.sub(r"(^|/)index(\.html?)?$", r"\1index", path, flags=re.IGNORECASE)
    if path == "index" or path.endswith("/index"):
        path = path[: -len("index")]
    url = base_url.rstrip("/") + "/" + path
    return f"{url}#{slug}" if slug else url


@dataclass
class _Piece:
    path: tuple[str, ...]
    slug: str
    level: int
    parts: list[str] = field(default_factory=list)
    tokens: int = 0

    def fits(self, parts: list[str]) -> bool:
        """Whether `parts` joined to this piece keep it within `MAX_UNIT_CHARS`."""
        return sum(len(p) + 2 for p in [*self.parts, *parts]) - 2 <= MAX_UNIT_CHARS


def chunk_markdown(
    text: str,
    source_file: str,
    *,
    count_tokens: TokenCounter,
    max_tokens: int = 256,
    base_url: str | None = None,
    min_tokens: int = 48,
    url: str | None = None,
) -> list[Chunk]:
    """Chunks whose `embedding_text` fits `max_tokens` unless one code block alone is larger.
    Deep links start with the page's own `url` when known (a crawled page), else with
    `base_url` and the file's path."""
    doc = parse_markdown(_DATA_URI.sub(r"\1…", text), pretty_stem(source_file))

    def cost(part: str) -> int:
        # Special tokens are counted once per chunk, in the header, not once per part.
        return max(count_tokens(clean_for_embedding(part)) - 2, 0)

    def budget(path: tuple[str, ...]) -> int:
        return max_tokens - count_tokens(_header(doc.title, " > ".join(path)))

    pieces: list[_Piece] = []
    for section in doc.sections:
        pieces.extend(_split(section, budget(section.path), cost))
    merged = _merge_small(pieces, min_tokens, budget, cost)

    chunks: list[Chunk] = []
    seen: dict[str, int] = {}
    for piece in merged:
        body = "\n\n".join(piece.parts)
        section_title = " > ".join(piece.path)
        key = f"{source_file}\x00{section_title}\x00{body}"
        # Identical text under identical headings would collide; number the repeats.
        repeat = seen.get(key, 0)
        seen[key] = repeat + 1
        digest = hashlib.sha256(f"{key}\x00{repeat}".encode()).hexdigest()[:32]
        chunks.append(
            Chunk(
                chunk_id=digest,
                source_file=source_file,
                title=doc.title,
                section_title=section_title,
                slug=piece.slug,
                page_url=(f"{url}#{piece.slug}" if piece.slug else url) if url
                else page_url(base_url, source_file, piece.slug),
                text=body,
            )
        )
    return chunks


def _split(section: Section, budget: int, cost: TokenCounter) -> list[_Piece]:
    units: list[tuple[str, int]] = []
    for block in _tables_whole(section.blocks, budget, cost):
        units.extend(_units(block, budget, cost))
    pieces = [_Piece(section.path, section.slug, section.level)]
    for text, tokens in units:
        current = pieces[-1]
        if current.parts and (current.tokens + tokens > budget or not current.fits([text])):
            full, current = current, _Piece(section.path, section.slug, section.level)
            pieces.append(current)
            # A paragraph announcing what comes next ("...on every replica:") goes along
            # with its code or list, so no chunk ends on a colon it cannot resolve; so do
            # the items of a loose list it announces ("The bottlenecks are:", then one
            # paragraph per item), so no chunk holds part of the list.
            run = _announcing_run(full.parts)
            carried = sum(cost(part) for part in run)
            if (run and len(run) < len(full.parts) and carried + tokens <= budget
                    and current.fits([*run, text])):
                del full.parts[-len(run):]
                full.tokens -= carried
                current.parts.extend(run)
                current.tokens += carried
        current.parts.append(text)
        current.tokens += tokens
    return [p for p in pieces if p.parts]


def _tables_whole(blocks: list[Block], budget: int, cost: TokenCounter) -> list[Block]:
    """`blocks` with the one-line paragraphs of each table a crawl flattened (one cell a
    line, see `docent.retrieval.tables`) that fits in `budget` joined into one block: like a
    code block, such a table is not split ("Service", "Provider", "[RPC]" ending one chunk
    and the rest of its rows starting the next)."""
    lines: list[str] = []
    owner: list[int] = []  # the block each line is of
    for n, block in enumerate(blocks):
        for line in [*block.text.split("\n"), ""]:
            lines.append(line)
            owner.append(n)
    spans = flattened_tables(lines)
    if not spans:
        return blocks
    out: list[Block] = []
    n = 0
    for start, end, _ in spans:
        first, last = owner[start], owner[end - 1]
        table = "\n\n".join(b.text for b in blocks[first : last + 1])
        if any(blocks[k].code for k in range(first, last + 1)) or cost(table) > budget:
            continue
        out += [*blocks[n:first], Block(table)]
        n = last + 1
    return out + blocks[n:]


def _announcing_run(parts: list[str]) -> list[str]:
    """The parts ending `parts` from the last one ending in ":" on, when all after it are
    list items; empty when there is none. A label that says nothing alone ("A:", "Testnet:")
    takes the paragraph before it along ("Q: What development resources are available?")."""
    for i in range(len(parts) - 1, -1, -1):
        if parts[i].rstrip().endswith(":"):
            if (i and len(parts[i].split()) <= _LABEL_WORDS
                    and not LIST_ITEM.match(parts[i - 1]) and not parts[i - 1].startswith("#")):
                return parts[i - 1 :]
            return parts[i:]
        if not LIST_ITEM.match(parts[i]):
            return []
    return []


_LABEL_WORDS = 2


def _units(block: Block, budget: int, cost: TokenCounter) -> list[tuple[str, int]]:
    return [
        cut for unit in _token_units(block, budget, cost)
        for cut in ([unit] if len(unit[0]) <= MAX_UNIT_CHARS
                    else [(part, cost(part)) for part in _cut(unit[0], block.code)])
    ]


def _token_units(block: Block, budget: int, cost: TokenCounter) -> list[tuple[str, int]]:
    tokens = cost(block.text)
    if tokens <= budget or block.code:
        return [(block.text, tokens)]
    # Prose too long for one chunk: fall back to lines, then to sentences.
    out: list[tuple[str, int]] = []
    for line in block.text.split("\n"):
        n = cost(line)
        if n > budget:
            out.extend((s, cost(s)) for s in _SENTENCE.split(line) if s.strip())
        else:
            out.append((line, n))
    return _rejoin(out, budget)


# No chunk is longer than this, whatever one block holds: a generated code block of
# thousands of lines, or a line that no token count can split (minified JSON; a word over
# 100 characters is one unknown token to the tokenizer) would otherwise be one
# chunk larger than a run's whole context (DOCENT_MAX_CONTEXT_CHARS), and every question
# retrieving it would end MAX_CONTEXT_REACHED. The longest chunk of the FastAPI and Somnia
# docs is 9,249 characters.
MAX_UNIT_CHARS = 12_000
_FENCE = re.compile(r"^(`{3,}|~{3,})[^\n]*\n")


def _cut(text: str, code: bool) -> list[str]:
    """Text too long for any chunk, cut at line ends (a line too long, at spaces, then
    anywhere) into parts of at most `MAX_UNIT_CHARS`; a code block's parts each fenced."""
    opening = closing = ""
    fence = _FENCE.match(text) if code else None
    if fence:
        opening, closing = fence.group(0), "\n" + fence.group(1)
        text = text[fence.end():].rstrip().removesuffix(fence.group(1)).rstrip("\n")
    room = MAX_UNIT_CHARS - len(opening) - len(closing)
    # Parts of about even size, so none is a scrap that a neighbouring section's few lines
    # would join: a whole block never joined its neighbours either.
    fewest = -(-len(text) // room)
    size = -(-len(text) // fewest)
    parts = _packed(text, size, ("\n", " "))
    while len(parts) > fewest and size < room:  # cut at line ends, parts run short of `size`
        size = min(room, size + -(-(room - len(text) // fewest) // 8))
        parts = _packed(text, size, ("\n", " "))
    return [opening + part + closing for part in parts]


def _packed(text: str, room: int, separators: tuple[str, ...]) -> list[str]:
    """`text` in parts of at most `room` characters, cut at the first separator, a part
    still too long at the next, and a part with none anywhere; parts joined back greedily."""
    if len(text) <= room:
        return [text]
    if not separators:
        return [text[i : i + room] for i in range(0, len(text), room)]
    sep, out = separators[0], list[str]()
    for piece in text.split(sep):
        first, *rest = _packed(piece, room, separators[1:])
        if out and len(out[-1]) + len(sep) + len(first) <= room:
            out[-1] += sep + first
        else:
            out.append(first)
        out.extend(rest)
    return out


def _rejoin(units: list[tuple[str, int]], budget: int) -> list[tuple[str, int]]:
    # Lines of one block that fit together stay one unit, joined by single newlines.
    out: list[tuple[str, int]] = []
    for text, tokens in units:
        if out and out[-1][1] + tokens <= budget:
            out[-1] = (out[-1][0] + "\n" + text, out[-1][1] + tokens)
        else:
            out.append((text, tokens))
    return out


def _related(first: _Piece, second: _Piece) -> bool:
    """True when `second` sits within `first`'s parent: a sibling, child or continuation."""
    parent = first.path[:-1]
    return second.path[: len(parent)] == parent


def _merge_small(
    pieces: list[_Piece],
    min_tokens: int,
    budget: Callable[[tuple[str, ...]], int],
    cost: TokenCounter,
) -> list[_Piece]:
    out: list[_Piece] = []
    for piece in pieces:
        prev = out[-1] if out else None
        if prev and (prev.tokens < min_tokens or piece.tokens < min_tokens) and _related(
            prev, piece
        ):
            extra = list(piece.parts)
            tokens = prev.tokens + piece.tokens
            if piece.path != prev.path and piece.level:
                # The merged section keeps its heading so the text still reads right.
                heading = "#" * piece.level + " " + piece.path[-1]
                extra.insert(0, heading)
                tokens += cost(heading)
            if tokens <= budget(prev.path) and prev.fits(extra):
                prev.parts.extend(extra)
                prev.tokens = tokens
                continue
        out.append(piece)
    return out
