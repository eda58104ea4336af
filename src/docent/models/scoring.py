"""Scoring a passage's answer units against a question.

Score = cosine(question, unit) + _W_LEX * word overlap (IDF-weighted, 0..1; a version the
question gives, "Python 3.9", counts as a word, as does, in a question of a few words, a
number of three digits or more, "HTTP 429"; and so do the words of a heading inside the
passage over the unit when the question names that heading in full: "what does multiverse
over monolith mean?" and the sentence under "#### Multiverse over Monolith") + a prior for
better-ranked pages, then two readings of what the unit says:

- **filler**: a sentence about the documentation rather than the product ("This page
  shows...", "In this tutorial you will...", "See the X page") answers nothing; it never
  leads and weighs less as a key point;
- **fit**: a statement with the kind of content the question asks for (`intent`) gains a
  little: a value of the kind asked for ("how long": a duration, `intent.measure_of`; any
  number when the question names no kind), a name or identifier for "which setting" (one
  the question does not give itself), an instruction or a command for "how do I", an
  outcome ("returns", "is refused") for "what happens", a negation next to a word of a
  yes-or-no question ("...and does not use websockets"). It gains more when the question
  says exactly what form its answer takes (an instruction with code, a value of a named
  kind).

Without vectors the words alone (weight 1) decide. Weights measured on the development and
fresh question sets (bench/README.md).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TypeGuard

from docent.intent import Intent, Measure, asks_where_to_read, defined_term, measure_of
from docent.models.text import Reference, codes, terms, versions
from docent.models.unit_vectors import AnswerVectors, unit_key
from docent.models.units import Unit, listed, referenced, split_units
from docent.retrieval.bm25 import stem
from docent.retrieval.evidence import counts_of, states_kind
from docent.retrieval.types import WARM_CHUNKS

# Longer units are not quoted: a table or code a crawl ran together. A legal clause can
# run to 900 characters and be the answer ("...not eligible ... if you are a resident of
# ... the United States of America, Canada, and the People's Republic of China").
_MAX_UNIT_CHARS = 1000
_W_LEX = 0.35
_SHORT_WORDS = 8  # a question this long at most is about a code it gives
_RANK_PRIOR = (0.15, 0.08, 0.04, 0.0, 0.0)
# A statement whose content is the kind the question asks for (it weighs more when the
# question says exactly what form the answer takes: an instruction with code, the form docs
# give how-to answers in; a value of the kind asked for, such as a duration for "how long").
_FIT = 0.06
_FIT_DEFINITE = 0.15
_FILLER = 0.12  # a sentence about the docs themselves
_CARRIED = 0.2  # a word a follow-up carries over from the turn before, in word overlap
_ECHO_SHARE = 0.34  # at most this share of its words the question does not use,
_ECHO_NEW = 2  # and at most this many

_EMPHASIS = re.compile(r"\*+")
# A name written as code: `quoted`, snake_case, dotted, camelCase or CamelCase.
_CODE_WORD = re.compile(r"`[^`]+`|\b\w+[_.]\w+\b|\b[a-z]+[A-Z]\w*\b|\b[A-Z][a-z]+[A-Z]\w*\b")
_FILLER_RE = re.compile(
    r"^(?:in|on|throughout)\s+this\s+(?:page|guide|section|tutorial|article|chapter|document"
    r"|example|post|walkthrough)\b"
    # ("This comprehensive FAQ covers everything...", "This FAQ is regularly updated...")
    r"|^this\s+(?:(?:comprehensive|complete|short|quick|brief)\s+)?(?:page|guide|section"
    r"|tutorial|article|chapter|document|walkthrough|faq)\s+"
    r"(?:shows|explains|describes|covers|lists|walks|will|is\s+about|contains|gives|helps"
    r"|introduces|outlines|provides|demonstrates"
    r"|is\s+(?:regularly\s+|frequently\s+|continuously\s+|constantly\s+)?updated)\b"
    # "Whether you're bridging stablecoins..., this guide will walk you through...", "This
    # guide teaches developers how to...", "This comprehensive guide teaches developers..."
    r"|\bthis\s+(?:[\w-]+\s+){0,2}?(?:page|guide|section|tutorial|article|walkthrough)\s+"
    r"(?:will\s+)?"
    r"(?:walks?|shows?|teach(?:es)?|guides?|takes?)\s+(?:you|developers|readers|users)\b"
    r"|^(?:here|below|above|next|now|then),?\s+(?:we|you|i)(?:'ll|\s+will|\s+can|\s+are\s+going\s+to)?"
    r"\s+(?:see|learn|look|find|show|walk|cover|explore|go|discuss|describe|explain)\b"
    r"|^(?:we|you|i)(?:'ll|\s+will|\s+are\s+going\s+to)\s+(?:learn|see|explore|cover|walk|look"
    r"|show|discuss|describe|explain)\b"
    # a tutorial's narration ("Let's see...", "Now, let's create..."), not a product's name
    # ("Let's Encrypt") or a verb ("Banxa lets you buy...")
    r"|\blet(?:['’]s|\s+us)\s+(?!encrypt\b)"
    # ("you will see how...", not what happens: "...and you will see an error message")
    r"|\b(?:you|we)(?:'ll|\s+will)\s+(?:see|learn|read|find\s+out)\s+(?:how|what|why|which"
    r"|more|later|below|about|in|that|this|these|all)\b"
    r"|\b(?:you|we)(?:'ll|\s+will)\s+(?:learn|read|find\s+out)\b"
    # "...you'll find answers to common questions about Somnia": what a page offers
    r"|\byou(?:['’]ll|\s+will)\s+find\s+answers\b"
    r"|\bi(?:'ll|\s+will)\s+(?:also\s+)?(?:show|tell|explain|teach)\b"
    r"|\b(?:in|on)\s+the\s+(?:next|previous|following|last)\s+(?:chapters?|sections?|pages?|parts?)\b"
    r"|\blater\s+in\s+(?:this|the)\s+(?:[\w-]+\s+)?(?:chapter|section|page|tutorial|guide|docs)\b"
    r"|^(?:read|see|check|refer\s+to|visit|head\s+(?:over\s+)?to|follow|consult)\s+(?:the|our"
    r"|more|also|this|these)\b"
    # ... or a link: "See [Deploy](/deploy)"; but "Visit [app.example](https://app.example/)
    # and connect your wallet" sends the reader to the product, not to more docs.
    r"|^(?:read|see|check|refer\s+to|follow|consult)\s+\["
    r"|^(?:visit|head\s+(?:over\s+)?to)\s+\[(?![^\]]*\]\(https?://)"
    r"|^for\s+(?:more|further|additional|full)\s+(?:details|information|info|examples)\b"
    # "For the most current technical details, always refer to the official documentation"
    r"|^for\s+the\s+(?:most\s+(?:current|recent|up[\s-]to[\s-]date)|latest)\s+(?:[\w-]+\s+)?"
    r"(?:details|information|info)\b"
    # a pointer within the page ("Jump to the [`Dockerfile` below 👇](#build-...)") or a
    # greeting ("Welcome to the Somnia Network Developer FAQ!")
    r"|^(?:jump|skip)\s+(?:straight\s+|right\s+)?to\b|^welcome\s+to\b"
    # what following it will do for the reader ("By following this tutorial, you'll...")
    r"|^by\s+(?:following|completing|the\s+end\s+of)\s+this\s+(?:[\w-]+\s+)?(?:guide"
    r"|tutorial|page|section|article|walkthrough)\b"
    # a tutorial's recap: "Congratulations 🎉 You've just published...", "You've
    # successfully integrated ConnectKit..."
    r"|^(?:congratulations|congrats|well\s+done|great\s+job)\b"
    # what the reader is expected to know already: "This guide is not an introduction to
    # Solidity Programming; you are expected to understand...", "Familiarity with React is
    # assumed."
    r"|^this\s+(?:guide|tutorial|page|article)\s+is\s+not\s+an?\s+(?:introduction|intro|beginner)"
    r"|^(?:basic\s+)?familiarity\s+with\b.*\bis\s+(?:assumed|expected|required)\b"
    r"|^you\s+are\s+expected\s+to\s+(?:understand|know|be\s+familiar)\b"
    r"|^(?:you(?:['’]ve|\s+have)|we(?:['’]ve|\s+have))\s+(?:now\s+)?(?:successfully|just)\s+\w+"
    r"|^(?:the\s+)?\[[^\]]+\]\([^)]*\)\s+(?:page|guide|section|tutorial|chapter)?\s*"
    r"(?:describes|explains|covers|lists|shows|has|walks)\b"
    r"|^the\s+\w+(?:\s+\w+)?\s+(?:page|guide|section|tutorial)\s+(?:describes|explains"
    r"|covers|lists|shows|walks)\b",
    re.I,
)
_NUMBER = re.compile(r"(?<![\w.])\d[\d,.]*(?:\s*%|\s*(?:ms|s|kb|mb|gb|tb|x))?(?![\w])", re.I)
_ADDRESS = re.compile(r"\b0x[0-9a-fA-F]{8,}")
_LINKS = re.compile(r"\]\([^)]*\)|https?://\S+")  # a link's target, a bare address
_INLINE_CODE = re.compile(r"`[^`\n]+`")
_IDENTIFIER = re.compile(
    r"\b(?:[A-Z][a-z0-9]+[A-Z]\w*|[a-z][a-z0-9]*_[a-z0-9_]+|[A-Z][A-Z0-9]*_[A-Z0-9_]+"
    r"|[\w.]+\(\))"
)
_VERBS = (
    r"set|use|run|add|call|install|create|pass|import|declare|define|put|write|open|click"
    r"|select|enable|disable|configure|start|make|change|replace|return|include|mount|send"
    r"|deploy|register|type|visit|connect|choose|specify|copy|edit|remove|turn|override"
    r"|generate|inherit|wrap|raise|yield|await|decorate|annotate|read|get"
)
_INSTRUCTION = re.compile(
    rf"^(?:to\s+\w+[^,.]*,\s*|first,?\s+|then,?\s+)?(?:{_VERBS})\b|,\s*(?:{_VERBS})\s+(?:your|the|a|an|it|this)\b"
    rf"|\b(?:you|we)\s+(?:can|could|should|need\s+to|have\s+to|must|would)\s+"
    rf"(?:also\s+|now\s+|then\s+|just\s+)?(?:{_VERBS})\b",
    re.I,
)
_IMPERATIVE = re.compile(rf"^(?:to\s+\w+[^,.]*,\s*)?(?:{_VERBS}|go|navigate)[*_]*\s", re.I)
# A sentence that leans on the one before it ("And then...", "This will...") makes a poor
# first sentence: it reads as the middle of a paragraph.
_CONTINUATION = re.compile(
    r"^(?:and|but|so|then|now|also|nevertheless|however|next|or|because|thus|therefore"
    r"|this|that|these|those|it|they|there|here|otherwise|instead|again|still|plus)\b",
    re.I,
)
_OUTCOME = re.compile(
    r"\b(?:returns?|is\s+(?:refused|rejected|returned|sent|raised|shown|dropped|closed|"
    r"retried|removed|kept|lost|stopped|ignored)|are\s+(?:refused|rejected|returned|sent|"
    r"dropped|kept|lost|ignored)|fails?|ends?|raises?|responds?|answers?|gets?|receives?|"
    r"stops?|becomes?|results?\s+in|goes?\s+to|burn(?:s|ed|t)?)\b",
    re.I,
)

# "Does the chat app use websockets?": "...updates by polling and does not use websockets."
# A negation with a word of the question within _NEAR characters answers a yes/no question.
_NEGATION = re.compile(r"\b(?:no|not|never|cannot)\b|n't\b", re.I)
_NEAR = 40


def _denies(text: str, wanted: set[str]) -> bool:
    """Whether `text` negates something next to a word of the question (`wanted`)."""
    return any(set(terms(text[max(0, m.start() - _NEAR): m.end() + _NEAR])) & wanted
               for m in _NEGATION.finditer(text))


_ACRONYM = re.compile(r"[A-Z][A-Z0-9]{1,5}s?")  # "SSE", "APIs"


def _definition(term: str | None) -> re.Pattern[str] | None:
    """A statement defining `term`: opening with it, then "is", "are", "means", "refers to"
    or a colon ("The context budget is the largest history...", "SOM0: The initial set..."),
    or, for an acronym, spelling it out before it in brackets ("...Server-Sent Events
    (SSE)")."""
    if term is None:
        return None
    words = r"[\s-]+".join(re.escape(w) for w in term.split())
    # "What does SSE stand for?": "...as a stream of Server-Sent Events (SSE)." spells it out
    spelled = (rf"|[^\n]*?\w[^\n(]*\(`?{re.escape(term)}`?\)"
               if _ACRONYM.fullmatch(term) else "")
    return re.compile(rf"^(?:the\s+|an?\s+)?`?{words}`?(?:\s+(?:is|are|means|refers\s+to)\b|:)"
                      rf"{spelled}", re.I)


@dataclass(frozen=True)
class Candidate:
    """A unit of one passage with its scores."""

    ref: Reference
    pos: int
    unit: Unit
    terms: frozenset[str]
    page: int = 0
    lex: float = 0.0
    score: float = 0.0
    filler: bool = False
    sample: bool = False  # code the sentence before announces as a program's output


def candidates(refs: Sequence[Reference]) -> list[Candidate]:
    """Every unit of every passage, in passage and document order (an empty code block, a
    diagram's source, or a unit too long to quote, is none).

    A passage's page is the number of the first passage from its file: more passages of
    one page (retrieval can add them) rank, and count as relevant, with that page.
    """
    page: dict[str, int] = {}
    for ref in sorted(refs, key=lambda r: r.n):
        page.setdefault(source_of(ref), ref.n)
    return [
        Candidate(ref, pos, unit, words, page[source_of(ref)])
        for ref in refs
        for pos, unit, words in _units(ref.body)
    ]


def remember_passages(bodies: Iterable[str]) -> None:
    """Split passages into their units now (a server's warm-up), not at their first answer
    (2,080 chunks: 0.6 s); a passage is a chunk's text, stripped, as the search tool
    gives it."""
    for body in bodies:
        _units(body.strip())


@lru_cache(maxsize=WARM_CHUNKS)
def _units(body: str) -> tuple[tuple[int, Unit, frozenset[str]], ...]:
    """The candidate units of a passage (position, unit, terms), remembered: the same
    passages come back for related questions."""
    return tuple(
        (pos, unit, frozenset(terms(unit.text)))
        for pos, unit in enumerate(split_units(body))
        if not (unit.is_empty_code or unit.is_diagram)
        and (unit.is_code or len(unit.text) <= _MAX_UNIT_CHARS)
    )


@lru_cache(maxsize=WARM_CHUNKS)
def _heading_terms(heading: str) -> frozenset[str]:
    return frozenset(terms(heading))


def _named_by_heading(heading: str, wanted: set[str]) -> frozenset[str]:
    """The words of a unit's heading (two or more) when the question has every one."""
    found = _heading_terms(heading)
    return found if len(found) >= 2 and found <= wanted else frozenset()


def source_of(ref: Reference) -> str:
    """The file a passage came from: its heading reads `Title > Section (file)`."""
    where, _, file = ref.heading.rpartition(" (")
    return file.removesuffix(")") if where and file.endswith(")") else ref.heading


def is_continuation(text: str) -> bool:
    """A sentence that only reads well after the one before it."""
    return bool(_CONTINUATION.match(text.lstrip("*_ ")))


@lru_cache(maxsize=16384)
def is_filler(text: str) -> bool:
    """A sentence about the documentation itself, not about what it documents."""
    # "...later in this **Deployment** guide": emphasis marks are no words
    return bool(_FILLER_RE.search(_EMPHASIS.sub("", text).lstrip("_ ")))


def fits(intent: Intent, unit: Unit, measure: Measure | None = None) -> int:
    """+1 when the unit holds the kind of content the question asks for; -1 when it is an
    instruction and the question asks what happens or what something is (a how-to answer
    to another question); else 0."""
    text = unit.text
    if intent.kind in ("outcome", "concept") and instructs(text):
        return -1
    return int(_holds(intent, unit, text, measure))


def gives_value(intent: Intent, unit: Unit, measure: Measure | None) -> bool:
    """Whether the unit states a value of the definite kind the question asks for, and, for
    a count of something the question names, a number next to it ("There will initially be
    100 globally distributed validator nodes", not "...a divergence between the two")."""
    if not _definite(measure) or not fits(intent, unit, measure) > 0:
        return False
    named = {stem(w) for w in measure.words}
    return measure.kind != "count" or not named or counts_of(unit.text, named)


# A version right after what it is of: "**FastAPI 0.128.0**", "FastAPI version 0.119.0"
_VERSION_AFTER = re.compile(r"([\w.-]+)[*_`\s]+(?:version\s+|v)?\d+\.\d+", re.I)


def versions_named(unit: Unit, measure: Measure | None) -> bool:
    """Whether, for a question asking which version of something it names ("Which FastAPI
    versions allow that?"), the unit gives a version of that thing ("only works in
    **FastAPI 0.119.0** to 0.127.x"), not of another ("the latest version 2" of Pydantic)."""
    if measure is None or measure.kind != "version" or not measure.words:
        return False
    named = {stem(w.lower()) for w in measure.words}
    return any(stem(m.group(1).lower()) in named for m in _VERSION_AFTER.finditer(unit.text))


def _holds(intent: Intent, unit: Unit, text: str, measure: Measure | None) -> bool:
    if intent.kind == "value":
        # Not a number inside a link: "Add Somnia Mainnet through
        # chainlist.org/?chain=50312" gives no chain ID.
        text = _LINKS.sub(" ", text)
        if _definite(measure):
            return states_kind(measure.kind, text)  # "how long": a duration, not any number
        return bool(_NUMBER.search(text) or _ADDRESS.search(text))  # "what's its address"
    if intent.kind == "name":
        return bool(_INLINE_CODE.search(text) or _IDENTIFIER.search(text))
    if intent.kind == "howto":
        return unit.is_code or bool(_INSTRUCTION.search(text) and _INLINE_CODE.search(text))
    if intent.kind == "outcome":
        return bool(_OUTCOME.search(text))
    return False


def score(
    question: str, intent: Intent, cands: list[Candidate], refs: Sequence[Reference],
    vectors: AnswerVectors | None, scene: str = "",
) -> list[Candidate]:
    """The candidates with their scores (see the module docstring). A word only in
    `scene`, the earlier turns' question set before a follow-up, counts `_CARRIED` as
    much as one asked now."""
    wanted = set(terms(question))
    measure = measure_of(question)
    # "Which release dropped Python 3.9?": the unit giving the question's own version, not
    # the one dropping 3.6, is about it; the version counts as one more word matched.
    asked = versions(question)
    # "/chat returns 429": in a short question, a code it gives is what it is about (in a
    # long one, its scene's numbers pull the lead: "my upsert answers 200 ... or 201").
    given = codes(question) if len(question.split()) <= _SHORT_WORDS else frozenset()
    # A list of members the question does not ask for weighs nothing in any word's rarity.
    unasked = [_listing_not_asked(c.unit.text, question, wanted)
               or _reference_not_asked(c.unit.text, wanted) for c in cands]
    matched = [set() if off else
               c.terms & wanted | (asked & versions(c.unit.text) if asked else set())
               | (given & codes(c.unit.text) if given else set())
               | _named_by_heading(c.unit.heading, wanted)
               for c, off in zip(cands, unasked, strict=True)]
    df = Counter(t for m in matched for t in m)
    counted = len(cands) - sum(unasked)
    idf = {t: math.log(1 + counted / df[t]) for t in df}
    if scene:
        # "How do I change the tool-call limit?", then "What about model calls?": the
        # limit of model calls, not the tool-call limit again. A name written as code keeps
        # its weight: "What is the selected_text field?", then "How long can it be?".
        named = {t for word in _CODE_WORD.findall(scene) for t in terms(word)}
        for t in set(terms(scene)) - set(terms(question[len(scene):])) - named:
            if t in idf:
                idf[t] *= _CARRIED
    lex = [
        sum(idf[t] for t in m) / (1 + 0.15 * math.log(1 + len(c.terms)))
        for c, m in zip(cands, matched, strict=True)
    ]
    top = max(lex, default=0.0) or 1.0
    sem = [0.0] * len(cands)
    if vectors is not None:
        q = vectors.question(question)
        tables = vectors.units([(r.chunk_id, r.where, r.body) for r in refs])
        by_n = {r.n: table for r, table in zip(refs, tables, strict=True)}
        rows = [by_n.get(c.ref.n, {}).get(unit_key(c.unit.text)) for c in cands]
        # Stored before an upgrade that cuts passages otherwise: embedded now, until the
        # next ingestion stores them (an index of this version lacks none).
        lacking = [i for i, c in enumerate(cands) if rows[i] is None and not c.unit.is_code]
        for i, late in zip(lacking, vectors.texts([cands[i].unit.text for i in lacking]),
                           strict=True):
            rows[i] = late
        # Code opening its passage (an example page's whole text) has no sentence before
        # it: it is scored by its passage as a whole, the page's title and the code.
        opening = [i for i, c in enumerate(cands) if rows[i] is None and c.unit.is_code
                   and (i == 0 or cands[i - 1].ref.n != c.ref.n)]
        whole = vectors.passages([(cands[i].ref.chunk_id, cands[i].ref.where,
                                   cands[i].ref.body) for i in opening]) if opening else []
        for i, row in zip(opening, whole, strict=True):
            rows[i] = row
        for i, (c, found) in enumerate(zip(cands, rows, strict=True)):
            if found is not None:
                sem[i] = float(found @ q)
            elif c.unit.is_code and i:
                # Code is scored by its words and by the sentence that introduces it.
                sem[i] = sem[i - 1]
    w_lex = _W_LEX if vectors is not None else 1.0
    defines = _definition(defined_term(question))
    yesno = intent.kind == "yesno"
    before = {(c.ref.n, c.pos): c.unit for c in cands}
    out = []
    # "Where do the docs send me for more on testing websockets?": "For more details,
    # check Starlette's documentation..." is the answer, not the docs talking of themselves.
    pointers = asks_where_to_read(question)
    for c, lx, sm, off in zip(cands, lex, sem, unasked, strict=True):
        filler = not c.unit.is_code and (off or not pointers and is_filler(c.unit.text))
        value = sm + w_lex * lx / top + _prior(c)
        fit = _FIT_DEFINITE if intent.kind == "howto" or _definite(measure) else _FIT
        fitting = fits(intent, c.unit, measure)
        if fitting > 0 and intent.kind == "name" and not names_new(c.unit.text, wanted):
            fitting = 0  # "one single `engine` object" names only what the question does
        sample = c.unit.is_code and shows_output(before.get((c.ref.n, c.pos - 1)))
        if fitting > 0 and intent.kind == "howto" and sample:
            fitting = 0  # "You'll see Publisher Output:" over a sample: nothing to do
        value += fit * fitting - _FILLER * filler
        if defines is not None and not c.unit.is_code and defines.match(c.unit.text):
            value += _FIT_DEFINITE  # "What is the context budget?": "The context budget is..."
        if yesno and not c.unit.is_code and _denies(c.unit.text, wanted):
            value += _FIT
        # The constructor, not dataclasses.replace: this runs for every unit of every answer.
        out.append(Candidate(c.ref, c.pos, c.unit, c.terms, c.page, lx / top, value, filler,
                             sample))
    return out


# A question asking for members of something.
_ASKS_MEMBERS = re.compile(r"\b(?:methods?|attributes?|members?|propert(?:y|ies)|fields?)\b",
                           re.I)


def _listing_not_asked(text: str, question: str, wanted: set[str]) -> bool:
    """Whether `text` lists an object's members and the question asks for none of them.

    A question asks for members when it says "method", "attribute" and the like, names a
    member written with an underscore (`receive_json`), or names one alongside the object
    as such ("the handshake's *cookies* ... from the WebSocket *object*"). So "Is
    ORJSONResponse still the recommended way?" gets no `render`, `set_cookie`, ... of the
    class it names, and "which version documents *webhooks*?" not the hundred members of
    `FastAPI`."""
    found = listed(text)
    if found is None or _ASKS_MEMBERS.search(question):
        return False
    owner, members = found
    named = {m for m in members if m.lower() in wanted or set(terms(m)) <= wanted}
    if any("_" in m for m in named):
        return False
    of_object = re.search(rf"\b{re.escape(owner.rsplit('.', 1)[-1])}\s+(?:object|class|instance)\b",
                          question, re.I)
    return not (named and of_object)


# The words of a name: `APIKeyHeader` is "API", "Key", "Header".
_NAME_PARTS = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")
_NAMED_SHARE = 0.75


def _reference_not_asked(text: str, wanted: set[str]) -> bool:
    """Whether `text` is the bare reference of an object the question does not name: as
    written (`TrustedHostMiddleware`), or by three in four of its name's words ("a class
    for reading an API key out of a request header" names `APIKeyHeader`, not
    `APIKeyCookie`). Unnamed, it says nothing the question asks."""
    found = referenced(text)
    if found is None:
        return False
    name = found.rsplit(".", 1)[-1]
    if set(terms(name)) & wanted:
        return False
    parts = {t for part in _NAME_PARTS.findall(name) for t in terms(part)}
    return not parts or len(parts & wanted) < _NAMED_SHARE * len(parts)


# A sentence announcing what a program prints or answers ("You'll see Publisher Output:",
# "The response will look like:", "It prints:"), not what to run.
_OUTPUT_INTRO = re.compile(
    r"\b(?:output|you(?:'ll|’ll|\s+will|\s+should)\s+(?:see|get|receive)"
    r"|(?:will|should)\s+(?:print|return|display|log|output)|prints|returns"
    r"|(?:response|result)s?\s+(?:will\s+|should\s+)?(?:be|look|looks)"
    r")\b[^:]*:\s*$", re.I)


def shows_output(intro: Unit | None) -> bool:
    """Whether `intro`, the unit before a code block, announces it as a program's output."""
    return intro is not None and not intro.is_code and bool(_OUTPUT_INTRO.search(intro.text))


def instructs(text: str) -> bool:
    """Whether `text` opens by telling the reader what to do ("Install the kit with npm.")."""
    return bool(_IMPERATIVE.match(text.lstrip("*_ ")))


# What a statement gives beyond the question's words, besides code and numbers: a quoted
# label (use it as a "cache", click "Add to Metamask"), a name ("...created by Tom
# Christie"), a link.
_QUOTED = re.compile(r"[\"“]([^\"”\n]{2,60})[\"”]")
_PROPER_NAME = re.compile(r"(?<=[\w,;)]\s)[A-Z][a-z]+\b")
_URL = re.compile(r"https?://[^\s>)\]]+")


def echoes(c: Candidate, wanted: set[str], question: str) -> bool:
    """Whether the statement says back what the question says: nearly all its words are the
    question's, and each code span, number, quoted label, name and link it gives is in the
    question too. One that announces code or a list is worth what it announces ("The
    command `uvicorn main:app` refers to:")."""
    own = len(c.terms - wanted)
    if c.unit.announces or len(c.terms) < 2 or own > _ECHO_NEW:
        return False
    if own >= _ECHO_SHARE * len(c.terms):
        return False
    low = question.lower()
    text = c.unit.text
    spans = [m.group().strip("`").lower() for m in _INLINE_CODE.finditer(text)]
    spans += [m.group().lower() for m in _NUMBER.finditer(text)]
    spans += [m.group(1).lower() for m in _QUOTED.finditer(text)]
    spans += [m.group().lower() for m in _PROPER_NAME.finditer(text)]
    spans += [m.group().lower() for m in _URL.finditer(text)]
    return all(s in low for s in spans)


def names_new(text: str, wanted: set[str]) -> bool:
    """Whether `text` names, in code or as an identifier, something the question (its
    `terms`) does not: "...with `app.include_router()`" for "How do I split my app?"."""
    found = [m.group() for m in _INLINE_CODE.finditer(text)]
    found += [m.group() for m in _IDENTIFIER.finditer(text)]
    return any(not set(terms(name)) <= wanted for name in found)


def _definite(measure: Measure | None) -> TypeGuard[Measure]:
    """A value question that names the kind of value: a duration, a size, a price..."""
    return measure is not None and measure.kind != "number"


def _prior(c: Candidate) -> float:
    return _RANK_PRIOR[c.page - 1] if 0 < c.page <= len(_RANK_PRIOR) else 0.0
