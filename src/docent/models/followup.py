"""A question read in its conversation, for a model that cannot read one.

The built-in `extractive` model has no language understanding: "What chain ID does it use?"
after "What is the Shannon testnet?" must become "What chain ID does the Shannon testnet
use?" before it can be searched or answered, while "What is Cuthbert and what does it
protect against?" asked next is a new question, to be searched as it is. A model that reads
conversations gets the same standalone question for the agent's first search.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from docent.intent import PRONOUN
from docent.models.text import terms

# Words that point back at the previous turn: "What chain ID does IT use?", "What's the
# msg text in THAT error?", "the Spanish ONE", "anything in THERE?", "Is there AN EQUIVALENT
# for websockets?"...
_POINTING = "it|its|this|that|these|those|they|them|their|there|ones?|he|she|his|her"
_POINTER = re.compile(
    rf"\b(?:{_POINTING})\b"
    r"|\b(?:an?|the)\s+(?:equivalent|counterpart|alternative)\b"
    r"|\bsuch\s+(?!as\b)(?:an?\s+)?\w",  # "from inside SUCH a dependency?"
    re.I,
)
# ... but not as a question of its own uses them: "Is THERE a tool...?", "a fake ONE",
# "an endpoint THAT only updates the fields the client sent", "How much does IT cost to
# launch...?", "Is IT possible to...?", words in quotes ("that" points when it ends its
# sentence or nearly: "in that error?", "for that, or...", "that one", or after a verb or
# preposition).
_TO = r"(?:\s+[\w'-]+)?\s+to\b"
# ("that" after these is the thing talked about: "How much gas does THAT cost for a day?")
_TAKES_THAT = "does do did is was will would can in on for with of about from to by into"
# ... and after a conjunction, opening its clause: "once THAT limit is reached", "if THAT
# fails".
_OPENS_WITH_THAT = "once when whenever if after before until while because since unless"
# (a word of a thing named, not one of those: "a dependency THAT yields")
_NOUN = r"(?!(?:" + _TAKES_THAT.replace(" ", "|") + r")\b)[\w.'-]+"
# ("that" after these is asked about whatever follows: "Is THAT your default?")
_AUXILIARIES = "does do did is was are were will would can could should"
# ("Is IT worth upgrading to v2?", "it's a bad idea to...": "it" stands for what follows)
_JUDGED = (r"(?:worth\s+\w+ing\s+(?=\w)|(?:a\s+)?(?:good|bad)\s+idea\s+to\b"
           rf"|(?:possible|necessary|safe|ok|okay|better|best|recommended){_TO})")
_NOT_POINTING = re.compile(
    r"\b(?:is|are|was|were)\s+there\b|\bthere(?=\s+(?:is|are|was|were)\b|'s)"
    r"|\b(?:a|an)\s+(?:[\w-]+\s+)?ones?\b"
    r"|" + "".join(rf"(?<!\b{w}\s)" for w in (_TAKES_THAT + " " + _OPENS_WITH_THAT).split())
    + r"\bthat\b(?!\s*(?:,|ones?\b)|(?:\s+[\w'-]+){0,3}\s*(?:[?.!]|$))"
    rf"|\bit(?=\s+(?:costs?|takes?){_TO})"
    rf"|\b(?:(?:is|was)\s+it|it(?:\s+is|\s+was|'s))(?=\s+{_JUDGED})"
    # "that" opening a clause of its own: "topics users ask about THAT my docs don't cover",
    # "paths THAT don't exist", "a dependency THAT yields"
    + "|" + "".join(rf"(?<!\b{w}\s)" for w in _AUXILIARIES.split())
    + r"\bthat(?=\s+(?:(?:i|we|you|they|he|she|my|our|your|their|don't|doesn't|didn't|isn't"
    r"|aren't|won't|can't|cannot|has|have|will|should|must|needs?)\b))"
    rf"|\b(?:an?|the|any|some|each|every|my|our|your|their)\s+{_NOUN}\s+that\b"
    # quoted words are the quote's: 'users ask "what does THIS do?"'
    r"|\"[^\"]*\"|“[^”]*”",
    re.I,
)
# "one" points back as "which one", "the Spanish one", "one of them"; "on one server" counts
# and "one of my docs" picks.
_ONE = re.compile(r"\bones?\b", re.I)
_ONE_POINTS = re.compile(r"\b(?:which|each|that|this|the(?:\s+[\w-]+){0,2})\s+ones?\b"
                         r"|\bones?(?=\s*(?:[?.!,;:]|$)|\s+of\s+(?:them|these|those)\b)", re.I)
# Code, or a dotted or slashed name: "`SessionStore`", "app.state", "/api/v1".
_CODE = r"`[^`]+`|\b\w+[._/]\w+"
# A word not opening the question or one of its sentences (where any word has a capital).
_INSIDE = r"(?<![.!?]\s)(?<!^)\b"
# A pointer stands for what the question itself names before it when a clause comes first
# ("What is Cuthbert AND what does it protect against?", "My app is served behind a proxy.
# How do I fix it?", "I need test tokens - where do I get them?") and that clause names a
# thing: a capitalised word not opening a sentence (not "I"), code, a noun after a
# determiner, or after the "Which"/"What" opening the question ("Which files does ingestion
# skip, and can I change them?").
_CLAUSE_BREAK = re.compile(r"[.!?;:](?:\s|$)|\s[-–—]+\s|\b(?:but|because)\b"
                           r"|(?:\band|\bor|,)\s+(?=(?:"
                           r"what|which|how|where|why|who|when|can|could|do|does|did|is|are"
                           r"|should|will|would)\b)", re.I)
_PHRASE = re.compile(r"\s*(?:in|inside|on|at|for|with|within|from|into|under|over|through"
                     r"|during|without|by|of|about|per|via|out\s+of)\b", re.I)
_NAMES_A_THING = re.compile(
    _INSIDE + r"(?!I\b|I')[A-Z][\w.-]*|" + _CODE
    + r"|(?i:\b(?:a|an|the|my|our|your|some|any|another|all|each|every)\s+[\w.'-]+)"
    + r"|(?i:^\s*(?:which|what)\s+(?!(?:is|are|was|were|does|do|did|can|could|should|would"
    r"|will|of|about|if|else|happens)\b)[a-z][\w'-]+)",
    re.M,
)
# So does a personal pronoun after a name in its own clause ("How do I close an UploadFile
# once I'm finished with IT?", "What vision does Somnia describe for ITS blockchain?"): a
# name with a lower-case letter, not an acronym ("Which HTTP library is it based on?"),
# and not one the pronoun is compared with ("When would I use Security() instead of it?").
_NAME = re.compile(_INSIDE + r"[A-Z][\w.-]*[a-z][\w.-]*|" + _CODE, re.M)
# In a long question, so does any pronoun after a thing named with a determiner in its own
# clause ("Where should I put code that loads a machine learning model once when the app
# boots and frees IT on shutdown?"): long questions carry their own context; short ones
# ("How do I add a header to it?") lean on the conversation's.
_LONG_WORDS = 16
_DETERMINED = re.compile(r"\b(?:a|an|the|my|our|your|one|several|many|multiple|both|all)"
                         r"\s+(?P<words>[\w.'-]+(?:\s+[\w.'-]+){0,2})", re.I)
_NOT_NOUNS = frozenset("""is are was were be has have had do does did can could will would should
    and or but of to in on for with at by from as that which who when so if than then""".split())
_PLURAL = re.compile(r"(?<![su])s$")
_COMPARED = re.compile(r"\b(?:instead\s+of|rather\s+than|than|unlike|versus|vs\.?|compared\s+"
                       r"(?:to|with)|besides)\s*$|^\s*(?:besides|apart\s+from|other\s+than)\b",
                       re.I)
# A short question naming its thing only as "the ..." ("How big are the report files?")
# means the conversation's thing, unless it names one of its own: a name, or a compound
# ("the tool-call limit"). "The best way to..." names no thing.
_DEFINITE = re.compile(r"\bthe\s+(?!(?:best|recommended|right|easiest|simplest|proper|correct"
                       r"|preferred|usual|standard)\s+way\b)[\w.-]+", re.I)
_SHORT_WORDS = 10
_COMPOUND = re.compile(r"\b\w+[-_]\w+")

_ELLIPTICAL = re.compile(r"\s*(?:and|also|what\s+about|how\s+about|same\s+for)\b", re.I)
# A question going on from the answer before: "SO what happens to the part that doesn't go
# to validators?", "What do I need to set up for write calls THEN?", "What do the docs URLs
# respond with AFTERWARDS?", "Can I use Redis INSTEAD?".
_GOING_ON = re.compile(r"^\s*so\s+(?=(?:what|which|how|where|why|who|when|can|could|do|does"
                       r"|is|are|should|will|would)\b)|\b(?:then|afterwards|after\s+that"
                       r"|instead)\s*[?.!]*\s*$", re.I)


# An earlier question that names what the conversation is about: "What is the Shannon
# testnet?", "What is FileResponse for?", "How does IceDB work?".
_SUBJECT = re.compile(
    r"^\s*(?:what\s+(?:is|are|was|were)|what's|tell\s+me\s+about|explain|describe"
    r"|how\s+(?:does|do)|who\s+(?:is|are))\s+(?P<subject>.+?)"
    r"(?:\s+(?:used\s+for|for|do|work|works|mean|about))?\s*[?.!]*\s*$",
    re.I,
)
_MAX_SUBJECT_WORDS = 6
# A subject is no person ("How do I stream answers?") nor a place ("Who is behind Somnia?").
_NO_SUBJECT = re.compile(r"(?:i|we|you|behind|in|on|at|for|with|about|from|of|by|into|under"
                         r"|over)\b", re.I)
_MOVED_TO = re.compile(
    r"^\s*(?i:and|also|what\s+about|how\s+about|same\s+for)\s+(?i:(?:for|with|in|on)\s+)?"
    r"(?P<thing>(?i:the|an?|my|our|your|its|this|that)\s+[\w.'-]+(?:\s+[\w.'-]+)*"
    r"|`[^`]+`|[A-Z][\w.-]*(?:\s+[A-Z][\w.-]*)*)\s*[?.!]*\s*$"
)
_SEVERAL = re.compile(r"\b(?:and|or|between|difference|vs)\b", re.I)


def condense_query(question: str, earlier_questions: Sequence[str]) -> str:
    """A standalone question for a follow-up that leans on the previous turn: the pronoun
    pointing back replaced by what that turn asked about ("What chain ID does it use?"
    after "What is the Shannon testnet?": "What chain ID does the Shannon testnet use?"),
    else the previous question prefixed as its scene; the previous question standalone in
    turn, so a third turn ("And the RPC URL?") still knows what the first was about. A
    question that points at nothing before it, or at what it names itself ("What is
    Cuthbert and what does it protect against?"), is asked as it is: a new topic in the
    same conversation."""
    scene, asked = condensed(question, earlier_questions)
    return f"{scene} {asked}" if scene else asked


def condensed(question: str, earlier_questions: Sequence[str]) -> tuple[str, str]:
    """`condense_query` in its two parts: the scene set before the question from earlier
    turns ("" when none is), and the question asked now, its pronoun maybe replaced."""
    if not earlier_questions:
        return "", question
    pointer = _pointer(question)
    # A word pointing back, nothing else, or an ellipsis ("what about going faster?", "And
    # with Foundry?"): it asks about what the turn before asked about.
    if (pointer is not None or _ELLIPTICAL.match(question) or _goes_on(question)
            or (not _names_its_own(question)
                and (len(terms(question)) <= 1 or _definite_only(question)))):
        previous = condense_query(earlier_questions[-1], earlier_questions[:-1])
        subject = _subject(previous)
        moved = None if subject else _moved_to(earlier_questions[-1])
        pronoun = PRONOUN.search(question, pointer) if pointer is not None else None
        if (thing := subject or moved) and pronoun:
            named = _naming(pronoun.group(0), thing)
            asked = f"{question[:pronoun.start()]}{named}{question[pronoun.end():]}"
            # ("And the RPC URL? Is it free?": the thing moved to, in the scene it moved in)
            return (_as_scene(previous), asked) if moved else ("", asked)
        return _as_scene(previous), question
    return "", question


# What a short question names of its own, though it has no capital: code or an address
# ("what does 0.0.0.0 mean"), words in quotes ('the difference between "fastapi dev" and
# "fastapi run"'), or the thing a "what is X" question asks about, written with no "the"
# ("what is solhint for", "what is a path operation"; not "What's the default?", nor a
# comparison: "What is faster?").
_COMPARING = (r"(?:better|best|worse|worst|more|less|least|most|(?:fast|quick|slow|easi|simpl"
              r"|cheap|saf|big|bigg|small|larg|long|short|high|low|new|old|great|strong)(?:er|est))")
_OWN_NAMES = re.compile(
    _CODE + r"|\d+(?:\.\d+)+|\"[^\"]+\"|“[^”]+”"
    r"|^\s*(?:what\s+(?:is|are)|what'?s)\s+(?:an?\s+[a-z]"
    rf"|(?!(?:the|{_POINTING}|next|new|wrong|different|same|possible|left|missing|default|up"
    rf"|going|{_COMPARING})\b)[a-z])",
    re.I,
)


def _names_its_own(question: str) -> bool:
    """Whether a question with at most one word of content, or naming its thing only as
    "the ...", still names a thing of its own (`_OWN_NAMES`): a new question, not the
    conversation's."""
    return _OWN_NAMES.search(question) is not None


def _goes_on(question: str) -> bool:
    """Whether `question` goes on from the answer before (`_GOING_ON`) in its one clause: in
    "What command runs my app locally, and what should I use in production instead?" the
    "instead" is its own first clause's."""
    m = _GOING_ON.search(question)
    return m is not None and not _clauses(question[: m.start()])


def _definite_only(question: str) -> bool:
    """Whether `question` is short and names what it asks about only as "the ...", with
    no name of its own ("How big are the report files?", "What's the URL of the create
    page?"): the thing it means is the one the conversation is about."""
    return (len(question.split()) <= _SHORT_WORDS and _DEFINITE.search(question) is not None
            and _NAME.search(question) is None and _COMPOUND.search(question) is None)


# "that" before a noun: "...every field whose VALUE equals the default, even when THAT VALUE
# was set explicitly" points at what the question itself named before.
_THAT_NOUN = re.compile(r"\bthat\s+([A-Za-z][\w-]*)", re.I)


def _said_before(that: re.Match[str], question: str) -> str:
    """`that` masked when the question names its noun before it, else as it is."""
    noun = set(terms(that.group(1)))
    before = set(terms(question[: that.start()]))
    return "_" * len(that.group(0)) if noun and noun <= before else that.group(0)


def _pointer(question: str) -> int | None:
    """Where `question` first points back at an earlier turn; None when it does not, or when
    what it points at is named in the question itself (see `_NAMES_A_THING`)."""
    masked = _NOT_POINTING.sub(lambda m: "_" * len(m.group(0)), question)
    masked = _THAT_NOUN.sub(lambda m: _said_before(m, question), masked)
    counted = {m.end() for m in _ONE_POINTS.finditer(masked)}
    masked = _ONE.sub(lambda m: m.group(0) if m.end() in counted else "_" * len(m.group(0)),
                      masked)
    found = _POINTER.search(masked)
    if found is None:
        return None
    before = question[: found.start()]
    clauses = _clauses(before)
    if clauses:
        # ("Besides deploying to FastAPI Cloud, can it...?" names what "it" is not)
        first = before[: clauses[-1].start()].strip()
        if _NAMES_A_THING.search(first) and not _COMPARED.search(first):
            return None
    if not PRONOUN.fullmatch(found.group(0)) or _COMPARED.search(before):
        return found.start()
    own = before[clauses[-1].end():] if clauses else before
    if _NAME.search(before.strip()) or (len(question.split()) >= _LONG_WORDS
                                        and _names_one(own, found.group(0))):
        return None
    return found.start()


def _names_one(clause: str, pronoun: str) -> bool:
    """Whether `clause` names with a determiner a thing `pronoun` can stand for: "a machine
    learning model" for "it", "my tokens" for "they", but not "our app" for "them"."""
    plural = pronoun.lower() in ("they", "them", "their")
    for found in _DETERMINED.finditer(clause):
        words = []
        for word in found.group("words").split():
            if word.lower() in _NOT_NOUNS:
                break
            words.append(word.lower())
        if words and (not plural or any(_PLURAL.search(w) for w in words)):
            return True
    return False


def _clauses(text: str) -> list[re.Match[str]]:
    """Where `text`'s clauses end; a comma ends one only after a clause, not after a
    phrase ("Inside the function, how do I...?")."""
    out: list[re.Match[str]] = []
    for m in _CLAUSE_BREAK.finditer(text):
        start = out[-1].end() if out else 0
        if m.group(0).startswith(",") and _PHRASE.match(text, start):
            continue
        out.append(m)
    return out


def _as_scene(question: str) -> str:
    """An earlier question as a sentence setting the scene for the one asked now: what
    the answer should be is then read from the question asked now alone ("How long does
    an entry stay in it?" asks for a duration, though "Why does docent cache answers?"
    came first)."""
    return question.rstrip().rstrip("?!.").rstrip() + "."


def _subject(question: str) -> str | None:
    """What a "What is X?" question is about: X (short enough to stand for a pronoun)."""
    m = _SUBJECT.match(question)
    if m is None:
        return None
    subject = m.group("subject").strip()
    if _NO_SUBJECT.match(subject):
        # "How do I stream answers?" asks how to do something, about no subject; "Who is
        # behind Somnia?" asks who, and "them" is not "behind Somnia"
        return None
    if len(subject.split()) > _MAX_SUBJECT_WORDS or _SEVERAL.search(subject):
        return None  # "the difference between A and B": "them" is A and B, not the difference
    return subject


def _moved_to(question: str) -> str | None:
    """What an elliptical question moves the conversation on to: "the model cache" of "And
    the model cache?", `MAX_TOOL_CALLS_REACHED` of "What about MAX_TOOL_CALLS_REACHED?"; a
    thing named with a determiner, a capital or as code, short enough to stand for a
    pronoun; not a doing ("what about going faster?")."""
    m = _MOVED_TO.match(question)
    if m is None:
        return None
    thing = m.group("thing").strip()
    if len(thing.split()) > _MAX_SUBJECT_WORDS or _SEVERAL.search(thing):
        return None
    return thing


def _naming(pronoun: str, subject: str) -> str:
    """The subject in the pronoun's place: "its" and "their" become "X's"."""
    return f"{subject}'s" if pronoun.lower() in ("its", "their") else subject
