"""Is what retrieval found enough to answer from? Three signals, checked in code.

Top-1 cosine similarity does not separate answerable from unanswerable questions (their
distributions overlap almost entirely on the evaluation corpora). Three do better:

1. Unknown names: the question names something (a capitalised word inside a sentence,
   an acronym, even typed in lower case, a mixed-case or digit-bearing term such as "gRPC"
   or "HTTP/3") that the corpus never uses, in any form (one character short of a word it
   uses is that word: "MiCA" for MiCAR). Docs that never mention a thing
   cannot explain it. A name only in the sentences that set the scene before the question
   ("I add an X-Total-Count header to my responses, but... What am I missing?") is the
   user's own, not what the docs must explain (`asked_part`), unless the question points
   back at the scene ("...How do I deploy THERE?") and the scene names nothing of the
   docs as code writes it, which "it" would be ("I serve PDF downloads with
   FileResponse. Which headers does it add?": `pointed_scene`, `known_api_names`).
2. Unknown words that carry the question: any word the corpus never uses in any form
   ("ambassador"), capitalised or not. Such words are often harmless paraphrase ("folder"
   for "directory"), so this one fires only when the question's meaning depends on them:
   removing them moves the question's sentence vector by more than a threshold (the
   shift is 1 - cosine; the retriever measures it with its own embedder), or one of them
   is the very thing a which/what question asks for ("In which regions...") or a yes/no
   question asks about ("can I use a webm file?", "does it enable autoescape?"), or the
   doing a "way to" question asks about ("the way to revoke a token").
3. Coverage: each distinctive question term is weighted by its rarity in the corpus
   (inverse document frequency; a term the corpus never uses weighs most), and coverage
   is the weighted share of terms found in the retrieved passages.

With the first, a feature the question takes for granted as built in ("FastAPI's built-in
admin panel") counts as a name: docs that have such a feature name it, so a passage
retrieved for the question must (`unnamed_features`).

When any fires, retrieval counts as empty, so the run refuses with no sources. The
threshold and its calibration are in CONTRACT.md and bench/calibrate_sufficiency.py.
"""

from __future__ import annotations

import math
import re
from bisect import bisect_right
from collections.abc import Collection, Iterable, Mapping, Sequence
from functools import lru_cache

from docent.intent import SENTENCE_END, measure_of, sentences
from docent.retrieval.bm25 import EXTENSIONS, RAW_WORD, Changelog, root, stem, tokenize
from docent.retrieval.chunking import embedding_text
from docent.retrieval.shorthand import SHORTHAND as _SHORTHAND
from docent.retrieval.shorthand import spelled_out
from docent.retrieval.spelling import is_english
from docent.retrieval.types import WARM_CHUNKS, Chunk, Hit

# Words that shape a question but never name its subject.
GENERIC = frozenset(
    stem(w)
    for w in """use used using make get set work works need needs want way ways happen happens
    mean means meaning differ difference different example examples explain tell show
    describe step steps possible able thing something anything everything kind type types
    good best better should must also like just instead other another each every any all
    some many much more most one two first new own same sure situation situations case
    cases scenario scenarios circumstance circumstances exactly actually really else
    already completely while still m""".split()
)
_FILE_NAME = re.compile(r"[\w-]+\.[a-z][a-z0-9]*")
_VOWEL = re.compile(r"[aeiouy]")
# Chat shorthand has no vowel either, and names nothing.
_FILLERS = frozenset("btw pls plz thx thnx tbh lmk smth ppl hmm hmmm brb fwiw nvm".split())
_NO_CHANGELOG = Changelog()
_SENTENCE_START = re.compile(r"(?:^|[.!?:]\s+|\n)\W*$")


# "What POOL_SIZE do the docs recommend?", "what DEFAULT pool_size...": an identifier in code
# the question asks for is a name; one the user's own code has ("a header named x_api_key")
# is not, written so.
_ASKED_IDENTIFIER = re.compile(r"\b(?:what|which)\s+(?:the\s+)?(?:(?:default|initial|max|maximum"
                               r"|min|minimum)\s+)?(?:[\w-]+\s+and\s+)?$", re.I)
# "Is there a MAX_RETRIES option?": an identifier named as an option of the product's.
_OPTION_BEFORE = re.compile(r"\b(?:a|an|any)\s+`?$", re.I)
_OPTION_AFTER = re.compile(r"`?\s+(?:option|setting|parameter|param|argument|flag|kwarg)s?\b",
                           re.I)


def _named_option(question: str, m: re.Match[str]) -> bool:
    """Whether the word `m` is named, in a yes/no question, as an option the question asks
    about: "is there a `max_retries` option?" (not "my `x_token` parameter", the user's
    own, nor "how do I add an `x_token` parameter?")."""
    return (_OPTION_BEFORE.search(question, 0, m.start()) is not None
            and _OPTION_AFTER.match(question, m.end()) is not None
            and any(a.start() <= m.start() < a.end() for a in _YES_NO.finditer(question)))


# Words that introduce an example, which is the user's own.
_FOR_EXAMPLE = r"e\.\s?g\.|eg\.|for\s+example|for\s+instance|such\s+as"
# A name given as an example: "a path with slashes, e.g. home/notes.txt".
_EXAMPLE = re.compile(rf"\b(?:{_FOR_EXAMPLE}),?\s*[\"'`(]*$", re.I)
# "run it on AWS or another provider": one of a kind the question asks about, an example.
_OR_ANOTHER = re.compile(r"\s+or\s+(?:an?other|any\s+other|some\s+other|other)\b", re.I)
# Inline code in a question, as markdown writes it.
_CODE_SPAN = re.compile(r"`([^`\n]+)`")
# "X-Trace-Id": by the HTTP convention for custom headers, a name the user made up.
_CUSTOM_HEADER = re.compile(r"X-[A-Za-z][\w-]*", re.I)
# "Annotated[MyParams, Depends(MyParams)]", "my_dep": a name the user gave their own code.
_MINE = re.compile(r"(?:My|my_?)(?=[A-Z_])|my_")
# "raises a custom OutOfStockError": a compound name (capitals inside it) the user made.
_OWN = re.compile(r"\b(?:custom|own)\s+$", re.I)
_COMPOUND_NAME = re.compile(r"[a-z][A-Z]")
# "coming from Spring: ...", "migrating a legacy PHP site", "porting our app from Express":
# what the user is leaving, named in passing; the question is about where they are going.
_OLD = r"(?:(?:a|an|the|our|my|old|legacy|existing|big)\s+)*"
_LEAVING = re.compile(r"\b(?:(?:coming|moving|switching|migrating|porting|migrate|port|move"
                      r"|switch)\s+(?:(?:our|my|the|an?|this)\s+\w+\s+)?(?:(?:over|away)\s+)?"
                      r"from|(?:migrat|port)\w*)\s+" + _OLD + "$", re.I)
# Words in the asking sentence that point back at the scene before it ("How do I deploy
# THERE?", "Will THAT fail?"): the scene's names are then what it asks about.
_BACK_REFERENCE = re.compile(r"\b(?:it|they|them|there|that|this|these|those)\b", re.I)
_ASKS = r"what|which|how|where|why|who|can|could|should|do|does|is|are"  # words opening an ask
# ... ended by a comma, a colon or a dash ("setting up ConnectKit for testnet - what do I wrap
# my layout in?").
_LEAD_IN = re.compile(rf"^([^,?]{{12,}}?)(?:,|:|\s+[-–—]+)\s+(?=(?:when|{_ASKS})\b)", re.I)
# A lead-in that asks itself ("When" may open a scene: "When I hit Ctrl+C, how long...?")
_ASKING = re.compile(rf"\s*(?:whats|{_ASKS})\b", re.I)


def asked_part(question: str, *, keep_pointed_scene: bool = True) -> str:
    """The question from its first sentence that asks (ends in "?") on, when sentences that
    only set the scene come before it and the asking ones do not point back at them. With
    `keep_pointed_scene` False, a scene opening the asking sentence is left out even when
    that sentence points back at it ("Setting up an OApp on mainnet - what address do I
    point IT at?"): the refusal checks need such a scene, ranking statements by what is
    asked does not (`docent.retrieval.focus`)."""
    parts, first, lead_in = _scene_split(question)
    asked = parts[first:]
    # (a later sentence pointing back needs the scene either way)
    pointing = asked[1:] if lead_in and not keep_pointed_scene else asked
    if first == 0 or any(_BACK_REFERENCE.search(p) for p in pointing):
        return question
    return " ".join(asked)


def pointed_scene(question: str) -> tuple[str, str] | None:
    """(scene, asking part) of a question whose asking part points back at the scene
    before it ("I serve PDF downloads with FileResponse. Which headers does IT add?");
    None when nothing sets a scene or nothing points back at it."""
    parts, first, _ = _scene_split(question)
    if first == 0 or not any(_BACK_REFERENCE.search(p) for p in parts[first:]):
        return None
    return " ".join(parts[:first]), " ".join(parts[first:])


def _scene_split(question: str) -> tuple[list[str], int, re.Match[str] | None]:
    """The question's sentences, the index of the first that asks, and the lead-in that
    opened it, if any (then split off as a sentence of its own)."""
    parts = sentences(question.strip())
    first = next((i for i, p in enumerate(parts) if p.rstrip().endswith("?")), 0)
    # "Adding Somnia mainnet to Rabby by hand, what chain id do I type in?": a scene set
    # before the comma of the asking sentence, too.
    lead_in = _LEAD_IN.match(parts[first])
    if lead_in and _ASKING.match(lead_in.group(1)):
        lead_in = None  # "What's its pricing like, is there a free tier?": two asks
    if lead_in:
        asking = parts[first][lead_in.end(1):].lstrip(" ,:-–—")
        parts[first : first + 1] = [lead_in.group(1), asking]
        first += 1
    return parts, first, lead_in


# A name as code writes it: "FileResponse", "api/v1", "max_length", "app.state"
_API_NAME = re.compile(r"[a-z][A-Z]|[/_.]\w")


def known_api_names(
    text: str, doc_freq: Mapping[str, int], raw_words: Collection[str],
    changelog_only: Changelog = _NO_CHANGELOG,
) -> list[str]:
    """Names in `text` written as code ("FileResponse", "api/v1") that the corpus uses;
    not proper names ("Ethereum", "Pydantic"), which a scene may hold beside what it
    asks about."""
    return [m.group(0) for m in RAW_WORD.finditer(text)
            if _API_NAME.search(m.group(0))
            and _uses(m.group(0).lower(), doc_freq, raw_words, changelog_only)]


def unknown_names(
    question: str, doc_freq: Mapping[str, int], raw_words: Collection[str],
    changelog_only: Changelog = _NO_CHANGELOG, whole: str = "",
) -> list[str]:
    """Names in `question` that the corpus never uses, as written or stemmed, outside its
    changelogs (`changelog_only`: what only those use); for a question asking which version
    or release did something, a changelog's names count: it answers such questions.
    `whole` is the text `question` was taken from (its scene too, so it holds `question`),
    where an acronym may be spelled out ("Django REST Framework was the go-to. Which
    companies use DRF?")."""
    measure = measure_of(question)
    if measure is not None and measure.kind == "version":
        changelog_only = _NO_CHANGELOG
    unknown = []
    code = [span.span(1) for span in _CODE_SPAN.finditer(question)]
    guessed = sorted(_guesses(question))
    guess_starts = [a for a, _ in guessed]
    for m in RAW_WORD.finditer(question):
        word = m.group(0)
        if _own_code(question, m, code, doc_freq, raw_words, changelog_only):
            continue
        if _coined(word, question, m.start(), doc_freq, raw_words, changelog_only):
            unknown.append(word)
            continue
        at_sentence_start = bool(_ends_at(_SENTENCE_START, question, m.start()))
        # A guess at the answer is a name, never one in passing ("Which headers tell how
        # many requests are left, like X-RateLimit-Remaining?": not the user's own header).
        at = bisect_right(guess_starts, m.start()) - 1
        guess = at >= 0 and m.start() < guessed[at][1]
        if not (
            _looks_like_a_name(word, at_sentence_start=at_sentence_start)
            or "_" in word.strip("_") and (_ends_at(_ASKED_IDENTIFIER, question, m.start())
                                           or _named_option(question, m)
                                           or guess)  # "...a hook, like @app.on_disconnect?"
        ) or _in_passing(word, question, m) and not guess:
            continue
        # "saved as Latin-1, not UTF-8": what the user has, set against a thing the docs
        # name; their answer about that thing is the answer.
        contrast = _CONTRASTED.match(question, m.end())
        # (".env": the docs' words hold the name without its dot)
        if contrast and _uses(contrast.group(1).lower().lstrip("."), doc_freq, raw_words,
                              changelog_only):
            continue
        low = word.lower()
        if all(len(p) == 1 and p.isalpha() for p in word.split("/")):
            continue  # "trade A for C with no A/C pool": pairs of placeholders, no names
        if _is_path(low):  # "backend/main.py": the docs name files by their last part
            parts = [low.rsplit("/", 1)[-1]]  # (raw words hold the last parts of the docs' paths)
        else:
            # "FastAPI/Starlette" names two things, each known or not ("HTTP/3" names one);
            # "JSON-encoded" a name and a plain word ("JIT/AOT-compile": JIT, AOT, compile).
            named = word.split("/")
            if not all(len(p) > 1 and any(ch.isalpha() for ch in p) for p in named):
                named = [word]
            parts = [w.lower() for part in named for w in _compound(part)]
        if all(_uses(p, doc_freq, raw_words, changelog_only) or _version_of(p, raw_words)
               for p in parts):
            continue
        # "typing.Annotated" when the docs import Annotated from typing: a dotted name
        # whose every part the docs use.
        dotted = word.split(".")
        if (len(dotted) > 1 and dotted[-1].lower() not in EXTENSIONS
                and all(p.isidentifier() for p in dotted)
                and all(_uses(p.lower(), doc_freq, raw_words, changelog_only) for p in dotted)):
            continue
        # "py3.10", "python3.12": a known name and a version of it.
        versioned = _VERSIONED.fullmatch(low)
        if versioned and _uses(versioned.group(1), doc_freq, raw_words, changelog_only):
            continue
        # "still on 0.x": a series of versions, known when the docs give one of it.
        series = _SERIES.fullmatch(low)
        if series and any(w.startswith(series.group(1)) for w in raw_words):
            continue
        # "a generic 4xx error": a class of codes, known when the docs give a code of it.
        codes = _CODE_CLASS.fullmatch(low)
        if codes and any(len(w) == 3 and w.isdigit() and w[0] == codes.group(1)
                         for w in raw_words):
            continue
        # "Who created DRF?" after "Django REST Framework": an acronym the question spells out.
        if _spelled_out_in(word, whole or question):
            continue
        # "MiCA" for the docs' "MiCAR", "SHA-256" for their "SHA2-256": a name one
        # character short of one the docs use is that name, written short.
        if _one_short(low, raw_words, changelog_only):
            continue
        unknown.append(word)
    return unknown


_INSERTABLE = "abcdefghijklmnopqrstuvwxyz0123456789-"


def _one_short(low: str, raw_words: Collection[str], changelog_only: Changelog) -> bool:
    """Whether the docs use (outside their changelogs) a word that is `low`, a name of four
    or more characters, with one character more; a plural's "s" does not count ("Lambda"
    is not the docs' "lambdas")."""
    if len(low) < 4:
        return False
    for at in range(len(low) + 1):
        for ch in _INSERTABLE:
            longer = f"{low[:at]}{ch}{low[at:]}"
            if (longer in raw_words and longer not in changelog_only.words
                    and not (ch == "s" and at == len(low))):
                return True
    return False


def _version_of(low: str, raw_words: Collection[str]) -> bool:
    """Whether `low` is a version the docs give with more parts: "0.122" (or "v0.122")
    when they write "0.122.0"."""
    version = _VERSION.fullmatch(low)
    return version is not None and any(w.startswith(f"{version.group(1)}.") for w in raw_words)


_VERSION = re.compile(r"v?(\d+(?:\.\d+)+)")
# A series of versions: "0.x", "v2.x", "4.x.x" (its prefix: "0.", "2.", "4.").
_SERIES = re.compile(r"v?((?:\d+\.)+)x(?:\.x)*")
# A class of three-digit codes, as HTTP's are written: "4xx", "5XX" (its first digit).
_CODE_CLASS = re.compile(r"([1-9])xx")
# A name run into a dotted version: "py3.10" (not "ERC721": a number, no version).
_VERSIONED = re.compile(r"([a-z]{2,})v?\d+(?:\.\d+)+")
# ... not a file or a package named like one ("web3.py", "ethers.js").


def _spelled_out_in(word: str, question: str) -> bool:
    """Whether an acronym (2-6 capitals) stands in `question` as the initials of as many
    consecutive capitalised words ("DRF": "Django REST Framework"); those words are looked
    up as names of their own."""
    if not (2 <= len(word) <= 6 and word.isalpha() and word.isupper()):
        return False
    initials = r"\W+".join(rf"{ch}[\w'-]*" for ch in word)
    return re.search(rf"\b{initials}\b", question) is not None


def _coined(word: str, question: str, at: int, doc_freq: Mapping[str, int],
            raw_words: Collection[str], changelog_only: Changelog) -> bool:
    """Whether `word` (at `at` in `question`) is a lower-case compound none of whose words
    the docs use ("permessage-deflate", "brotli-precompressed") in a sentence that asks: it
    names a technology. In a sentence setting the scene ("our cluster is air-gapped") it
    is the user's own."""
    pieces = word.lower().split("-")
    if len(pieces) < 2 or not all(len(p) > 2 and p.isalpha() for p in pieces):
        return False
    start = max((s.end() for s in SENTENCE_END.finditer(question, 0, at)), default=0)
    end = SENTENCE_END.search(question, at)
    asking = question[start : end.start() if end else len(question)].rstrip().endswith("?")
    return asking and not any(_uses(p, doc_freq, raw_words, changelog_only) for p in pieces)


def _compound(word: str) -> list[str]:
    """A name and the plain word after it ("JSON-encoded", "Cayman-based") as two, each
    known or not; a prefix and a name ("non-English", "pre-Cancun") as the name; else the
    word itself ("per-IP", "gRPC-web", "X-API-Key", "UTF-8")."""
    pieces = word.split("-")
    if len(pieces) == 2 and pieces[0].lower() in _PREFIXES and len(pieces[1]) > 1:
        return [pieces[1]]
    if len(pieces) > 2 and any(p.lower() in _JOINING for p in pieces[1:-1]):
        # "the NFT-metadata-on-IPFS guide", "state-of-the-art": words the user joined
        return [p for p in pieces if p.lower() not in _JOINING]
    if (len(pieces) > 1 and all(len(p) > 1 and p.isalnum() for p in pieces)
            and pieces[-1].isalpha() and pieces[-1].islower()):
        return pieces
    return [word]


# Prefixes of a name that say "not", "before", "many"... of the thing the name names.
_PREFIXES = frozenset("non pre post anti multi cross semi".split())
# Words that join a phrase, not a name, when hyphens tie them in.
_JOINING = frozenset("of on in to for with and or the a an as by at from via".split())


def _uses(low: str, doc_freq: Mapping[str, int], raw_words: Collection[str],
          changelog_only: Changelog) -> bool:
    """Whether the corpus uses a (lower-cased) name outside its changelogs, or the word its
    shorthand stands for ("k8s": kubernetes; "req/s": requests)."""
    if low in raw_words and low not in changelog_only.words:
        return True
    spelled = _SHORTHAND.get(_PER_UNIT.sub("", low))
    if spelled is not None:
        return _uses(spelled, doc_freq, raw_words, changelog_only)
    # "LPs" when the docs say "LP": a two-letter stem is no keyword term, so look it up whole.
    single = low[:-1] if low.endswith("s") else ""
    if len(single) >= 2 and single in raw_words and single not in changelog_only.words:
        return True
    term = stem(low)
    # "JWTs" when the docs say "JWT"
    return low.isalpha() and doc_freq.get(term, 0) > 0 and term not in changelog_only.terms


# "turn on FastAPI's BUILT-IN ADMIN PANEL so I can...": up to three words after it.
_PRESUMED = re.compile(r"(?:'s|\bthe|\bits)\s+built-?in\s+((?:[\w-]+\s+){0,2}[\w-]+)", re.I)
_AWAY_FROM = re.compile(
    r"\b(?:instead\s+of|rather\s+than|other\s+than|apart\s+from|besides|without|not)\s*$",
    re.I,
)
_NO_FEATURE = frozenset(
    stem(w) for w in """way ways method methods approach option options solution mechanism
    feature features functionality capability support""".split()
)
# "req/s", "tx/sec": a rate, named by what it counts
_PER_UNIT = re.compile(r"/(?:s|sec|second|min|minute|h|hr|hour|day)$")
_NOT_A_NAME = re.compile(  # where the name ends ("cache SO...", not the "on" of "on-chain")
    r"(?<![\w-])(?:so|to|that|for|in|on|at|with|from|and|or|which|when|if|instead|than|of|by"
    r"|after|before|during|until|once|while|as|via|through|without)"
    r"(?![\w-])", re.I
)


def unnamed_features(question: str, passages: Iterable[str]) -> list[str]:
    """Features `question` takes for granted as built in ("the built-in response cache")
    whose name (its last two terms, in order) no passage uses."""
    texts: list[str] | None = None
    unnamed = []
    for m in _PRESUMED.finditer(question):
        if _AWAY_FROM.search(question, 0, m.start()):
            continue  # "deploy through MetaMask instead of the built-in Remix VM": not asked about
        phrase = " ".join(m.group(1).split())
        cut = _NOT_A_NAME.search(phrase)
        feature = phrase[: cut.start()].strip() if cut else phrase
        # "the built-in FastAPI WAY to serve it": a way of doing it, not a feature's name
        name = [t for t in tokenize(feature) if t not in _NO_FEATURE][-2:]
        if not name:
            continue
        if texts is None:
            texts = [f" {' '.join(tokenize(p))} " for p in passages]
        if not any(f" {' '.join(name)} " in t for t in texts):
            unnamed.append(feature)
    return unnamed


# "localStorage": a name in lower camelCase, as code spells what prose writes as words.
_LOWER_CAMEL = re.compile(r"[a-z]+(?:[A-Z][a-z]+)+")


def spelled_apart(name: str, passages: Iterable[str]) -> bool:
    """Whether `name`, written in lower camelCase ("localStorage"), is in a passage as its
    words ("no cookies and no local storage"): docs write what code names in prose."""
    if not _LOWER_CAMEL.fullmatch(name):
        return False
    words = re.findall(r"[A-Z]?[a-z]+", name)
    apart = re.compile(r"\b" + r"[\s_-]*".join(map(re.escape, words)) + r"\b", re.I)
    return any(apart.search(text) for text in passages)


def unknown_words(
    question: str, doc_freq: Mapping[str, int], raw_words: Collection[str],
    root_freq: Mapping[str, int] | None = None,
) -> list[re.Match[str]]:
    """Words of `question` the corpus never uses, as written, stemmed or, given `root_freq`,
    in another derived form ("deploy" for "deployment"); stopwords, generic question words
    and numbers aside."""
    unknown = []
    for m in RAW_WORD.finditer(question):
        low = m.group(0).lower()
        if low in raw_words:
            continue
        low = _SHORTHAND.get(low, low)  # "which graphql lib": the docs say "library"
        terms = [t for t in tokenize(low) if t not in GENERIC and not t.isdigit()]
        if terms and all(_freq(t, doc_freq, root_freq) == 0 for t in terms):
            unknown.append(m)
    return unknown


# "In which REGIONS can...", "What APY are...": the thing a which/what question asks for,
# the word before its verb or subject (not "what WENT wrong": "wrong" is neither; not
# after a comma, where "which" starts a clause: ", which BROKE our SDK").
_ASKED = re.compile(
    r"(?<!,\s)\b(?:which|what)\s+(?:[a-z][\w-]*\s+)??([a-z][\w-]*)\s+(?:can|could|do|does|did|is|are"
    r"|was|were|will|would|should|must|has|have|may|might|i|we|you|they|it|my|our|your"
    # "with what BACKOFF between attempts?": the thing asked for, before what it is of
    r"|between|for|per|on)\b"
    # "can I use a WEBM file...?", "can StaticFiles serve PRECOMPRESSED files?", "can I
    # change the COLOR of the button?": what a yes/no question asks whether it can be used,
    # served, accepted, changed...
    r"|\bcan\s+(?:the\s+|my\s+|our\s+|your\s+|this\s+)?[\w.]+\s+"
    r"(?:automatically\s+|also\s+|natively\s+|directly\s+)?"
    r"(?:use|upload|pass|send|load|serve|accept|parse|read|handle|return|stream|render"
    r"|change|customi[sz]e|configure|adjust|modify|set)\s+"
    r"(?:an?\s+|the\s+)?([a-z][\w-]*)"
    # "does Jinja2Templates enable HTML AUTOESCAPE by default?": whether it does that thing
    # (of a subject of up to five words: "does the docent chat page support SPEECH input?")
    r"|(?:^|(?<=[.!?]\s))(?:does|do|will)\s+(?:[\w.-]+\s+){1,5}?"
    r"(?:enable|support|turn\s+on|allow|have(?!\s+to\b)|offer)\s+(?:an?\s+|the\s+|any\s+)?([a-z][\w-]*(?:\s+[a-z][\w-]*)?)"
    # "is there an AUTO_RELOAD option?": whether that setting exists
    r"|\bis\s+there\s+(?:an?\s+|any\s+)?([a-z][\w-]*)\s+(?:option|setting|parameter|flag"
    r"|argument|config(?:uration)?|method|function|field|attribute|endpoint|command)s?\b"
    # "is SLOWAPI the recommended way?": whether the thing it names is the way
    r"|(?:^|(?<=[.!?]\s))(?:is|are)\s+([a-z][\w.-]*)\s+(?:the|a|an)\s+(?:[\w-]+\s+){0,2}?"
    r"(?:way|approach|option|choice|library|tool|solution|package)s?\b"
    # "what's the recommended way to REVOKE or BLACKLIST a token?": the doing asked about
    r"|\bway(?:\s*,[^,?]{0,60},)?\s+to\s+([a-z][\w-]*(?:\s+or\s+[a-z][\w-]*)?)"
    # "how much OVERLAP is there between chunks?": the amount asked for is of that thing
    # (not "how many": users count in their own words, "back-and-forths" for "turns")
    r"|\bhow\s+much\s+([a-z][\w-]*)",
    re.I,
)
# A yes/no question (also after a clause setting the scene: "When we are in one world, can
# we talk over...?"); a dot inside a word ("HTTP/1.1") or of "i.e." and "e.g." ends none
# ("Does it handle conditional GETs, i.e. answer If-None-Match with a 304?") ...
_YES_NO = re.compile(r"(?:^|(?<=[.!?]\s))(?:[^,?.]{3,80},\s*)?(?:can|could|does|do|is|are)\b"
                     r"(?:[^?.]|\.(?=\S)|(?<=\bi\.e)\.|(?<=\be\.g)\.)*", re.I)
# ... and each means it asks about: "can players talk over VOICE chat?", "sign in through
# Privy with a PASSKEY?", "compress the stream with BROTLI?", "protection against
# IMPERMANENT loss?".
_MEANS = re.compile(r"\b(?:over|via|through|using|with|against)\s+(?:an?\s+|the\s+)?([a-z][\w-]*)",
                    re.I)


# ... and, in any sentence that asks, the tool it names to do it with ("What's the
# recommended way to call a SOAP service USING ZEEP?"); "over" and "with" name the user's
# own scene there as often ("...sent OVER THE WIRE?", "the dice example WITH THE FANCY
# animation").
_QUESTION_SENTENCE = re.compile(r"(?:^|(?<=[.!?]\s))[^.?!]*\?")
_TOOL = re.compile(r"\b(?:via|through|using)\s+(?:an?\s+|the\s+)?([a-z][\w-]*)", re.I)


# ... and, in a yes/no question or one asking which or what, the name it offers as its
# guess at what it asks for ("Which environment variable turns on debug mode, something
# LIKE FASTAPI_DEBUG?", "Does it support VR headsets SUCH AS OCULUS Quest?"): docs that
# never name it cannot say it is the one. (Not in a scene the question sets before it:
# "We name env vars in caps like DATABASE_URL. Will the fields match?")
# A name: "like a scoreboard" gives a use, not a guess at the tag asked for.
# (A dot ending the sentence is no part of it: "...like gravity." names nothing.)
_GUESSED = re.compile(r"\b(?:[Ll]ike|[Ss]uch\s+as)\s+[\"'`(]*@?"
                      r"((?=[\w$/-]*(?:[A-Z0-9_$]|\.[\w$]))[\w$][\w$/-]*(?:\.[\w$/-]+)*)")
_MAX_GUESS = 80  # characters a guessed name may run on past where its sentence seemed to end
_WHICH_ASKED = re.compile(r"\s*(?:[^,?.]{3,80},\s*)?(?:which|what)\b", re.I)


# "Why did FastAPI go with Pydantic rather than MSGSPEC?": a why question asks why one thing
# and not the other; docs that never name the other cannot say why not it. The other is
# the last word before the sentence ends ("...rather than an asymmetric algorithm like
# RS256?"); a plain English word there ("rather than a NUISANCE", "instead of just GLUING
# together...") is the user's way of putting it, not a thing the docs should name.
# (A dot inside a word, "HTTP/1.1", "Python 3.10", ends no sentence.)
_WHY_NOT = re.compile(r"(?:^|(?<=[.!?]\s))(?:[^,?.]{3,80},\s*)?(?:why|how\s+come)\b"
                      r"(?:[^?.]|\.(?=\S))*?\b(?:rather\s+than|instead\s+of|as\s+opposed\s+to)\s+"
                      r"(?:[^?.,;]|\.(?=\S))*?"
                      r"[`'\"]?([\w$@][\w.$@-]*?)[`'\"]?\s*(?:[?!;,]|\.(?:\s|$)|$)", re.I)


# A query typed as a few words, no sentence ending: "deploy a validator with terraform".
_TERSE = re.compile(r"\s*[^.?!\s]+(?:\s+[^.?!\s]+){0,7}\s*")


# Which firm / company / team...: asks who, and docs name the auditor or the maintainer
# without the word for what kind of body it is.
_WHO = frozenset({
    "firm", "firms", "company", "companies", "vendor", "vendors", "organization",
    "organizations", "organisation", "organisations", "agency", "agencies", "person",
    "people", "team", "teams",
})


def asks_for_unknown(question: str, unknown: Sequence[re.Match[str]]) -> bool:
    """Whether the thing a which/what question asks for, or a yes/no question asks about
    (whether it can be used, whether something does it, any means it names, whether there
    is such an option or setting), or a "way to" question asks how to do, or a "how much"
    question asks the amount of, or any question names as its tool ("using zeep"), is one
    of its `unknown` words (or names): docs that never say "regions" cannot tell which
    regions, nor whether a "webm" file plays, nor how much "overlap" there is. A question
    asking which firm, company or team does something asks who, which docs answer with a
    name."""
    asked = [m.span(m.lastindex or 0) for m in _ASKED.finditer(question)]
    asked += [means.span(1) for asking, named in ((_YES_NO, _MEANS), (_QUESTION_SENTENCE, _TOOL))
              for ask in asking.finditer(question)
              for means in named.finditer(question, ask.start(), ask.end())]
    asked += _guesses(question)
    if _TERSE.fullmatch(question):
        # "deploy fastapi with terraform": a query typed as keywords asks through what
        asked += [means.span(1) for means in _MEANS.finditer(question)]
    other = [why.span(1) for why in _WHY_NOT.finditer(question)]
    return any(a <= m.start() < b and m.group().lower() not in _WHO
               for m in unknown for a, b in asked) or any(
        a <= m.start() < b and not _plain_word(m.group()) for m in unknown for a, b in other)


def in_yes_no(question: str, found: Sequence[re.Match[str]]) -> bool:
    """Whether one of `found` (matches in `question`) is in a yes/no question of it: there
    a name is part of what is asked ("Does FastAPI answer a request carrying If-None-Match
    with a 304 on its own?"), however little it moves the question's vector, and docs that
    never name it cannot say yes."""
    spans = [ask.span() for ask in _YES_NO.finditer(question)]
    return any(a <= m.start() < b for m in found for a, b in spans)


def _plain_word(word: str) -> bool:
    """Whether `word`, typed in lower case, reads as English: in the word list (which holds
    words of five letters or more), or shorter with a vowel ("a hack"; not "zmq")."""
    return word.isalpha() and word.islower() and (
        is_english(word) if len(word) >= 5 else _VOWEL.search(word) is not None)


def _guesses(question: str) -> list[tuple[int, int]]:
    """Where `question` offers a name as its guess at what it asks for (`_GUESSED`): one
    the asking sentence introduces, read whole though it holds a dot the sentence was
    taken to end at ("like @app.on_disconnect")."""
    return [guess.span(1)
            for ask in [*_YES_NO.finditer(question),
                        *(s for s in _QUESTION_SENTENCE.finditer(question)
                          if _WHICH_ASKED.match(s.group()))]
            for guess in _GUESSED.finditer(question, ask.start(), ask.end() + _MAX_GUESS)
            if guess.start() < ask.end()]


def without(question: str, words: Sequence[re.Match[str]]) -> str:
    """`question` with `words` (matches in it) removed, spaces tidied."""
    for m in sorted(words, key=lambda m: m.start(), reverse=True):
        question = question[: m.start()] + question[m.end() :]
    return " ".join(question.split())


# Content the user quotes as an example ("...for a file upload field, like 'the avatar
# image, max 2MB'?"): theirs, not words the docs must use.
_QUOTED_EXAMPLE = re.compile(rf"\b(?:like|{_FOR_EXAMPLE}),?\s*[\"'“‘][^\"'”’\n]{{1,80}}[\"'”’]",
                             re.I)


def coverage(
    query: str, hits: Sequence[Hit], doc_freq: Mapping[str, int], n_docs: int,
    root_freq: Mapping[str, int] | None = None,
) -> float:
    """Weighted share (0..1) of the query's distinctive terms found in the hits (given
    `root_freq`, a term also counts as found, and weighs, in another derived form)."""
    terms = {t for t in tokenize(_QUOTED_EXAMPLE.sub(" ", query))
             if t not in GENERIC and not t.isdigit()}
    if not terms:
        return 1.0
    rooted = root_freq is not None
    found = [_terms_and_roots(h.chunk) if rooted else _terms_of(h.chunk) for h in hits]

    def covered(t: str) -> bool:
        # A passage saying "production" covers a question's "prod".
        forms = {t, *spelled_out(t), *((root(t),) if rooted else ())}
        return any(not forms.isdisjoint(f) for f in found)

    weight = {t: math.log((n_docs + 1) / (_freq(t, doc_freq, root_freq) + 0.5)) for t in terms}
    total = sum(weight.values())
    if total <= 0:
        return 1.0
    return sum(w for t, w in weight.items() if covered(t)) / total


def remember_terms(chunks: Iterable[Chunk]) -> None:
    """Work out the terms of `chunks` now (a server's warm-up), not at their first search."""
    for chunk in chunks:
        _terms_and_roots(chunk)


@lru_cache(maxsize=WARM_CHUNKS)
def _terms_of(chunk: Chunk) -> frozenset[str]:
    """The keyword terms of a chunk as indexed, remembered: hits come back across questions
    (tokenising them was 4% of a /chat)."""
    return frozenset(tokenize(embedding_text(chunk)))


@lru_cache(maxsize=WARM_CHUNKS)
def _terms_and_roots(chunk: Chunk) -> frozenset[str]:
    """A chunk's terms and their roots, remembered like `_terms_of`."""
    found = _terms_of(chunk)
    return found | {root(t) for t in found}


def _freq(term: str, doc_freq: Mapping[str, int], root_freq: Mapping[str, int] | None) -> int:
    """In how many chunks the corpus uses `term`, or a form of it with the same root."""
    return doc_freq.get(term, 0) or (root_freq.get(root(term), 0) if root_freq else 0)


# (not "in Pinecone instead of Chroma": what the question asks to use instead)
_CONTRASTED = re.compile(r",\s+not\s+(?:an?\s+|the\s+)?([\w.+#-]*\w)")


def _in_passing(word: str, question: str, m: re.Match[str]) -> bool:
    """Whether the name `word`, found at `m` in `question`, is the user's own or named in
    passing: an example ("e.g. home/johndoe/notes.txt", "AWS or another provider"), what
    they are leaving ("coming from Spring"), a custom header ("X-Trace-Id") or their own
    code ("MyParams", "a custom OutOfStockError")."""
    return bool(_ends_at(_EXAMPLE, question, m.start()) or _OR_ANOTHER.match(question, m.end())
                or _ends_at(_LEAVING, question, m.start())
                or _CUSTOM_HEADER.fullmatch(word) or _MINE.match(word.rsplit("/", 1)[-1])
                or _COMPOUND_NAME.search(word) is not None
                and _ends_at(_OWN, question, m.start()) is not None)


# How far back a pattern ending at a word is looked for: further than any of them reaches in
# a real question ("coming over from our big old legacy", "for instance, '").
_LOOK_BACK = 200


def _ends_at(pattern: re.Pattern[str], question: str, start: int) -> re.Match[str] | None:
    """`pattern` (anchored by `$`) matched in the text just before `start`. Only the last
    `_LOOK_BACK` characters are searched: searching the whole text before every word made a
    10,000-character question take over a second. `^` still means the question's start."""
    return pattern.search(question, max(0, start - _LOOK_BACK), start)


def _own_code(question: str, m: re.Match[str], code: Sequence[tuple[int, int]],
              doc_freq: Mapping[str, int], raw_words: Collection[str],
              changelog_only: Changelog) -> bool:
    """Whether the word `m` is part of the user's own code: a path template's placeholder
    ("/reports/{fmt}"), or a name in inline code (`code`: the spans of the question's code)
    beside one the docs use ("`Annotated[Any, Depends(Pagination)]`": their class)."""
    if question[m.start() - 1 : m.start()] == "{" and question[m.end() : m.end() + 1] == "}":
        return True
    for start, end in code:
        if start <= m.start() and m.end() <= end:
            return any(
                len(other) > 2 and other != m.group(0)
                and _uses(other.lower(), doc_freq, raw_words, changelog_only)
                for other in RAW_WORD.findall(question, start, end)
            )
    return False


def _is_path(word: str) -> bool:
    if "/" not in word:
        return False
    last = word.rsplit("/", 1)[-1]
    return bool(_FILE_NAME.fullmatch(last)) or word.count("/") >= 2


# "a ~1GB model", "500ms", "10k users", "2x slower": the user's own figure, not a name.
_QUANTITY = re.compile(
    r"\d+(?:[.,]\d+)*(?:k|m|b|kb|mb|gb|tb|kib|mib|gib|tib|ms|s|sec|secs|min|mins|h|hr|hrs|x"
    r"|px|rps|qps|tps"
    # "a 4-byte selector", "256-bit keys", "a 10-minute window"
    r"|-(?:byte|bit|word|char|character|line|digit|second|minute|hour|day|week|month|year)s?)",
    re.I,
)


# "stop it with Ctrl+C": keys pressed together, not a name.
_KEYS = re.compile(r"(?:ctrl|control|cmd|command|alt|option|opt|shift|meta|super|win)"
                   r"(?:[+-]\w+)+", re.I)


# "why camelCase here?": the names of the ways to write identifiers, written as they say.
_CASE_STYLES = frozenset(
    "camelcase pascalcase snake_case kebab-case screaming_snake_case".split())


def _looks_like_a_name(word: str, at_sentence_start: bool) -> bool:
    if (len(word) < 2 or word.isdigit() or word.lower() in _FILLERS
            or word.lower() in _CASE_STYLES or _QUANTITY.fullmatch(word)
            or _KEYS.fullmatch(word)):
        return False
    upper = sum(ch.isupper() for ch in word)
    if upper >= 2 or (upper and not word[0].isupper()):  # API, gRPC, JWTs, iOS
        return True
    if any(ch.isdigit() for ch in word) or "/" in word:  # HTTP/3, OAuth2, v1.2
        return True
    if len(word) >= 3 and word.isalpha() and not _VOWEL.search(word.lower()):
        return True  # an acronym typed in lower case: grpc, tls
    return word[0].isupper() and not at_sentence_start  # "... expose Prometheus metrics"
