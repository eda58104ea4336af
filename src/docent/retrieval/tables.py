"""Tables that a crawl of a documentation site flattened to one cell a line, read back as
pipe tables: by the answerer (`docent.models.units`) and by the value check
(`docent.retrieval.evidence`), so that both read a row's cells together."""

from __future__ import annotations

import re
from collections.abc import Callable

# Lines that are markup for the docs builder, not text: mkdocs includes (`{* file *}`,
# `{!file!}`), mkdocstrings (`::: module.Name`), admonition fences (`/// tip`, `!!! note`),
# thematic breaks and table rules.
DIRECTIVE = re.compile(
    r"^(\{\*.*\*\}|\{!.*!\}|:::.*|///.*|!!!.*|\?\?\?.*|(\*\s*){3,}|(-\s*){3,}|[|:\- ]+)$"
)
_CELL = re.compile(r"^[^#*>|`\-].{0,59}$")
_MAX_COLUMNS = 8
# A table of texts is read only when its columns are this alike on average (see _alike).
_ALIKE = 0.75
# An address, a hash or a code ("0x5e44F178…", a selector "0x08c379a0", a panic code "0x11").
_HEX = re.compile(r"^0x[0-9a-fA-F]{2,}$")
# A cell that is one link: `[0x5e44…](https://explorer…/0x5e44…)`.
_LONE_LINK = re.compile(r"\[([^\]]{1,80})\]\([^)\s]*\)")
# A cell that is one code span: `Error(string)`, `0x11`.
_LONE_CODE = re.compile(r"`([^`]{1,80})`")
_NUMERIC = re.compile(r"^[~<>≈$+\-]?\$?\d[\d,.]*(?:[eE][-+]?\d+)?\s?(?:%|[kKmMbBx])?$")
# A cell of any length, as a line starts: not a heading, list item, quote, table line or fence.
_PROSE_CELL = re.compile(r"^(?![#>|`]|[-*+]\s|\d+[.)]\s)\S.*$")


def rebuild_tables(lines: list[str]) -> list[str]:
    """Tables that a crawl flattened to one short line per cell, back as pipe tables.

    A run of six or more one-line paragraphs is a table when, after a header of p cells,
    the cells fall into rows of p whose value columns (numbers, hex addresses and codes)
    repeat (the smallest such p wins, up to eight columns); a last row the run ends inside
    of, whose cells start like the others', is a totals row with its last columns empty. A
    header may lack its corner cell (rows of p after p - 1 labels: "Average DPS", "Max
    DPS", then "ETH", "9.19", "18.38"). A cell that is one link or one code span counts by
    its text, a bold header cell by its words. Failing that, a run that opens with two
    labels is a table of sentences (`_as_prose_table`), else, read from its first cell, of
    short texts (`_as_text_table`).
    """
    out: list[str] = []
    i = 0
    for start, end, table in flattened_tables(lines):
        out += [*lines[i:start], "", *table, ""]
        i = end
    return out + lines[i:]


def flattened_tables(lines: list[str]) -> list[tuple[int, int, list[str]]]:
    """Where `rebuild_tables` finds a flattened table: its first line, the line after its
    last cell, and its pipe-table lines."""
    found_at: list[tuple[int, int, list[str]]] = []
    i = 0
    while i < len(lines):
        cells = _run(lines, i, _is_short_cell)
        found = _as_table([c for c, _ in cells]) if len(cells) >= 6 else None
        if found is None and _opens_header(lines, i):
            prose = _run(lines, i, _is_prose_cell)
            found = _as_prose_table([c for c, _ in prose]) if len(prose) >= 6 else None
            if found is not None:
                cells = prose
            elif len(cells) >= 6 and _opens_run(lines, i):
                found = _as_text_table([c for c, _ in cells])
        if found:
            table, used = found
            end = cells[used - 1][1] + 1
            found_at.append((i, end, table))
            i = end
        else:
            i += 1
    return found_at


def row_text(cells: list[str], header: list[str]) -> str:
    """A table row as text, each value after the first named by its column ("LOG2 with 32
    bytes of data — Ethereum gas: 1381 — Somnia gas: 18560")."""
    if len(header) != len(cells):
        return " — ".join(c for c in cells if c)
    rest = [f"{h}: {c}" if h else c for h, c in zip(header[1:], cells[1:], strict=True) if c]
    return " — ".join([cells[0], *rest] if cells[0] else rest)


def rows_as_text(lines: list[str]) -> list[str]:
    """`lines` with each pipe table's rows as `row_text`, its header and rule lines gone:
    a row read alone then says what each of its numbers is."""
    out: list[str] = []
    header: list[str] = []
    for i, line in enumerate(lines):
        cells = pipe_cells(line)
        if cells is None:
            out.append(line)
        elif heads_table(lines, i):
            header = cells
        elif not is_rule(line):
            # (a row of a table whose header is not known stays as it is)
            out.append(row_text(cells, header) if len(header) == len(cells) else line)
    return out


def pipe_cells(line: str) -> list[str] | None:
    """The cells of a pipe table's line ("| a | b |"); None for any other line."""
    stripped = line.strip()
    if not (stripped.startswith("|") and stripped.endswith("|") and len(stripped) > 1):
        return None
    return [c.strip() for c in stripped.strip("|").split("|")]


def is_rule(line: str) -> bool:
    """Whether `line` is a pipe table's rule ("|---|:---:|")."""
    return _RULE.fullmatch(line.strip()) is not None


def heads_table(lines: list[str], i: int) -> bool:
    """Whether line `i` is a pipe table's header: the line after it is a rule."""
    return i + 1 < len(lines) and is_rule(lines[i + 1])


_RULE = re.compile(r"[|:\- ]+")


def _alone(lines: list[str], j: int) -> bool:
    """Whether line `j` is a paragraph of one line: blank (or nothing) before and after."""
    before = j == 0 or not lines[j - 1].strip()
    return before and (j + 1 >= len(lines) or not lines[j + 1].strip())


def _opens_run(lines: list[str], i: int) -> bool:
    """Whether line `i` is the first of its run of one-line cells, not inside one."""
    j = i - 1
    while j >= 0 and not lines[j].strip():
        j -= 1
    return j < 0 or not (_alone(lines, j) and _is_short_cell(lines[j].strip()))


def _run(
    lines: list[str], i: int, is_cell: Callable[[str], bool]
) -> list[tuple[str, int]]:
    """The one-line paragraphs from line `i` on that `is_cell` accepts, with their lines."""
    cells: list[tuple[str, int]] = []
    j = i
    while j < len(lines):
        text = lines[j].strip()
        if not text:
            j += 1
            continue
        if not _alone(lines, j) or not is_cell(text):
            break
        cells.append((text, j))
        j += 1
    return cells


def _is_short_cell(text: str) -> bool:
    shown = _shown(text)
    return bool(_CELL.match(shown)) and not shown.endswith((".", ":"))


def _is_prose_cell(text: str) -> bool:
    """A cell of any length: not a heading, list item, quote, table line, fence or directive."""
    return bool(_PROSE_CELL.match(text)) and not DIRECTIVE.fullmatch(text)


def _opens_header(lines: list[str], i: int) -> bool:
    """Whether line `i` and the next non-blank line are both labels (a header has two or
    more): a cheap test before reading a run of cells."""
    if not _alone(lines, i) or not _is_heading_cell(lines[i].strip()):
        return False
    j = i + 1
    while j < len(lines) and not lines[j].strip():
        j += 1
    return j < len(lines) and _is_heading_cell(lines[j].strip())


def _is_heading_cell(cell: str) -> bool:
    """A short cell that names something: a header or a row's first cell, not a sentence,
    a question or a value."""
    if not cell or cell.endswith((".", ":", "?")) or (len(cell) > 60 and "](" not in cell):
        return False  # most lines of a passage: sentences, settled without a regex
    shown = _shown(cell)
    return bool(_CELL.match(shown)) and not shown.endswith((".", ":", "?")) and not _is_value(cell)


def _is_sentence(cell: str) -> bool:
    return _shown(cell).endswith((".", "!")) and len(cell.split()) >= 3


def _as_prose_table(cells: list[str]) -> tuple[list[str], int] | None:
    """Pipe-table lines for a crawled table whose columns hold sentences ("Phase | Duration |
    Overview": "Bootstrap", "0-6 months", "Foundation board in control. ..."): a header
    of p labels, then at least two rows of p cells that start with a label and end with a
    sentence, the same columns holding sentences in every row."""
    for p in range(2, _MAX_COLUMNS + 1):
        header, body = cells[:p], cells[p:]
        if not all(_is_heading_cell(h) for h in header) or len(body) < 2 * p:
            continue
        rows = [body[k : k + p] for k in range(0, len(body) - p + 1, p)]

        def shape(row: list[str]) -> list[bool] | None:
            if not _is_heading_cell(row[0]) or not _is_sentence(row[-1]):
                return None
            prose = [_is_sentence(c) for c in row]
            short = all(_CELL.match(_shown(c)) for c, s in zip(row, prose, strict=True) if not s)
            return prose if short else None

        first = shape(rows[0])
        good = 0
        while first is not None and good < len(rows) and shape(rows[good]) == first:
            good += 1
        if good >= 2:
            return _pipe_table([_shown(h) for h in header], rows[:good]), p + good * p
    return None


def _as_text_table(cells: list[str]) -> tuple[list[str], int] | None:
    """Pipe-table lines for a crawled table of short texts that ends its run ("Feature",
    "Mainnet (Production)", "Testnet (Shannon)", then "Currency", "SOMI (real value)",
    "STT (valueless, faucet)"...): a header of p labels, then rows of p (three or more, or
    two that repeat a cell in a column) whose first cells are distinct labels marked up
    alike (a header cell is never a link: that is a row's first cell), and whose columns
    are alike in length (`_ALIKE`: names of one or two words, or phrases). Of these
    readings, the one whose columns repeat the most cells ("High", "Low", "Free": a column
    of grades), then whose columns are the most alike, then the narrowest. Over the Somnia
    crawl's chunks it reads 13 tables, each as its page shows it."""
    best: tuple[int, float, int] | None = None
    for p in range(2, _MAX_COLUMNS + 1):
        header, body = cells[:p], cells[p:]
        if len(body) % p or len(body) < 2 * p or not all(_is_heading_cell(h) for h in header):
            continue
        columns = [body[j::p] for j in range(p)]
        keys = columns[0]
        if (len(set(keys)) < len(keys) or not all(_is_heading_cell(k) for k in keys)
                or len({_form(k) for k in keys}) > 1 or any(_form(h) == "link" for h in header)):
            continue
        repeats = sum(len(column) - len(set(column)) for column in columns[1:])
        if len(keys) == 2 and not repeats:
            continue  # two rows that repeat nothing are as likely a header's misreading
        alike = sum(_alike(column) for column in columns) / p
        if alike >= _ALIKE and (best is None or (repeats, alike, -p) > best):
            best = (repeats, alike, -p)
    if best is None:
        return None
    p = -best[2]
    rows = [cells[k : k + p] for k in range(p, len(cells), p)]
    return _pipe_table([_shown(h) for h in cells[:p]], rows), len(cells)


def _form(cell: str) -> str:
    """How a cell is marked up: one link (or a bare URL), one code span, bold, or plain
    (words, or starting with a digit: "0x123...abc" is no row name beside "Data 1")."""
    if _LONE_LINK.fullmatch(cell) or cell.startswith(("http://", "https://")):
        return "link"
    if _LONE_CODE.fullmatch(cell):
        return "code"
    if cell.startswith("**") and cell.endswith("**"):
        return "bold"
    return "digits" if cell[:1].isdigit() else "plain"


def _alike(column: list[str]) -> float:
    """The share of a column's cells of its commoner length: names of one or two words, or
    longer phrases."""
    names = sum(len(_shown(cell).split()) <= 2 for cell in column)
    return max(names, len(column) - names) / len(column)


def _shown(cell: str) -> str:
    """What a cell line shows: a lone link's or code span's text, a bold header's words."""
    lone = _LONE_LINK.fullmatch(cell) or _LONE_CODE.fullmatch(cell)
    text = lone.group(1) if lone else cell
    bold = len(text) > 4 and text.startswith("**") and text.endswith("**")
    return text[2:-2].strip() if bold else text


def _is_value(cell: str) -> bool:
    """A number ("16.02%", "$1,940") or an address or hash ("0x5e44…"), maybe linked."""
    shown = _shown(cell)
    return bool(_NUMERIC.match(shown) or _HEX.match(shown))


def _as_table(cells: list[str]) -> tuple[list[str], int] | None:
    """Pipe-table lines for the leading cells that form a table, and how many it used."""
    values = [_is_value(c) for c in cells]  # read once for every reading below
    for p in range(2, _MAX_COLUMNS + 1):
        # Rows are named by their first cell: a label ("ETH") or, when the whole first
        # column holds values, a key ("0x11", a TPS level "0.1"). The crawl may have
        # dropped the header's empty corner cell. Of the readings with p columns, the one
        # that reads the most cells wins, and the first of these on a tie.
        found = [
            table for header, keyed in ((cells[:p], False), (["", *cells[: p - 1]], False),
                                        (cells[:p], True))
            if (table := _rows(cells, values, header, keyed)) is not None
        ]
        if found:
            return max(found, key=lambda table: table[1])
    return None


def _rows(
    cells: list[str], values: list[bool], header: list[str], keyed: bool
) -> tuple[list[str], int] | None:
    """The table whose header is `header` (its corner "" when the crawl dropped it), when
    the cells after it fall into two or more rows with the same value columns, the first
    of them a value exactly when `keyed`; `values` says which cells are values."""
    p = len(header)
    start = p - 1 if header[0] == "" else p  # the header's cells are cells[:start]
    n = len(cells) - start
    if any(values[:start]) or n < 2 * p:
        return None
    offsets = range(start, start + n - p + 1, p)  # where each full row starts
    pattern = values[start : start + p]
    if pattern[0] != keyed or not any(pattern):
        return None
    good = 0
    while good < len(offsets) and values[offsets[good] : offsets[good] + p] == pattern:
        good += 1
    if good < 2:
        return None
    used = start + good * p
    rows = [cells[k : k + p] for k in offsets[:good]]
    # The run ends inside one more row whose cells start like the others ("TOTAL",
    # "100%", "16.02%"): a totals row that leaves its last columns empty. (With a
    # full row left over, the table ended at a row that broke the pattern.)
    last = cells[used:]
    if 2 <= len(last) < p and values[used:] == pattern[: len(last)]:
        rows.append(last + [""] * (p - len(last)))
        used += len(last)
    return _pipe_table([_shown(h) for h in header], rows), used


def _pipe_table(header: list[str], rows: list[list[str]]) -> list[str]:
    """A markdown pipe table: the header line, its rule, one line a row."""
    lines = [" | ".join(["", *header, ""]).strip(), "|" + "---|" * len(header)]
    return lines + [" | ".join(["", *row, ""]).strip() for row in rows]
