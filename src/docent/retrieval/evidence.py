"""Does a passage state the value a question asks for?

"How much disk space does a full node need?" is not answered by passages about nodes that
never give a size: every word of the question is in the docs, only the value is not. A
question that asks for a value (`docent.intent.measure_of`: a percentage, a duration, an
amount of money, a size, a count, a version) is answerable only when some
passage states one of that kind **next to what the question asks about**: in the same
sentence or line, or the two before it (a crawled table puts a label and its value on
neighbouring lines), or six before it when it sums up what precedes it ("All records are
retained for five years" after the list of records). A bare number is a duration when that
neighbourhood names a unit of time ("a maximum time in seconds... Defaults to 600",
`TIMEOUT_SECONDS | 30`), and a size when it is a setting's value measured in a unit of
size ("the minimum size in bytes. Defaults to `500`"). A value of no particular kind
("what chain ID", "what is its address") is not checked: any digit states one, and
identifiers are everywhere in docs.

"Next to what it asks about" means, in that neighbourhood or the passage's heading: every
word naming the measured thing that the docs use, when the question names one ("disk
space", "sessions");
and, unless those words name the thing itself rather than a unit ("sessions" does,
"characters" does not), at least half the weight (by rarity) of the other distinctive
words of the question's clause (or sentence) that asks for the value. A word in more than
a fifth of the chunks (the product's own name) is not distinctive; neither is one the docs
never use (the unknown-word check weighs those), nor a word of the question's frame ("will
ever exist", "how long MAY they cache").
"""

from __future__ import annotations

import math
import re
from bisect import bisect_right
from collections.abc import Mapping, Sequence
from functools import lru_cache

from docent.intent import PRONOUN, Measure, MeasureKind, measure_of, sentences
from docent.retrieval.bm25 import root, stem, tokenize
from docent.retrieval.chunking import name_bare_links
from docent.retrieval.shorthand import with_shorthand
from docent.retrieval.tables import rebuild_tables, rows_as_text
from docent.retrieval.types import Hit

_SPELLED = (
    r"(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty"
    r"|thirty|forty|fifty|sixty|ninety|hundred|thousand|million|billion|a\s+few|several"
    r"|a\s+dozen|an?)"
)
_TIME_UNITS = (
    r"(?:milliseconds?|seconds?|minutes?|hours?|days?|weeks?|months?|years?|blocks?|epochs?)"
)
# A time after a number, abbreviated or not ("15 s", "500ms", "2 hrs", "10 minutes").
_TIME_AFTER_NUMBER = rf"(?:ms|s|secs?|mins?|h|hrs?|{_TIME_UNITS})\b"
# A decimal with a unit ("0.5 seconds", "1.5 MB", "2.5x") is a measure and an address's
# four parts ("127.0.0.1") a host: neither is a version.
_NOT_A_VERSION = (rf"(?!\.\d)(?!\s*(?:%|{_TIME_AFTER_NUMBER}|[kmgt]?i?b\b|x\b|times\b"
                  r"|percent\b|bytes?\b))")
# "a second one", "a second replica": an ordinal, no duration ("within a second" is one).
_ORDINAL_SECOND = (r"(?!\s+(?!(?:or|and|to|later|before|after|of|per|for|ago|apart|earlier|in|on"
                   r"|at|while|if|when|than|the|is|was|are|so|but|each|every)\b)[a-z])")
_STATED: dict[MeasureKind, re.Pattern[str]] = {
    # A share stated as one: "50%", "ten percent", "half of"; not the word "percentage".
    "percent": re.compile(rf"\d\s*%|(?:\d|\b{_SPELLED})\s*(?:percent|per\s+cent)\b"
                          r"|\b(?:half|a\s+third|a\s+quarter)\s+of\b", re.I),
    # A number, or a named version the text gives as one ("EVM version (default: Prague)",
    # "the version is Cancun"; not "Pick a version: See below").
    "version": re.compile(
        rf"(?i:(?<![\d.])v?\d+\.\d+(?:\.\d+)?\b{_NOT_A_VERSION}|\bversion\s+\d+\b)"
        r"|(?i:\bversions?\b)[^.\n]{0,40}?(?:(?i:\bdefault)\s*:?|(?i:\bis)|:)\s*\(?"
        r"(?!(?:See|Select|Choose|Check|Click|Use|The|This|That|It|Please|Note)\b)[A-Z][a-z]{2,}\b"
    ),
    "duration": re.compile(
        rf"(?<![\w.])\d[\d,.]*\s*(?:-\s*)?{_TIME_AFTER_NUMBER}"
        rf"|\b{_SPELLED}\s+(?:second\b{_ORDINAL_SECOND}|(?!second\b){_TIME_UNITS}\b)|\b(?:hourly|daily|weekly|biweekly|fortnightly|monthly"
        r"|quarterly|yearly|annually|instantly|immediately)\b"
        r"|\b(?:every|each|once\s+an?)\s+(?:other\s+)?(?:second|minute|hour|block|day|week"
        r"|month|quarter|year)\b",
        re.I,
    ),
    "money": re.compile(
        r"[$€£¥]\s*\d|(?<![\w.])\d[\d,.]*\s*(?:[kKmMbB]\s+)?(?:[A-Z]{2,6}\b|usd\b|eur\b|dollars?\b"
        r"|cents?\b|gwei\b|wei\b|tokens?\b|gas\b)|\bfree\b|\bno\s+(?:cost|fee|charge)\b"
        r"|\bcosts?\s+nothing\b|\bat\s+no\s+cost\b"
        # a cost as a share of what one holds: "at the cost of 50% of their staked Tokens",
        # "a 0.3% fee"
        r"|(?i:\b(?:costs?|fees?|penalty|charges?|price)\s+(?:of\s+)?\d[\d.]*\s*%"
        r"|(?<![\w.])\d[\d.]*\s*%\s+(?:fees?|penalty|commission|charge)\b)"
        # a table's cell under a money column: "1 day — Gas Amount: 40,000"
        r"|(?i:\b(?:gas|fees?|price|cost|amount)(?:\s+(?:amount|cost|fee|price|used))?\s*:\s*)"
        r"[$€£¥]?\d"
    ),
    "size": re.compile(
        r"(?<![\w.])\d[\d,.]*\s*(?:b|kb|mb|gb|tb|kib|mib|gib|tib|bytes?|kilobytes?|megabytes?"
        r"|gigabytes?|terabytes?|characters?|chars?|tokens?|lines?|words?)\b"
        # "at most five words long": a length in words, spelled out (not "one line")
        r"|\b(?:two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)\s+"
        r"(?:characters|tokens|lines|words)\b",
        re.I,
    ),
    # A share ("50% of fees go to validators") is no count of what it is a share of.
    # "More than one thread", "one or more workers" give no number of them.
    # "5M+ users", "10k stars": a magnitude's letter is part of the number.
    # "exit code 1", "HTTP 404", "status 200": a code, no count.
    # An index ("tags[0]") or a call's argument ("executeProposal(0)") neither.
    "count": re.compile(r"(?<![\w/.\[-])(?<!\bcode\s)(?<!\bstatus\s)(?<!\bHTTP\s)"
                        r"(?<!\w\()"
                        r"\d[\d,.]*(?:[kKmMbB](?=[+\s]))?(?![\w/.%-])"
                        r"(?!\s*(?:%|per\s*cent\b))"
                        r"|(?<!\bthan\s)(?<!\bleast\s)\b(?:one(?!\s+or\s+more\b)(?!\s+of\b)|two|three|four"
                        r"|five|six|seven|eight|nine|ten|hundred|thousand|million|billion)\b",
                        re.I),
    "number": re.compile(r"(?<![\w/.-])\d|\b0x[0-9a-f]+", re.I),
}
# Words of the question that say what kind of value it wants, not what it is about.
_CUES = frozenset(
    stem(w)
    for w in """percentage percent share fraction proportion version versions long often
    frequently soon duration interval period timeout delay lifetime price cost costs fee fees
    charge charges apy apr rate big large small size memory number numbers many much default
    maximum minimum max min limit limits threshold amount total cap capacity count per year
    years month months week weeks day days hour hours minute minutes second seconds wait
    waits""".split()
)
# The frame of a question, not its subject: "will ever EXIST", "can it HOLD", "right NOW",
# "ROUGHLY how long does it STAY valid".
_FRAME = frozenset(
    stem(w)
    for w in """exist exists ever contain contains hold holds keep keeps reach reaches accept
    accepts take takes need needs require requires support supports allow allows give gives
    particular specific certain exactly actually really currently right now early late out
    up get gets got there may might could would shall last lasts roughly approximately about
    around typically usually normally generally stay stays remain remains become becomes
    sit sits serve serves go goes back again move moves moved change changes changed say
    suppose pick picks choose chooses select selects top those these mention mentions
    mentioned pull pulls grab grabs obtain obtains receive receives end ends ended put puts
    expect expects come comes came longer bunch lot lots couple kept held run runs ran
    single individual
    """.split()
)
# Who is counted, not what: docs count people as what they are ("a four-member board",
# "21 validators"), never as "people".
# A passage counting "people" counts whoever the question names by their part: "at least 3
# people that would be willing to commit" answers "how many VOLUNTEERS do we need".
_PERSONS = frozenset(stem(w) for w in "people persons individuals".split())
_PEOPLE = _PERSONS | frozenset(stem(w) for w in "humans folks members".split())
# Words of a question that never name what a value is about.
_NOT_SUBJECT = _CUES | _FRAME | _PEOPLE
# Units a count or size is expressed in: they say how, not what, is measured.
_UNITS = frozenset(
    stem(w)
    for w in """character characters char chars byte bytes token tokens word words line lines
    item items entry entries request requests call calls unit units time times""".split()
)
# Clauses and sentences: "Browsers send preflights. How long may they cache one?" asks
# for a value in its second sentence only.
_CLAUSE = re.compile(r"[,;?]\s*|(?<=[.!])\s+|\s+[-–—]+\s+"
                     r"|\s+(?:while|if|when|unless|once|after|before|until)\s+"
                     # "and" between clauses, not between nouns ("AML/KYC and transaction records")
                     r"|\s+(?:and|or|but)\s+(?=(?:how|what|which|where|why|who|is|are|was|were"
                     r"|do|does|did|can|could|should|would|will|may|might|must|has|have|i|we|you)\b)",
                     re.I)
_NAME_LIKE = re.compile(r"(?<!^)(?<![.!?]\s)\b[A-Z][\w.-]*|\b\w*\d[\w.-]*|`[^`]+`|\b\w+_\w+")
_CONDITION = re.compile(r"\s*(?:if|when|once|after|unless)\b", re.I)
_DOING = re.compile(r"\s+(?:when|while)\s+", re.I)
_GERUND = re.compile(r"\w+ing\b")
# ... unless it points back ("If I call IT without ONE"): it is about what came before it.
_POINTS_BACK = re.compile(r"\b(?:it|its|one|them|they|this|those|these)\b"
                          # "...waits for another ingest THAT IS still writing": a relative
                          r"|(?<!\bif\s)(?<!\bwhen\s)(?<!\bonce\s)(?<!\bafter\s)(?<!\bunless\s)"
                          r"(?<!\band\s)(?<!\bbut\s)\bthat\b(?!\s+(?:is|are|was|were|has|have|had)\b)"
                          r"|^\s*\w+\s+that\b", re.I)
_REFERS_BACK = re.compile(r"\b(?:that|this|it|them|those|these)\s*[?.!]?\s*$", re.I)
# ... or names it by a word of its own ("In which release was THAT COMPATIBILITY removed?"),
# read with what a sentence setting the scene names.
_THAT_THING = re.compile(
    r"\b(?:was|is|were|are|did|does|do|has|have|had|will|would|can|could|for|of|in|on|with"
    r"|from|about|to)\s+(?:that|this|these|those)\s+[a-z]", re.I)
# Words a passage may use for the question's: "how soon should I expect an ANSWER?" is
# answered by "DevRel aims to REPLY within 24 hours".
_SAME_MEANING = (
    frozenset(stem(w) for w in "answer answers reply replies respond responds".split()),
    # a function's arguments are its parameters ("the name is no longer the first ARGUMENT":
    # "the `name` was the first PARAMETER")
    frozenset(stem(w) for w in "argument arguments parameter parameters param params".split()),
)
# ... and the roles it may name them by
_ROLES = frozenset(stem(w) for w in (
    "volunteers helpers contributors maintainers reviewers translators collaborators "
    "participants members signers approvers").split())
_COMMON = 0.2  # a word in more than this share of the chunks is not distinctive
_SHARE = 0.5  # of the distinctive words' weight a value's neighbourhood must hold
# A sentence opening on what came before it: "All records...", "These fees...", "They...".
_SUMS_UP = re.compile(r"\s*(?:all|these|those|they|such|both|each\s+of\s+(?:these|them))\b", re.I)
_SUMS_UP_BACK = 6  # segments (sentences, lines, list items) it reads back
_SEGMENT = re.compile(r"(?<=[.!?])\s+|\n+")
# A bare number is a duration when its neighbourhood names the unit: "Sets a maximum time in
# seconds ... Defaults to 600.", or a setting named `..._TIMEOUT_SECONDS` in a table row.
_BARE_NUMBER = re.compile(r"(?<![\w.])\d[\d,.]*(?![\w])")
# Clock units only: "100 SOMI for the epoch" is an amount, not a duration.
_TIME_UNIT_WORD = re.compile(
    r"(?:\b|_)(?:milliseconds?|seconds?|minutes?|hours?|days?|weeks?|months?|years?|ttl)\b",
    re.I,
)
# ... and a size when it is a setting's value and its neighbourhood says the setting is
# measured in a unit of size ("the minimum size in bytes. Defaults to `500`",
# `MAX_BODY_BYTES | 1048576`); not any number near the word: `bytes` is also a type.
# How big a cache, a pool or a queue is may be told by how many things it holds.
_COUNT_HELD = re.compile(r"\bnumber\s+of\s+(?:[\w-]+\s+){1,4}?(?:kept|held|stored|cached)\b",
                         re.I)
_SIZE_UNIT_WORD = re.compile(
    r"\bin\s+(?:bytes|kilobytes|megabytes|gigabytes|characters|kb|mb|gb|kib|mib|gib)\b"
    r"|_(?:bytes|kb|mb|gb|chars)\b|\((?:bytes|kb|mb|gb|characters)\)",
    re.I,
)
# A line setting an interval: `refreshMs = 5000`, `POLL_INTERVAL: 30`, `timeout: 10000,`,
# `setInterval(f, 500)`, the `}, 5 * 60 * 1000);` closing a `setInterval(() => {...`,
# `time.sleep(5)`: its name says the number is a duration.
TIMING_LINE = re.compile(
    r"\w*(?:_ms|Ms|MS|[Mm]illis|MILLIS|[Ss]econds|SECONDS|[Ii]nterval|INTERVAL|[Tt]imeout"
    r"|TIMEOUT|[Dd]elay|DELAY)\b\s*[=:]\s*\d"
    r"|\bset(?:Interval|Timeout)\s*\(.*,\s*\d|^\s*\}\s*,\s*\d[\d_]*(?:\s*\*\s*\d[\d_]*)*\s*\)"
    r"|\bsleep\s*\(\s*\d",
    re.M,
)
_SETTING_VALUE = re.compile(r"(?:\bdefaults?\s+(?:to|is)|\bdefault:|[=|])\s*`?\d", re.I)
_UNIT_WORD: dict[str, re.Pattern[str]] = {"duration": _TIME_UNIT_WORD, "size": _SIZE_UNIT_WORD}
# A list item's own number ("1 - [Elements Panel] - Allows you to drag MML elements...",
# "2) Open the editor", "3." before its text): its place in the list, no value.
_ITEM_NUMBER = re.compile(r"^\s*\(?\d{1,2}(?:[.)]|\s*\\?[-–—])\s+(?=[^\d\s])")
_ITEM_ONLY = re.compile(r"\s*\(?\d{1,2}[.)]\s*")
# Markup whose digits are no values: images, link targets, HTML tags.
_MARKUP = re.compile(r"!\[[^\]]*\]\([^)]*\)|\]\([^)]*\)|<[^>]+>|https?://\S+")


def states_value(
    question: str, hits: Sequence[Hit], doc_freq: Mapping[str, int], n_docs: int,
    generic: frozenset[str] = frozenset(),
) -> bool:
    """False when the question asks for a value that no passage states next to what the
    question asks about; True otherwise (and for a question that asks for no value)."""
    measure = measure_of(question)
    if measure is None or measure.kind == "number":
        # A value of no particular kind (an id, an address, "how much my vote counts"):
        # any digit would state one, so the check could tell nothing but refuse wrongly.
        return True
    clauses = _value_clauses(question, measure)
    # "Why do I see ': ping' lines in the stream. How often are THEY sent?": the last
    # sentence says of what only by pointing at the scene, so nothing tells the check what
    # a stated value must be next to.
    said = sentences(question)
    if len(said) > 1 and any(_points_at_scene(clause, said[-1], doc_freq, n_docs, generic)
                             for clause, _ in clauses):
        return True
    # A question asking for two values ("how long is a proposal open, and how much STT do
    # I deposit?") is answerable when a passage states either.
    return any(
        _stated_for(clause, asked, hits, doc_freq, n_docs, generic)
        for clause, asked in clauses
    )


def _points_at_scene(
    clause: str, last: str, doc_freq: Mapping[str, int], n_docs: int,
    generic: frozenset[str],
) -> bool:
    """Whether `clause`, of the question's `last` sentence (after another), names what it
    asks about only by a pronoun, with at most one distinctive word of its own."""
    return (clause.strip() in last and PRONOUN.search(clause) is not None
            and len(_weights(clause, set(), doc_freq, n_docs, generic)) <= 1)


def _stated_for(
    clause: str, measure: Measure, hits: Sequence[Hit], doc_freq: Mapping[str, int],
    n_docs: int, generic: frozenset[str],
) -> bool:
    """Whether a passage states the value `clause` asks for next to what it asks about."""
    # "How many people NEED to commit": the frame's verb names nothing that is counted.
    # "How many BACK-AND-FORTHS does a session remember?": a word the docs never use is
    # the user's own for what they count ("the last 10 turns"), which no passage can hold;
    # the unknown-word check weighs it.
    stems = (stem(w) for w in measure.words)
    named = {s for s in stems if _used(s, doc_freq)} - _NOT_SUBJECT
    # "the number of files DOCENT can ingest": a number next to "docent" counts no files
    # ("docent writes ONE progress line"); the clause's words still say what is counted.
    counted = {stem(w) for w in measure.words[: measure.counted]} & named
    if measure.kind == "percent":
        # "What percentage of the stake gets SLASHED": a share of what undergoes that; "they
        # earn 100% of the rewards" is a share of something else.
        done = _DONE_TO.search(clause)
        verb = stem(done.group(1).lower()) if done else ""
        if verb and verb not in _FRAME and doc_freq.get(verb, 0):
            named = named | {verb}
    subject = named - _UNITS  # "sessions" names what is counted; "characters" does not
    weight = _weights(clause, named, doc_freq, n_docs, generic)
    # "...keep idle WebSocket connections alive": a thing the clause names in CamelCase is
    # what the value is of, not a word the neighbourhood may lack ("a keep-alive ping every
    # 15 seconds" is of Server-Sent Events); a release's entries name it in their heading.
    names = set() if measure.kind == "version" else {
        t for m in _CAMEL_NAME.finditer(clause) for t in tokenize(m.group())[:1] if t in weight
    }
    spelled = _spelled_out(clause)
    named_roots = _roots(named)
    timeout = measure.kind == "duration" and _TIMEOUT.search(clause) is not None
    bound = measure.kind == "count" and _BOUND_ASKED.search(clause) is not None
    # "Which TRAEFIK version does the proxy guide use?": a changelog's headings give the
    # docs' own product's versions, not another thing's the question names.
    own_version = any(doc_freq.get(w, 0) <= n_docs * _COMMON for w in named)
    major = _major_version(measure.words) if measure.kind == "version" else None
    for hit in hits:
        segments = _segments(hit.chunk.text)
        heading = hit.chunk.section_title or hit.chunk.title
        version_heading = (measure.kind == "version" and not own_version
                           and bool(_STATED["version"].search(heading)))
        for i, segment in enumerate(segments):
            # A sentence that sums up what comes before it ("All records are retained for
            # five years" after a list of the records) reads with more of it.
            back = _SUMS_UP_BACK if _SUMS_UP.match(segment) else 2
            near = " ".join(segments[max(0, i - back) : i + 1])
            if timeout:  # "a ping every 15 seconds" is how often, no timeout
                segment, near = _FREQUENCY.sub(" ", segment), _FREQUENCY.sub(" ", near)
            if measure.kind == "version":
                segment = _versions_of_others(segment, named)
                near = _versions_of_others(near, named)
            # A changelog's entries give their version in the heading ("0.118.0 > Fixes").
            if not (_stated(measure, segment, counted, near, bound) or version_heading
                    or (major is not None and major.search(segment))):
                continue
            words = _with_same_meaning(with_shorthand(set(tokenize(f"{heading} {near}"))))
            # "anti-money-laundering" in the question, "AML" in the passage
            words = words.union(*(terms for short, terms in spelled if short in words))
            if named_roots <= _roots(words) and names <= words and (
                    subject or _covered(words, weight)):
                return True
    return False


def _major_version(words: Sequence[str]) -> re.Pattern[str] | None:
    """A major version right after the thing it is of: "Node.js 18+", "Python 3" ("Node 20"
    for Node.js); None when the question names no thing."""
    spellings = {v for w in words for v in (w, re.sub(r"\.?js$", "", w)) if v}
    if not spellings:
        return None
    return re.compile(r"\b(?:" + "|".join(map(re.escape, sorted(spellings)))
                      + r")\s*v?\d+(?:\.\d+)*\+?(?![\w.])", re.I)


def _used(term: str, doc_freq: Mapping[str, int]) -> bool:
    """Whether the docs use `term`, or its root as a word of its own."""
    return bool(doc_freq.get(term, 0) or doc_freq.get(root(term), 0))


@lru_cache(maxsize=4096)
def _segments(text: str) -> tuple[str, ...]:
    """A passage's sentences and lines, without markup's digits, remembered: the same
    passages come back for related questions. A crawled table is read as the answer reads
    it, a row's cells on one line."""
    rows = "\n".join(rows_as_text(rebuild_tables(text.splitlines())))
    named = name_bare_links(rows, path_words=True)
    plain = _MARKUP.sub(lambda m: "]" if m.group().startswith("](") else " ", named)
    items = (_ITEM_NUMBER.sub("", s) for s in _SEGMENT.split(plain))
    return tuple(s for s in items if s.strip() and not _ITEM_ONLY.fullmatch(s))


def _value_clauses(question: str, measure: Measure) -> list[tuple[str, Measure]]:
    """The parts of a question that ask for a value of a definite kind, each with what it
    measures ("how many passages..., and can a client change that?": the first part; "how
    long is a proposal open, and how much STT...": both, the second not naming a duration's
    STT), or the whole question with `measure` when no part alone asks for one."""
    # "How long is one staking epoch? I'm trying to estimate how often rewards show up.":
    # what follows the last sentence that asks says why, and asks for nothing.
    said = sentences(question)
    last = max((i for i, s in enumerate(said) if s.rstrip().endswith("?")), default=None)
    if last is not None:
        question = " ".join(said[: last + 1])
    parts = _CLAUSE.split(question)
    # "What's the longest registration period I can pick WHEN CLAIMING a .somi name?": the
    # activity right after the part asking names what the value is of, too (not "...if
    # the user stops asking", a circumstance the docs word their own way).
    ends = [m.group() for m in _CLAUSE.finditer(question)]
    found = []
    for i, part in enumerate(parts):
        asked = measure_of(part)
        if asked is None or asked.kind == "number":
            continue
        if i < len(ends) and _DOING.fullmatch(ends[i]) and _GERUND.match(parts[i + 1]):
            part = f"{part} {parts[i + 1]}"
        # "How many tokens go to the community, and what percent of the supply is
        # THAT?": its subject is in the clause before.
        clause = part
        scene = i > 0 and parts[i - 1].rstrip().endswith((".", "!"))
        named_back = scene and not _REFERS_BACK.search(part) and _THAT_THING.search(part)
        if named_back:
            # "...was THAT COMPATIBILITY removed?" names it by a word of its own as well:
            # either reading, stated, answers (the clause alone, or with the scene's names).
            found.append((part, asked))
        if i and (_REFERS_BACK.search(part) or named_back):
            before = parts[i - 1]
            if scene:
                # A sentence setting the scene ("We're stuck on Python 3.9 in production for
                # now. Which release dropped IT?"): "it" is a thing it names, not its words.
                before = " ".join(_NAME_LIKE.findall(before))
            clause = f"{before} {part}"
        elif i and _CONDITION.match(parts[i - 1]) and not _POINTS_BACK.search(parts[i - 1]):
            # "If I add the CORS middleware and change nothing, how long will browsers
            # cache a preflight?": the condition names what the value is of.
            clause = f"{parts[i - 1]} {part}"
        found.append((clause, asked))
    return found or [(question, measure)]


_CAMEL_NAME = re.compile(r"\b[A-Z][a-z]+[A-Z][A-Za-z]*\b")


def _weights(
    text: str, named: set[str], doc_freq: Mapping[str, int], n_docs: int,
    generic: frozenset[str],
) -> dict[str, float]:
    """The distinctive words of `text` (not the measure's, not its frame), by rarity."""
    about = [
        t for t in dict.fromkeys(tokenize(text))
        if t not in generic and t not in _NOT_SUBJECT and t not in named and len(t) > 1
        and not t.isdigit()
        and 0 < doc_freq.get(t, 0) <= _COMMON * n_docs
    ]
    return {t: math.log((n_docs + 1) / (doc_freq.get(t, 0) + 0.5)) for t in about}


# Words a passage may write as their initials: "anti-money-laundering", "Know Your Customer".
_SPELLED_OUT = re.compile(
    r"\b[A-Za-z]+(?:-[A-Za-z]+){1,5}\b|\b[A-Z][a-z]+(?:\s+[A-Z][a-z]+){1,5}\b"
)


def _spelled_out(clause: str) -> list[tuple[str, set[str]]]:
    """The initials (lower case) of each run of words `clause` may abbreviate, with the
    run's terms: a passage saying "AML" says what "anti-money-laundering" asks about."""
    return [
        ("".join(w[0] for w in re.split(r"[-\s]+", m.group())).lower(), set(tokenize(m.group())))
        for m in _SPELLED_OUT.finditer(clause)
    ]


def _with_same_meaning(words: set[str]) -> set[str]:
    """`words` (stemmed) and the words of the same meaning as any of them."""
    same = words.union(*(group for group in _SAME_MEANING if not group.isdisjoint(words)))
    return same | _ROLES if not _PERSONS.isdisjoint(words) else same


def _covered(words: set[str], weight: Mapping[str, float]) -> bool:
    total = sum(weight.values())
    return total == 0 or sum(
        w for t, w in weight.items() if _said(t, words)) >= _SHARE * total


def _said(term: str, words: set[str]) -> bool:
    """Whether `words` hold `term`, or its stem before the stemmer took its ending:
    "voting" stems to "vot", "votes" to "vote"; "cookie" to "cooki", "cookies" to "cooky";
    a short word's "tries" to "trie", "try" to itself."""
    return (term in words or term[-1:] == "e" and term[:-1] in words
            or term[-1:] == "y" and (f"{term[:-1]}i" in words or f"{term[:-1]}ie" in words))


# "`DOCENT_REDIS_TIMEOUT_SECONDS` — `0.5`", "TIMEOUT_MS=2.5": a decimal set to a name that
# gives its unit measures in that unit; it is no version.
_UNIT_NAMED_VALUE = re.compile(
    r"_(?:SECONDS|SECS|MS|MINUTES|HOURS|DAYS|BYTES|KB|MB|GB|CHARS|PERCENT|RATIO)`?\s*"
    r"(?:[—|=:]|--?)\s*`?\d+\.\d+", re.I)


# "SafeMath Library — Solidity Version: <0.8": a version a capitalised name gives as its own
# is that name's, not the version of the other thing a question asks about ("Before version
# 0.108.0", "Minimum version: 3.8" name nothing).
_NAMED_VERSION = re.compile(r"\b([A-Z][\w.+-]*)\s+[Vv]ersions?\b"
                            r"(?:\s*:\s*[<>=~^]*\s*v?[\w.+*-]+|\s+[<>=~^]*\s*v?\d[\w.+*-]*)")
# Words before "version" that name no thing (stopwords, which give no term, neither).
_NOT_A_VERSIONED_NAME = frozenset(
    """minimum maximum min max latest current recommended required supported stable default
    new newer old older earlier later same exact specific compatible lts each every any all
    both either first last next previous release before after since until only per via
    while""".split()
)


def _versions_of_others(text: str, named: set[str]) -> str:
    """`text` without the versions it gives as another name's own."""

    def kept(m: re.Match[str]) -> str:
        name = m.group(1).lower()
        terms = tokenize(name)
        if name in _NOT_A_VERSIONED_NAME or not terms or terms[0] in named:
            return m.group()
        return " "

    return _NAMED_VERSION.sub(kept, text)


def _measured_out(kind: MeasureKind, text: str) -> str:
    return _UNIT_NAMED_VALUE.sub(" ", text) if kind == "version" else text


def states_kind(kind: MeasureKind, text: str, bare: bool = True) -> bool:
    """Whether `text` states a value of `kind` at all, next to anything (with `bare`, a bare
    number is a duration or a size when the text names a unit of time or of size)."""
    if _STATED[kind].search(_measured_out(kind, text)):
        return True
    return bare and _bare(kind, text, text)


# "There is no size limit", "unlimited": the docs answer "is there a maximum?" with none.
_NO_LIMIT = re.compile(
    r"\b(?:no|without\s+(?:a|any))\s+(?:\w+\s+)?(?:limit|maximum|cap|upper\s+bound)s?\b"
    r"|\bunlimited\b|\b(?:of\s+)?any\s+(?:size|length)\b",
    re.I,
)
_LIMITED = frozenset({"size", "count", "duration"})


def _stated(measure: Measure, segment: str, named: set[str], near: str,
            bound: bool = False) -> bool:
    """Whether the segment states a value of the measure's kind (for a count: a number in
    the same sentence as what is counted; for a duration or a size, a bare number counts
    when its neighbourhood `near` names a unit of time or of size), or that there is no
    limit to it ("no size limit", "unlimited")."""
    if measure.kind in _LIMITED and _NO_LIMIT.search(segment):
        return True
    if not _STATED[measure.kind].search(_measured_out(measure.kind, segment)):
        return _bare(measure.kind, segment, near)
    return measure.kind != "count" or not named or counts_of(segment, named, bound)


# A timeout asked for is no frequency: "sends a ping every 15 seconds" states none; nor is
# how long something waits ("writes a progress line every 10 seconds").
_TIMEOUT = re.compile(r"\btime-?outs?\b|\bwait(?:s|ing)?\b|\bgive\s+up\b|\bgiving\s+up\b",
                      re.I)
_FREQUENCY = re.compile(rf"\b(?:every|each)\s+\d[\d,.]*\s*{_TIME_AFTER_NUMBER}", re.I)
# "... gets SLASHED", "is BURNED", "are PAID out": what happens to the share asked for.
_DONE_TO = re.compile(r"\b(?:gets?|got|is|are|was|were|be|been|being)\s+(\w+ed|\w+en|burnt|paid"
                      r"|sent|spent|lost)\b", re.I)
_QUOTED = re.compile(r"“[^”\n]*”|\"[^\"\n]*\"")
_COUNT_REACH = 4  # words between a number and what it counts ("40 worker threads")


def _roots(words: set[str]) -> set[str]:
    return {root(w) for w in words}


# "at least 3 people that would be willing to commit": docs count people as people, the
# role ("committed reviewers") said elsewhere in the sentence.
_PEOPLE_COUNT = re.compile(r"(?<![\w.])(?:\d+|two|three|four|five|six|seven|eight|nine|ten)"
                           r"\s+(?:other\s+|more\s+)?(?:people|persons|individuals|members)\b",
                           re.I)


# "...the keep-alive interval; the default is 15 SECONDS": a setting's value with a unit of
# time or size measures, it counts nothing.
_MEASURED = re.compile(rf"[\d,.]*`?\s*(?:{_TIME_AFTER_NUMBER}|(?:[kmgt]i?)?b\b|bytes?\b"
                       r"|characters?\b|%)", re.I)


# "What's the MAXIMUM number of files...": a bound is stated as one ("at most 100", "only
# one"), and "one bad file never stops it" states none.
_BOUND_ASKED = re.compile(r"\b(?:max(?:imum)?|min(?:imum)?|limit|cap|most|least|largest"
                          r"|smallest|biggest)\b", re.I)
_ONE_UNBOUNDED = re.compile(r"(?<!\bonly\s)(?<!\bjust\s)(?<!\bmost\s)(?<!\bto\s)"
                            r"(?<!\bexactly\s)(?<!\bof\s)\bone\b"
                            r"(?!(?:\s+\w+)?\s+at\s+a\s+time\b)", re.I)


def counts_of(segment: str, named: set[str], bound: bool = False) -> bool:
    """Whether a number in `segment` is close to a word naming what is counted ("a pool of
    40 threads", "threads: 40"; the word itself, not one of its root: "the 5M tokens
    delegated" counts no delegators) or is the default of a setting the sentence says counts it
    ("...how many charts the cache keeps; the default is 128"), not merely in its sentence
    ("ONE single request could use more than one thread")."""
    words = list(re.finditer(r"\S+", segment))
    near_named = [k for k, w in enumerate(words) if named & set(tokenize(w.group()))]
    # "3 people" counts the volunteers, reviewers or maintainers a question asks about
    if _PEOPLE_COUNT.search(segment) and (near_named or not named.isdisjoint(_ROLES)):
        return True
    if not near_named:
        return False
    if any(not _MEASURED.match(segment, m.end()) for m in _SETTING_VALUE.finditer(segment)):
        return True
    starts = [w.start() for w in words]
    # A number in a quoted sample ("to display stats (“42 entries recorded”)") is an
    # example's, not a count the docs give.
    quoted = [m.span() for m in _QUOTED.finditer(segment)]
    numbers = [bisect_right(starts, m.start()) - 1 for m in _STATED["count"].finditer(segment)
               if not any(a < m.start() < b for a, b in quoted)
               and not (bound and _ONE_UNBOUNDED.match(segment, m.start()))]
    # "Vote yes on proposal 0", "step 2": a number right after what it would count names one.
    labels = {k for k in numbers if k - 1 in near_named
              and not words[k - 1].group().endswith((":", "=", ","))}
    return any(abs(k - j) <= _COUNT_REACH for k in numbers if k not in labels
               for j in near_named)


def _bare(kind: str, segment: str, near: str) -> bool:
    """A bare number in `segment` that `near` makes a duration or a size, or that a line
    setting an interval gives (`timeout: 10000,`)."""
    if kind == "duration" and TIMING_LINE.search(segment):
        return True
    unit = _UNIT_WORD.get(kind)
    number = _SETTING_VALUE if kind == "size" else _BARE_NUMBER
    if kind == "size" and _COUNT_HELD.search(segment) and number.search(segment):
        return True  # how big a cache is: "the number of results kept in it; default is 1024"
    return unit is not None and bool(number.search(segment)) and bool(unit.search(near))
