"""The built-in extractive model: same protocol as a hosted model, a real answerer."""

from __future__ import annotations

from langchain_core.messages import AIMessage, AIMessageChunk, HumanMessage, ToolMessage

from docent.agent.tools import SEARCH_TOOL, make_search_tool
from docent.evaluation.metrics import lead_statement
from docent.exit_reasons import REFUSAL
from docent.intent import intent_of
from docent.models.compose import compose_answer
from docent.models.extractive import ExtractiveChatModel
from docent.models.followup import condense_query
from docent.models.text import Reference, parse_references
from docent.models.units import listed, referenced, split_units
from docent.prompts import MAX_QUERY_CHARS
from tests.fakes import FakeRetriever

TOOL_TEXT = """[1] Configuration > Guards (configuration.md)
The tool-call limit caps retriever calls per run. Set `DOCENT_MAX_TOOL_CALLS` to change the \
tool-call limit; the default is 3.

```bash
DOCENT_MAX_TOOL_CALLS=5 docent serve
```

[2] Streaming (streaming.md)
Answers stream as server-sent events. Copy

- Keep-alive pings arrive every 15 seconds."""


def bound():
    return ExtractiveChatModel().bind_tools([make_search_tool(FakeRetriever(), 5)])


def test_first_turn_calls_the_search_tool_with_the_question():
    reply = bound().invoke([HumanMessage("How do I change the tool-call limit?")])
    assert reply.tool_calls[0]["name"] == SEARCH_TOOL
    assert reply.tool_calls[0]["args"] == {"query": "How do I change the tool-call limit?"}


def test_a_question_longer_than_a_search_query_is_searched_by_its_start():
    question = "How do I change the tool-call limit? " + "Some context here. " * 150
    query = bound().invoke([HumanMessage(question)]).tool_calls[0]["args"]["query"]
    assert len(question) > MAX_QUERY_CHARS >= len(query) > MAX_QUERY_CHARS - 30
    assert question.startswith(query)


def test_streaming_a_tool_call_yields_tool_call_chunks():
    chunks = list(bound().stream([HumanMessage("tool-call limit?")]))
    assert isinstance(chunks[0], AIMessageChunk) and chunks[0].tool_call_chunks
    merged = chunks[0]
    for c in chunks[1:]:
        merged += c
    assert merged.tool_calls[0]["args"]["query"] == "tool-call limit?"


def test_answer_quotes_matching_sentences_with_citations_and_streams():
    messages = [HumanMessage("How do I change the tool-call limit?"),
                AIMessage("", tool_calls=[{"name": SEARCH_TOOL, "args": {"query": "x"}, "id": "1"}]),
                ToolMessage(TOOL_TEXT, tool_call_id="1")]
    answer = bound().invoke(messages).content
    assert answer.startswith("## Guards")
    assert "Set `DOCENT_MAX_TOOL_CALLS` to change the tool-call limit; the default is 3. [1]" in answer
    assert "DOCENT_MAX_TOOL_CALLS=5 docent serve" in answer  # the relevant example, whole
    streamed = "".join(c.content for c in bound().stream(messages))
    assert streamed == answer


def test_an_answer_streams_in_chunks_of_a_few_words():
    """Each chunk is an event through the callbacks, the event stream and an SSE frame: a
    word a chunk made a stream cost four answers (bench/README.md)."""
    messages = [HumanMessage("How do I change the tool-call limit?"),
                AIMessage("", tool_calls=[{"name": SEARCH_TOOL, "args": {"query": "x"}, "id": "1"}]),
                ToolMessage(TOOL_TEXT, tool_call_id="1")]
    chunks = [c.content for c in bound().stream(messages)]
    words = [len(c.split()) for c in chunks]
    assert max(words) == 8 and len(chunks) < sum(words) / 4
    assert "".join(chunks) == bound().invoke(messages).content


def test_refuses_on_empty_search_and_on_irrelevant_passages():
    empty = [HumanMessage("What is the airspeed of a swallow?"),
             ToolMessage("DOCUMENTATION_SEARCH_RESULT: EMPTY", tool_call_id="1")]
    assert bound().invoke(empty).content == REFUSAL
    assert compose_answer("airspeed swallow", parse_references(TOOL_TEXT)) == REFUSAL


def test_page_chrome_and_headings_are_not_answer_sentences():
    units = [u.text for u in split_units("## Title\nReal sentence here. Copy\n\nPrevious\n")]
    assert units == ["Real sentence here."]


def test_follow_up_questions_are_condensed_with_the_previous_one():
    # the pronoun stands for what the earlier question asked about
    assert condense_query("How do I configure it?", ["What is the retriever cache?"]) == (
        "How do I configure the retriever cache?"
    )
    assert condense_query("What chain ID does it use?", ["What is the Shannon testnet?"]) == (
        "What chain ID does the Shannon testnet use?")
    assert condense_query("How fast are its reads?", ["What is IceDB used for?"]) == (
        "How fast are IceDB's reads?")
    # an earlier question that names no subject this way, or several things: it sets the
    # scene instead, and what is asked is read from the question asked now
    assert condense_query("How do I configure it?", ["Can I cache searches?"]) == (
        "Can I cache searches. How do I configure it?")
    assert condense_query("When should I use them?", ["What is the difference between A and B?"]
                          ) == "What is the difference between A and B. When should I use them?"
    cached = condense_query("How long does an entry stay in it?", ["Why does docent cache answers?"])
    assert cached == "Why does docent cache answers. How long does an entry stay in it?"
    assert intent_of(cached).kind == "value"  # a duration, not why
    # "Who is behind docent?" asks who: "them" is not "behind docent"
    assert condense_query("Which of them wrote the retriever?", ["Who is behind docent?"]) == (
        "Who is behind docent. Which of them wrote the retriever?")
    # "How do I ...?" is about doing something, not about a subject "it" could stand for
    assert condense_query("What format is it in?", ["How do I stream answers?"]) == (
        "How do I stream answers. What format is it in?")
    assert condense_query("How do I change the tool-call limit?", ["What is docent?"]) == (
        "How do I change the tool-call limit?"
    )
    # an ellipsis, no pronoun: it asks about what the earlier question asked about
    walking = "What are the keyboard controls for walking around a world?"
    assert condense_query("what about going faster?", [walking]) == (
        f"{walking[:-1]}. what about going faster?")
    assert condense_query("And with Foundry?", ["How do I verify a contract with Hardhat?"]) == (
        "How do I verify a contract with Hardhat. And with Foundry?")
    assert condense_query("Android devices run it?", ["What is docent?"]) == (
        "Android devices run docent?")
    assert condense_query("anything", []) == "anything"
    # a third turn: the second one standalone first, so the first turn's subject is kept
    chain = ["What is the Shannon testnet?", "What chain ID does it use?"]
    assert condense_query("And the RPC URL?", chain) == (
        "What chain ID does the Shannon testnet use. And the RPC URL?")
    assert condense_query("Is it free?", [*chain, "And the RPC URL?"]) == (
        "What chain ID does the Shannon testnet use. And the RPC URL. Is the RPC URL free?")
    # "it" after an elliptical turn is what that turn moved on to, in the scene it moved in
    cache = ["How long are sessions kept?", "And the model cache?"]
    assert condense_query("Can I turn it off?", cache) == (
        "How long are sessions kept. And the model cache. Can I turn the model cache off?")
    assert condense_query("Is it retryable?", ["What does MAX_TURNS_REACHED mean?",
                                               "What about `MAX_TOOL_CALLS_REACHED`?"]) == (
        "What does MAX_TURNS_REACHED mean. What about `MAX_TOOL_CALLS_REACHED`. "
        "Is `MAX_TOOL_CALLS_REACHED` retryable?")
    # ... a thing, not a doing
    assert condense_query("Is it faster?", ["How do I walk?", "what about going faster?"]) == (
        "How do I walk. what about going faster. Is it faster?")
    # a short question naming what it asks about only as "the ...": the conversation's thing
    limit = "How do I change the tool-call limit?"
    assert condense_query("What is the default turn limit?", [limit]) == (
        "How do I change the tool-call limit. What is the default turn limit?")
    assert condense_query("How big are the report files?", ["Has docent been audited?"]) == (
        "Has docent been audited. How big are the report files?")
    # ... not when it names a thing of its own, nor when it is long
    assert condense_query(limit, ["What is docent?"]) == limit
    assert condense_query("Where is the Chroma folder?", ["What is docent?"]) == (
        "Where is the Chroma folder?")
    long = "Where do the answers of the offline model come from when no key is set?"
    assert condense_query(long, ["What is docent?"]) == long
    # a short question naming a thing of its own with no capital is a new question: code or
    # an address, words in quotes, a "what is X" with no "the"
    for own in ["what does 0.0.0.0 mean", "what is solhint for", "what is a path operation",
                "what is a router", "what is docker",
                'What is the difference between "fastapi dev" and "fastapi run"?']:
        assert condense_query(own, ["How do I declare an optional query parameter?"]) == own
    # ... but not a comparison, nor "the ..."
    for leaning in ["What is faster?", "What's the default?", "what is the path in a url"]:
        assert condense_query(leaning, ["How do I pick a server?"]) == (
            f"How do I pick a server. {leaning}")


def test_a_follow_up_is_answered_as_the_question_it_stands_for():
    passages = """[1] Rate limits (configuration.md)
The default is 10 requests a minute per session.

[2] Configuration > Guards (configuration.md)
The tool-call limit caps retriever calls per run; the default is 3."""
    messages = [HumanMessage("How do I change the tool-call limit?"),
                AIMessage("Set `DOCENT_MAX_TOOL_CALLS`. [1]"),
                HumanMessage("What is the default?"),
                AIMessage("", tool_calls=[{"name": SEARCH_TOOL, "args": {"query": "x"}, "id": "2"}]),
                ToolMessage(passages, tool_call_id="2")]
    answer = bound().invoke(messages).content
    assert answer.startswith("## Guards\n\nThe tool-call limit caps retriever calls per run")


def test_a_follow_up_asking_about_another_thing_is_answered_about_that_thing():
    # The earlier question sets the scene of "What about model calls?"; its own words
    # ("tool-call") must not outweigh the thing asked about now.
    passages = """[1] Configuration > Changing the tool-call limit (configuration.md)
Set `DOCENT_MAX_TOOL_CALLS` to change the tool-call limit; the default is 3 searches per run.

[2] Configuration > Changing the turn limit (configuration.md)
Set `DOCENT_MAX_TURNS` to change the turn limit; the default is 6 model calls per run."""
    first = "How do I change the tool-call limit?"
    messages = [HumanMessage(first), AIMessage("Set `DOCENT_MAX_TOOL_CALLS`. [1]"),
                HumanMessage("What about model calls?"),
                AIMessage("", tool_calls=[{"name": SEARCH_TOOL, "args": {"query": "x"}, "id": "2"}]),
                ToolMessage(passages, tool_call_id="2")]
    answer = bound().invoke(messages).content
    assert answer.startswith("## Changing the turn limit\n\nSet `DOCENT_MAX_TURNS`")
    # ... but a name written as code, which "it" stands for, keeps its weight
    fields = """[1] HTTP API > The chat request (api.md)
`selected_text` — Type: string up to 10000 characters, optional — Meaning: Text the user highlighted.

[2] Configuration > The context budget (configuration.md)
A long question can be as long as 10000 characters, and it can be longer with a larger budget."""
    messages = [HumanMessage("What is the selected_text field in a chat request?"),
                AIMessage("`selected_text` is text the user highlighted. [1]"),
                HumanMessage("How long can it be?"),
                AIMessage("", tool_calls=[{"name": SEARCH_TOOL, "args": {"query": "x"}, "id": "3"}]),
                ToolMessage(fields, tool_call_id="3")]
    assert "up to 10000 characters" in lead_statement(bound().invoke(messages).content)
    # asked alone, the same words lead with the tool-call limit: the scene's words count
    alone = compose_answer(f"{first.rstrip('?')}. What about model calls?",
                           parse_references(passages))
    assert alone.startswith("## Changing the tool-call limit")


def test_without_tools_and_without_passages_it_refuses():
    assert ExtractiveChatModel().invoke([HumanMessage("q")]).content == REFUSAL


def test_sentences_split_on_any_case_but_not_after_abbreviations():
    from docent.models.text import sentences

    assert sentences('docent cites sources. it refuses, e.g. when nothing matches. Then "done."') == [
        "docent cites sources.", "it refuses, e.g. when nothing matches.", 'Then "done."']
    assert sentences("The default is 3. The limit is per run.") == [
        "The default is 3.", "The limit is per run."]


def test_the_united_states_is_one_word_by_any_of_its_names_and_us_is_no_word():
    from docent.models.text import terms

    docs = "This Airdrop is not available to residents of the United States of America (USA)."
    for question in ("I live in the US, can I join?", "Is the U.S. excluded?"):
        assert "usa" in set(terms(question)) & set(terms(docs))
    # The pronoun, like "we" and "our", is no content word; nor is a shouted "US".
    assert terms('("Company," "we," "us," or "our")') == ["company"]
    assert "usa" not in terms("CONTACT US TODAY")


def test_a_company_name_ending_in_an_abbreviation_does_not_end_its_sentence():
    from docent.models.text import sentences

    # "Ltd." then a bracket, "Co." then "Ltd.": the name goes on, and so does the sentence.
    assert sentences('Tokens are sent by Example TokenCo. Ltd. ("Company," "we") to eligible '
                     'participants. Read on.') == [
        'Tokens are sent by Example TokenCo. Ltd. ("Company," "we") to eligible participants.',
        "Read on."]
    # A sentence ending in the name ends there.
    assert sentences("SOMI is issued by Example Token Co Ltd. The supply is fixed.") == [
        "SOMI is issued by Example Token Co Ltd.", "The supply is fixed."]
    # ...and a word that only ends in the letters is no company: "Morocco." ends a sentence.
    assert sentences("We met in Morocco. (It was fun.)") == ["We met in Morocco.", "(It was fun.)"]


# Answer units: what a passage is cut into before sentences are chosen.


def test_docs_builder_directives_and_link_only_lines_are_not_units():
    body = (
        "Use the limit like this:\n\n"
        "{* ../../docs_src/limits/tutorial001.py hl[3] *}\n\n"
        "{!../../docs_src/limits/style.css!}\n\n"
        "::: docent.limits.Limit\n\n"
        "/// tip\n\nThe limit is per run.\n\n///\n\n"
        "1. [Guide](/guide)\n  2. [Limits](/guide/limits)\n\n"
        "[https://example.org/limits](https://example.org/limits)\n\n"
        '<div class="termy">\n\n'
    )
    assert [u.text for u in split_units(body)] == [
        "Use the limit like this:", "API reference: `docent.limits.Limit`.",
        "The limit is per run."]


def test_an_endpoints_method_and_path_is_a_unit_though_short():
    # A crawled API reference: the bold title and the content type stay labels.
    body = ("Endpoints\n\n**Single File Contract Verification**\n\n"
            "POST `/api/contract/verify/single-file`\n\nContent Type: `application/json`\n\n"
            "Description: Verify a smart contract using a single Solidity source file.\n\n"
            "Request Body\n")
    assert [u.text for u in split_units(body)] == [
        "POST `/api/contract/verify/single-file`",
        "Description: Verify a smart contract using a single Solidity source file."]


def test_table_rows_and_list_items_are_units_of_their_own():
    body = (
        "| Setting | Default |\n|---|---|\n| `MAX_TURNS` | 6 |\n| `MAX_TOOL_CALLS` | 3 |\n\n"
        "The guards are:\n\n* **Turns:** six model calls\n* **Tools:** three searches, then stop"
    )
    units = split_units(body)
    assert [(u.kind, u.text) for u in units] == [
        ("row", "`MAX_TURNS` — Default: 6"),
        ("row", "`MAX_TOOL_CALLS` — Default: 3"),
        ("prose", "The guards are:"),
        ("item", "**Turns:** six model calls"),
        ("item", "**Tools:** three searches, then stop"),
    ]
    assert units[0].block == units[1].block != units[3].block == units[4].block


def test_a_table_flattened_to_one_cell_a_line_is_rebuilt():
    body = "Retention\n\nDays\n\nLogs\n\n7\n\nTraces\n\n14\n\nMetrics\n\n30"
    assert [u.text for u in split_units(body)] == [
        "Logs — Days: 7", "Traces — Days: 14", "Metrics — Days: 30"]


def test_a_flattened_table_of_linked_addresses_is_rebuilt():
    # A crawled table: bold header cells, then a name and its linked address per row.
    link = "[0x5e44F178E8cF9B2F](https://explorer.example/address/0x5e44F178E8cF9B2F)"
    other = "[0x046EDe9564A72571](https://explorer.example/token/0x046EDe9564A72571)"
    body = f"**Contract**\n\n**Address**\n\nMultiCallV3\n\n{link}\n\nWSOMI\n\n{other}"
    assert [u.text for u in split_units(body)] == [
        f"MultiCallV3 — Address: {link}", f"WSOMI — Address: {other}"]


def test_inline_html_in_prose_shows_as_its_text():
    # Docs write abbreviations, definitions and keys as HTML inside markdown; the answer
    # shows what the page's reader sees. A title's "." ends no sentence, and code keeps
    # its tags.
    body = ('You can use any library (called <abbr title="Object Relational Mapper. A '
            'library.">ORMs</abbr>) at the <dfn title="2023-08-26">time of writing</dfn>.'
            " Press <kbd>Ctrl</kbd>+<kbd>C</kbd><br>to stop `<b>x</b>`.\n\n"
            '* See <a href="https://example.com/a">the <b>guide</b></a> or <code>app.get</code>')
    assert [u.text for u in split_units(body)] == [
        "You can use any library (called ORMs (Object Relational Mapper)) at the time of writing.",
        "Press Ctrl+C to stop `<b>x</b>`.",
        "See [the guide](https://example.com/a) or `app.get`"]


def test_an_abbreviation_shows_its_expansion():
    # "What does ASGI stand for?": the page shows the expansion on hover, the answer in
    # brackets, after a plural's "s" and without a gloss after a colon.
    body = ('FastAPI uses a standard called <abbr title="Asynchronous Server Gateway Interface">'
            'ASGI</abbr>. It works with <abbr title="Object Document Mapper: a library">ODM</abbr>s.')
    assert [u.text for u in split_units(body)] == [
        "FastAPI uses a standard called ASGI (Asynchronous Server Gateway Interface).",
        "It works with ODMs (Object Document Mapper)."]


def test_an_html_table_in_a_table_cell_reads_as_its_rows():
    # FastAPI's metadata page nests a <details><table> in a markdown table's cell; the
    # answer showed "...used for the API.</td></tr><tr><td>`identifier`</td>...".
    body = ("| Parameter | Type | Description |\n|---|---|---|\n"
            "| `license_info` | `dict` | The license information. <details><summary>"
            "<code>license_info</code> fields</summary><table><thead><tr><th>Parameter</th>"
            "<th>Type</th></tr></thead><tbody><tr><td><code>name</code></td><td><code>str"
            "</code></td><td>The license name.</td></tr><tr><td><code>url</code></td><td>"
            "<code>str</code></td><td>A URL to the license</td></tr></tbody></table>"
            "</details> |\n\n"
            "<details>\n<summary>Dockerfile Preview</summary>\n\n```Dockerfile\n"
            "FROM python:3.14\n```\n\n</details>\n")
    assert [u.text for u in split_units(body)] == [
        "`license_info` — Type: `dict` — Description: The license information. "
        "`license_info` fields: `name` — `str` — The license name. "
        "`url` — `str` — A URL to the license.",
        "Dockerfile Preview:",  # announces the block it opens
        "```Dockerfile\nFROM python:3.14\n```"]


def test_a_list_item_naming_its_nested_items_is_one_statement_with_them():
    # A definition list: the label says what, its nested items say what it is.
    body = ("* `datetime.timedelta`:\n"
            "    * A Python `datetime.timedelta`.\n"
            "    * In requests and responses will be represented as a `float` of total\n"
            "      seconds.\n"
            "* API keys in:\n"
            "    * Headers\n"
            "    * Cookies, etc.\n"
            "* A plain item\n\n"
            "* Add the network:\n\n"
            "    ```js\n    networks: {}\n    ```\n")
    assert [(u.kind, u.text) for u in split_units(body)] == [
        ("item", "`datetime.timedelta`: A Python `datetime.timedelta`. In requests and "
                 "responses will be represented as a `float` of total seconds."),
        ("item", "API keys in: Headers; Cookies, etc."),
        ("item", "A plain item"),
        ("item", "Add the network:"),
        ("code", "    ```js\n    networks: {}\n    ```")]


def test_a_flattened_table_of_code_cells_is_rebuilt():
    # A crawled "Type | Selector | Description" table: each code cell is a code span, and a
    # selector is a short hex value.
    cells = ["Type", "Selector", "Description",
             "`Error(string)`", "`0x08c379a0`", "Revert with a message",
             "`Panic(uint256)`", "`0x4e487b71`", "Internal error"]
    assert [u.text for u in split_units("\n\n".join(cells))] == [
        "`Error(string)` — Selector: `0x08c379a0` — Description: Revert with a message",
        "`Panic(uint256)` — Selector: `0x4e487b71` — Description: Internal error"]


def test_what_a_page_shows_nothing_for_is_not_quoted():
    # A crawl's empty link after a URL read "<url>(url)" in answers once the brackets went,
    # an image with no text "!(url)"; bold markers around nothing and zero-width spaces are
    # noise too, and so are the stars of a crawl's bold code span. Code keeps them.
    body = "\n\n".join([
        "Try it live -> <https://mml.example/dice>[](https://mml.example/dice) in a browser.",
        "The toasts are **non-intrusive** and**** modal alerts are not.",
        "- \u200bTOTAL supply: 100%",
        "- `**chainKey**`**:** `somnia`",
        "Pick the token (USDC, ETH)![](https://img.example/a.png) and send.",
        "```\nconst empty = '[](x)' + '****';\n```",
    ])
    assert [u.text for u in split_units(body)] == [
        "Try it live -> <https://mml.example/dice> in a browser.",
        "The toasts are **non-intrusive** and modal alerts are not.",
        "TOTAL supply: 100%",
        "`chainKey`**:** `somnia`",
        "Pick the token (USDC, ETH) and send.",
        "```\nconst empty = '[](x)' + '****';\n```",
    ]


def test_a_label_standing_before_its_links_or_address_is_one_unit_with_them():
    # A crawled key-value list: each label alone, then its value(s), each only a link, a
    # URL or an address (all of which alone are dropped as page chrome).
    body = "\n\n".join([
        "Network details for developers.",
        "EntryPoint v0.7",
        "[0x0000000071727De22E5E9d8BAf0edAc6f37da032](https://explorer.example/address/0x00)",
        "Testnet Faucet",
        "<https://faucet.example.org/>[](https://faucet.example.org/)",
        "RPC",
        "<https://rpc.example.org/>[](https://rpc.example.org/)",
        "[https://rpc2.example.org/](https://rpc2.example.org/)",
        "Symbol",
        "SOMI",
    ])
    assert [u.text for u in split_units(body)] == [
        "Network details for developers.",
        "EntryPoint v0.7: [0x0000000071727De22E5E9d8BAf0edAc6f37da032]"
        "(https://explorer.example/address/0x00)",
        "Testnet Faucet: <https://faucet.example.org/>",
        "RPC: <https://rpc.example.org/>, [https://rpc2.example.org/](https://rpc2.example.org/)",
    ]
    # a table's header and a row of named links are no label and its values: "CEX",
    # "DEX", then "[Binance](…)", "Quickswap" say nothing of the kind "DEX: Binance" would
    table = "\n\n".join(["CEX", "DEX", "[Binance](https://binance.example/)", "Quickswap",
                          "[Bitget](https://bitget.example/)"])
    assert not any("DEX:" in u.text or "Quickswap:" in u.text for u in split_units(table))
    # a sentence before a link is no label; a link in its own paragraph stays dropped
    assert [u.text for u in split_units("See the faucet.\n\n<https://faucet.example.org/>")] \
        == ["See the faucet."]


def test_short_lines_a_sentence_announces_join_it_as_a_list():
    # A crawl's list that lost its bullets: each name alone (loose words and links, which
    # alone are dropped), after the sentence announcing them.
    body = "\n\n".join([
        "You can buy SOMI tokens from the list of exchanges below:",
        "[Binance](https://binance.example/)", "Quickswap", "[Gate.io](https://gate.example/)",
        "## Bridge",
        "Run these commands:", "    npm install", "    npm run dev",
        "Then look at what the page shows:", "<img src=\"/img/a.png\">", "/// note",
    ])
    assert [u.text for u in split_units(body)] == [
        "You can buy SOMI tokens from the list of exchanges below: Binance, Quickswap, Gate.io.",
        "Run these commands:",
        "```\nnpm install\n\nnpm run dev\n```",
        "Then look at what the page shows:",
    ]


def test_a_flattened_table_keyed_by_values_is_rebuilt():
    # Every row is named by a value: a panic code, not a label.
    cells = ["Panic Code", "Description", "Typical Cause",
             "`0x01`", "Assertion failed", "Logic invariant broken",
             "`0x11`", "Arithmetic overflow", "Unchecked math",
             "`0x12`", "Division by zero", "Incorrect division"]
    assert [u.text for u in split_units("\n\n".join(cells))] == [
        "`0x01` — Description: Assertion failed — Typical Cause: Logic invariant broken",
        "`0x11` — Description: Arithmetic overflow — Typical Cause: Unchecked math",
        "`0x12` — Description: Division by zero — Typical Cause: Incorrect division"]


def test_a_flattened_table_without_its_corner_cell_is_rebuilt():
    # The header's empty first cell left no line: three labels, then rows of four.
    cells = ["Average DPS", "Max DPS", "Finality",
             "ETH", "9.19", "18.38", "66s",
             "Polygon", "47.67", "95.33", "Variable",
             "BNB", "194.6", "194.6", "75s"]
    assert [u.text for u in split_units("\n\n".join(cells))] == [
        "ETH — Average DPS: 9.19 — Max DPS: 18.38 — Finality: 66s",
        "Polygon — Average DPS: 47.67 — Max DPS: 95.33 — Finality: Variable",
        "BNB — Average DPS: 194.6 — Max DPS: 194.6 — Finality: 75s"]


def test_a_flattened_table_of_six_columns_keeps_its_totals_row():
    header = ["ALLOCATION", "% OF TOKENS", "TOKENS", "% AT TGE", "CLIFF", "VESTING"]
    rows = [["Team", "11%", "110,000", "0%", "12", "48"],
            ["Ecosystem", "27.3%", "273,450", "5.075%", "0", "48"],
            ["TOTAL", "100%", "1,000,000", "16.02%"]]  # the totals leave the last two empty
    body = "\n\n".join(header + [c for row in rows for c in row]) + "\n\n* Team - early staff"
    assert [u.text for u in split_units(body)] == [
        "Team — % OF TOKENS: 11% — TOKENS: 110,000 — % AT TGE: 0% — CLIFF: 12 — VESTING: 48",
        "Ecosystem — % OF TOKENS: 27.3% — TOKENS: 273,450 — % AT TGE: 5.075% — CLIFF: 0 — "
        "VESTING: 48",
        "TOTAL — % OF TOKENS: 100% — TOKENS: 1,000,000 — % AT TGE: 16.02%",
        "Team - early staff"]


def test_a_flattened_table_whose_last_column_holds_sentences_is_rebuilt():
    # A crawled "Phase | Duration | Overview" table: the overview cells are sentences.
    cells = ["Phase", "Duration", "Overview",
             "Bootstrap", "0-6 months", "Foundation board in control. Groups form.",
             "Transition", "6-24 months", "All groups take part."]
    body = "The phases are below.\n\n" + "\n\n".join(cells) + "\n\nThe roadmap may change."
    assert [u.text for u in split_units(body)] == [
        "The phases are below.",
        "Bootstrap — Duration: 0-6 months — Overview: Foundation board in control. Groups form.",
        "Transition — Duration: 6-24 months — Overview: All groups take part.",
        "The roadmap may change."]


def test_a_flattened_table_of_short_texts_is_rebuilt():
    # "Quick Comparison": no value in any cell; rows of three, not two or six, have columns
    # alike (row names, then phrases).
    cells = ["Feature", "Mainnet (Production)", "Testnet (Shannon)",
             "Currency", "SOMI (real value)", "STT (valueless, faucet)",
             "Purpose", "Production deployments", "Development & testing",
             "Transactions", "Permanent and irreversible", "Experimental and disposable",
             "Risk", "Financial impact possible", "No financial risk"]
    assert [u.text for u in split_units("\n\n".join(cells))][:2] == [
        "Currency — Mainnet (Production): SOMI (real value) — Testnet (Shannon): "
        "STT (valueless, faucet)",
        "Purpose — Mainnet (Production): Production deployments — Testnet (Shannon): "
        "Development & testing"]


def test_the_width_of_a_flattened_table_of_names_is_the_one_whose_columns_repeat():
    # Every cell is a name or two: rows of 2, 4 and 5 all read; the grades repeat in 4.
    cells = ["Tool", "Type", "Effectiveness", "Cost",
             "Slither", "Static Analysis", "High", "Free",
             "MythX", "Comprehensive", "Very High", "Paid",
             "Securify", "Academic", "Medium", "Free",
             "Manticore", "Symbolic Execution", "High", "Free"]
    assert [u.text for u in split_units("\n\n".join(cells))][0] == (
        "Slither — Type: Static Analysis — Effectiveness: High — Cost: Free")
    # Two rows that repeat nothing are no table ("W – Forward", "A – Left", ...); nor are
    # rows whose names are marked up unlike each other (a bold name, a code span, a link).
    keys = ["W – Forward", "A – Left", "S – Backward", "D – Right", "Space – Jump",
            "Shift – Run"]
    assert not any(" — " in u.text for u in split_units("\n\n".join(keys)))
    mixed = ["Explorer URL", "API Endpoint", "**Testnet**", "https://explorer.example",
             "`/api`", "**Mainnet**", "https://main.example", "`/api`"]
    assert not any(" — " in u.text for u in split_units("\n\n".join(mixed)))


def test_labels_and_sentences_that_are_no_table_stay_as_written():
    # An FAQ crawled to one line a paragraph: a question is no column header or row label.
    faq = "\n\n".join(["How much does a launch cost?", "3.5 SOMI + gas",
                          "Can I trade at once?", "Yes, right after launch.",
                          "Which wallets work?", "MetaMask and others work fine."])
    assert [u.text for u in split_units(faq)] == [
        "3.5 SOMI + gas", "Yes, right after launch.", "MetaMask and others work fine."]
    # A docs-builder admonition's fences are no cells either.
    note = ("</div>\n\n////\n\n/// tip\n\nIn Bash, set both variables before the command."
            "\n\n///\n\nAnd then the `admin_email` setting is set.")
    assert [u.text for u in split_units(note)] == [
        "In Bash, set both variables before the command.",
        "And then the `admin_email` setting is set."]


def test_an_indented_code_block_is_code():
    body = "Add the network:\n\n    networks: {\n      local: { url: 'http://x' }\n    }\n\nDone now."
    units = split_units(body)
    assert [u.kind for u in units] == ["prose", "code", "prose"]
    assert units[1].text.startswith("```\nnetworks: {")


def test_topic_drops_site_suffix_and_markup():
    assert Reference(1, "Guide > **Limits** (a.md)", "").topic == "Limits"
    assert Reference(1, "Limits | Guide | Docent Docs (a.md)", "").topic == "Limits"


def test_topic_keeps_the_pipes_and_arrows_of_code_in_a_heading():
    # An API reference names a method by its signature: a union type is no site suffix.
    signature = "`get(id: bigint): Promise<Hex | Error | null>`"
    assert Reference(1, f"SDK > {signature} (a.md)", "").topic == signature
    assert Reference(1, "SDK > `a > b` | Docs (a.md)", "").topic == "`a > b`"


def test_the_answer_is_headed_by_the_section_its_lead_comes_from():
    # The passage runs from the end of the CORS section into the next one: its title is the
    # first section's, the statement answering sits under the second's heading.
    text = """[1] Configuration > Allowing browsers (CORS) (configuration.md)
Browsers block calls from other origins by default.

## Refusing questions the **docs** don't cover

Docent refuses a question when the retrieved passages cannot answer it."""
    answer = compose_answer("Why does docent refuse a question?", parse_references(text),
                            fake_vectors(["refus"]))
    assert answer.startswith("## Refusing questions the docs don't cover\n\nDocent refuses"), answer
    # A passage with no heading of its own inside is headed by its section, as before.
    answer = compose_answer("Why do browsers block calls?", parse_references(text),
                            fake_vectors(["browser"]))
    assert answer.startswith("## Allowing browsers (CORS)\n\nBrowsers block"), answer


def test_code_under_another_heading_is_not_a_statements_example():
    # A passage that opens with the last code block of the section before: the statement
    # under the next heading does not describe that code from below.
    text = """[1] Configuration > Allowing browsers (CORS) (configuration.md)
```bash
DOCENT_CORS_ORIGINS=https://docs.example.com docent serve
```

## Refusing questions the docs don't cover

Docent refuses a question when the retrieved passages cannot answer it."""
    answer = compose_answer("Why does docent refuse a question?", parse_references(text),
                            fake_vectors(["refus"]))
    assert answer.startswith("## Refusing questions the docs don't cover\n\nDocent refuses")
    assert "CORS_ORIGINS" not in answer, answer
    # Under one heading, the code right before a statement's paragraph is its example.
    text = """[1] Configuration > Refusing questions the docs don't cover (configuration.md)
```bash
DOCENT_MAX_UNKNOWN_SHIFT=2 docent serve
```

Docent refuses a question when the retrieved passages cannot answer it."""
    answer = compose_answer("Why does docent refuse a question?", parse_references(text),
                            fake_vectors(["refus"]))
    assert "DOCENT_MAX_UNKNOWN_SHIFT=2" in answer, answer


# Composition: which units answer, and how they are laid out.


class TopicEmbedder:
    """Texts to one-hot vectors by the first topic word they contain (a stand-in for MiniLM);
    a span of a text is embedded as the substring it covers."""

    name = "fake-topics"

    def __init__(self, topics):
        self.topics = topics
        self.dim = len(topics) + 1
        self.calls = []

    def embed(self, texts):
        self.calls.append(list(texts))
        return self._topics(texts)

    def _topics(self, texts):
        import numpy as np

        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            hit = next((i for i, t in enumerate(self.topics) if t in text.lower()), len(self.topics))
            out[row, hit] = 1.0
        return out

    def embed_spans(self, texts, spans):
        whole = self.embed(texts)  # one model run; a span is read from it, not embedded
        parts = [self._topics([t[a:b] for a, b in s]) for t, s in zip(texts, spans, strict=True)]
        return whole, parts

    def count_tokens(self, text):
        return len(text.split())


def fake_vectors(topics):
    """Answer vectors computed on the fly with a `TopicEmbedder`."""
    from docent.models.unit_vectors import AnswerVectors

    return AnswerVectors(TopicEmbedder(topics))


CORS_TEXT = """[1] Cross-origin requests (cors.md)
A frontend on localhost:3000 calling an API on localhost:8000 is a different origin.

Enable the `OriginsMiddleware` and list the origins in `allowed_origins`.

[2] Webhooks (webhooks.md)
A webhook lets the API call localhost apps of its users when events happen."""


def test_sentences_are_chosen_by_meaning_not_only_by_shared_words():
    question = "My app on localhost:3000 is blocked by the browser. How do I allow it?"
    vectors = fake_vectors(["origin", "browser", "webhook"])  # question and answer: one topic
    answer = compose_answer(question.replace("browser", "origin"), parse_references(CORS_TEXT), vectors)
    assert answer.startswith("## Cross-origin requests")
    assert "`OriginsMiddleware`" in answer and "`allowed_origins`" in answer
    assert "[2]" not in answer  # the off-topic passage gives no key point


def test_the_list_an_intro_sentence_announces_comes_with_it():
    text = """[1] Guards (guards.md)
Every run is bounded by three guards:

* a turn limit of six model calls
* a tool-call limit of three searches
* a context limit of twelve thousand characters

Unrelated sentence about logging output."""
    answer = compose_answer("What guards bound a run?", parse_references(text))
    assert answer.startswith(
        "## Guards\n\nEvery run is bounded by three guards: [1]\n\n"
        "- a turn limit of six model calls [1]\n"
        "- a tool-call limit of three searches [1]\n"
        "- a context limit of twelve thousand characters [1]"
    )


def test_a_list_announced_by_a_key_point_is_nested_under_it():
    text = """[1] Limits (limits.md)
Every run has limits on turns and searches.

The search limits are as follows:

* three searches a run
* retries never count"""
    answer = compose_answer("What are the run limits and search limits?", parse_references(text))
    assert "- The search limits are as follows: [1]\n  - three searches a run [1]\n" in answer


def test_a_sentence_between_an_announcing_point_and_a_list_owns_the_list():
    text = """[1] Limits (limits.md)
Every run has limits on turns and searches.

The turn limits are logged in a few places, to show when a run stops:

The search limits are as follows:

* three searches a run
* retries never count"""
    answer = compose_answer("What are the run limits, turn limits and search limits?",
                            parse_references(text))
    # The first announcement's list is not in the passage: it ends as a sentence.
    assert "- The turn limits are logged in a few places, to show when a run stops. [1]\n" in answer
    assert "- The search limits are as follows: [1]\n  - three searches a run [1]\n" in answer
    # A formula between (no sentence) leaves the list to the statement announcing it.
    formula = compose_answer("What are the run limits and the search limit formula?",
                             parse_references(text.replace(
                                 "The search limits are as follows:",
                                 "The search limits follow a formula:\n\nn = t + r")))
    assert "The search limits follow a formula: [1]\n\n- three searches a run [1]\n" in formula


def test_a_label_between_an_announcing_point_and_its_list_nests_under_the_point():
    text = """[1] Limits (limits.md)
Every run has limits on turns and searches.

The search limits are as follows:

Core limits:

* three searches a run
* retries never count"""
    answer = compose_answer("What are the run limits and search limits?", parse_references(text))
    assert ("- The search limits are as follows: [1]\n  - Core limits: [1]\n"
            "    - three searches a run [1]\n") in answer


def test_a_list_item_chosen_as_a_key_point_brings_the_sentence_announcing_its_list():
    # The items share the question's words, their intro does not; without it the items say
    # nothing of what receives them.
    text = """[1] Background tasks (tasks.md)
Background tasks run a task function in the background after the response is sent.

[2] Background tasks > Add the task (tasks.md)
`.add_task()` receives as arguments:

* the task function to run in the background
* the keyword arguments for it

Unrelated sentence about logging output."""
    answer = compose_answer("What runs a task function in the background after the response?",
                            parse_references(text))
    assert ("- `.add_task()` receives as arguments: [2]\n"
            "  - the task function to run in the background [2]\n"
            "  - the keyword arguments for it [2]") in answer
    assert "logging" not in answer


def test_a_short_list_two_of_whose_items_are_key_points_comes_whole():
    # Two steps share the question's words, three do not: the answer still names all five,
    # because a part of an enumeration reads as all of it.
    steps = ["Pause contracts so a rollback can stop every call.",
             "Feature flags make a rollback of one feature possible.",
             "Role revocation removes compromised keys.",
             "Migration scripts redeploy a safe version.",
             "Data backups keep copies of config files."]
    text = "[1] Launch > Technical steps (launch.md)\nPrepare a rollback before you launch.\n\n" \
        + "\n".join(f"* {s}" for s in steps)
    answer = compose_answer("Which rollback steps should I prepare?", parse_references(text))
    assert all(f"- {s} [1]" in answer for s in steps)


def test_a_changelog_list_is_not_completed_from_two_of_its_entries():
    entries = ["Add docs for HTTP Basic Auth.", "Upgrade HTTP Basic Auth handling.",
               "Fix HTTP Basic Auth headers.", "Update dependencies.", "Add docs for middleware."]
    text = "[1] Release Notes > 0.1.0 (release-notes.md)\nThe first release.\n\n" \
        + "\n".join(f"* {s}" for s in entries) \
        + "\n\n[2] Security > HTTP Basic Auth (security.md)\nHTTP Basic Auth sends a username."
    answer = compose_answer("How does HTTP Basic Auth work?", parse_references(text))
    assert "Update dependencies" not in answer and "middleware" not in answer


def test_a_long_list_is_not_completed_from_two_of_its_items():
    chosen = ["The port option sets the listening port.", "The host option sets the listening host.",
              "The backlog option sets the listening backlog."]
    others = ["Colors follow the theme.", "Fonts load lazily.", "Icons are cached.",
              "Labels are translated.", "Widths grow with the window.", "Logs rotate daily."]
    text = "[1] Settings > Options (settings.md)\nDocent reads options at start-up.\n\n" \
        + "\n".join(f"* {s}" for s in chosen + others)
    answer = compose_answer("Which options set the listening port, host and backlog?",
                            parse_references(text))
    assert all(s in answer for s in chosen)
    assert not any(s in answer for s in others)  # nine items: only the chosen ones


def test_a_short_follow_up_sentence_stays_with_its_sentence():
    text = """[1] Partial updates (updates.md)
Partial updates keep only the fields the client sent, not their defaults. Use `skip_unset=True`.

Other passages discuss full replacement of records."""
    answer = compose_answer("How do partial updates keep only sent fields?", parse_references(text))
    assert "not their defaults. Use `skip_unset=True`. [1]" in answer


def test_a_follow_up_is_measured_as_read_without_its_link_targets():
    link = "https://github.com/florimondmanca/asgi-lifespan/blob/main/README.md#usage"
    text = f"""[1] Async tests (async-tests.md)
Partial updates keep only the fields the client sent. To do it, use `skip_unset` from [asgi-partial-updates]({link}).

Other passages discuss full replacement of records."""
    answer = compose_answer("How do partial updates keep only sent fields?", parse_references(text))
    assert "the client sent. To do it, use `skip_unset`" in answer


def test_a_follow_up_sentence_about_the_docs_is_left_behind():
    text = """[1] Partial updates (updates.md)
Partial updates keep only the fields the client sent, not their defaults. See the next page.

Other passages discuss full replacement of records."""
    answer = compose_answer("How do partial updates keep only sent fields?", parse_references(text))
    assert "not their defaults. [1]" in answer and "next page" not in answer


def test_the_code_block_a_sentence_introduces_is_the_example():
    text = """[1] Secrets (secrets.md)
Generate a random signing secret with the command:

```console
$ head -c 32 /dev/urandom | base64
```

Keep the signing secret out of version control."""
    answer = compose_answer("How do I generate a signing secret?", parse_references(text))
    assert "Example [1]:\n\n```console\n$ head -c 32 /dev/urandom | base64\n```" in answer


def test_the_model_and_the_factory_pass_the_vectors_to_composition(settings):
    from docent.models.factory import build_chat_models

    vectors = fake_vectors(["limit"])
    calls = vectors.embedder.calls
    model = build_chat_models(settings.model_copy(update={"provider": "extractive"}), vectors)
    extractive = model[-1].model
    assert isinstance(extractive, ExtractiveChatModel) and extractive.vectors is vectors
    messages = [HumanMessage("How do I change the tool-call limit?"),
                AIMessage("", tool_calls=[{"name": SEARCH_TOOL, "args": {"query": "x"}, "id": "1"}]),
                ToolMessage(TOOL_TEXT, tool_call_id="1")]
    answer = extractive.bind_tools([make_search_tool(FakeRetriever(), 5)]).invoke(messages).content
    assert "DOCENT_MAX_TOOL_CALLS" in answer
    assert calls and calls[0][0] == "How do I change the tool-call limit?"


def test_a_quoted_sentence_inside_a_sentence_does_not_end_it():
    from docent.models.text import sentences

    assert sentences('The reply "Nothing found." is always the same. Then more.') == [
        'The reply "Nothing found." is always the same.', "Then more."]


def test_more_passages_of_the_top_page_rank_and_count_with_it():
    # [3] is another section of the page [1] came from: its sentence, a weaker match, is a
    # key point as a sentence of [1] would be, though [3] alone would not be relevant enough.
    text = """[1] Guards > Turn limit (guards.md)
The turn limit caps model calls in every agent run.

[2] Logging (logging.md)
Log lines are written as JSON objects.

[3] Guards > Reset (guards.md)
Each new agent run starts counting calls from zero again."""
    answer = compose_answer("What caps model calls in an agent run?", parse_references(text))
    assert answer.startswith("## Turn limit\n\nThe turn limit caps model calls")
    assert "- Each new agent run starts counting calls from zero again. [3]" in answer
    assert "[2]" not in answer


def test_a_code_block_matching_the_question_words_best_is_the_example():
    text = """[1] Retries (retries.md)
Failed calls are retried with backoff.

A later section shows the settings.

```python
settings.retry_backoff = 2.0
```"""
    # By meaning the lead scores far above the code's introduction; by words the code
    # block matches the question as well as any unit.
    vectors = fake_vectors(["backoff"])
    answer = compose_answer("How do I set retry backoff?", parse_references(text), vectors)
    assert "Example [1]:\n\n```python\nsettings.retry_backoff = 2.0\n```" in answer


def test_a_how_to_gets_the_code_of_the_best_passage_when_its_lead_is_another_pages():
    text = """[1] Scene tour > Your first scene (tour.md)
We are going to build a small scene.

Click the code window and add the following code:

```html
<m-model src="https://example.com/dice.glb"></m-model>
```
[2] Editor tour > Assets panel (editor.md)
The assets panel keeps the GLB files of your scene. An uploaded GLB file can be dragged into \
the scene, where it becomes a model."""
    answer = compose_answer("How do I add a GLB model file to my scene?", parse_references(text))
    assert answer.startswith("## Assets panel\n\nAn uploaded GLB file can be dragged")
    assert '```html\n<m-model src="https://example.com/dice.glb"></m-model>\n```' in answer


def test_a_value_question_gets_no_code_nobody_introduces():
    # The same passage as above, asked "how long": the code that matches its words is no
    # example of a duration.
    text = """[1] Retries (retries.md)
Failed calls are retried with a backoff of 2 seconds.

A later section shows the settings.

```python
settings.retry_backoff = 2.0
```"""
    answer = compose_answer("How long is the retry backoff?", parse_references(text),
                            fake_vectors(["backoff"]))
    assert "backoff of 2 seconds" in answer and "```" not in answer


def test_a_value_question_about_the_docs_example_gets_the_example_code():
    # Asked of the docs' own example, the value may be only in its code: the block shows.
    text = """[1] Retries (retries.md)
Failed calls are retried with a backoff.

A later section shows the example's settings.

```python
settings.retry_backoff = 2.0
```"""
    answer = compose_answer("How long is the backoff in the retries example?",
                            parse_references(text), fake_vectors(["backoff"]))
    assert "Example [1]:\n\n```python\nsettings.retry_backoff = 2.0\n```" in answer
    # "for example" names no example of the docs
    answer = compose_answer("How long is, for example, the retry backoff?",
                            parse_references(text), fake_vectors(["backoff"]))
    assert "```" not in answer


def test_a_key_point_does_not_repeat_the_sentence_said_before_the_lead():
    # The lead leans on the sentence before it, shown first; the key point before that
    # sentence would take it as its tail and show it twice.
    text = """[1] Editor tour > Inspector (editor.md)
Select an element in the editor to edit its properties visually with the inspector. \
This shows every property of the element visually. It helps when you forget a tag name \
and want to edit properties visually.

Colours can be edited visually in the inspector too."""
    answer = compose_answer("Can I edit properties visually in the editor when I forget a tag name?",
                            parse_references(text))
    assert answer.count("This shows every property of the element visually.") == 1
    assert "- Select an element in the editor to edit its properties visually with the " \
           "inspector. [1]" in answer


def test_key_points_stop_at_ten():
    names = "amber basalt cedar dune ember flint garnet hazel indigo jade kelp lava moss nectar"
    facts = [f"The kiln glaze setting {w} fires {w}ware pots at {900 + i} degrees."
             for i, w in enumerate(names.split())]
    text = "[1] Kiln (kiln.md)\n" + "\n\n".join(facts)
    answer = compose_answer("What does the kiln glaze setting fire at?", parse_references(text))
    assert answer.count("\n- ") == 10


def test_one_word_items_of_an_announced_list_are_units():
    # "ReDoc." names one of the two UIs the item above announces; a lone "Copy" is chrome.
    body = ("* Automatic interactive API documentation, including 2 alternative user interfaces:\n"
            "    * Swagger UI.\n    * ReDoc.\n\n"
            "The servers it runs on:\n\n* Uvicorn\n* Hypercorn\n\nThat is all.\n\n* Copy\n* Previous")
    assert [u.text for u in split_units(body)] == [
        "Automatic interactive API documentation, including 2 alternative user interfaces:",
        "Swagger UI.", "ReDoc.", "The servers it runs on:", "Uvicorn", "Hypercorn", "That is all.",
    ]


def test_link_only_items_of_an_announced_list_are_units():
    # "For example:" announces the middlewares its items link to; the same links with no
    # sentence announcing them (a breadcrumb, a "see also" list) stay chrome.
    body = ("There are many other ASGI middlewares.\n\nFor example:\n\n"
            "* [Uvicorn's `ProxyHeadersMiddleware`](https://github.com/kludex/uvicorn)\n"
            "* [MessagePack](https://github.com/florimondmanca/msgpack-asgi)\n\n"
            "That is all.\n\n* [Guide](/guide)\n* [Middleware](/guide/middleware)")
    assert [u.text for u in split_units(body)] == [
        "There are many other ASGI middlewares.", "For example:",
        "[Uvicorn's `ProxyHeadersMiddleware`](https://github.com/kludex/uvicorn)",
        "[MessagePack](https://github.com/florimondmanca/msgpack-asgi)", "That is all."]


def test_a_crawled_file_block_is_one_statement_of_the_file():
    # GitBook's file block: size, link, type and "Open", each a line the crawl kept.
    body = ("# MiCAR Whitepaper\n\n488KB\n\n[White Paper.pdf](https://files.example/wp.pdf)"
            "\n\nPDF\n\nDownload[Open](https://files.example/wp.pdf)\n\n"
            "12MB\n\nThe archive is large.")
    assert [u.text for u in split_units(body)] == [
        "[White Paper.pdf](https://files.example/wp.pdf): PDF, 488KB.", "The archive is large."]


def test_a_one_word_label_over_a_list_says_whose_its_items_are():
    # Two lists of network parameters, each under its network's name.
    body = ("Key network information:\n\nTestnet:\n\n  * **Chain ID** : 50312\n\n"
            "Mainnet:\n\n  * **Chain ID** : 5031\n\nA:\n\n* Yes\n\nmeans:\n\n* it is\n\n"
            "Copy\n\nDone:\n\nThat is all.")
    units = split_units(body)
    assert [u.text for u in units] == [
        "Key network information:", "Testnet:", "**Chain ID** : 50312", "Mainnet:",
        "**Chain ID** : 5031", "Yes", "it is", "That is all."]
    # each list is a block of its own, under its label
    assert units[2].block != units[4].block


def test_a_grid_of_page_cards_says_what_its_section_holds():
    # A landing page's cards, run together by the crawl; the pager's two links, and a
    # breadcrumb's items, stay chrome.
    body = ("1. [Developer](/developer)\n2. [Ecosystem](/ecosystem)\n\n"
            "[Elix.fi](/e/elix)[Meme Coins](/e/meme)[NFTs2Me](/e/nfts2me)\n\n"
            "[PreviousGas](/gas)[NextElix.fi](/e/elix)\n\n"
            "[PreviousGas](/gas)[Elix.fi](/e/elix)[NextElix.fi](/e/elix)")
    assert [u.text for u in split_units(body)] == ["Elix.fi, Meme Coins, NFTs2Me."]


def test_mkdocstrings_options_are_not_units_but_the_members_they_list_are_one():
    # The built page shows the object's reference in the directive's place: the members
    # it lists are what the page says of the object.
    body = ("::: fastapi.responses.ORJSONResponse\n    options:\n        members:\n"
            "            - charset\n            - render\n\nThe class renders JSON fast.")
    assert [u.text for u in split_units(body)] == [
        "`fastapi.responses.ORJSONResponse` members: `charset`, `render`.",
        "The class renders JSON fast.",
    ]
    # Without a list, the page documents the object itself: its name is what it says.
    bare = "::: fastapi.responses.ORJSONResponse\n    options:\n        show_root_heading: true"
    assert [u.text for u in split_units(bare)] == [
        "API reference: `fastapi.responses.ORJSONResponse`."]
    # The answerer reads both statements back with the module that writes them.
    listing, reference = split_units(body)[0].text, split_units(bare)[0].text
    assert listed(listing) == ("fastapi.responses.ORJSONResponse", ["charset", "render"])
    assert referenced(reference) == "fastapi.responses.ORJSONResponse"
    assert listed(reference) is None and referenced(listing) is None
    assert listed("`fastapi.UploadFile` members: read the file.") is None


SOCKET_REFERENCE = """[1] WebSockets (websockets.md)
With a `WebSocket` you can read data from the client and send data to it.

::: fastapi.WebSocket
    options:
        members:
            - cookies
            - receive_text
            - receive_bytes
            - send_bytes
            - close

[2] WebSockets > Messages (websocket-guide.md)
You can receive and send binary, text, and JSON data in the endpoint."""


def test_a_member_list_answers_a_question_asking_for_members_and_no_other():
    refs = parse_references(SOCKET_REFERENCE)
    listing = "`fastapi.WebSocket` members: `cookies`, `receive_text`, `receive_bytes`"
    for asking in ("Which methods of the WebSocket read and write raw bytes?",
                   "Can I read the handshake's cookies from the WebSocket object?",
                   "Is receive_bytes the way to read binary frames?"):
        assert listing in compose_answer(asking, refs), asking
    # A question about the object, asking for none of its members, gets no list of them.
    for other in ("Which WebSocket class does fastapi use?", "How do I close a WebSocket?"):
        assert "members:" not in compose_answer(other, refs), other


SECURITY_REFERENCE = """[1] Security Tools (security.md)
When you need to declare dependencies with OAuth2 scopes you use `Security()`.

::: fastapi.security.APIKeyCookie

::: fastapi.security.APIKeyHeader

::: fastapi.security.APIKeyQuery

[2] Security > API keys (security-guide.md)
FastAPI provides several tools for each of these security schemes in the `fastapi.security`
module."""


def test_a_bare_reference_answers_a_question_naming_its_object_and_no_other():
    refs = parse_references(SECURITY_REFERENCE)
    # Named by three in four of its name's words, or as written: the object leads.
    for asking, name in (
            ("Is there a class in fastapi.security for reading an API key from a header?",
             "APIKeyHeader"),
            ("What is the import path for APIKeyQuery?", "APIKeyQuery")):
        answer = compose_answer(asking, refs)
        assert answer.split("\n\n")[1].startswith(
            f"API reference: `fastapi.security.{name}`."), asking
        # The other objects of the page, which the question does not name, are no points.
        assert answer.count("API reference:") == 1, asking
    # A question naming none of them gets no bare reference at all.
    answer = compose_answer("Which module holds the security schemes?", refs)
    assert "API reference:" not in answer


def test_one_word_items_do_not_count_against_the_ten_key_points():
    names = "amber basalt cedar dune ember flint garnet hazel indigo jade kelp lava moss nectar"
    facts = [f"The kiln glaze setting {w} fires {w}ware pots at {900 + i} degrees."
             for i, w in enumerate(names.split())]
    facts[2] = facts[2][:-1] + " in these kilns:\n\n* Anagama\n* Noborigama\n* Raku"
    text = "[1] Kiln (kiln.md)\n" + "\n\n".join(facts)
    answer = compose_answer("What does the kiln glaze setting fire at?", parse_references(text))
    assert "in these kilns: [1]\n  - Anagama [1]\n  - Noborigama [1]\n  - Raku [1]\n" in answer
    assert answer.count("\n- ") == 10


def test_a_passage_opening_inside_indented_code_keeps_that_code_whole():
    # Passages are stripped: the block's first line lost its indent, the lines after kept
    # theirs. Its HTML-like lines are code, not markup to drop.
    body = ('<m-model id="dice" onclick="roll()">\n      <m-attr-anim attr="rx"></m-attr-anim>\n'
            "    </m-model>\n\nClick the dice to roll it.")
    units = split_units(body)
    assert [u.kind for u in units] == ["code", "prose"]
    assert "<m-attr-anim" in units[0].text and units[0].text.startswith("```\n<m-model")


def test_a_websocket_url_under_its_label_is_the_labels_value():
    body = "Mainnet WebSocket\n\n<wss://api.example.org/ws>[](wss://api.example.org/ws)"
    assert [u.text for u in split_units(body)] == ["Mainnet WebSocket: <wss://api.example.org/ws>"]


def test_a_list_item_linking_a_code_name_reads_with_the_paragraph_under_it():
    body = ("All event types.\n\n  * [`ClickEvent`](https://x.example/ClickEvent)\n\n"
            "Received when a user clicks on an object.\n\n  * [`LeaveEvent`](https://x.example/Leave)")
    assert [u.text for u in split_units(body)] == [
        "All event types.", "`ClickEvent`: Received when a user clicks on an object.",
        "[`LeaveEvent`](https://x.example/Leave)",
    ]


def test_code_opening_its_passage_is_scored_by_that_passage_not_the_one_before():
    from docent.intent import intent_of
    from docent.models.scoring import candidates, score

    refs = parse_references(
        "[1] Tour (tour.md)\nPress the clock button to open the editor.\n\n"
        "[2] Dice (dice.md)\n```\nspin(die)\n```\n\n"
        "[3] A Simple Clock (clock.md)\n```\nsetInterval(update, 1000)\n```"
    )
    question = "How do I make the clock hands tick?"
    scored = score(question, intent_of(question), candidates(refs), refs,
                   fake_vectors(["clock", "dice"]))
    code = {c.ref.n: c.score for c in scored if c.unit.is_code}
    assert code[3] > code[2] + 0.5  # the dice code borrowed the tour sentence's score before


def test_faq_answer_labels_are_not_part_of_the_answer():
    body = "**Q: What is the limit?**\n\nA: The limit is 3 per run. It resets daily.\n\n- **A:** Ask support."
    assert [u.text for u in split_units(body)] == [
        "The limit is 3 per run.", "It resets daily.", "Ask support."
    ]


def test_a_label_with_its_value_is_content_not_chrome():
    units = [u.text for u in split_units("* `**EID**`**:** `30380`\n* Copy\n\nNext")]
    assert units == ["`EID`**:** `30380`"]


def test_a_link_saying_what_its_page_teaches_is_content():
    # A guide's index lists its pages as links; a breadcrumb or a bare title is chrome.
    body = ("* [Developer](/developer)\n* [Wallet Integration](/developer/wallets)\n\n"
            "* [Use **RainbowKit** to offer a customizable wallet connection UI](/rainbowkit)\n"
            "* [https://github.com/example/full-stack-app](https://github.com/example)")
    assert [u.text for u in split_units(body)] == [
        "[Use **RainbowKit** to offer a customizable wallet connection UI](/rainbowkit)"]


def test_a_link_naming_the_paragraph_after_it_becomes_its_label():
    # A crawled table or definition list: the name is a link alone on its line.
    body = ("[**Slither**](https://example.com/slither)\n\nDetects reentrancy and unprotected "
            "calls in contracts.\n\n[Next](https://example.com/next)\n\nCopy")
    assert [u.text for u in split_units(body)] == [
        "Slither: Detects reentrancy and unprotected calls in contracts."]


async def test_the_lead_streams_before_the_rest_of_the_answer_is_chosen(monkeypatch):
    """Issue 11: tokens leave as the answer is composed, not after all of it exists."""
    import docent.models.compose as compose

    def not_yet(*args, **kwargs):
        raise RuntimeError("the key points were being chosen")

    monkeypatch.setattr(compose, "_key_points", not_yet)
    messages = [HumanMessage("How do I change the tool-call limit?"),
                AIMessage("", tool_calls=[{"name": SEARCH_TOOL, "args": {"query": "x"}, "id": "1"}]),
                ToolMessage(TOOL_TEXT, tool_call_id="1")]
    streamed = ""
    try:
        async for chunk in bound().astream(messages):
            streamed += chunk.content
    except RuntimeError as exc:
        assert "key points" in str(exc)
    else:
        raise AssertionError("the rest of the answer was never composed")
    assert streamed.startswith("## Guards\n\nSet `DOCENT_MAX_TOOL_CALLS` to change")


def test_a_long_code_block_is_shown_as_the_lines_that_match_the_question():
    filler = [f"value_{i} = compute({i})" for i in range(50)]
    body = filler[:40] + ["def connect_websocket(client):", "    return client.websocket_connect('/ws')"] + filler[40:]
    code = "```python\n" + "\n".join(body) + "\n```"
    text = f"[1] Testing (testing.md)\nUse the test client to connect to a websocket:\n\n{code}"
    answer = compose_answer("How do I connect to a websocket in a test?", parse_references(text))
    example = answer.split("Example [1]:\n\n", 1)[1].split("\n```", 1)[0] + "\n```"
    lines = example.split("\n")
    assert "    return client.websocket_connect('/ws')" in lines
    assert lines[0] == "```python" and lines[1] == "..." and lines[-1] == "```"
    assert len(lines) <= 30 + 4  # the window, the fences and the two ellipses
    assert "value_0 = compute(0)" not in example


def test_a_block_a_few_lines_over_the_window_is_shown_whole():
    from docent.models.compose import excerpt

    # The line that does the job is the example's last: a "..." for five lines would hide it.
    lines = [f"step_{i} = build({i})" for i in range(19)] + ["app.include_router(router)"]
    code = "```python\n" + "\n".join(lines) + "\n```"
    assert excerpt(code, {"step", "build"}, 15) == code
    # Six lines over is a window again, as is a third of a small window over.
    longer = "```python\n" + "\n".join(["x = 0", *lines]) + "\n```"
    assert "\n...\n" in excerpt(longer, {"step", "build"}, 15)
    assert "..." in excerpt("```\na\nb\nc\nd\ne\n```", {"a"}, 3)


def test_blank_lines_take_no_place_in_a_code_window():
    from docent.models.compose import excerpt

    # The test after two blank lines is within the 3 lines a window holds.
    code = "```python\nimport os\nx = 1\ndef serve():\n    pass\n\n\ndef test_ws():\n```"
    assert excerpt(code, {"serve", "test", "ws"}, 3) == (
        "```python\n...\ndef serve():\n    pass\n\n\ndef test_ws():\n```")


def test_a_code_window_starts_where_the_code_it_starts_inside_opens():
    from docent.models.compose import excerpt

    # The window holding the most words starts at `if current.disabled:`; the function it is
    # in opens three lines up, its signature closed by a "):" line of its own.
    code = "\n".join([
        "```python", *(f"x_{i} = {i}" for i in range(6)), "async def get_current_active_user(",
        "    current: Account,", "):", "    if current.disabled:", "        raise HTTPException(400)",
        "    return current", "def login(user, password):", "    check(user, password)",
        "    check(user, password)", "    return token(user)", "def other(user):", "    pass",
        "```"])
    wanted = {"user", "disabl", "password", "token"}
    lines = excerpt(code, wanted, 9).split("\n")
    assert lines[:3] == ["```python", "...", "async def get_current_active_user("]
    assert lines[-3:] == ["    check(user, password)", "...", "```"]
    # Not when the lines the move leaves out at the bottom hold more of the words than the
    # lines it brings, one more for each line it moves.
    heavy = code.replace("def other(user):\n    pass", "user_password_token = 1\nuser_password = 2")
    assert excerpt(heavy, wanted, 9).split("\n")[:3] == [
        "```python", "    ...", "    if current.disabled:"]
    # Nor to an opener four lines up: that is a class's first members, no signature.
    members = "\n".join([
        "```python", *(f"x_{i} = {i}" for i in range(6)), "class Greeter:", "    a = 1",
        "    b = 2", "    c = 3", "    def check(self, user):", "        if user.disabled:",
        "            raise Error()", "        return user", "    d = 4", "```"])
    assert excerpt(members, wanted, 4).split("\n")[:3] == [
        "```python", "    ...", "    def check(self, user):"]


def test_a_value_question_shows_the_line_setting_the_value_outside_the_window():
    from docent.models.compose import excerpt

    # The constant sits at the top; the login function below it holds more of the words.
    code = "\n".join([
        "```python", "SECRET_KEY = 'x'", "ACCESS_TOKEN_EXPIRE_MINUTES = 30", "", "def other():",
        "    pass", "def login():", "    access_token_expires = timedelta(minutes=EXPIRE)",
        "    access_token = create_access_token(expires_delta=access_token_expires)",
        "    return access_token", "```"])
    wanted = {"access", "token", "expir", "minut"}
    plain = excerpt(code, wanted, 4)
    assert "= 30" not in plain and "def login():" in plain
    shown = excerpt(code, wanted, 4, values=True)
    assert shown.split("\n") == [  # the line, and a window two lines shorter
        "```python", "...", "ACCESS_TOKEN_EXPIRE_MINUTES = 30", "    ...",
        "    access_token_expires = timedelta(minutes=EXPIRE)",
        "    access_token = create_access_token(expires_delta=access_token_expires)",
        "...", "```"]
    # Shown by the window itself, it takes no extra place.
    assert excerpt(code, wanted, 9, values=True) == excerpt(code, wanted, 9)


def test_how_often_shows_the_timer_setting_the_interval_outside_the_window():
    from docent.models.compose import excerpt

    code = "\n".join([
        "```js", *(f"label_{i}.setAttribute('content', weather_{i});" for i in range(8)),
        "setInterval(() => {", "  fetchData();", "}, 5 * 60 * 1000);", "```"])
    wanted = {"label", "weather"}
    assert "5 * 60 * 1000" not in excerpt(code, wanted, 4)
    shown = excerpt(code, wanted, 4, timing=True).split("\n")
    # the call the closing line belongs to, not the closing line alone
    assert shown[-5:] == ["...", "setInterval(() => {", "  fetchData();", "}, 5 * 60 * 1000);",
                          "```"]


def test_a_short_code_block_is_shown_whole():
    from docent.models.compose import excerpt

    code = "```python\nx = 1\ny = 2\n```"
    assert excerpt(code, {"x"}) == code


def test_an_indented_line_a_sentence_announces_is_code():
    # A crawl turns a fenced command into an indented line under the sentence announcing it.
    body = "To compile the contract, run the command:\n\n    forge build\n\nIt prints the result."
    units = split_units(body)
    assert [u.kind for u in units] == ["prose", "code", "prose"]
    assert units[1].text == "```\nforge build\n```"
    # A list item's indented continuation is no code, nor is an indented line nobody announces.
    item = "- Install the tools:\n\n    the compiler and the node.\n\nDone."
    assert "code" not in [u.kind for u in split_units(item)]
    plain = "The tools are ready.\n\n    forge build\n\nDone."
    assert "code" not in [u.kind for u in split_units(plain)]


def test_a_nested_list_item_is_deeper_than_the_item_it_is_under():
    body = "- FastAPI for the backend.\n  - SQLModel for the database.\n- React for the frontend."
    assert [u.depth for u in split_units(body)] == [0, 2, 0]
    # A passage is stripped: its first item lost its indent, its list is still one level.
    crawled = "* Real-value network.\n\n  * Integrated with wallets.\n\n  * Immutable history."
    assert [u.depth for u in split_units(crawled)] == [2, 2, 2]


def test_two_statements_giving_different_values_are_both_key_points():
    # The rows share every word of their explorer links; the addresses they give differ.
    link = "https://shannon-explorer.somnia.network/address/"
    text = f"""[1] Oracle > Contracts (oracle.md)
Testnet — Contract Address: [0x9206AaEE3E6bdC07F7]({link}0x9206AaEE3E6bdC07F7)

[2] Oracle > Gas wallets (oracle.md)
The gas wallet pays for pushing prices to your contract; keep it funded.

Testnet: [0x24384e1c60547b0d54]({link}0x24384e1c60547b0d54)"""
    answer = compose_answer("Which testnet address does the oracle's gas wallet have?",
                            parse_references(text))
    assert "0x9206AaEE3E6bdC07F7" in answer
    assert "0x24384e1c60547b0d54" in answer


def test_an_indented_block_opening_on_markup_is_code():
    # A crawl turns a fenced MML example into indented lines; its first line is an HTML
    # comment, then an element, none of them with a brace or a semicolon.
    body = ("Copy\n    \n    \n"
            "    <!-- Damaged Helmet by someone\n    https://example.com/helmet -->\n"
            '    <m-model src="helmet.glb" sx="0.5" sy="0.5" sz="0.5"></m-model>\n    \n'
            '    <m-cube color="red"></m-cube>\n\nThe scene has a helmet and a cube.')
    units = split_units(body)
    assert [u.kind for u in units] == ["code", "prose"]
    assert units[0].text.startswith("```\n<!-- Damaged Helmet") and 'sx="0.5"' in units[0].text
