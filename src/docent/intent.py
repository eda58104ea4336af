"""What kind of answer a question asks for, read from its wording.

The extractive model leads with the statement that answers the question asked: a value for
"how many", a name for "which setting", the steps or code for "how do I", a definition for
"what is". Only the question's own wording is read; nothing here knows any corpus.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

Kind = Literal["howto", "value", "name", "outcome", "concept", "yesno", "other"]

_HOWTO = re.compile(
    r"\bhow\s+(?:do|can|could|should|would|might|shall)\s+(?:i|we|you|one)\b"
    r"|\bhow\s+to\b|\bhow\s+(?:do|does)\s+(?:\w+\s+){0,3}(?:set|configure|enable|make)\b"
    r"|\b(?:what(?:'s|\s+is)|which\s+is)\s+the\s+(?:best|recommended|right|correct|proper|"
    r"simplest|easiest|preferred)\s+way\b"
    r"|\bis\s+there\s+(?:a|an|any)\s+(?:\w+\s+)?way\b|\bwhat\s+(?:do|should)\s+i\s+(?:do|use|run|put|add|write)\b"
    r"|\bwhere\s+(?:do|should|can)\s+i\s+(?:put|add|set|configure|define|declare|place)\b"
    r"|^\s*(?:show\s+me\s+how|explain\s+how\s+to)\b"
    # "...blocked by CORS. What's the workaround?": a way around it is a how-to
    r"|\b(?:what(?:'s|\s+is|\s+are)|is\s+there|are\s+there)\s+(?:(?:the|a|an|any|my)\s+)?"
    r"(?:\w+\s+)?(?:work-?arounds?|fix(?:es)?|solutions?|remed(?:y|ies))\s*(?:\?|$|for\b|to\b)"
    # "Can I run both in one process? How?": a bare "how" asks how to
    r"|(?:^|[.!?,;]\s*|\b(?:and|so|if\s+so|if\s+yes|but)\s+)how\s*\?",
    re.I,
)
# A word between "what's the" and what it asks for, or an aside in brackets counted as one:
# "whats the WSOMI (wrapped SOMI) contract address?" asks for an address all the same.
_WORD_OR_ASIDE = r"(?:[\w.'’-]+|\([^()\n]{1,40}\))"
# "In charge of" is who is responsible, not a price.
_COST_WORDS = r"cheapest|most\s+expensive|(?<!\bin\s)charges?(?!\s+of\b)|costs?"
_VALUE = re.compile(
    r"\bhow\s+(?:much|many|long|big|large|often|fast|old|soon|frequently)\b"
    r"|\bwhat\s+(?:percentage|percent|amount|fraction|share|number)\b"
    rf"|\b(?:what|which)(?:'s|\s+is|\s+are)?\s+(?:the\s+)?(?:{_WORD_OR_ASIDE}\s+){{0,3}}?"
    r"(?:default|maximum|minimum|max|min|limit|size|price|pricing|cost|fee|length|duration|timeout|"
    r"port|version|rate|ratio|threshold|interval|period|amount|count|number|supply|address|"
    r"id|chain\s+id|apy|apr|cap|quota|ceiling|penalty|penalties|ttl|lifetime|delay|latency|"
    r"block\s+time|finality|cool-?down)s?\b"
    r"|\b(?:which|what)\s+version\b|\bwhen\s+(?:was|were|did|does|is|will)\b|\bsince\s+when\b"
    # "Which FastAPI RELEASE dropped...": a version; not "what do the release notes say"
    r"|\b(?:which|what)\s+(?:\w+\s+)?releases?\b(?!\s+notes?\b)"
    # "Is there a maximum file size...?": yes or no, and the limit is the answer
    r"|\b(?:is|are)\s+there\s+(?:a|an|any)\s+(?:(?!to\b)\w+\s+){0,5}?(?:maximum|minimum|max|min|limit"
    r"|cap|quota|upper\s+bound|lower\s+bound)s?\b"
    r"|\b(?:what|which)(?:'s|\s+is|\s+are)?\s+(?:the\s+)?(?:largest|biggest|smallest)\b"
    # "What trade window, IN MINUTES, does...": the unit of the answer
    r"|^\s*(?:what|which)\b.*\bin\s+(?:milliseconds|seconds|minutes|hours|days|weeks|months"
    r"|years|bytes|kilobytes|megabytes|gigabytes|kb|mb|gb|percent)\b"
    rf"|\b(?:{_COST_WORDS})\b",
    re.I,
)
# "How can Somnia CHARGE less gas...?" asks how something works, not what it costs.
_MECHANISM = re.compile(r"\bhow\s+(?:can|could|does|do|did|is|are|would|should|will)\b", re.I)
# A relative clause whose verb takes the value phrase as its object ("...that shows how many").
_DESCRIBED = re.compile(r"\b(?:that|which)\s+[a-z]+s\s+$", re.I)
_NAME_NOUNS = (
    r"variable|setting|option|parameter|param|argument|flag|command|function|class|method|"
    r"decorator|header|field|key|file|endpoint|event|status(?:\s+code)?|code|type|tool|"
    r"library|package|module|server|media\s+type|format|keyword|attribute|property|exception|"
    r"error|middleware|dependency|library|framework|network|wallet|token|contract|service|"
    r"provider|model|response|object|hook|api|route|path|extension|plugin|url|uri|software|"
    r"address|name|command\s+line|cli|algorithm|algo|compan(?:y|ie)|firm|vendor|protocol|"
    r"standard|database|engine"
)
_NAME = re.compile(
    rf"\b(?:which|what)\s+(?:\w+\s+){{0,3}}?(?:{_NAME_NOUNS})s?\b"
    r"|\bwhat\s+(?:is|are)\s+(?:it|they)\s+called\b|\bwhat\s+do\s+i\s+(?:import|call|name)\b",
    re.I,
)
# "Which reverse proxies...?", "In VS Code, which debug configuration...?": "which X" opening
# the ask (not a relative "which": "a cache which expires"; nor "which is/of/one...")
_WHICH = re.compile(r"(?:^\s*|[,;:]\s*|\b(?:and|so|but|then)\s+)which\s+"
                    r"(?!(?:is|are|was|were|of|one|ones|way|means)\b)\w+", re.I)
_OUTCOME = re.compile(
    r"\bwhat\s+happens\b|\bwhat\s+(?:does|will)\s+(?:\w+\s+){0,4}(?:return|do|send|show|get)\b"
    r"|\bwhat\s+(?:do|will)\s+(?:i|we|you|users?|clients?)\s+(?:get|see|receive)\b",
    re.I,
)
_CONCEPT = re.compile(
    r"^\s*(?:what\s+(?:is|are)\s+(?:a|an|the)?\b|why\b|explain\b|describe\b)"
    r"|\bwhat(?:'s|\s+is)\s+the\s+difference\b|\bwhat\s+does\s+.+\s+mean\b|\bwhy\b",
    re.I,
)
# ... also after a phrase setting the scene: "In the DAO tutorial, how come a vote costs gas?"
_WHY = re.compile(r"^\s*(?:[^,?]{3,80},\s*)?(?:why|how\s+come)\b", re.I)
_YESNO = re.compile(
    r"^\s*(?:can|could|does|do|is|are|should|will|would|may|must|has|have)\b", re.I
)


@dataclass(frozen=True)
class Intent:
    """The kind of answer a question wants."""

    kind: Kind

    @property
    def wants_code(self) -> bool:
        """Whether an example (code, a command) is part of a good answer."""
        return self.kind in ("howto", "name")

    @property
    def wants_specifics(self) -> bool:
        """Whether the answer is a concrete thing: a value, a name, a command."""
        return self.kind in ("howto", "value", "name", "outcome")


def asks_for_value(question: str) -> bool:
    """Whether any part of the question asks for a value ("which algorithm signs the tokens
    and for HOW MANY minutes..." asks for a name, and a value too)."""
    return bool(_VALUE.search(_typed(question)))


# "How often does the frontend poll?", "...and how frequently does it refresh the labels?"
_HOW_OFTEN = re.compile(
    r"\bhow\s+(?:often|frequently)\b|\b(?:polling|refresh|update|retry)\s+(?:interval|rate|frequency)\b"
    # "how long does the client wait before a request times out?": its timeout
    r"|\bhow\s+long\b.*\b(?:times?\s+out|time-?outs?)\b",
    re.I)


def asks_how_often(question: str) -> bool:
    """Whether any part of the question asks how often something happens, or after how
    long it times out: an interval a tutorial may give only in its code (`refreshMs = 5000`,
    `setInterval(f, 5 * 60 * 1000)`, `timeout: 10000,`)."""
    return bool(_HOW_OFTEN.search(question))


# "What's the web address of the Item Builder?", "Which WebSocket URL do I use...?",
# "which website...": the thing asked for is where something is on the web.
_WEB_PLACE = r"(?:urls?|web\s?address(?:es)?|websites?|web\s?pages?|links?|sites?|homepage)"
_URL_ASKED = re.compile(r"\b(?:what|which|where)(?:'s|\s+is|\s+are|\s+was)?\s+"
                        r"(?:the\s+|its\s+)?(?:[\w'’.-]+\s+){0,3}?" + _WEB_PLACE
                        + r"\b(?!\s+(?:path|between)\b)"
                        # a terse request: "palmera docs link", "connectkit website?"
                        r"|^\s*(?:[\w'’.-]+\s+){1,4}" + _WEB_PLACE + r"\s*\??\s*$", re.I)


def asks_for_url(question: str) -> bool:
    """Whether the question asks for a URL: a web address, a website, a link."""
    return bool(_URL_ASKED.search(_typed(question)))


# "In the VRF consumer example, what happens if...": a question about the docs' own example
# (not "what happens if, for example, ...")
_EXAMPLE = re.compile(r"\b(?:the|this|that|its|their)\s+(?:[\w.'-]+\s+){0,4}?"
                      r"(?:example|tutorial|sample|snippet|demo)s?\b", re.I)


# "...the first one added or the last?", "FastAPI's or Starlette's?" (not "or so", "or not")
_ALTERNATIVES = re.compile(r"\w\s+or\s+(?!so\b|not\b|something\b|anything\b)\w", re.I)


# "WHICH DECENTRALIZED EXCHANGE shows up among...?": the kind of thing a which-question asks
# to be named, one or two words after "which".
_KIND_ASKED = re.compile(r"^\s*which\s+([a-z][\w-]*(?:\s+[a-z][\w-]*)?)\s+(?!of\b)", re.I)


def kind_asked(question: str) -> str | None:
    """The kind of thing a question opening "Which ..." asks for ("decentralized exchange"
    of "Which decentralized exchange shows up...?"); None for any other question."""
    m = _KIND_ASKED.match(_typed(question))
    return m.group(1) if m else None


# "What PORT does docent listen on?": the one word a what/which question names as the thing
# whose value it asks for, right before the verb ("what kind of...", "what if..." name none).
_NOUN_ASKED = re.compile(r"^\s*(?:what|which)\s+(?!(?:kind|type|sort|if|else)\b)([a-z][\w-]*)\s+"
                         r"(?:is|are|was|were|does|do|did|can|could|should|will|would|has|have"
                         r"|must)\b", re.I)


def noun_asked(question: str) -> str | None:
    """The thing a question opening "What/Which NOUN does/is..." asks the value of ("port"
    of "What port does docent listen on by default?"); None for any other question."""
    m = _NOUN_ASKED.match(_typed(question))
    return m.group(1) if m else None


def offers_alternatives(question: str) -> bool:
    """Whether the question offers things to choose from, whose answer may name one of
    them in the question's own words."""
    return bool(_ALTERNATIVES.search(question))


def asks_about_example(question: str) -> bool:
    """Whether the question asks about an example or tutorial the docs give: its answer
    may be in the example's code whatever the kind of answer it wants."""
    return bool(_EXAMPLE.search(question))


# "BESIDES UVICORN, which ASGI servers...?": what the question sets aside, up to the end of
# its clause; six words at most, or it is a scene ("besides our TypeScript frontend we
# need Java and Go clients").
_SET_ASIDE = re.compile(
    r"\b(?:besides|apart\s+from|aside\s+from|other\s+than|except\s+for|beyond(?:\s+just)?)\s+"
    r"(?P<what>.+?)\s*(?=,\s*(?:what|which|who|how|where|when|is|are|do|does|can|could|should"
    r"|will|would|i|we)\b|[;:?!]|\.\s|\.?$)", re.I)
_MAX_SET_ASIDE = 6


def set_aside(question: str) -> str | None:
    """What the question asks beyond ("Besides SOMI/USDC.e, what's the other pair?":
    SOMI/USDC.e): the answer is something else. None when it sets nothing aside."""
    m = _SET_ASIDE.search(question)
    if m is None or len(m.group("what").split()) > _MAX_SET_ASIDE:
        return None
    return m.group("what")


# "What is the context budget?", "What does SSE stand for?": a term to define, short and
# alone in its question.
_DEFINE = re.compile(r"^\s*(?:what\s+(?:is|are)|what's)\s+(?:an?\s+|the\s+)?"
                     r"(?P<term>[\w`'.-]+(?:\s+[\w`'.-]+){0,3}?)\s*\??\s*$", re.I)
_MEANS = re.compile(r"^\s*what\s+(?:does|do)\s+(?:an?\s+|the\s+)?"
                    r"(?P<term>[\w`'.-]+(?:\s+[\w`'.-]+){0,3}?)\s+(?:mean|stand\s+for)"
                    r"\s*\??\s*$", re.I)
# A name in code or capitals: `COMPLETED`, exit_reason, DOCENT_PORT, SSE
_CODE_NAME = re.compile(r"`[^`]+`|[A-Z]{2,}[A-Z0-9]*|\w+_\w+")


def defined_term(question: str) -> str | None:
    """The term a "What is X?" or "What does X mean?" question asks to define ("context
    budget"), the last name in code or capitals when it gives one among other words ("the
    exit reason `COMPLETED`": COMPLETED, as the docs define it); None for any other
    question."""
    text = _typed(question)
    m = _DEFINE.match(text) or _MEANS.match(text)
    if m is None:
        return None
    term = m.group("term")
    names = [w for w in term.split() if _CODE_NAME.fullmatch(w)]
    if names and len(term.split()) > 1:
        term = names[-1]
    return term.strip("`")


@lru_cache(maxsize=4096)
def intent_of(question: str) -> Intent:
    """The kind of answer `question` asks for, the most specific reading first, read from its
    sentences that ask (end in "?") when others set the scene ("Need a header showing how
    long the request took. What's the simplest way?" asks how, not how long)."""
    text = _typed(question)
    parts = sentences(text)
    asking = [s for s in parts if s.rstrip().endswith("?")]
    if asking and len(asking) < len(parts):
        text = " ".join(asking)
    if _WHY.match(text):
        return Intent("concept")
    if _OUTCOME.search(text):
        return Intent("outcome")
    # A value asked inside a how-question's own sentence is part of the how: "how do I work
    # out HOW MUCH STT to send", "how does the pool decide WHAT PRICE a swap gets".
    # Nor one a relative clause describes: "the middleware THAT MEASURES HOW LONG each request
    # takes: which clock function does it use?" asks for a name.
    value = next((m for m in _VALUE.finditer(text)
                  if not _MECHANISM.search(sentences(text[: m.start()])[-1])
                  and not _DESCRIBED.search(text, 0, m.start())), None)
    if value:
        name = _NAME.search(text)
        # "Which settings control how long it waits?": the name is asked for, the value
        # words only say what it is about.
        if name and name.end() <= value.start():
            return Intent("name")
        return Intent("value")
    if _HOWTO.search(text):
        return Intent("howto")
    if _NAME.search(text) or _WHICH.search(text):
        return Intent("name")
    if _CONCEPT.search(text):
        return Intent("concept")
    if _YESNO.search(text):
        return Intent("yesno")
    return Intent("other")


# (not after "i.e.", "e.g." or "vs.": "What's the voting period, i.e. how many days...?")
SENTENCE_END = re.compile(r"(?<=[.!?])(?<!\bi\.e\.)(?<!\be\.g\.)(?<!\bvs\.)\s+", re.I)


def sentences(text: str) -> list[str]:
    """`text` cut after each ".", "!" or "?" that whitespace follows, but an abbreviation's."""
    return SENTENCE_END.split(text)


# A personal pronoun, which may stand for what an earlier sentence or turn names.
PRONOUN = re.compile(r"\b(?:it|its|they|them|their)\b", re.I)

# "Which REST endpoint do I hit, AND HOW do I authenticate?": a second ask in one sentence.
_AND_ASKS = re.compile(r",?\s+and\s+(?=(?:how|what|which|where|when|why|who|whats|is|are|does|do"
                       r"|can|should|will)\b)", re.I)


_MAX_LATER_ASKS = 3  # a message of a hundred asks searches for the first few


def later_asks(question: str) -> list[str]:
    """The asks after the first one: each further sentence that asks ("...verified? What do
    I add to the hardhat config?") and each "and how/what..." clause of one; at most
    `_MAX_LATER_ASKS`."""
    asks = [part for sentence in sentences(" ".join(question.split()))
            if sentence.rstrip().endswith("?") for part in _AND_ASKS.split(sentence)]
    return [a for a in asks[1:] if len(a.split()) >= 3][:_MAX_LATER_ASKS]


# "whats the address", "what’s the fee": how people type "what's"
_WHATS = re.compile(r"\b(what|where|who|how|that)(?:s|’s)\b", re.I)


def _typed(question: str) -> str:
    """The question with its whitespace collapsed and "whats" / "what’s" read as "what's"."""
    return _WHATS.sub(r"\1's", " ".join(question.split()))
MeasureKind = Literal["percent", "version", "duration", "money", "size", "count", "number"]


@dataclass(frozen=True)
class Measure:
    """What a question asking for a value measures, and the words that name it."""

    kind: MeasureKind
    words: tuple[str, ...] = ()  # the measured thing as the question names it ("sessions")
    # How many of `words` a count counts, when the rest opens a relative clause ("files" of
    # "the number of files DOCENT can ingest"); None: all of them.
    counted: int | None = None


_WORDS = r"((?:[a-z][\w'-]*\s+){0,2}[a-z][\w'-]*)"
# Words that end the noun phrase a measure names ("how many tokens WILL ever exist").
_PHRASE_END = frozenset(
    """a an the is are was were be been do does did can could should would will may might
    must has have had to of for in on at by with from per does that which who when where
    i you we they it my your our their this these those there and or""".split()
)
# "the default THREAD COUNT": a count of threads; not "other spellings count the same"
_NOUN_COUNT = (r"\b(?:the|a|default|maximum|max|minimum|min|total|current)\s+(?:\w+\s+)?"
               r"([a-z]\w+)\s+count\b(?!\s+as\b)")  # not "when does a proposal COUNT AS passed"
# "the max players a world can host", "the max batch of records": a count of players, records
_MAX_PLURAL = (r"\b(?:max|maximum|min|minimum)\s+(?:(?:number|batch)\s+of\s+)?"
               r"(?!(?:is|was|has|does|this|its|as|us|yes|plus)\b)([a-z]{2,}[a-rt-z]s)\b")
# "the requests-per-second cap", "how fast in transactions per second": a count of them in
# a unit of time.
_RATE = r"\b[a-z]{3,}s[\s-]+per[\s-]+(?:second|sec|minute|min|hour|day|block)\b"
# Pieces of data, whose largest one or "how large" asks for a size.
_DATA = (r"(?:message|payload|body|file|upload|request|response|record|chunk|document|page"
         r"|image|blob|object|string|packet|batch|entry|log|cache|index|database)")
# "How long can a QUESTION be?", "How long can the selected_text FIELD be?" ask for a length
# of text, not a time; "How long can a cache entry be KEPT?" asks for a time.
_TEXTS = (r"(?:question|prompt|query|name|title|text|password|input|description|label|line"
          r"|field|parameter|header|selection|url|path|key|content|history|context|greeting"
          r"|answer|reply|summary|snippet|sentence|paragraph|section|comment|slug)")
_LONG_TEXT = (r"how\s+long\s+(?:can|may|could|should|must|is|are)\s+"
              r"(?:(?:a|an|the|my|our|one|each|your|its|their)\s+)?(?:[\w-]+\s+)?(?:"
              + _TEXTS + "|" + _DATA + r")s?\s+(?:allowed\s+to\s+)?be\b"
              r"(?!\s+(?:\w+ed|kept|held|idle|open|alive|valid|active|down|offline|left|run"
              r"|sent)\b)")
# "How long can IT be?": a length or a time, by what "it" is; a value of no definite kind.
_LONG_POINTER = re.compile(r"\bhow\s+long\s+(?:(?:can|may|could|should|must)\s+(?:it|they|this"
                           r"|that|these|those)\s+be|(?:is|are)\s+(?:it|they|this|that|these"
                           r"|those))\s*[?.!]")
_MEASURES: list[tuple[MeasureKind, re.Pattern[str]]] = [
    ("percent", re.compile(r"\bwhat\s+(?:percentage|percent|share|fraction|proportion)\b"
                           r"|\bhow\s+much\s+of\s+(?:a|an|the|my|our|its|their|your)\b"
                           r"|\b(?:in|as\s+a)\s+(?:percent|percentage)\b"
                           # the ratios lending states as percentages
                           r"|\b(?:loan-to-value|ltv|collateral\s+(?:factor|ratio)"
                           r"|liquidation\s+(?:threshold|penalty))\b")),
    # "what's the minimum FastAPI / OpenAPI version", "what is the latest version"
    ("version", re.compile(r"\b(?:which|what)(?:'s|’s|s\b|\s+is|\s+are)?\s+(?:the\s+)?"
                           r"(?:(?!(?:between|of|for|in|on|with|to|and|or|from)\b)[\w/.-]+\s+){0,4}?"
                           r"(?:versions?|releases?(?!\s+notes?\b))\b|\bsince\s+which\b")),
    ("duration", re.compile(
        r"\b(?!" + _LONG_TEXT + r")how\s+(?:long|often|frequently|soon)\b|\bafter\s+how\s+long\b"
        r"|\bhow\s+many\s+(?:milliseconds|seconds|minutes|hours|days|weeks|months|years)\b"
        r"|\bin\s+(?:milliseconds|seconds|minutes|hours|days|weeks|months|years)\b"
        r"|\b(?:what|which)(?:'s|\s+is|\s+are)?\s+(?:the\s+)?(?:[\w'’-]+\s+){0,3}?(?:duration|"
        r"interval|period|timeout|delay|lifetime|ttl|latency|block\s+time|finality|"
        r"lock(?:-?up)?\s+period|cool-?down|vesting|max[-_]age)s?\b")),
    ("money", re.compile(
        r"\bhow\s+much\s+(?:\w+\s+)?(?:does|do|did|will|would|is|are|should)\b.{0,80}?\b(?:cost|pay|charge|"
        r"earn|spend)\b|\bwhat\s+(?:does|do|did|will|would)\s+.{0,60}?\b(?:charge|cost)\b"
        r"|\bwhat\s+(?:apy|apr)\b"
        r"|\bhow\s+much\s+(?:gas|fees?)\b"
        r"|\b(?:what|which)(?:'s|\s+is|\s+are)?\s+(?:the\s+)?(?:[\w.'’-]+\s+){0,3}?(?:price|pricing|cost|"
        r"fee|(?<!\bin\s)charge(?!\s+of\b)|apy|apr|interest\s+rate)s?\b"
        # "Which PRICE PAIRS does the oracle provide?", "price feeds": a kind of data
        r"(?!\s+(?:feeds?|pairs?|oracles?|data|updates?|sources?|streams?)\b)")),
    ("size", re.compile(
        r"\b" + _LONG_TEXT + r"|\bhow\s+much\s+(?:memory|ram|disk|storage|space|bandwidth)\b"
        r"|\b(?:in|how\s+many)\s+(?:bytes|kilobytes|megabytes|gigabytes|kb|mb|gb)\b"
        # not what storage costs or holds ("the extra STORAGE GAS", "a storage slot")
        r"|\b(?:size|memory|disk\s+space|storage(?!\s+(?:gas|costs?|fees?|slots?|reads?"
        r"|writes?|access|keys?|variables?|layout|proofs?|operations?|opcodes?))|ram"
        r"|max[-_]size)\b"
        # "the largest single MESSAGE", "the biggest PAYLOAD": a size of a piece of data
        r"|\b(?:largest|biggest|smallest)\s+(?:[\w-]+\s+){0,2}?" + _DATA + r"s?\b"
        # "How large can the gap LOG FILE grow?": the size of a piece of data, not a count
        r"|\bhow\s+(?:large|big)\s+(?:\w+\s+){0,2}?(?:(?:the|a|an|my|our|its|their|your|one"
        r"|each|this|that)\s+)?(?:[\w-]+\s+){0,2}?" + _DATA + r"s?\b")),
    # "the default THREAD COUNT": a count of threads
    ("count", re.compile(r"\bhow\s+many\b|\bnumber\s+of\b|" + _NOUN_COUNT + "|" + _MAX_PLURAL
                         + "|" + _RATE)),
    ("number", re.compile(
        r"\bhow\s+much\b|\b(?:what|which)(?:'s|\s+is|\s+are)?\s+(?:the\s+)?(?:[\w'’-]+\s+){0,3}?"
        r"(?:default|maximum|minimum|max|min|limit|threshold|rate|ratio|amount|supply|"
        r"count|total|cap|capacity)s?\b")),
]
# "How much slower can a storage read get?", "What does ecPairing cost relative to
# Ethereum?": a factor ("up to 1000x", "250 times"), whatever it is of.
_FACTOR = re.compile(r"\bhow\s+(?:much|many\s+times)\s+(?:slower|faster|quicker|cheaper"
                     r"|costlier|pricier|higher|lower|better|worse)\b"
                     r"|\brelative\s+to\s")
# "The minimum amount of SOMI", "how much ETH": an amount of a currency or token, named in
# capitals (read before the question is lower-cased).
_TOKEN_AMOUNT = re.compile(
    r"(?i:\b(?:amount|much)\s+of|\bhow\s+much)\s+"
    r"(?!(?:RAM|CPU|GPU|VRAM|SSD|HDD|[KMGT]i?B|IOPS|TPS)\b)[A-Z][A-Z0-9]{1,5}\b"
    r"(?!\s+(?:supply|stake))"
)
# "What colour and size...", "which font size": a size of how a thing looks.
_LOOKS = re.compile(r"\b(?:colou?rs?|fonts?|font-size)\b")
_COUNT_NOT_SIZE = re.compile(
    r"\bhow\s+many\s+(?!(?:bytes|kilobytes|megabytes|gigabytes|kb|mb|gb)\b)"
)
_COUNTED = re.compile(r"\bhow\s+many\s+" + _WORDS + r"|\bnumber\s+of\s+" + _WORDS)
_COUNT_OF = re.compile(_NOUN_COUNT + "|" + _MAX_PLURAL)
# Words before what is counted that say which of them, not what they are.
_MODIFIERS = frozenset(
    """free new different distinct separate extra additional individual unique active
    concurrent simultaneous parallel possible available total more fewer""".split()
    # "how many EARLIER turns does it remember?": which ones, in time; docs say "the last
    # 10 turns"
    + "earlier previous prior past recent latest".split()
)
_NUMBER_WORDS = frozenset(
    "one two three four five six seven eight nine ten hundred thousand million billion".split()
)
_MEASURED = re.compile(r"\bhow\s+much\s+" + _WORDS)
# "Which Python version", "the version of (the) Chroma": what the version is of.
# ("which OpenAPI SPEC version": OpenAPI's, a kind of thing between)
_VERSIONED = re.compile(r"\b(?!(?:which|what|whats|the|is|are|an?|this|that|between|minimum|maximum"
                        r"|min|max|latest|current|recommended|required|supported|stable|default"
                        r"|oldest|newest|lowest|highest|exact|first|last|next|previous|new|old"
                        r"|older|newer)\b)([a-z][\w.-]*)"
                        r"(?:\s+(?:spec|specification|standard|schema|package|library|sdk))?"
                        r"\s+versions?\b"
                        r"|\bversions?\s+of\s+(?:the\s+|an?\s+)?([a-z][\w.-]*)")
# "the largest MARKDOWN FILE size", "the size of AN UPLOAD": what a size is of.
_SIZE_AFTER = re.compile(r"((?:[a-z][\w'-]*\s+){1,2})(?:size|length)s?\b")
_SIZE_OF = re.compile(r"\b(?:size|length)s?\s+of\s+(?:an?\s+|the\s+)?" + _WORDS)
# Words before "size" that say which size, not of what ("the DEFAULT chunk size", "BELOW
# what size").
_SIZE_MODIFIERS = frozenset(
    """default maximum minimum max min largest biggest smallest total average typical
    recommended allowed current overall exact what which how any below above under over
    beyond within""".split()
)


# Words of a question about the project's releases: what changed ("no longer parsed"),
# since when, after an upgrade. A changelog's entries answer such questions; they explain
# nothing else.
_RELEASES = re.compile(
    r"\b(?:releases?|released|versions?|changelog|change\s*log|deprecat\w*|since"
    # "when was it added", not "...use when the credentials are missing?"
    r"|when\s+(?:did|was|were|will)|added"
    r"|introduced|removed|changed|breaking|upgrad\w*|bump\w*|migrat\w*|no\s+longer|any\s?more"
    r"|used\s+to|stopped)\b",
    re.I,
)


# "Where do the docs send me for more on testing websockets?", "Where can I learn more
# about HTTPS?": the answer is where to read, which the docs' pointers say.
_FURTHER_READING = re.compile(
    r"\bwhere\s+(?:can|could|do|does|should|would)\s+(?:i|we|you|the\s+(?:\w+\s+)?docs?|it|they)"
    r"\s+(?:\w+\s+)?(?:read|learn|find\s+out|point|send|refer|direct)\b"
    r"|\b(?:point|send|refer|direct)s?\s+(?:me|us|you|readers|beginners)\b"
    r"|\b(?:further|more)\s+reading\b|\blearn\s+more\s+about\b", re.I)


def asks_where_to_read(question: str) -> bool:
    """Whether `question` asks where to read more: the docs' pointers answer it."""
    return bool(_FURTHER_READING.search(question))


def about_releases(question: str) -> bool:
    """Whether `question` asks about the project's releases or changes ("Which release
    added...?", "After bumping fastapi..."), for which a changelog entry may lead."""
    return bool(_RELEASES.search(question))


@lru_cache(maxsize=4096)
def measure_of(question: str) -> Measure | None:
    """What a question asking for a value measures (None for other questions): the kind of
    value (a percentage, a duration, an amount of money...) and the words naming it."""
    if intent_of(question).kind != "value":
        return None
    text = _typed(question).lower()
    if _FACTOR.search(text) or _LONG_POINTER.search(text):
        return Measure("number")
    for kind, pattern in _MEASURES:
        if kind == "size" and _COUNT_NOT_SIZE.search(text):
            continue  # "how many storage slots": a count of things that hold data
        if kind == "size" and _LOOKS.search(text) and pattern.search(text):
            # "What colour and size is the clock face?", "what font size": how a thing
            # looks, set by a bare number (`radius="4"`, `font-size="200"`), no data size
            return Measure("number")
        if kind == "money" and _TOKEN_AMOUNT.search(question):
            return Measure("money")  # "the minimum amount of SOMI I can buy"
        if pattern.search(text):
            words, counted = _named(text, kind)
            return Measure(kind, words, counted if kind == "count" else None)
    return Measure("number")


def _named(text: str, kind: MeasureKind) -> tuple[tuple[str, ...], int | None]:
    """What is counted or measured: the noun phrase after "how many" / "number of" / "how
    much"; for a size, the words before "size" ("the largest MARKDOWN FILE size") or after
    "size of". With it, how many of its words come before a relative clause (None: all)."""
    if kind == "version":
        v = _VERSIONED.search(text)
        return ((next(g for g in v.groups() if g),) if v else ()), None
    m = _COUNTED.search(text) if kind == "count" else _MEASURED.search(text)
    if m is None and kind == "count":
        m = _COUNT_OF.search(text)
    if m is None and kind == "size":
        before = _SIZE_AFTER.search(text)
        words = [w for w in (before.group(1).split() if before else [])
                 if w not in _SIZE_MODIFIERS and w not in _PHRASE_END]
        if words:  # the words before "size", without "the largest..."
            return tuple(words), None
        m = _SIZE_OF.search(text)
    if m is None:
        return (), None
    words = next(g for g in m.groups() if g).split()
    phrase: list[str] = []
    counted = None
    for i, w in enumerate(words):
        if w in _PHRASE_END or w in _NUMBER_WORDS or len(phrase) == 2:
            break
        # "the number of files DOCENT CAN ingest": after a plural, a word before a modal
        # opens a relative clause ("SOMI tokens will ever exist": the plural is the noun).
        if (counted is None and phrase and _PLURAL.fullmatch(phrase[-1])
                and i + 1 < len(words) and words[i + 1] in _MODALS):
            counted = len(phrase)
        if w not in _MODIFIERS:  # "how many FREE compute units": compute units
            phrase.append(w)
    if phrase and kind == "count" and counted is None:
        phrase += _counted_per(text, phrase[-1], m.start(m.lastindex or 0))
    return tuple(phrase), counted


_MODALS = frozenset("can could will would should may might must does do".split())
_PLURAL = re.compile(r"\w+[^aisu\W]s")  # "files", "tokens"; not "gas", "status", "bus"


def _counted_per(text: str, counted: str, start: int) -> list[str]:
    """What a count is per ("how many workers PER CORE"), unless a rate's unit, a time or
    a request ("per minute" is written "/min", "a minute"...); [] when it is none."""
    per = re.compile(rf"\b{re.escape(counted)}\s+per\s+([a-z][\w'-]*)").search(text, start)
    return [per.group(1)] if per is not None and per.group(1) not in _PER_TIME else []


_PER_TIME = frozenset(
    """second sec minute min hour day week month year block epoch request call""".split())
