"""Compose a cited markdown answer from retrieved passages, extractively.

Every passage is cut into units (sentences, list items, table rows, code blocks) and each
unit is scored against the question (`docent.models.scoring`: meaning, words, page rank,
and whether it is the kind of statement the question asks for). The answer leads with the
best statement that is not about the docs themselves and does not announce something
("...as follows:") it cannot show, and is no changelog entry unless the question is about
releases (a value of the kind asked for, or for a how-to what to use, in code, leads when
it scores nearly as well); then the list it announces, an example (the code the
lead introduces, or the best on-topic code block when no chosen statement introduces one
or only a weaker one, and that best block after the lead's own when it is clearly better;
for a how-to, the block scoring best of all units),
and as key points the statements of the relevant passages (and the few best of all) that
belong with it, in document
order (a list item with the sentence announcing its list, and the rest of that list, as
is the rest of a short list two of whose items are key points, and a nested item with the
item it is nested in, under it; the best key point that
introduces code with that code under it, as does every key point announcing a command or
two, or whose paragraph ends by announcing one; for "how often", the code setting the
interval when no statement shown gives it).
A statement introduces the code block it
announces, else the unannounced block its paragraph describes from below (crawled pages
show an endpoint first and explain it under it), else the block right after it. Every
statement keeps its `[n]`, a changelog's with the release it is of.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from functools import lru_cache
from itertools import takewhile

from docent.exit_reasons import REFUSAL
from docent.intent import (
    Intent,
    about_releases,
    asks_about_example,
    asks_for_url,
    asks_for_value,
    asks_how_often,
    intent_of,
    kind_asked,
    measure_of,
    noun_asked,
    offers_alternatives,
    set_aside,
)
from docent.models.networks import names_network, network_asked, of_other_network
from docent.models.scoring import (
    Candidate,
    candidates,
    echoes,
    gives_value,
    instructs,
    is_continuation,
    names_new,
    score,
    source_of,
    versions_named,
)
from docent.models.text import Reference, plain_heading, terms
from docent.models.unit_vectors import AnswerVectors
from docent.models.units import FENCE, referenced
from docent.retrieval.bm25 import is_changelog
from docent.retrieval.chunking import clean_for_embedding
from docent.retrieval.evidence import TIMING_LINE, states_kind

# A longer code block is shown as the window of this many lines that holds most of the
# question's words (docs' full examples run to 40-180 lines; the answer is a few of them).
_MAX_CODE_LINES = 30
# ... and the code a key point introduces, shown under it, as this many.
_MAX_NESTED_LINES = 15
# A block at most this many lines (and a third of the window) longer is shown whole: a
# "..." for its last few lines saves little and can hide the line that does the job
# (`app.include_router(graphql_app, prefix="/graphql")`, last of an example's 20).
_MAX_LEFT_OUT = 5
# Every key point announcing a block this short (a command or two) shows it under it.
_SHORT_CODE_LINES = 3
_SHORT_CODE_CHARS = 400
# A first sentence that leans on the one before it weighs this much less as the lead.
_CONTINUED = 0.06
_RARE_LABEL_SHARE = 0.2  # of the statements: a label word in more names no particular row
# ... and one saying back what the question says, as much as filler weighs
_ECHO = 0.12
# A statement giving the value asked for leads when it scores this share of the best
# (0.75: over the read sets, 0.85 led with one value fewer, none led worse).
_VALUE_LEAD_SHARE = 0.75
# A statement about what the question sets aside ("Besides Uvicorn, ...") gives the lead to
# another scoring this share of the best.
_ASIDE_LEAD_SHARE = 0.75
# Else, for a how-to whose best match is no instruction, a statement of the same page
# naming what to use (code, an identifier the question does not give) leads when it scores
# this share of the best: the best match often restates the question ("...you will want to
# split it across several modules") instead of answering it. Over the read sets, leads with
# a keyword +39 -4 and answers with every keyword +2 -0 (from any page: +39 -9, and "Docent
# holds `GOOGLE_API_KEY`..." led "How do I run docent without an API key?"; 0.8: +53 -10
# without either guard; any kind of question: more leads lost, to an example's names).
_NAMING_LEAD_SHARE = 0.85
# A how-to's best block outscoring every statement: the sentence announcing it may lead
# (over the read sets: leads +4 -2, keywords unchanged).
_INTRO_LEAD_SHARE = 0.85
# A value question's statement naming the thing asked ("What PORT..."): it leads when it
# scores this share of the best (over the read, blind and follow-up sets it changed no
# answer; the same for what/which questions of any kind: keywords -1, leads +2 -2).
_NOUN_LEAD_SHARE = 0.85
# A how-to is not led by a bare row of a reference table ("`DOCENT_REDIS_PREFIX` — `docent:`"
# for "How do I enable Redis?": a name and its default, nothing to do) while a statement that
# is not a row scores this share of the best (over the read, blind and docent sets it changed
# no answer; rows with more to say, "static call violation — Cause: ... — Fix: ...", or of
# any how-to: leads -3).
_BARE_ROW_SHARE = 0.8
_BARE_ROW_WORDS = 3
_MAX_POINTS = 10
# "Somnia Exchange is a gamified decentralized exchange": a name said to be of a kind; not
# a whole class ("Every docent setting is an environment variable...") nor a pronoun.
_IS_A = re.compile(
    r"^(?!(?i:every|each|all|any|this|that|these|those|the|a|an|it|they|there|its|their|our"
    r"|your|some|most|many|one)\b)[`*A-Z][^.,;:]{0,60}?\s(?:is|are)\s+(?:a|an|one\s+of|the)\b")
# A lead opening with these leans on the sentence before it, which then opens the answer.
_POINTS_BACK = re.compile(
    r"(?:this|that|these|those|it|they|there|so|thus|therefore|hence|but|and|or"
    r"|(?:because\s+of|for)\s+(?:this|that)(?:\s+reason)?)\b",
    re.I,
)
# A list or table of at most this many items comes whole once two of its items are key
# points: part of an enumeration ("the rollback steps") reads as all of it.
_WHOLE_LIST = 8
# Key points come from passages whose best unit scores >= _PASSAGE_SHARE of the lead's,
# units scoring >= _POINT_SHARE of it (_TOP_SHARE in the lead's own passage).
_PASSAGE_SHARE = 0.8
_POINT_SHARE = 0.6
_TOP_SHARE = 0.4
# ... and the _BEST_OF_ALL best statements of all, from any passage.
_BEST_OF_ALL = 4
# At most this many changelog entries are chosen as key points of an answer that is not
# about releases (a release's list one announces still comes along with it): "Adding my
# first websocket route, do I need an extra package?" had five ("✨ Add support for
# `dependencies` in WebSocket routes. PR #4534 ... (in 0.97.0)") and not the tutorial's
# `uv add websockets`. None at all lost answers a release note gives
# ("`APIKeyQuery`", "`separate_input_output_schemas`").
_MAX_ENTRIES = 2
# A selected sentence takes the next one of its paragraph along when that one is short.
_TAIL_CHARS = 120
# (counted as read, as chunking cleans it for embedding: a link's target is not, "use
# `LifespanManager` from [asgi-lifespan](...)")
# A shorter tail ending in ":" only announces what follows it ("It has three properties:"),
# as does one whose clause the colon cuts off ("...uses the SDK to:").
_MIN_ANNOUNCING_WORDS = 7
# ... a longer one says something before its cut-off clause ("If you are using a library
# that ... doesn't support `await`, then declare your path operation functions as normally,
# with just `def`, like:").
_LONG_ANNOUNCING_WORDS = 15
_CUT_OFF = re.compile(
    r"\b(?:to|with|of|for|by|as|like|such as|via|from|in|on|into|include|includes|including"
    r"|are|is|be|the|a|an|following|these|this|below|and|or)\s*$",
    re.I,
)
# A code block nobody introduces is shown only when it scores this share of the lead's
# (_HOWTO_CODE_SHARE when the question asks how to do something)...
_CODE_SHARE = 0.8
_HOWTO_CODE_SHARE = 0.65
# ... or when its words match the question about as well as any unit's (lexical 0..1).
_CODE_LEX = 0.9
# ... and shown beside a key point's own block when it scores this much more than that one.
_BETTER_CODE = 0.1
# The lead's page's best on-topic block is the example when it scores at least this share
# of the best on-topic block of all quoted pages.
_OWN_CODE_SHARE = 0.85
# A how-to's second key point shows its code when that scores this share of the best shown.
_SECOND_CODE_SHARE = 0.9
# A statement introduces the code its paragraph's last sentence announces, at most this many
# sentences on.
_STEP_REACH = 4
# Two blocks are one example when this share of the shorter one's lines (two or more) is in
# the other.
_REPEAT_SHARE = 0.6
_REPEAT_MIN_LINES = 2


def compose_answer(
    question: str, refs: Sequence[Reference], vectors: AnswerVectors | None = None
) -> str:
    """A cited markdown answer from the passages, or the refusal when none is relevant."""
    return "".join(compose_parts(question, refs, vectors))


def compose_parts(
    question: str, refs: Sequence[Reference], vectors: AnswerVectors | None = None,
    scene: str = "",
) -> Iterator[str]:
    """`compose_answer` in pieces, as they are decided: the heading and lead statement
    first (a stream can send them at once), then the rest. `scene` is the start of
    `question` carried over from earlier turns to make a follow-up standalone
    (`docent.models.followup`): its words weigh less than the ones asked now."""
    cands = candidates(refs)
    wanted = set(terms(question))
    if not any(c.terms & wanted for c in cands if not c.unit.is_code):
        yield REFUSAL
        return
    intent = intent_of(question)
    cands = score(question, intent, cands, refs, vectors, scene)
    # A changelog entry ("📝 Update docs for HTTP Basic Auth with `secrets.compare_digest()`")
    # leads only an answer about releases: it says what changed, not how anything works.
    entry_leads = about_releases(question)
    prose = [c for c in cands if not c.unit.is_code]
    # "Since which version...?": "Added in FastAPI 0.134.0." leads, though the sentence on
    # what was added matches the question's words better; so for any value of a kind the
    # question names (a duration, a version, a count of what it names...).
    measure = measure_of(question)
    best_match = max(prose, key=lambda c: c.score)
    top = best_match.score
    # A how-to's best match that already says what to do ("Install the kit with npm.") keeps
    # the lead; else one naming what to use may take it.
    naming = intent.kind == "howto" and not instructs(best_match.unit.text)
    at = {(c.ref.n, c.pos): c for c in cands}
    intro = _intro_of_best_code(cands, at, top) if intent.kind == "howto" else None

    # "USDC — Address: ..." for "the USDC address on mainnet?", not "USDT — Address: ...":
    # of a table's rows, one whose label is the thing a value or name question asks about,
    # by a word few passages use ("Somnia — Address" is not about every Somnia question).
    asks_thing = intent.kind in ("value", "name")
    rare: set[str] | None = None  # counted when a row is first met
    labels: dict[int, bool] = {}

    def labelled(c: Candidate) -> bool:
        nonlocal rare
        if not asks_thing or not _LABEL.match(c.unit.text):
            return False
        if id(c) not in labels:
            if rare is None:
                rare = {t for t, n in Counter(t for p in prose for t in p.terms).items()
                        if n <= _RARE_LABEL_SHARE * len(prose)}
            labels[id(c)] = _labelled_asked(c, wanted, rare)
        return labels[id(c)]

    def value_lead(c: Candidate) -> tuple[bool, bool, bool, bool]:
        # A statement giving the value asked for leads; one on the best match's page first
        # ("Your token goes live instantly", not another page's "48 months post-launch"),
        # and of those one giving the version of the thing asked about ("FastAPI 0.119.0",
        # not Pydantic's "version 2"); a row labelled with what is asked before others.
        valued = c.score >= _VALUE_LEAD_SHARE * top and gives_value(intent, c.unit, measure)
        return (valued, valued and labelled(c), valued and c.page == best_match.page,
                valued and versions_named(c.unit, measure))

    # "Besides Uvicorn, which ASGI servers...?": a statement about what the question sets
    # aside (most of its words name it: "...comes with a production server, Uvicorn") does
    # not lead, unless no other statement scores _ASIDE_LEAD_SHARE of the best.
    aside = set(terms(set_aside(question) or ""))

    def restates_aside(c: Candidate) -> bool:
        return 2 * len(aside & c.terms) > len(aside)

    if aside and not any(c.score >= _ASIDE_LEAD_SHARE * top and not restates_aside(c)
                         for c in prose):
        aside = set()

    # "What's the web address of the Item Builder?": a statement giving a URL ("...you will
    # see [Item Builder](https://items-builder.somnia.network/)") leads, when it scores near
    # the best, before one only naming the tool.
    url_asked = asks_for_url(question)

    # "GitHub Repository: [Full Stack FastAPI Template](https://...)" says where a thing is,
    # nothing of it: it leads a question asking where or for a link, or which thing when its
    # text names one the question does not.
    link_wanted = url_asked or _WHERE_ASKED.search(question) is not None

    def bare_link(c: Candidate) -> bool:
        text = c.unit.text.strip()
        if referenced(text) is not None:
            # "API reference: `fastapi.security.HTTPBasic`." says where the object lives: it
            # leads "where do I import it from?", "which class...?", not "what does it hand
            # to my path operation?"
            return not (link_wanted or _OBJECT_ASKED.search(question))
        m = _LINK_ONLY.fullmatch(text) or _PAGE_ENTRY.fullmatch(text)
        return m is not None and not (
            link_wanted or intent.kind == "name" and m["name"].lower() not in question.lower())

    # "You could also use `from starlette.middleware.cors import CORSMiddleware`." says the
    # thing can be imported from elsewhere too: the answer to a question naming that other
    # package, not to "how do I add CORS?".
    def other_import(c: Candidate) -> bool:
        m = _OTHER_IMPORT.search(c.unit.text)
        return m is not None and not re.search(rf"\b{re.escape(m['package'])}\b", question, re.I)

    def gives_url(c: Candidate) -> bool:
        return (url_asked and c.score >= _VALUE_LEAD_SHARE * top
                and _WEB_ADDRESS.search(c.unit.text) is not None)

    # "Which decentralized exchange...?": "Somnia Exchange is a gamified decentralized
    # exchange (DEX)" says which one is of that kind. One of a kind only: "Which wallet
    # providers are listed?" asks for all of them.
    asked_kind = kind_asked(question) if intent.kind == "name" else None
    kind = set(terms(asked_kind)) if asked_kind and not asked_kind.endswith("s") else set()

    def of_kind(c: Candidate) -> bool:
        return (bool(kind) and c.score >= _VALUE_LEAD_SHARE * top and kind <= c.terms
                and _IS_A.match(c.unit.text) is not None)

    # "...the USDC address on Somnia mainnet?": a statement of the other network (a testnet
    # price feed's address, under "Somnia Testnet Price Feeds") does not lead.
    network = network_asked(question)

    def other_network(c: Candidate) -> bool:
        return network is not None and of_other_network(network, _levels(c, cands))

    # "FastAPI includes an official skill for AI coding agents." tells who asks "Which
    # command installs the official FastAPI skill?" only what they said; the answer to a
    # yes/no question, or to one offering alternatives ("...the first one added or the
    # last?"), may well say it back.
    say_back = intent.kind != "yesno" and not offers_alternatives(question)

    def echoing(c: Candidate) -> bool:
        if not say_back or not echoes(c, wanted, question):
            return False
        # "First create a new project." then "Head over to <https://mmleditor.com/>...":
        # the sentence that follows it says more, and joins it as the lead.
        tail = _tail(c, cands)
        return tail is None or echoes(tail, wanted, question)

    # "What port does docent listen on by default?": "`DOCENT_PORT` is the port...; the
    # default is 8000" names the port, "`docent serve` listens on 127.0.0.1 by default" only
    # matches the rest of the question better. (Naming it is enough: the statement need not
    # give a number, "`DOCENT_HOST` and `DOCENT_PORT` set where the server listens" names it.)
    noun = set(terms(noun_asked(question) or "")) if intent.kind == "value" else set()

    def names_noun(c: Candidate) -> bool:
        return bool(noun) and c.score >= _NOUN_LEAD_SHARE * top and noun <= c.terms

    rows_aside = intent.kind == "howto" and any(
        c.unit.kind != "row" and not c.filler and c.score >= _BARE_ROW_SHARE * top
        for c in prose)
    lead = max(
        prose,
        key=lambda c: (
            entry_leads or not is_changelog(source_of(c.ref)),
            not c.filler and not _dangling(c, cands) and not _flattened_code(c.unit.text),
            not (rows_aside and _bare_row(c)),
            not bare_link(c),
            not other_import(c),
            not restates_aside(c),
            not other_network(c),
            names_noun(c),
            *value_lead(c),
            gives_url(c),
            of_kind(c),
            labelled(c),
            (naming and c.score >= _NAMING_LEAD_SHARE * top
             and c.page == best_match.page and names_new(c.unit.text, wanted))
            or c is intro,
            c.score - _CONTINUED * is_continuation(c.unit.text) - _ECHO * echoing(c),
        ),
    )
    used = {id(lead)}
    tail = _tail(lead, cands)
    if tail is not None:
        used.add(id(tail))
    code = _code_of(lead, at)
    stepped = False
    if code is None and tail is None and intent.wants_code:
        # "...we'll use a NextJS API route to act as a proxy." then, as the next paragraph,
        # "Update the `route.ts` file with the following code:": the step and the code show,
        # when no other block matches the question better.
        step, step_code = _step_after(lead, at)
        if step_code is not None and step_code.score >= max(
                c.score for c in cands if c.unit.is_code):
            tail, code, stepped = step, step_code, True
            used.add(id(step))
    closing = None
    if code is None and intent.wants_code:
        # "Deploying ... is very straightforward. ... To deploy it, run this command:"
        closing, code = _step_command(lead, at, set())
        if closing is not None:
            used.add(id(closing))
    said = _said_before(lead, at) or _label_of(lead, cands)
    if said is not None:
        used.add(id(said))
    opening = f"{said.unit.text} " if said is not None else ""
    ending = f" {closing.unit.text}" if closing is not None else ""
    statement = _capitalised(
        _as_code(f"{opening}{_joined(lead, tail, code is not None)}{ending}"))
    # The heading above the lead in its passage, when the passage has one: a passage can run
    # from one section into the next ("...`docent serve`\n```\n\n## Refusing questions the
    # docs don't cover\n\n..."), and its own title is the first section's.
    heading = plain_heading(lead.unit.heading) or lead.ref.topic
    yield f"## {heading}\n\n{statement} {_cite(lead.ref)}"

    points = [c for c in _key_points(lead, cands, entry_leads) if id(c) not in used
              and not c.filler]
    # "`DOCENT_REDIS_PREFIX` — `docent:`" beside "`DOCENT_REDIS_PREFIX` is the prefix of
    # every Redis key...; the default is `docent:`": a bare row another point says in full
    stated = [lead.unit.text, *(c.unit.text for c in points if not _bare_row(c))]
    points = [c for c in points if not (_bare_row(c) and _restated(c, stated))]
    # Code a key point introduces goes right under that point, not after the lead, where
    # it would read as the answer's example and leave the point ending in a colon.
    by_score = sorted(points, key=lambda c: -c.score)
    owner, nested = (None, None) if code and not stepped else next(
        ((p, after) for p in by_score if (after := _code_of(p, at)) is not None),
        (None, None),
    )
    owner = _nearest_before(nested, points, at, owner)
    # The block the lead or a key point announces (a URL, a sample reply) does not keep away
    # a clearly better example (the code that does what the question asks); one a key
    # point introduces shows under that point instead.
    example = asks_about_example(question)
    # A how-to is shown what to run, not a sample of what it prints ("You'll see the output:").
    runnable = cands if intent.kind != "howto" else [c for c in cands if not c.sample]
    best = _on_topic_code(runnable, lead, points, intent, example)
    extra = None
    if code is None:
        if nested is None or _clearly_better(best, nested) or _own_over(best, nested, lead):
            code = best
    elif _clearly_better(best, code) and all(_code_of(p, at) is not best for p in points):
        extra = best
    else:
        extra = _closer_match(runnable, lead, points, intent, code, at, example)
    picked = [lead, *points]
    # An item goes under the nearest sentence or item announcing it: "A header." under
    # "`apiKey`: a key that can come from:", not under the list's own "...schemes:".
    listed: dict[int, Candidate] = {}
    for intro in sorted(picked, key=lambda c: (c.ref.n, c.pos)):
        items = _introduced(intro, cands)
        listed.update((id(item), intro) for item in items)
        if items:  # "Core Methods:" between "Somnia supports these APIs:" and the methods
            listed.update((id(label), intro) for label in _labels(intro, cands))
    # Below the lead: what it announces, or holds nested when it is a list item
    # ("`openIdConnect`: ..." over "This automatic discovery is what ... defines."), each
    # with what that announces or holds in turn ("`apiKey`: ... come from:" with its
    # places); points are in the docs' order, so what holds an item comes before it.
    under_lead: list[Candidate] = []
    for c in points:
        above = (listed.get(id(c)), _parent_of(c, cands))
        if any(a is lead or _among(a, under_lead) for a in above):
            under_lead.append(c)
    # "Multiple RPC providers support Somnia:" over "Primary Providers:" and its items: the
    # label and its list go right below the lead, which would end in a colon without them.
    label = _label_after(lead, at, points) if lead.unit.announces and not under_lead else None
    if label is not None:
        under_lead = [label, *(c for c in points if listed.get(id(c)) is label)]
    below = {id(c) for c in under_lead}
    points = _with_lists([c for c in points if id(c) not in below], cands, used | below)
    points = _said_once(lead, under_lead, points, cands, listed)

    value_asked = asks_for_value(question)
    # The code block scoring best of all passages' units is shown (the how-to's own code).
    first = max(runnable, key=lambda c: c.score) if intent.wants_code else None
    if (first is not None and first.unit.is_code and first.score >= lead.score
            and not any(_same(first, b) for b in (code, extra, nested))):
        code, extra = _with_example(code, extra, first)
    # "How often does it poll?": when no statement shown gives the interval ("every few
    # seconds"; a bare number is none), the code that sets it does (`refreshMs = 5000`).
    timing = asks_how_often(question) and not states_kind("duration", lead.unit.text, bare=False)
    if timing and not any(b is not None and TIMING_LINE.search(b.unit.text)
                          for b in (code, extra, nested)):
        timer = max((c for c in cands if c.unit.is_code and TIMING_LINE.search(c.unit.text)),
                    key=lambda c: c.score, default=None)
        code, extra = _with_example(code, extra, timer)
    parts = []
    if under_lead:  # the list the lead announces, right below it (a label's, under it)
        parts.append("")
        for c in under_lead:  # nested as in the docs, a label's items under it
            nest = "  " * _depth(c, under_lead, listed, cands)
            parts.append(f"{nest}- {_as_code(c.unit.text)} {_cite(c.ref)}")
    blocks: list[str] = []  # the code the answer shows
    for shown_code in (code, extra):
        if shown_code is not None:
            blocks.append(excerpt(shown_code.unit.text, wanted, values=value_asked,
                                  timing=timing))
            parts += ["", f"Example [{shown_code.ref.n}]:", "", blocks[-1]]
    flattened: list[tuple[int, list[str]]] = []  # where each reflowed paragraph went
    if points:
        parts += ["", "### Key Points", ""]
        used.update(id(c) for c in picked)  # shown: no point's tail or prior again
        shown = {id(c) for c in (code, extra, nested) if c is not None}
        second_owner, second = (
            _second_block(points, owner, (code, extra, nested), at, shown)
            if intent.wants_code else (None, None)
        )
        if second is not None:
            shown.add(id(second))
        in_answer = {id(c) for c in points}  # a list shows under the point announcing it
        for c in points:
            # under the point announcing it, and under the item it is nested in
            nest = "  " * _depth(c, points, listed, cands)
            more = _tail(c, cands)
            more = None if more is None or id(more) in used else more
            under = nested if c is owner else second if c is second_owner else None
            complete = _complete(c, cands, shown, in_answer)
            if not complete and _only_announces(c) and _announces_list(c, cands):
                continue  # "This includes, for example:" says nothing without its list
            if under is None and not complete:
                under = _short_command(c, cands)  # "...run the command:" shows the command
                complete = under is not None
                if (not complete and _says_nothing_alone(c)
                        and _pointing(c, cands, code, extra) is None):
                    continue  # "Create a `main.py` file with:" says nothing without its code
            elif under is None and more is not None:
                # "...run the Verify command. Copy the address and run:" over the command
                under = _short_command(more, cands)
            if under is None and complete:
                # "`uint256 public votingDuration = 10 minutes;`" over "Sets the default
                # duration for voting on proposals.": the line it describes, under it
                before = _code_before(c, at)
                if before is not None and id(before) not in shown and _short(before):
                    under = before
            step = None
            if under is None and complete and not c.unit.announces:
                # "Deploying ... is very straightforward. All you need is ... To deploy the
                # contract, run this command:" over the command, when that step is no point
                step, under = _step_command(c, at, in_answer | shown)
            if under is None and _flattened_code(c.unit.text):
                # Code a crawl ran into one paragraph reads as code again, a statement a
                # line (alone: a sentence after it is no part of the code).
                flattened.append((len(parts), _reflowed(c.unit.text)))
                parts += [f"{nest}- Example {_cite(c.ref)}:", "",
                          *(f"{nest}  {line}" for line in flattened[-1][1]), ""]
                continue
            if under is not None:
                shown.add(id(under))
            text = _joined(c, more, under is not None) if complete else _closed(c.unit.text)
            if step is not None:
                text = f"{text} {step.unit.text}"
            if under is None and more is None and c.unit.announces:
                # "Then set Cookies in it, and then return it:" over the answer's example
                text = _pointing(c, cands, code, extra) or text
            # "For this reason, you would only do this on contracts called frequently": the
            # reason is the sentence before, unless the answer says it already.
            prior = _said_before(c, at)
            if prior is not None and id(prior) not in used:
                text = f"{prior.unit.text} {text}"
                used.add(id(prior))
            if more is not None and complete:
                used.add(id(more))
            block = None if under is None else excerpt(
                under.unit.text, wanted, _MAX_NESTED_LINES, values=value_asked, timing=timing)
            if (block is not None and block.strip() in {b.strip() for b in blocks}
                    and not _fragment_without_code(text)):
                # Two passages quoting the same code: shown once, the second point ending
                # as a sentence ("Notice how we write `CommonQueryParams` twice."), unless
                # it would read as a fragment ("Instead of writing.", "...called with.").
                block, text = None, _closed(text) if text.rstrip().endswith(":") else text
            parts.append(f"{nest}- {_as_code(text)} {_cite(c.ref)}")
            if block is not None:
                blocks.append(block)
                parts += ["", *(f"{nest}  {line}".rstrip() for line in block.split("\n")), ""]
        # A paragraph of code the crawl flattened ("import { ethers } from ...") is no
        # point of its own when the code shown holds each of its statements already.
        shown_lines = {line.strip() for block in blocks for line in block.split("\n")}
        for start, lines in reversed(flattened):
            if all(line in shown_lines for line in lines[1:-1]):
                del parts[start : start + len(lines) + 3]
        if parts[-3:] == ["", "### Key Points", ""]:  # it was the only point
            del parts[-3:]
    if parts:
        yield "\n" + "\n".join(parts).rstrip("\n")


_WHERE_ASKED = re.compile(r"\bwhere\b|\b(?:repo|repository|link)s?\b", re.I)
# A question asking for an object of the code by where it lives or what it is.
_OBJECT_ASKED = re.compile(r"\b(?:import\w*|class(?:es)?|module|submodule)\b", re.I)
# A label and one link, nothing else ("GitHub Repository: [Full Stack FastAPI Template](...)");
# not a link whose text is an address or a value ("EntryPoint v0.7: [0x0000...](...)").
_LINK_ONLY = re.compile(r"[\w .'/-]{1,40}:\s*\[(?![^\]]*\d)(?P<name>[^\]]+)\]\([^)\s]+\)\.?")
# A table of contents' entry: a link to another page of the docs and what that page is for
# ("[Deployment](deployment.md): run docent for other people.").
_PAGE_ENTRY = re.compile(r"\[(?P<name>[^\]]+)\]\((?![a-z]+:)[^)\s]+\)"
                         r"\s*(?::|[-–—])\s*[^.:]{1,80}\.?")
# That the thing can also be imported from another package, and which package.
_OTHER_IMPORT = re.compile(r"\b(?:could|can|may)\s+also\s+(?:use|import)\s+`(?:from|import)\s+"
                           r"(?P<package>\w+)")


def _bare_row(c: Candidate) -> bool:
    """A table row of a name and a short value, no more: "`DOCENT_TOP_K` — `5`"."""
    cells = c.unit.text.split(" — ")
    return c.unit.kind == "row" and len(cells) == 2 and len(cells[1].split()) <= _BARE_ROW_WORDS


def _restated(row: Candidate, texts: list[str]) -> bool:
    """Whether one of `texts` gives both the name and the value of a bare `row`."""
    name, value = (cell.strip() for cell in row.unit.text.split(" — "))
    value = _CELL_LABEL.sub("", value).strip("`")  # "`0.5`" is said as "0.5 seconds"
    return any(name in text and value in text for text in texts)


_CELL_LABEL = re.compile(r"^[\w ]{1,20}:\s+")  # "Default: `docent:`": the column's name


def _with_example(
    code: Candidate | None, extra: Candidate | None, block: Candidate | None
) -> tuple[Candidate | None, Candidate | None]:
    """The answer's example and the one beside it, with `block` in the first free place
    (unless it shows already)."""
    if _same(block, code) or _same(block, extra):
        return code, extra
    if code is None:
        return block, extra
    return code, extra if extra is not None else block


def _second_block(
    points: list[Candidate], owner: Candidate | None, blocks: Iterable[Candidate | None],
    at: dict[tuple[int, int], Candidate], shown: set[int],
) -> tuple[Candidate | None, Candidate | None]:
    """For a how-to question, the key point whose code (not yet shown) matches the
    question's words best, and that code, when it matches them better than every block the
    answer already shows or scores nearly as well as the best of them (the install command
    is shown; "make it spin on click" is the script a later point introduces)."""
    showing = [b for b in blocks if b is not None]
    if not showing:
        return None, None
    lex = max(b.lex for b in showing)
    bar = _SECOND_CODE_SHARE * max(b.score for b in showing)
    offers = [
        (p, block) for p in points
        if p is not owner and (block := _code_of(p, at)) is not None
        and id(block) not in shown and not any(_same(block, b) for b in showing)
        and (block.lex > lex or block.score >= bar)
    ]
    point, block = max(offers, key=lambda o: o[1].lex, default=(None, None))
    return _nearest_before(block, points, at, point), block


def _said_once(
    lead: Candidate, under_lead: list[Candidate], points: list[Candidate],
    cands: list[Candidate], listed: dict[int, Candidate],
) -> list[Candidate]:
    """`points` without the second showing of a list a page gives twice (the same
    parameters under two headings): an item worded as one shown before it, next to another
    such, goes, unless a point hangs on it. Steps two procedures share ("Copy the deployed
    address") stay, their neighbours differing."""
    shown = [lead, *under_lead, *points]
    times = Counter(c.unit.text for c in shown)
    held = {id(a) for c in points for a in (listed.get(id(c)), _parent_of(c, cands))}

    def repeated(c: Candidate) -> bool:
        same, at = _passage(c, cands)
        beside = [same[i] for i in (at - 1, at + 1) if 0 <= i < len(same)]
        parent = _parent_of(c, cands)  # ("`Path()`" under one of two objects it is used by)
        return (times[c.unit.text] > 1 and (parent is None or times[parent.unit.text] > 1)
                and any(b.unit.block == c.unit.block and times[b.unit.text] > 1
                        for b in beside))

    seen = {lead.unit.text, *(c.unit.text for c in under_lead)}
    kept = []
    for c in points:
        if c.unit.text in seen and id(c) not in held and repeated(c):
            continue
        seen.add(c.unit.text)
        kept.append(c)
    return kept


def _depth(c: Candidate, points: list[Candidate], listed: dict[int, Candidate],
           cands: list[Candidate]) -> int:
    """How deep a key point is nested: one below the item it is nested in, else one below
    the point announcing its list, when that is shown (0 otherwise)."""
    parent = _parent_of(c, cands)
    above = parent if _among(parent, points) else listed.get(id(c))
    if above is None or not _among(above, points):
        return 0
    return _depth(above, points, listed, cands) + 1


def _among(c: Candidate | None, cs: list[Candidate]) -> bool:
    return c is not None and any(c is d for d in cs)


def _label_after(
    lead: Candidate, at: dict[tuple[int, int], Candidate], points: list[Candidate]
) -> Candidate | None:
    """The key point right after the lead in its passage when it is a label announcing a
    list ("Primary Providers:"), so the lead's own announcement is that label's list."""
    label = at.get((lead.ref.n, lead.pos + 1))
    if (label is None or label.unit.kind != "prose" or not label.unit.announces
            or not _among(label, points)):
        return None
    return label


def _nearest_before(
    block: Candidate | None, points: list[Candidate], at: dict[tuple[int, int], Candidate],
    point: Candidate | None,
) -> Candidate | None:
    """Of the key points whose code is `block`, the one right before it ("...create a file
    named `ClientProvider.tsx` with the following content:", not the sentence before that
    one, which the block would leave ending in a colon); `point` when there is no block."""
    if block is None:
        return point
    return max((p for p in points if _code_of(p, at) is block), key=lambda p: p.pos,
               default=point)


_WEB_ADDRESS = re.compile(r"\b(?:https?|wss?)://", re.I)
_LABEL = re.compile(r"^([^—\n]{1,60}?) — ")
_NAMING = re.compile(r"[A-Z0-9]")  # a name or a quantity: "USDC", "LINK Token", "1 day"


def _labelled_asked(c: Candidate, wanted: set[str], rare: set[str]) -> bool:
    """Whether a table row's label (what it gives values of) is what the question asks
    about, by words of the question few statements use, and the row gives what it asks
    for (a column it names): "USDC — Address: ..." for "the USDC address", not
    "USDT — Address: ...", nor "Reentrancy — Severity: Critical..." for how an attack
    works. A network's name labels no particular row (`docent.models.networks`)."""
    label = _LABEL.match(c.unit.text)
    if label is None or not _NAMING.search(label.group(1)):
        return False  # "`version` — Type: `str`": a field's row, named by a plain word
    named = {t for t in terms(label.group(1)) if not names_network(t)}
    if not named or not named <= wanted & rare:
        return False
    # (what the row shows: not its links' targets, "explorer.somnia.network/...")
    return bool((set(terms(clean_for_embedding(c.unit.text))) - named) & wanted)


def _levels(c: Candidate, cands: list[Candidate]) -> Iterator[str]:
    """What a statement says of itself, then what says more of it, nearest first: its own
    text, the sentence introducing its list or table ("Mainnet:"), its heading, then the
    headings above, innermost first ("Network Overview (Mainnet / Testnet) > Somnia
    Mainnet")."""
    yield c.unit.text
    intro = _intro_of(c, cands)
    if intro is not None:
        yield intro.unit.text
    yield c.unit.heading
    yield from reversed(c.ref.where.split(" > "))


def _label_of(item: Candidate, cands: list[Candidate]) -> Candidate | None:
    """The network's name a list item is under ("Testnet:" over "Chain ID: 50312"), which
    says whose the item's value is: a lead item is read with it."""
    intro = _intro_of(item, cands)
    if intro is None or _parent_of(item, cands) is not None:
        return None
    label = intro.unit.text.strip("*: ")
    return intro if " " not in label and names_network(label) else None


def _said_before(lead: Candidate, at: dict[tuple[int, int], Candidate]) -> Candidate | None:
    """The sentence before a lead that points back to it ("This allows users to see their
    Primary Domains...": what allows it is said just before) or turns from it ("But if the
    data didn't exist...", "And then..."), in the same paragraph or as
    the whole paragraph before ("You can use `bump-pydantic`..." over "This tool will
    help you...")."""
    if not _POINTS_BACK.match(lead.unit.text.lstrip("*_ ")):
        return None
    before = at.get((lead.ref.n, lead.pos - 1))
    if (before is None or before.unit.kind != "prose" or before.unit.announces
            or before.filler):
        return None
    if before.unit.block != lead.unit.block and (
            at.get((lead.ref.n, lead.pos - 2)) is not None
            and at[(lead.ref.n, lead.pos - 2)].unit.block == before.unit.block):
        return None  # the paragraph before says more than one thing
    return before


def _own_over(code: Candidate | None, other: Candidate, lead: Candidate) -> bool:
    """Whether `code` is of the lead's page and `other` of another page."""
    return code is not None and code.page == lead.page != other.page


def _clearly_better(code: Candidate | None, than: Candidate) -> bool:
    """Whether `code` is another block scoring `_BETTER_CODE` more than `than`."""
    return code is not None and not _same(code, than) and code.score > than.score + _BETTER_CODE


def _same(block: Candidate | None, other: Candidate | None) -> bool:
    """Whether two blocks are one example: the same candidate, the same code in two
    passages (a page including the file another page includes too), or most of one
    block's lines again in the other (the snippet a page shows first, inside the whole
    contract it shows next; a file quoted with and without its path comment)."""
    if block is None or other is None:
        return False
    if block is other or block.unit.text == other.unit.text:
        return True
    a, b = _code_lines(block.unit.text), _code_lines(other.unit.text)
    fewer = min(len(a), len(b))
    return fewer >= _REPEAT_MIN_LINES and len(a & b) >= _REPEAT_SHARE * fewer


@lru_cache(maxsize=1024)
def _code_lines(text: str) -> frozenset[str]:
    """A block's lines that say something: not blank, no fence, no elision."""
    return frozenset(s for line in text.split("\n")
                     if (s := line.strip()) and s != "..." and not FENCE.match(s))


def _cite(ref: Reference) -> str:
    """A statement's citation; a changelog's entry also says which release it is of ("Drop
    support for Python 3.8 (in 0.125.0) [2]"): the entry alone never does."""
    release = _release(ref)
    return f"(in {release}) [{ref.n}]" if release else f"[{ref.n}]"


_VERSION_HEADING = re.compile(r"^v?\d+\.\d+(?:\.\d+)*(?:[-.\w]*)")


def _release(ref: Reference) -> str | None:
    """The version a changelog passage's heading names ("Release Notes > 0.125.0
    (2025-12-17) > Breaking Changes" gives 0.125.0); None for any other passage."""
    if not is_changelog(source_of(ref)):
        return None
    for part in ref.where.split(" > "):
        found = _VERSION_HEADING.match(part.strip())
        if found:
            return found.group()
    return None


def _short_command(c: Candidate, cands: list[Candidate]) -> Candidate | None:
    """The code block a key point announces when it is short (a command or two): shown
    under every key point announcing one, not only the best."""
    announced = _announced(c, cands)
    if not announced or not announced[0].unit.is_code:
        return None
    return announced[0] if _short(announced[0]) else None


def _short(block: Candidate) -> bool:
    """Whether a code block is a command or two, a line or three."""
    code = block.unit.text.strip()
    # A command continued over lines ("curl ... \" then its -H options) is one command.
    body = [line for line in code.split("\n")
            if not FENCE.match(line.strip()) and not line.rstrip().endswith("\\")]
    return len(body) <= _SHORT_CODE_LINES and len(code) <= _SHORT_CODE_CHARS


def _labels(intro: Candidate, cands: list[Candidate]) -> list[Candidate]:
    """The labels ("Core Methods:") between a statement ending in ":" and the list it
    announces (which the caller knows it has)."""
    if intro.unit.kind != "prose":
        return []
    same, at = _passage(intro, cands)
    before = takewhile(lambda c: c.unit.kind not in ("item", "row"), same[at + 1 :])
    return [c for c in before if c.unit.kind == "prose" and c.unit.announces]


def _introduced(intro: Candidate, cands: list[Candidate]) -> list[Candidate]:
    """The list items or rows a sentence ending in ":" announces, however many."""
    if not intro.unit.announces:
        return []
    return [c for c in _neighbours(intro, cands, None) if c.unit.kind in ("item", "row")]


def _key_points(
    lead: Candidate, cands: list[Candidate], releases: bool = True
) -> list[Candidate]:
    """What goes with the lead, then the best units of relevant passages, in document order
    (of changelog entries, unless the answer is about releases or leads with one, only the
    `_MAX_ENTRIES` best are chosen; a list one of them announces comes along)."""
    prose = [c for c in cands if not c.unit.is_code]
    if not releases and not is_changelog(source_of(lead.ref)):
        entries = sorted((c for c in prose if is_changelog(source_of(c.ref))),
                         key=lambda c: -c.score)
        dropped = {id(c) for c in entries[_MAX_ENTRIES:]}
        prose = [c for c in prose if id(c) not in dropped]
    best: dict[int, float] = {}
    for c in prose:
        best[c.page] = max(best.get(c.page, 0.0), c.score)
    relevant = {n for n, score in best.items() if score >= _PASSAGE_SHARE * lead.score}
    # The few best statements of all are key points whatever page they are on: a second
    # page's one statement that answers ("Define `SOMNIA_RPC_MAINNET` and ...") can rank
    # second of all and still fall short of its page counting as relevant.
    best_of_all = {id(c) for c in sorted((c for c in prose if not c.filler),
                                         key=lambda c: -c.score)[:_BEST_OF_ALL]}

    def enough(c: Candidate) -> bool:
        share = _TOP_SHARE if c.page == lead.page else _POINT_SHARE
        if c.score < share * lead.score:
            return False
        return c.page in relevant or id(c) in best_of_all

    points = [c for c in _neighbours(lead, cands) if not c.unit.is_code]
    for c in sorted(filter(enough, prose), key=lambda c: -c.score):
        if _counted(points) >= _MAX_POINTS:
            break
        if c is not lead and all(_distinct(c, p) for p in [lead, *points]):
            points.append(c)
            if c.unit.announces:  # and the list it introduces
                points += [
                    f
                    for f in _neighbours(c, cands)
                    if not f.unit.is_code and f not in points and f is not lead
                ]
    points = _whole_lists(_first_points(points), lead, cands)
    # A nested item reads only under the item it is nested in ("React for the frontend."
    # over "Using TypeScript, hooks, Vite...").
    for c in list(points):
        parent = _parent_of(c, cands)
        while parent is not None and parent is not lead and parent not in points:
            points.append(parent)
            parent = _parent_of(parent, cands)
    # A list item means little without the sentence announcing its list ("`.add_task()`
    # receives as arguments:"): it comes along with the whole list, nested under it.
    for c in list(points):
        intro = _intro_of(c, cands)
        if intro is not None and intro is not lead and intro not in points:
            points += [intro, *(f for f in _neighbours(intro, cands) if f not in points)]
    return sorted(points, key=lambda c: (c.page, c.ref.n, c.pos))


def _counted(points: list[Candidate]) -> int:
    """How many key points `points` are: a one-word item ("ReDoc.") is part of its list."""
    return sum(not c.unit.is_word for c in points)


def _first_points(points: list[Candidate]) -> list[Candidate]:
    """The first `_MAX_POINTS` key points of `points`, with the one-word items among them."""
    out: list[Candidate] = []
    for c in points:
        if not c.unit.is_word and _counted(out) >= _MAX_POINTS:
            break
        out.append(c)
    return out


def _whole_lists(
    points: list[Candidate], lead: Candidate, cands: list[Candidate]
) -> list[Candidate]:
    """`points` and the rest of each list or table (of at most `_WHOLE_LIST` items) that
    two of them belong to; not of a changelog's, whose entries enumerate nothing."""
    chosen = Counter((c.ref.n, c.unit.block) for c in points if c.unit.kind in ("item", "row"))
    out = list(points)
    for (n, block), count in chosen.items():
        if count < 2:
            continue
        members = [
            c for c in cands
            if c.ref.n == n and c.unit.block == block and c.unit.kind in ("item", "row")
            and not c.filler
        ]
        if members and len(members) <= _WHOLE_LIST and not is_changelog(source_of(members[0].ref)):
            out += [c for c in members if c not in out and c is not lead]
    return out


def _parent_of(item: Candidate, cands: list[Candidate]) -> Candidate | None:
    """The list item a nested item is under: the nearest item before it, in its list, that
    is indented less."""
    if item.unit.kind != "item" or not item.unit.depth:
        return None
    same, at = _passage(item, cands)
    for before in reversed(same[:at]):
        if before.unit.block != item.unit.block or before.unit.kind != "item":
            return None
        if before.unit.depth < item.unit.depth:
            return before
    return None


def _intro_of(item: Candidate, cands: list[Candidate]) -> Candidate | None:
    """The sentence ending in ":" right before the list or table an item or row is in."""
    if item.unit.kind not in ("item", "row"):
        return None
    same, at = _passage(item, cands)
    while at and same[at - 1].unit.block == item.unit.block:
        at -= 1
    before = same[at - 1] if at else None
    if before is None or before.unit.kind != "prose" or before.filler:
        return None
    return before if before.unit.announces else None


def _tail(c: Candidate, cands: list[Candidate]) -> Candidate | None:
    """The next sentence of the unit's paragraph when it is short: docs often put the fact
    in a short follow-up ("To do it, set `x=True`.")."""
    if c.unit.kind != "prose":
        return None
    nxt = next((d for d in cands if d.ref.n == c.ref.n and d.pos == c.pos + 1), None)
    if (
        nxt is None
        or nxt.unit.kind != "prose"
        or nxt.unit.block != c.unit.block
        or len(clean_for_embedding(nxt.unit.text)) > _TAIL_CHARS
        or nxt.filler  # "This page lists every setting..." adds nothing to a statement
    ):
        return None
    return nxt


def _only_announces(c: Candidate) -> bool:
    """A sentence ending in ":" that says nothing without what follows: a short one, or
    one whose clause is cut off ("...and the SDK to:")."""
    return _says_nothing_without(c.unit.text)


def _says_nothing_without(text: str) -> bool:
    """Whether `text`, its colon aside, is a few words or a clause the colon cuts off."""
    text = text.rstrip().removesuffix(":")
    return len(text.split()) < _MIN_ANNOUNCING_WORDS or bool(_CUT_OFF.search(text))


def _fragment_without_code(text: str) -> bool:
    """Whether a point announcing code reads as a fragment without it ("Instead of
    writing:", "...when it is called with:")."""
    return text.rstrip().endswith(":") and _says_nothing_without(text)


def _says_nothing_alone(c: Candidate) -> bool:
    """A sentence announcing code that reads as a fragment without it: a short one whose
    clause is cut off ("Create a `main.py` file with:", "The response would be like:"; a
    longer one says something before it), or a few words naming nothing in code ("For
    example:", "Here's how it might look:"; not "First import `Header`:")."""
    text = c.unit.text.rstrip().removesuffix(":")
    words = len(text.split())
    if _CUT_OFF.search(text):
        return words < _LONG_ANNOUNCING_WORDS
    return words < _MIN_ANNOUNCING_WORDS and "`" not in text


def _joined(c: Candidate, tail: Candidate | None, shows_code: bool = False) -> str:
    """The unit and its tail. A tail announcing what the answer does not show right after
    it ends as a sentence ("call `close()` in the listener."), or is left out when it only
    announces ("It has three properties:", "This could include:")."""
    if tail is None or (tail.unit.announces and not shows_code and _only_announces(tail)):
        return c.unit.text
    ending = tail.unit.text if shows_code or not tail.unit.announces else _closed(tail.unit.text)
    return f"{c.unit.text} {ending}"


# A sentence the docs continue after a code block or a list ("or any other case variation
# ..., your function will see...") opens with a small word: leading the answer, it opens
# with a capital. A command or a name ("npm i ...", "pwdlib also supports...") keeps its case,
# and so does a verb whose subject came before ("is non-refundable, ...": not a question).
_CONTINUING = re.compile(
    r"(?:and|or|but|so|then|because|if|when|while|unless|although|that|which|where|you|we|"
    r"they|it|its|in|on|at|for|with|from|to|as|also|the|a|an|this|these|those|there)\b"
)


def _capitalised(text: str) -> str:
    """`text` with a capital first letter when it opens with a small word."""
    if _CONTINUING.match(text) is None:
        return text
    return text[0].upper() + text[1:]


def _announced(c: Candidate, cands: list[Candidate]) -> list[Candidate]:
    """What a unit ending in ":" announces: the code block or list right after it."""
    if not c.unit.announces:
        return []
    return _neighbours(c, cands)


def _complete(
    c: Candidate, cands: list[Candidate], shown: set[int], in_answer: set[int]
) -> bool:
    """Whether the answer shows what the unit announces: its list (`in_answer` holds it)
    or its code (`shown` holds it); a unit announcing nothing always is."""
    announced = _announced(c, cands)
    if not announced:
        return not c.unit.announces
    if announced[0].unit.is_code:
        return id(announced[0]) in shown
    return any(id(f) in in_answer for f in announced)


def _pointing(
    c: Candidate, cands: list[Candidate], code: Candidate | None, extra: Candidate | None
) -> str | None:
    """A key point announcing the code the answer shows as its example, ending by naming
    that example ("...and then return it (Example [1])."), not with a colon."""
    announced = _announced(c, cands)
    if not announced or not announced[0].unit.is_code:
        return None
    shown = next((b for b in (code, extra) if _same(announced[0], b)), None)
    if shown is None:
        return None
    return f"{_closed(c.unit.text)[:-1]} (Example [{shown.ref.n}])."


def _announces_list(c: Candidate, cands: list[Candidate]) -> bool:
    announced = _announced(c, cands)
    return bool(announced) and not announced[0].unit.is_code


def _with_lists(
    points: list[Candidate], cands: list[Candidate], above: set[int]
) -> list[Candidate]:
    """`points`, each announcing a list of at most `_WHOLE_LIST` items followed by that
    list when none of it is a key point already, less what shows `above` the key points
    (the cap on key points can cut a list from the sentence announcing it: "This includes,
    for example:" and nothing)."""
    have = {id(c) for c in points}
    out: list[Candidate] = []
    for c in points:
        out.append(c)
        announced = _announced(c, cands)
        if not announced or announced[0].unit.is_code:
            continue
        items = [f for f in announced if not f.filler]
        if items and len(items) <= _WHOLE_LIST and not any(id(f) in have for f in items):
            rest = [f for f in items if id(f) not in above]  # not the lead again
            out += rest
            have.update(id(f) for f in rest)
    return out


def _closed(text: str) -> str:
    """A statement whose announced code is not shown, ending as a sentence, not a colon."""
    return text.rstrip().removesuffix(":").removesuffix(".").rstrip() + "."


# A command a crawl left as text (a site's code block without its fence): a tool, then what
# it is given. "graph deploy --node https://... somnia-testnet/test-mytoken", "npx hardhat
# verify \\ --network somnia-mainnet \\ <address>", "mkdir my-app cd my-app".
_COMMAND = re.compile(
    r"^(?:npm|npx|yarn|pnpm|pip3?|pipx|uv|poetry|forge|cast|anvil|graph|git|docker|curl|wget"
    r"|mkdir|cd|node|python3?|fastapi|uvicorn|brew|cargo|bun|deno|kubectl|helm)"
    r" +[-\w@./:<{\[$~]"
)
# Where one command of several run together starts: before a tool that opens commands, not
# one a runner starts ("npx hardhat node", "yarn graph ...", "npm run build").
_NEXT_COMMAND = re.compile(
    r"(?<!\bnpx)(?<!\byarn)(?<!\bpnpm)(?<!\brun)(?<!\bexec)(?<!\bbunx)(?<!\bhelp)(?<!&&)(?<!\|\|)"
    r"(?<!;) +(?=(?:cd|mkdir|npm|npx|yarn|pnpm|graph|forge|cast|anvil|git|docker|curl) )"
)
# Not a command: a sentence about the tool ("Node is a runtime.", "cd into the folder").
_ABOUT_TOOL = re.compile(
    r"^\S+ +(?:is|are|was|into|to|the|a|an|and|or|will|can|should|must|lets|allows|provides"
    r"|runs|has|also)\b|(?<! )[.?!:]$|[.?!] +[A-Z]"
)
_CONTINUED_LINE = re.compile(r" +\\ +")  # "npx hardhat verify \\ --network ..."


def _as_code(text: str) -> str:
    """A command left as text, as inline code: each command of several run together in a
    span of its own ("`graph codegen`, then `graph build`"), its line breaks (" \\ ") gone."""
    if not _COMMAND.match(text) or _ABOUT_TOOL.search(text) or "`" in text:
        return text
    commands = [_CONTINUED_LINE.sub(" ", part.strip()) for part in _NEXT_COMMAND.split(text)]
    return ", then ".join(f"`{command}`" for command in commands if command)


# Code a crawl flattened into a paragraph ("import "dotenv/config"; import { HardhatUserConfig }
# from ...", "// Initialize the service const service = new ...;"): it says how, not what.
_FLATTENED_CODE = re.compile(
    r"^(?:import\s|export\s|const\s|let\s|var\s|(?:async\s+)?function\s|//|pragma\s"
    r"|module\.exports\b)[^\n]*[;{=]"
)


def _flattened_code(text: str) -> bool:
    return bool(_FLATTENED_CODE.match(text))


# Where a flattened statement ended: after "; ", and before a "// comment"
# (not a URL's "://") or a keyword opening a declaration, unless a keyword opens it
# already ("const contract = ...", "export function ...").
_STATEMENT_BREAK = re.compile(
    r"(?<=;)\s+|\s+(?=//\s)(?<!:)"
    r"|(?<!\bimport)(?<!\bexport)(?<!\bconst)(?<!\blet)(?<!\bvar)(?<!\breturn)"
    r"\s+(?=(?:import|export|const|let|var|function|pragma|contract|return)\s)"
)


def _reflowed(text: str) -> list[str]:
    """A flattened code paragraph as a fenced block, a statement a line."""
    lines = [line.strip() for line in _STATEMENT_BREAK.split(text.strip()) if line.strip()]
    return ["```", *lines, "```"]


def _dangling(c: Candidate, cands: list[Candidate]) -> bool:
    """A unit announcing something ("...as follows:") that its passage does not hold."""
    return c.unit.announces and not _announced(c, cands)


def _neighbours(
    lead: Candidate, cands: list[Candidate], most: int | None = _MAX_POINTS
) -> list[Candidate]:
    """What belongs with a unit: what it introduces ("as follows:"), its first `most`
    items, or the sentences around it that score close to it."""
    same, at = _passage(lead, cands)
    out: list[Candidate] = []
    if lead.unit.announces:
        follow = same[at + 1 :]
        if follow and follow[0].unit.is_code:
            return follow[:1]
        if lead.unit.kind == "item":
            # An item announcing a list ("`apiKey`: a key that can come from:") announces
            # the items nested under it, not the rest of its own list.
            nested = list(takewhile(lambda c: c.unit.kind == "item"
                                    and c.unit.block == lead.unit.block
                                    and c.unit.depth > lead.unit.depth, follow))
            return nested[:most]  # none: what it announced (an image) is not shown
        # The next list, unless a sentence comes first: the list is then that sentence's
        # ("You can follow me in a few places:" then "You can create a question, to:"),
        # or what was announced is the sentence itself. A label ("Primary Providers:")
        # or a formula between is no sentence.
        before = list(takewhile(lambda c: c.unit.kind not in ("item", "row"), follow))
        follow = follow[len(before):]
        if follow and not any(_sentence(c) for c in before):
            block = follow[0].unit.block
            out += [c for c in follow if c.unit.kind in ("item", "row")
                    and c.unit.block == block][:most]
    else:
        for c in (same[at - 1] if at else None, same[at + 1] if at + 1 < len(same) else None):
            if c is not None and c.unit.block == lead.unit.block and c.score >= 0.5 * lead.score:
                out.append(c)
    return out


_LABEL_WORDS = 3  # "Primary Providers:", "For Mainnet:" label a list; longer ones say more


def _sentence(c: Candidate) -> bool:
    """A paragraph that says something of its own: prose ending as a sentence, or
    announcing in more words than a label."""
    text = c.unit.text.rstrip()
    return c.unit.kind == "prose" and (
        text.endswith((".", "!", "?")) or (c.unit.announces and len(text.split()) > _LABEL_WORDS)
    )


def _passage(c: Candidate, cands: list[Candidate]) -> tuple[list[Candidate], int]:
    """The units of `c`'s passage, in order, and where `c` is among them."""
    same = [d for d in cands if d.ref.n == c.ref.n]
    return same, same.index(c)


def _distinct(a: Candidate, b: Candidate) -> bool:
    """Whether two statements say two things: not most of the same words, unless each
    gives a value the other does not (the testnet contract's address and the testnet gas
    wallet's, whose rows share every word of their explorer links)."""
    if a.unit.text == b.unit.text:
        return False
    va, vb = _values(a.unit.text), _values(b.unit.text)
    if va - vb and vb - va:
        return True
    return len(a.terms & b.terms) / max(1, len(a.terms | b.terms)) < 0.7


@lru_cache(maxsize=4096)
def _values(text: str) -> frozenset[str]:
    """The values a statement shows (numbers, addresses, versions): its terms with a digit,
    read as the statement is embedded, without its links' targets, which are not shown."""
    return frozenset(t for t in terms(clean_for_embedding(text)) if any(ch.isdigit() for ch in t))


def _code_of(intro: Candidate, at: dict[tuple[int, int], Candidate]) -> Candidate | None:
    """The code a statement goes with: what it announces, else the block its paragraph
    describes from below (under its own heading: a passage can run from one section into
    the next), else the block after it."""
    after = _code_after(intro, at)
    if after is not None and at[(after.ref.n, after.pos - 1)].unit.announces:
        return after
    return _code_before(intro, at) or after


def _step_command(
    c: Candidate, at: dict[tuple[int, int], Candidate], taken: set[int]
) -> tuple[Candidate | None, Candidate | None]:
    """The sentence ending `c`'s paragraph and the command it announces, when that is short
    and neither is `taken` (in the answer already); (None, None) otherwise."""
    step = _closing_step(c, at)
    if step is None or id(step) in taken:
        return None, None
    command = at[(step.ref.n, step.pos + 1)]
    if id(command) in taken or not _short(command):
        return None, None
    return step, command


def _closing_step(c: Candidate, at: dict[tuple[int, int], Candidate]) -> Candidate | None:
    """The sentence ending a statement's paragraph, two to `_STEP_REACH` sentences after it,
    when it announces the code block right after the paragraph ("Deploying ... is very
    straightforward. All you need is ... To deploy the contract, run this command:")."""
    if c.unit.kind != "prose":
        return None
    last = c
    while ((nxt := at.get((c.ref.n, last.pos + 1))) is not None and nxt.unit.kind == "prose"
           and nxt.unit.block == c.unit.block):
        last = nxt
    if not 2 <= last.pos - c.pos <= _STEP_REACH or not last.unit.announces:
        return None
    code = at.get((c.ref.n, last.pos + 1))
    return last if code is not None and code.unit.is_code else None


def _code_before(intro: Candidate, at: dict[tuple[int, int], Candidate]) -> Candidate | None:
    """The code block right before the paragraph of a statement (its first or second
    sentence) when no sentence announces that block: crawled pages (GitBook) show an
    endpoint or a command first and say what it does below it."""
    n, start = intro.ref.n, intro.pos
    while (
        (prev := at.get((n, start - 1))) is not None
        and prev.unit.kind == "prose" and prev.unit.block == intro.unit.block
    ):
        start -= 1
    code = at.get((n, start - 1))
    if (intro.pos - start > 1 or code is None or not code.unit.is_code
            or code.unit.heading != intro.unit.heading):
        return None  # code under another heading belongs to that section
    before = at.get((n, start - 2))
    return None if before is not None and before.unit.announces else code


def _intro_of_best_code(
    cands: list[Candidate], at: dict[tuple[int, int], Candidate], top: float
) -> Candidate | None:
    """The sentence announcing the best-scoring code block, when that block scores above
    every statement (`top`) and the sentence at least `_INTRO_LEAD_SHARE` of it ("Ingest
    your own folder ... with `docent ingest`, then start the server with `docent serve`:"
    over the two commands); None otherwise."""
    code = max((c for c in cands if c.unit.is_code), key=lambda c: c.score, default=None)
    if code is None or code.score < top:
        return None
    intro = at.get((code.ref.n, code.pos - 1))
    if (intro is None or not intro.unit.announces
            or len(intro.unit.text.split()) < _MIN_ANNOUNCING_WORDS):
        return None  # "First import `Cookie`:" is a step, no answer
    return intro if intro.score >= _INTRO_LEAD_SHARE * top else None


def _step_after(
    lead: Candidate, at: dict[tuple[int, int], Candidate]
) -> tuple[Candidate | None, Candidate | None]:
    """The paragraph right after a lead when it is one sentence announcing a code block,
    and that block; (None, None) otherwise."""
    step = at.get((lead.ref.n, lead.pos + 1))
    if (step is None or step.unit.kind != "prose" or step.unit.block == lead.unit.block
            or not step.unit.announces or step.filler):
        return None, None
    after = at.get((lead.ref.n, lead.pos + 2))
    if after is not None and after.unit.kind == "prose" and after.unit.block == step.unit.block:
        return None, None  # a paragraph of several sentences is no single step
    code = _code_after(step, at)
    return (step, code) if code is not None else (None, None)


def _code_after(intro: Candidate, at: dict[tuple[int, int], Candidate]) -> Candidate | None:
    """The code block right after a unit, or after its short follow-up sentence (under the
    next heading too: a crawl's section title line, "Secure Implementation", can stand
    between a point and the code it goes with)."""
    nxt = at.get((intro.ref.n, intro.pos + 1))
    if nxt is not None and nxt.unit.kind == "prose" and nxt.unit.block == intro.unit.block:
        nxt = at.get((intro.ref.n, intro.pos + 2))  # after the tail sentence
    return nxt if nxt is not None and nxt.unit.is_code else None


def _on_topic_code(
    cands: list[Candidate], lead: Candidate, points: list[Candidate], intent: Intent,
    example: bool,
) -> Candidate | None:
    """The best on-topic code block of a quoted passage that no chosen statement introduces
    (on-topic enough: a how-to question asks for one more readily). `example`: the question
    asks about the docs' own example, whose code may hold what happens or the value."""
    if intent.kind == "concept" or intent.kind in ("outcome", "value") and not example:
        # What happens, what something is, how long or how many: code nobody chosen
        # introduces is noise (a report template under "how long until a reply?"), unless
        # asked of an example ("In the heroes tutorial, what's the cap on the list
        # endpoint?": `limit: Annotated[int, Query(le=100)] = 100`). Why an example does
        # something is in its prose.
        return None
    quoted = {lead.page, *(p.page for p in points)}
    if intent.wants_code:
        # The search's best passage is as much the answer's as a page it quotes: its code
        # ("...add the following code:" over `<m-model src=...>`) answers a how-to whose
        # lead came from another page ("drag the GLB file into the scene").
        quoted |= {c.page for c in cands if c.ref.n == 1}
    # A passage of code alone (the chunker cut it from the sentences before it) has no
    # statement to choose: its block may show when its words match the question's.
    prose = {c.ref.n for c in cands if not c.unit.is_code}
    share = _HOWTO_CODE_SHARE if intent.wants_code else _CODE_SHARE

    def on_topic(c: Candidate) -> bool:
        strong, matching = c.score >= share * lead.score, c.lex >= _CODE_LEX
        if c.page in quoted:
            return strong or matching
        return c.ref.n not in prose and strong and matching

    code = [c for c in cands if c.unit.is_code and on_topic(c)]
    best = max(code, key=lambda c: c.score, default=None)
    own = max((c for c in code if c.page == lead.page), key=lambda c: c.score, default=None)
    # The lead's page's own code ("Debugging": `uvicorn.run(app)` under `__main__`) over
    # another quoted page's block scoring a little higher (the "First Steps" app).
    if own is not None and best is not None and own.score >= _OWN_CODE_SHARE * best.score:
        return own
    return best


def _closer_match(
    cands: list[Candidate], lead: Candidate, points: list[Candidate], intent: Intent,
    code: Candidate, at: dict[tuple[int, int], Candidate], example: bool,
) -> Candidate | None:
    """The best on-topic block no chosen statement introduces, when its words match the
    question nearly all (`_CODE_LEX`) and better than those of `code`, the block the lead
    shows ("...what goes in the config?" under a lead showing the install command)."""
    introduced = {id(x) for p in (lead, *points) if (x := _code_of(p, at)) is not None}
    other = _on_topic_code([c for c in cands if id(c) not in introduced], lead, points, intent,
                           example)
    if other is None or other.lex < _CODE_LEX or other.lex <= code.lex or _same(other, code):
        return None
    return other


def excerpt(
    code: str, wanted: set[str], limit: int = _MAX_CODE_LINES, values: bool = False,
    timing: bool = False,
) -> str:
    """A fenced code block cut to the `limit` lines that hold the most of the `wanted`
    terms (the first such window), with `...` where lines were left out. With `values`
    (the question asks for a value), the line setting a number that holds the most of
    those terms is shown too, when the window leaves it out (`ACCESS_TOKEN_EXPIRE_MINUTES
    = 30` at the top of a file whose login function holds more of "how many minutes is an
    access token valid")."""
    lines = code.split("\n")
    fenced = len(lines) >= 2 and FENCE.match(lines[0].strip()) is not None
    head, body, tail = (lines[:1], lines[1:-1], lines[-1:]) if fenced else ([], lines, [])
    # Blank lines are counted in no window: they show nothing.
    full = [i for i, line in enumerate(body) if line.strip()]
    if len(full) <= limit + min(_MAX_LEFT_OUT, limit // 3):
        return code
    hits = [len(wanted.intersection(terms(body[i]))) for i in full]
    start, size = _opener(body, full, hits, _best_window(hits, limit), limit), limit
    # "How often...": the line setting the interval, whatever words it holds
    timer = _timing_line(body, full, hits) if timing else None
    pinned = timer if timer is not None else _value_line(body, full, hits) if values else None
    if pinned is not None and start <= pinned < start + size:
        pinned = None  # the window shows it
    if pinned is not None:
        # Room for the line and its "...": the window gives up two lines, unless the
        # shorter window holds the line itself (then it is the full window from there).
        start, size = _best_window(hits, limit - 2), limit - 2
        if start <= pinned < start + size:
            start, size, pinned = min(start, len(full) - limit), limit, None
    # The runs of lines shown (the window, and the pinned line), "..." before each that
    # starts past the line after the one before it.
    runs = [(full[start], full[start + size - 1])]
    if pinned is not None:
        runs = sorted([*runs, (full[_opened_at(body, full, pinned)], full[pinned])])
    out: list[str] = []
    shown_to = full[0] - 1
    for first, last in runs:
        if first > shown_to + 1 and any(body[i].strip() for i in range(shown_to + 1, first)):
            out.append(" " * (len(body[first]) - len(body[first].lstrip())) + "...")
        out += body[first : last + 1]
        shown_to = last
    if shown_to < full[-1]:
        out.append("...")
    return "\n".join([*head, *out, *tail])


_OPENER_UP = 3  # lines a window may move up to where its code opens (a signature's lines)
_CLOSER = re.compile(r"^\s*[)\]}]")  # "):" closes a signature its opener began above


def _opener(body: list[str], full: list[int], hits: list[int], start: int, size: int) -> int:
    """`start`, or the line a few lines above it that opens the code the window starts
    inside (`async def get_current_active_user(...)` over `if current_user.disabled:`),
    unless the lines the move leaves out at the bottom hold more wanted terms than the
    lines it adds, one more for each line it moves."""
    first = body[full[start]]
    depth = _indent(first) + bool(_CLOSER.match(first))
    for k in range(start - 1, max(-1, start - 1 - _OPENER_UP), -1):
        line = body[full[k]]
        if _CLOSER.match(line):  # its opener is further up, at most as deep as it
            depth = min(depth, _indent(line) + 1)
        elif _indent(line) < depth:
            lost = sum(hits[k + size : start + size])
            return k if sum(hits[k:start]) + (start - k) >= lost else start
    return start


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _best_window(hits: list[int], size: int) -> int:
    """Where the first window of `size` lines holding the most `hits` starts."""
    window = sum(hits[:size])
    best, start = window, 0
    for i in range(1, len(hits) - size + 1):
        window += hits[i + size - 1] - hits[i - 1]
        if window > best:
            best, start = window, i
    return start


_SETS_NUMBER = re.compile(r"[=:]\s*[\"']?\d")


def _value_line(body: list[str], full: list[int], hits: list[int]) -> int | None:
    """Of the non-blank lines `full`, the position of the one setting a number (`= 30`,
    `: 5000`) that holds the most wanted terms, two or more; None when there is none."""
    return _pinned_line(body, full, hits, _SETS_NUMBER, 2)


def _timing_line(body: list[str], full: list[int], hits: list[int]) -> int | None:
    """Of the non-blank lines `full`, the position of the first line setting an interval
    that holds the most wanted terms; None when there is none."""
    return _pinned_line(body, full, hits, TIMING_LINE, 0)


def _pinned_line(body: list[str], full: list[int], hits: list[int], line: re.Pattern[str],
                 least: int) -> int | None:
    """Of the non-blank lines `full` that `line` matches and that hold at least `least`
    wanted terms, the position of the first holding the most; None when there is none."""
    found = [(h, -k) for k, (i, h) in enumerate(zip(full, hits, strict=True))
             if h >= least and line.search(body[i])]
    return -max(found)[1] if found else None


_CALL_CLOSED = re.compile(r"^\s*\}\s*,")
_TIMER_CALL = re.compile(r"\bset(?:Interval|Timeout)\s*\(")
_OPENER_REACH = 4  # lines a timer's call may open above the line closing it


def _opened_at(body: list[str], full: list[int], k: int) -> int:
    """Where the line at position `k` of `full` begins to read: the `setInterval(() => {`
    a `}, 5 * 60 * 1000);` closes, when it is a few lines above; else `k` itself."""
    if not _CALL_CLOSED.match(body[full[k]]):
        return k
    return next((j for j in range(k - 1, max(-1, k - 1 - _OPENER_REACH), -1)
                 if _TIMER_CALL.search(body[full[j]])), k)
