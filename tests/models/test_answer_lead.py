"""Answers lead with the answer (issue 11): the first statement is what the question asks for.

No filler about the docs themselves, no sentence that leans on one before it, nothing that
announces a list or code and then does not show it; the kind of statement the question asks
for (a name, a value, an instruction, an outcome) wins among close candidates.
"""

from __future__ import annotations

import pytest

from docent.evaluation.metrics import lead_statement
from docent.intent import (
    asks_for_url,
    asks_where_to_read,
    intent_of,
    kind_asked,
    measure_of,
    noun_asked,
    set_aside,
)
from docent.models.compose import _bare_row, compose_answer
from docent.models.scoring import candidates, echoes, gives_value, is_filler, versions_named
from docent.models.text import parse_references, terms
from docent.models.units import Unit, referenced
from tests.models.test_extractive import fake_vectors

SETTINGS_PAGE = """[1] Configuration (configuration.md)
This page lists every setting with its environment variable, its default and its meaning.

Docent reads every setting from environment variables.

[2] Configuration > Model settings (configuration.md)
`DOCENT_GEMINI_MODEL` names the Gemini model to call; the default is `gemini-2.5-flash`.

The Gemini model answers with citations."""

RATE_LIMITS = """[1] Configuration > Rate limits (configuration.md)
Set `DOCENT_RATE_LIMIT_ENABLED=false` to turn off every rate limit.

A request over a rate limit is refused with HTTP 429 and a `Retry-After` header."""


def test_a_sentence_about_the_page_itself_never_leads():
    answer = compose_answer("Which environment variable sets the Gemini model?",
                            parse_references(SETTINGS_PAGE), fake_vectors(["setting", "gemini"]))
    assert lead_statement(answer).startswith("`DOCENT_GEMINI_MODEL` names the Gemini model")
    assert "This page lists" not in answer  # filler is no key point either


def test_what_happens_leads_with_the_outcome_not_an_instruction():
    # Both statements share the question's words; the question asks what happens.
    answer = compose_answer("What happens when the rate limit is hit?",
                            parse_references(RATE_LIMITS), fake_vectors(["limit"]))
    assert lead_statement(answer).startswith("A request over a rate limit is refused with HTTP 429")


def test_how_to_leads_with_the_instruction_that_has_the_code():
    # Same meaning, same words of the question: the instruction with code is the answer.
    text = """[1] Background tasks (tasks.md)
Send an email in the background after the response, so the client never waits for it.

[2] Background tasks > Add the task (tasks.md)
To send an email after the response, pass your function to `background_tasks.add_task()`."""
    answer = compose_answer("How can I send an email after the response went out?",
                            parse_references(text), fake_vectors(["email"]))
    assert "`background_tasks.add_task()`" in lead_statement(answer)


def test_how_long_leads_with_a_duration_not_with_any_number():
    # Both statements are about sessions and hold a number; "how long" asks for a duration.
    text = """[1] Sessions (sessions.md)
At most 1000 sessions fit in memory.

A session expires after 30 minutes without a question."""
    answer = compose_answer("How long does docent keep a session?", parse_references(text),
                            fake_vectors(["session"]))
    assert lead_statement(answer).startswith("A session expires after 30 minutes")


def test_a_question_asking_a_name_and_a_value_shows_the_line_setting_the_value():
    # "Which algorithm... and how many minutes...": a name is asked, and a value too. The
    # example's window lands on the login code, which holds more of the question's words.
    login = "\n".join(f"    access_token_{i} = create_token(minutes=EXPIRE)" for i in range(40))
    text = f"""[1] OAuth2 with JWT > Handle JWT tokens (jwt.md)
Create a variable `ALGORITHM` with the algorithm that signs the access token: `HS256`.

Update the login to create an access token:

```python
ALGORITHM = "HS256"
ACCESS_TOKEN_EXPIRE_MINUTES = 30

def login():
{login}
```"""
    question = "Which algorithm signs the tokens, and for how many minutes is an access token valid?"
    assert intent_of(question).kind == "name"
    answer = compose_answer(question, parse_references(text), fake_vectors(["token"]))
    assert "ACCESS_TOKEN_EXPIRE_MINUTES = 30" in answer


def test_how_often_shows_the_code_setting_the_interval_when_no_statement_gives_it():
    # Tutorials say "every few seconds" and set the interval only in their code.
    loader = "\n".join(f"    const row_{i} = rows[{i}]" for i in range(40))
    text = f"""[1] Chat app > Read messages (chat.md)
The hook polls for new messages every few seconds.

[2] Chat app > Read messages (chat.md)
The hook reads the latest messages:

```ts
export function useMessages(room: string, refreshMs = 5000) {{
{loader}
  useEffect(() => {{
    load()
  }}, [room])
}}
```"""
    question = "How often does the chat hook poll for new messages?"
    answer = compose_answer(question, parse_references(text), fake_vectors(["poll"]))
    assert "refreshMs = 5000" in answer
    # A statement giving the interval is the answer: no code is added for it.
    said = text.replace("every few seconds", "every 5 seconds")
    answer = compose_answer(question, parse_references(said), fake_vectors(["poll"]))
    assert "5 seconds" in lead_statement(answer) and "refreshMs" not in answer


def test_after_how_long_a_request_times_out_shows_the_line_setting_the_timeout():
    settings = "\n".join(f"      header_{i}: 'value {i}'," for i in range(40))
    text = f"""[1] Explorer client > Setup (explorer.md)
The client wraps axios for every call to the explorer API.

[2] Explorer client > Setup (explorer.md)
The client is created once:

```ts
const api = axios.create({{
  baseURL: explorerUrl,
  headers: {{
{settings}
  }},
  timeout: 10000,
}})
```"""
    question = "How long does the axios client wait before a request to the explorer API times out?"
    answer = compose_answer(question, parse_references(text), fake_vectors(["axios"]))
    assert "timeout: 10000," in answer


def test_a_how_to_shows_the_code_block_scoring_best_of_all_units():
    # The page's own sign-in code scores above every statement, but no chosen statement
    # introduces it ("Now let's..." is narration) and it beats the import a key point shows
    # by less than a clearly better block does.
    text = """[1] Global wallet (wallet.md)
One global wallet works in every app.

These hooks sign users in with the global wallet:

```
import { useCrossApp } from "global-wallet-sdk";
```

Now let's sign users in with the global wallet:

```
const { signIn } = useCrossApp();
// sign in
await signIn({ appId: "global" });
```"""
    question = ("How do I let users sign in with the shared global wallet instead of a new "
                "embedded wallet per app?")
    answer = compose_answer(question, parse_references(text), fake_vectors(["wallet", "global"]))
    assert "Example [1]:\n\n```\nconst { signIn } = useCrossApp();" in answer
    assert 'import { useCrossApp } from "global-wallet-sdk";' in answer  # still under its point
    # Not for a question asking no how-to: code no statement introduces is noise there.
    what = compose_answer("What is the shared global wallet?", parse_references(text),
                          fake_vectors(["wallet", "global"]))
    assert "signIn" not in what


def test_a_lead_does_not_announce_what_the_answer_cannot_show():
    # The announcing sentence matches the question best, but its list is not retrieved.
    text = """[1] Limits (limits.md)
The limits on model calls per run are as follows:

[2] Limits > Turns (limits.md)
The turn limit caps model calls at six."""
    answer = compose_answer("What are the limits on model calls per run?",
                            parse_references(text), fake_vectors(["limit"]))
    assert lead_statement(answer).startswith("The turn limit caps model calls")


def test_an_empty_code_block_is_never_the_example():
    # Ingestion dropped the sample token inside the fence (it looks like a secret).
    text = """[1] JWT (jwt.md)
A JWT is a JSON object codified in a long dense string. It looks like this:

```
```

The token is signed, so you can verify that you issued it."""
    refs = parse_references(text)
    assert [c.unit.kind for c in candidates(refs)] == ["prose", "prose", "prose"]
    answer = compose_answer("What does a JWT token look like?", refs,
                            fake_vectors(["token", "jwt"]))
    assert "```" not in answer
    assert "It looks like this:" not in answer  # it announces what the answer cannot show


def test_a_block_of_only_an_include_directive_is_never_shown():
    # A docs build replaces the directive with a file; the passage holds only its path.
    text = """[1] Clients (clients.md)
The generated client then calls `ItemsService.getItems()`:

```Javascript
{!> ../../docs_src/generate_clients/tutorial004.js!}
```"""
    refs = parse_references(text)
    assert [c.unit.kind for c in candidates(refs)] == ["prose"]
    answer = compose_answer("How does the generated client call getItems?", refs,
                            fake_vectors(["client"]))
    assert "{!>" not in answer and "```" not in answer


def test_a_key_point_whose_code_is_not_shown_ends_as_a_sentence():
    # The lead's code is the example; the key point's code, longer than a command or two,
    # is not shown to a question asking no how-to.
    text = """[1] Models (models.md)
Declare query parameter models with a Pydantic class:

```python
class FilterParams(BaseModel):
    limit: int = 100
```

You can forbid extra query parameters in query parameter models with the configuration:

```python
class StrictParams(BaseModel):
    model_config = {"extra": "forbid"}

    limit: int = 100
```"""
    answer = compose_answer("Can I declare query parameter models?",
                            parse_references(text), fake_vectors(["model"]))
    assert "class FilterParams" in answer and "forbid" not in answer.split("Key Points")[0]
    assert "- You can forbid extra query parameters in query parameter models with the " \
           "configuration. [1]" in answer


def test_code_a_key_point_introduces_is_shown_under_that_point():
    # The lead introduces no code; a key point's code is shown right after its colon, not
    # hoisted after the lead as if it were the answer's example.
    text = """[1] Replicas (deployment.md)
Several replicas act as one service when they share one index server.

[2] Replicas > Settings (deployment.md)
Set the same index address on every replica server:

```bash
export INDEX_URL=http://index.internal:8000
```"""
    answer = compose_answer("How do I run several replicas with one index?",
                            parse_references(text), fake_vectors(["replica"]))
    assert lead_statement(answer).startswith("Several replicas act as one service")
    assert "Example" not in answer
    assert "- Set the same index address on every replica server: [2]\n\n  ```bash\n" \
           "  export INDEX_URL=http://index.internal:8000\n  ```" in answer


def test_code_described_below_it_is_the_example_of_its_description():
    # Crawled pages (GitBook) show an endpoint first and say what it does under it; the
    # code after the description belongs to another heading.
    text = """[1] Domains > For developers (domains.md)
```
https://api.example.org/primary-name/{wallet}
```

You can look up the primary name of a wallet with the names API. Apps show the name instead of the wallet address.

```
{"wallet": "0x4F40", "primaryName": "alice.name"}
```"""
    answer = compose_answer("How do I show a user's name instead of their wallet address?",
                            parse_references(text), fake_vectors(["name", "wallet"]))
    assert "Example [1]:\n\n```\nhttps://api.example.org/primary-name/{wallet}\n```" in answer


def test_code_a_sentence_announces_stays_its_example_over_code_above_it():
    text = """[1] Domains > For developers (domains.md)
```
https://api.example.org/primary-name/{wallet}
```

You can look up the primary name of a wallet with this request:

```
curl https://api.example.org/primary-name/0x4F40
```"""
    answer = compose_answer("How do I look up the primary name of a wallet?",
                            parse_references(text), fake_vectors(["name", "wallet"]))
    assert "Example [1]:\n\n```\ncurl https://api.example.org" in answer
    assert "{wallet}" not in answer


def test_a_short_follow_up_announcing_what_is_not_shown_is_left_out_or_closed():
    # The lead takes its paragraph's short next sentence along; one that only announces a
    # list the answer does not show is left out, and one that says something ends as a
    # sentence instead of on a colon.
    text = """[1] Storage (storage.md)
Docent stores its index in an embedded database. It has three properties:"""
    answer = compose_answer("What database stores the index?", parse_references(text),
                            fake_vectors(["database"]))
    assert lead_statement(answer) == "Docent stores its index in an embedded database. [1]"
    text = """[1] Storage > Closing (storage.md)
Closing the store flushes its log. With the client, call `store.close()` at exit:"""
    answer = compose_answer("How do I flush the store's log?", parse_references(text),
                            fake_vectors(["store"]))
    assert lead_statement(answer) == ("Closing the store flushes its log. With the client, "
                                      "call `store.close()` at exit. [1]")


@pytest.mark.parametrize("text", [
    "This page lists every setting with its default.",
    "In this tutorial you will build a small app.",
    "Now, let's see the module at `app/main.py`.",
    "You will learn how to use them in the next chapter.",
    "See the [Configuration](configuration.md) page for the rest.",
    "For more details, read the reference.",
    "See [Deployment](https://docs.example.com/deployment) for the rest.",
    "Visit [the reverse proxy guide](deployment.md#proxy) for an nginx example.",
    # a tutorial's recap
    "Congratulations 🎉 You’ve just published data using Streams!",
    "You've successfully integrated ConnectKit in a Next.js application.",
    "As you will see later, the router keeps its prefix.",
    # what the reader is expected to know already
    "This guide is not an introduction to Solidity Programming; you are expected to "
    "understand Basic Solidity Programming.",
    "Familiarity with React and Next.js is assumed.",
    # a pointer within the page, a greeting, what following the page will do for you
    "Jump to the [`Dockerfile` below 👇](#build-a-docker-image).",
    "Welcome to the **Example Developer FAQ**! This guide is designed for developers.",
    "By following this tutorial, you'll implement industry-standard security measures.",
    # what an FAQ page says of itself
    "This comprehensive FAQ covers everything you need to know about the network.",
    "This FAQ is regularly updated with the latest information about the network.",
    "For the most current technical details, always refer to the official documentation.",
    "Whether you're new or experienced, you'll find answers to common questions here.",
])
def test_sentences_about_the_docs_are_filler(text):
    assert is_filler(text)


@pytest.mark.parametrize("text", [
    "Set `DOCENT_MAX_TURNS` to change the turn limit.",
    "The page cache keeps 100 entries.",
    "Docent lists every source it cites.",
    "You have to pass the API key in the header.",
    # what the user will see happen, not what the docs will show
    "Click Execute and the cookies won't be sent: you will see an error message.",
    "Go to /v1 and you'll see the response from Flask:",
    # what the reader needs is no filler: it may be the answer
    "To complete this guide, you will need MetaMask installed.",
    # "lets" is a verb, and Let's Encrypt a certificate authority
    "Banxa lets you buy SOMI with a debit card.",
    "Let's Encrypt issues free certificates that expire after three months.",
    # a step sending the reader to the product itself, not to more docs
    "Visit [app.example.com](https://app.example.com/) and connect your wallet.",
    # jumping, welcoming and following as the product's own doing
    "The cursor jumps to the next field when the form is valid.",
    "The welcome message greets each new member of the server.",
    "By following the redirect, the client reaches the new address.",
    # the latest of something the product has, and what it updates
    "For the latest release, run `pip install -U example`.",
    "This field is updated on every request.",
])
def test_statements_about_the_product_are_not_filler(text):
    assert not is_filler(text)


@pytest.mark.parametrize(("question", "kind"), [
    ("How do I change the tool-call limit?", "howto"),
    ("What's the recommended way to load configuration?", "howto"),
    ("How many SOMI tokens will ever exist?", "value"),
    ("What is the default port?", "value"),
    ("Which environment variable sets the Gemini model?", "name"),
    # A name asked for, its value words only saying what it is about.
    ("Which settings control how long a search may take?", "name"),
    ("What is the default timeout, and which setting changes it?", "value"),
    ("What media type does FastAPI use for JSON Lines?", "name"),
    ("In the JWT tutorial, what signing algorithm is used for the tokens?", "name"),
    ("Which security firm audited the contracts?", "name"),
    ("Which companies are backing the project?", "name"),
    ("What happens when the rate limit is hit?", "outcome"),
    ("Why does Somnia rely on BLS signatures?", "concept"),
    # ... after a phrase setting the scene, too
    ("In the DAO tutorial, how come reading the count costs nothing but a vote does?",
     "concept"),
    ("Is there a tool that upgrades Pydantic code?", "yesno"),
    # read from the sentence that asks, not the scene before it
    ("Need a header showing how long the request took. What's the simplest way?", "howto"),
    ("Browsers send preflights. How long may they cache one?", "value"),
    # a bare "how" after a yes-or-no question asks how to
    ("Can I run both apps in one process? How?", "howto"),
    ("Can the limit be changed per route, and if so, how?", "howto"),
    # a versioned or hyphenated name between "what's the" and what is asked for
    ("What's the ERC-4337 EntryPoint v0.7 address on testnet?", "value"),
    ("Is there a cleaner way to make the dependency run?", "howto"),
    # typed without the apostrophe, or with a curly one
    ("whats the contract address for wrapped SOMI on mainnet?", "value"),
    ("What’s the default port?", "value"),
    # an aside in brackets between them counts as one word
    ("whats the WETH (wrapped ether) contract address on testnet?", "value"),
    # a way around a problem is a how-to
    ("The browser blocks my page with a CORS error. What's the workaround?", "howto"),
    ("Is there a fix for the stale cache?", "howto"),
    ("What solutions does the platform offer to game studios?", "other"),
    # "which X" asks which one, of any kind of thing; not "which is..." or "which of..."
    ("Which reverse proxies can renew the certificates?", "name"),
    ("In VS Code, which debug configuration do I pick?", "name"),
    ("Which is faster, the extractive model or Gemini?", "other"),
    ("Which of the two pages covers streaming?", "other"),
    ("Does the app keep a cache which expires?", "yesno"),
    # a value a relative clause describes is no value asked for
    ("In the middleware that measures how long each request takes, which clock function "
     "does it use?", "name"),
    ("Is there a header that shows how many requests are left?", "yesno"),
])
def test_the_kind_of_answer_is_read_from_the_question(question, kind):
    assert intent_of(question).kind == kind


def test_an_instruction_is_no_answer_to_what_something_is_for_bold_or_not():
    from docent.models.scoring import fits

    intent = intent_of("what is kite actually for? lending, swapping, something else?")
    assert intent.kind == "concept"
    # A step in bold, or one sending the reader somewhere, is a how-to's answer.
    for step in ("**Go to the** [**Kite App**](https://app.kite.example/)**:** Connect your "
                 "wallet to the Kite lending platform.",
                 "**Connect** your wallet to the Kite lending platform.",
                 "Navigate to the Kite dashboard and supply an asset."):
        assert fits(intent, Unit(step, "prose", 0)) == -1
    assert fits(intent, Unit("Kite is a lending protocol on the network.", "prose", 0)) == 0


def test_an_address_is_the_value_an_address_question_asks_for():
    from docent.models.scoring import fits
    from docent.models.units import Unit

    intent = intent_of("What is the contract address of the wrapped token?")
    stated = Unit("Wrapped token: [0x046EDe9564A72571df6F5e44d0405360c0f4dCab](https://x.example)",
                  "prose", 0)
    assert fits(intent, stated) == 1
    assert fits(intent, Unit("There is no contract address for the native token.", "prose", 0)) == 0


GUIDE_MAP = """[1] User guide > Map of this guide (index.md)
- [Requirements](requirements.md): what docent needs to run.

[2] Requirements (requirements.md)
Docent needs Python 3.11 or newer and make."""


@pytest.mark.parametrize(("question", "lead"), [
    ("What does docent need to run?", "Docent needs Python 3.11"),
    ("Where can I read what docent needs to run?", "[Requirements](requirements.md)"),
])
def test_a_table_of_contents_entry_leads_only_a_question_asking_where_to_read(question, lead):
    # The entry shares more of the question's words than the page it points to.
    answer = compose_answer(question, parse_references(GUIDE_MAP), fake_vectors(["docent"]))
    assert lead_statement(answer).startswith(lead)


OTHER_IMPORT = """[1] WebSockets > Create a websocket (websockets.md)
You could also use `from starlette.websockets import WebSocket`.

In your application, accept a `WebSocket` in a `@app.websocket("/ws")` endpoint and call
`await websocket.accept()`."""


@pytest.mark.parametrize(("question", "lead"), [
    ("how do I use websockets?", "In your application, accept a `WebSocket`"),
    ("Can I import the WebSocket class from Starlette?", "You could also use `from starlette"),
])
def test_an_import_from_another_package_leads_only_a_question_naming_it(question, lead):
    # Both read as about websockets; the import shares more of the question's words.
    answer = compose_answer(question, parse_references(OTHER_IMPORT),
                            fake_vectors(["websocket"]))
    assert lead_statement(answer).startswith(lead)


def test_a_number_inside_a_link_is_no_value_the_question_asks_for():
    from docent.models.scoring import fits

    # The link to a wallet list holds the other network's chain ID; the row gives it.
    intent = intent_of("What is the mainnet chain ID?")
    link = "Add the mainnet to your wallet through [chainlist](https://chainlist.org/?chain=50312)."
    assert fits(intent, Unit(link, "prose", 0)) == 0
    assert fits(intent, Unit("Bare: https://chainlist.org/?chain=50312", "prose", 0)) == 0
    assert fits(intent, Unit("Mainnet chain ID: 5031", "prose", 0)) == 1
    how_long = intent_of("How long does a session last?")
    assert fits(how_long, Unit("See [sessions](https://x.example/ttl-30-minutes).", "prose", 0)) == 0


def test_every_key_point_announcing_a_command_shows_it():
    # A crawled tutorial: each step announces its command, which the crawl indented.
    text = """[1] Deploy with Forge > Set up (forge.md)
Forge deploys contracts from the command line. To start a new project with Forge, run the command:

    forge init Ballot

[2] Deploy with Forge > Compile (forge.md)
To compile the contract with Forge, run the command:

    forge build

[3] Deploy with Forge > Deploy (forge.md)
To deploy the contract with Forge, run this command in the terminal:

    forge create --rpc-url https://rpc.example.org src/Ballot.sol:Ballot"""
    answer = compose_answer("How do I deploy a contract from the command line with Forge?",
                            parse_references(text), fake_vectors(["forge", "contract"]))
    for command in ("forge init Ballot", "forge build", "forge create --rpc-url"):
        assert command in answer
    assert "run the command." not in answer and "in the terminal." not in answer


def test_a_key_points_short_follow_up_announcing_a_command_shows_it():
    # "...run the Verify command. Copy the address and run:" over the command: the short
    # follow-up comes with the point, and so does the command it announces.
    text = """[1] Deploy with Forge > Verify (forge.md)
To verify my contract with Forge after deploying it, add the explorer to `foundry.toml`:

```toml
[etherscan]
explorer = { key = "KEY", url = "https://explorer.example.org/api" }
chain = 50312
verify = true
```

After deploying your contract with Forge, run the verify command. Copy the address and run:

```
forge verify-contract 0xAddress src/Ballot.sol:Ballot
```"""
    answer = compose_answer("How do I verify my contract with Forge after deploying it?",
                            parse_references(text), fake_vectors(["forge", "verify"]))
    assert "run the verify command. Copy the address and run: [1]\n\n  ```\n" \
           "  forge verify-contract 0xAddress" in answer


def test_a_statement_shows_the_command_its_paragraph_ends_by_announcing():
    # "Deploying ... is very straightforward. All you need is ... run this command:": the
    # statement opens a paragraph whose last sentence announces the command; both come
    # with it, as the lead or as a key point.
    deploy = """[2] Deploy with Forge > Deploy (forge.md)
Deploying a contract with Forge is very straightforward. All you need is the RPC URL and a funded private key. You can get test tokens from the faucet. To deploy it, run this command in the terminal:

    forge create --rpc-url https://rpc.example.org src/Ballot.sol:Ballot"""
    question = "How do I deploy a contract to the network with Forge?"
    vectors = fake_vectors(["forge", "deploy"])
    as_lead = compose_answer(question, parse_references(deploy), vectors)
    assert ("is very straightforward. All you need is the RPC URL and a funded private key. "
            "To deploy it, run this command in the terminal: [2]\n\nExample [2]:\n\n```\n"
            "forge create --rpc-url") in as_lead
    lead = """[1] Deploy with Forge (forge.md)
Forge deploys a contract to the network from the command line, once it is compiled.

"""
    as_point = compose_answer(question, parse_references(lead + deploy), vectors)
    assert as_point.startswith("## Deploy with Forge\n\nForge deploys a contract")
    assert ("is very straightforward. All you need is the RPC URL and a funded private key. "
            "To deploy it, run this command in the terminal: [2]\n\n  ```\n"
            "  forge create --rpc-url") in as_point


def test_a_command_continued_over_lines_is_one_command():
    # `curl ... \` and its three -H lines: one command, shown under the point announcing it.
    text = """[1] Balances API > Endpoints (api.md)
To fetch the token balances of a wallet, call the balances endpoint of the API:

```
/v1/address/{wallet}/balances
```

[2] Balances API > Example request (api.md)
Here is an example of how to fetch the token balances with curl:

```
curl -X GET "https://api.example.org/v1/address/0xWALLET/balances" \\
  -H "Authorization: Bearer YOUR_API_KEY" \\
  -H "Content-Type: application/json" \\
  -H "Accept: application/json"
```"""
    answer = compose_answer("How do I fetch the token balances of a wallet from the API?",
                            parse_references(text), fake_vectors(["balances", "wallet"]))
    assert "Authorization: Bearer YOUR_API_KEY" in answer
    assert "with curl." not in answer


def test_a_command_a_crawl_left_as_text_is_shown_as_code():
    # A site's code block without its fence: the commands read as a sentence of the page.
    text = """[1] Subgraph > Build and deploy (subgraph.md)
Build the subgraph from its manifest, then deploy it to the indexer.

graph deploy --node https://indexer.example.org/deploy \\ --version-label 0.0.1 my-subgraph"""
    answer = compose_answer("How do I build and deploy the subgraph to the indexer?",
                            parse_references(text), fake_vectors(["subgraph", "deploy"]))
    assert ("`graph deploy --node https://indexer.example.org/deploy --version-label 0.0.1 "
            "my-subgraph`") in answer


@pytest.mark.parametrize(("text", "shown"), [
    # several run together: each in a span of its own
    ("graph codegen graph build", "`graph codegen`, then `graph build`"),
    # commands joined by the shell stay one
    ("mkdir app && cd app npm init -y", "`mkdir app && cd app`, then `npm init -y`"),
    # a tool a runner starts is no command of its own
    ("npx graph init --from-contract 0xAbc my-subgraph",
     "`npx graph init --from-contract 0xAbc my-subgraph`"),
    # sentences about a tool, or naming it, are no commands
    ("cd into the folder that holds the manifest", None),
    ("npm is the package manager that comes with Node.", None),
    ("git clone the repository. Then open it in your editor", None),
    ("npm i `viem`", None),
])
def test_what_reads_as_a_command_left_as_text(text, shown):
    from docent.models.compose import _as_code

    assert _as_code(text) == (shown or text)


def test_a_nested_item_comes_under_the_item_it_is_nested_in():
    text = """[1] Project template > Features (template.md)
- FastAPI for the Python backend API.
  - SQLModel for the SQL database interactions.
  - PostgreSQL as the SQL database.
- Docker Compose for development and production.
- Traefik as a reverse proxy.
- GitHub Actions for continuous integration.
- Secure password hashing by default.
- JWT token authentication.
- Email based password recovery.
- Mailcatcher for local email tests.
- React for the frontend.
  - Using TypeScript, hooks and Vite for the frontend stack.
  - Tailwind CSS for the frontend components.
- Playwright for end-to-end tests."""
    answer = compose_answer("Which frontend stack does the template use, with which database?",
                            parse_references(text), fake_vectors(["frontend", "database"]))
    # nested items are shown under the item they are nested in
    assert "- React for the frontend. [1]\n  - Tailwind CSS" in answer
    # ... which comes along when it is not chosen itself
    answer = compose_answer("Which database does the template use?",
                            parse_references(text), fake_vectors(["database"]))
    assert "- FastAPI for the Python backend API. [1]\n  - SQLModel" in answer


def test_a_changelog_entry_says_which_release_it_is_of():
    text = """[1] Release Notes > 0.125.0 (2025-12-17) > Breaking Changes (release-notes.md)
- Drop support for Python 3.8 in the package metadata.

[2] Deployment > Python versions (deployment.md)
The package supports every Python version that is still maintained."""
    answer = compose_answer("Which release dropped support for Python 3.8?",
                            parse_references(text), fake_vectors(["python"]))
    assert "Drop support for Python 3.8 in the package metadata. (in 0.125.0) [1]" in answer
    assert "(in " not in answer.split("[1]", 1)[1]  # the other page's statements: no release


def test_the_entry_giving_the_version_asked_about_leads_not_another_version():
    # Both entries match every word; only the figure tells them apart.
    text = """[1] Release Notes > 0.84.0 (2022-09-14) > Breaking Changes (release-notes.md)
- This version drops support for Python 3.6 in the package metadata.

[2] Release Notes > 0.129.0 (2026-02-12) > Breaking Changes (release-notes.md)
- Drop support for Python 3.9."""
    answer = compose_answer("Which release dropped support for Python 3.9?",
                            parse_references(text), fake_vectors(["python"]))
    assert lead_statement(answer).startswith("Drop support for Python 3.9. (in 0.129.0)")
    other = compose_answer("Which release dropped support for Python 3.6?",
                           parse_references(text), fake_vectors(["python"]))
    assert lead_statement(other).startswith("This version drops support for Python 3.6")


def test_a_statement_under_a_heading_the_question_names_in_full_leads():
    # A crawled page's small sections share one passage; their headings stay in its text.
    text = """[1] Mission > Core Principles (mission.md)
#### On-Chain Experiences

Applications run fully on-chain.

#### Multiverse over Monolith

We believe in a collection of distinct, interconnected applications sharing utilities."""
    refs, vectors = parse_references(text), fake_vectors(["mission"])
    answer = compose_answer("For applications, what does multiverse over monolith mean?",
                            refs, vectors)
    assert lead_statement(answer).startswith("We believe in a collection")
    # a heading the question names only in part says nothing of its statements
    other = compose_answer("For applications, what does a monolith mean?", refs, vectors)
    assert lead_statement(other).startswith("Applications run fully on-chain.")


def test_a_which_question_is_answered_by_a_name_it_does_not_give_itself():
    # Both statements match the question's words alike; "`engine`" is code, but it is the
    # question's own word: only the second names something the question does not.
    text = """[1] Databases > Create an engine (sql.md)
You keep one single `engine` object for the SQLite database.

The engine is created with `check_same_thread=False`."""
    answer = compose_answer("Which argument is passed when creating the SQLite engine?",
                            parse_references(text), fake_vectors(["engine"]))
    assert lead_statement(answer).startswith("The engine is created with")


BASE64_PAGE = """[1] JSON with bytes > Model (json-bytes.md)
Declare a model with a `bytes` field and set `val_json_bytes` to `"base64"` in its config to decode base64 input into bytes.

[2] JSON with bytes > Example (json-bytes.md)
For a base64 request you will receive a response like:

```json
{"data": "aGVsbG8="}
```

[3] JSON with bytes > Example (json-bytes.md)
```python
class DataInput(BaseModel):
    data: bytes
    model_config = {"val_json_bytes": "base64", "ser_json_bytes": "base64"}
```"""


def test_the_best_example_is_shown_though_a_key_point_introduces_a_weaker_block():
    # The key point's block (a sample response) goes under it; the example the question
    # asks for (the model config) is not left out because of it.
    answer = compose_answer(
        "How do I decode base64 JSON into bytes in my model?",
        parse_references(BASE64_PAGE), fake_vectors(["base64", "bytes"]),
    )
    assert "Example [3]:\n\n```python\nclass DataInput(BaseModel):" in answer
    assert "- For a base64 request you will receive a response like: [2]\n\n  ```json\n" in answer


def test_a_clearly_better_example_shows_after_the_block_the_lead_announces():
    # The lead announces a URL; the code that documents the callback is the example asked for.
    text = """[1] Callbacks > The callback URL (callbacks.md)
Your API later sends a callback request to the callback URL of the external API:

```
https://www.external.org/events/invoices/2expen51ve
```

[2] Callbacks > Document the callback (callbacks.md)
```python
callback_router = APIRouter()

@callback_router.post("{$callback_url}/invoices/{$request.body.id}")
def invoice_notification(body: InvoiceEvent):
    pass

@app.post("/invoices/", callbacks=callback_router.routes)
def create_invoice(invoice: Invoice, callback_url: HttpUrl | None = None):
    return {"msg": "Invoice received"}
```"""
    answer = compose_answer("How do I document the callback request my API sends to the callback URL?",
                            parse_references(text), fake_vectors(["callback", "invoice"]))
    assert "Example [1]:\n\n```\nhttps://www.external.org/events" in answer
    assert "Example [2]:\n\n```python\ncallback_router = APIRouter()" in answer


WALLET_SETUP = """[1] Wallet setup > Install (wallet.md)
Install wagmi and RainbowKit in your project with this command:

```
npm install wagmi rainbowkit{comment}
```

[2] Wallet setup > Providers (wallet.md)
```
import {{ WagmiProvider }} from "wagmi";
import {{ RainbowKitProvider, getDefaultConfig }} from "rainbowkit";

const config = getDefaultConfig({{ appName: "demo", projectId: "ID", chains: [testnet] }});
```"""


def test_a_block_matching_more_of_the_question_shows_beside_the_leads_own():
    # "...what goes in the config?": the install command the lead announces is half of it.
    question = "How do I install RainbowKit with wagmi? What goes in the config?"
    vectors = fake_vectors(["wagmi", "rainbowkit"])
    answer = compose_answer(question, parse_references(WALLET_SETUP.format(comment="")), vectors)
    assert "Example [1]:\n\n```\nnpm install wagmi rainbowkit\n```" in answer
    assert "Example [2]:\n\n```\nimport { WagmiProvider }" in answer
    # ... not when the lead's own block matches the question as well
    own = WALLET_SETUP.format(comment="  # the config comes next")
    assert "getDefaultConfig" not in compose_answer(question, parse_references(own), vectors)


SPINNING_DICE = """[1] Editor > A spinning dice (editor.md)
To make the dice turn on every click, add the dice model first:

```
<m-model id="dice" src="dice.glb"
         onclick="spin()">
</m-model>
```

Then add the script that turns the dice:

```
<script>
  // {comment}
  function spin() {{
    const dice = document.getElementById("dice");
    dice.setAttribute("ry", 36);
  }}
</script>
```"""


def test_a_key_points_code_shows_when_it_matches_the_question_better_than_the_example():
    # The example is the model the lead announces; the script doing what is asked is the
    # code a key point introduces.
    question = "How do I make the dice turn on every click?"
    vectors = fake_vectors(["dice", "click"])
    answer = compose_answer(question, parse_references(SPINNING_DICE.format(comment="turn the dice")),
                            vectors)
    assert "Example [1]:\n\n```\n<m-model" in answer
    assert "- Then add the script that turns the dice: [1]\n\n  ```\n  <script>" in answer
    # ... and so it does when it scores nearly as well as the example, its words matching less
    plain = compose_answer(question, parse_references(SPINNING_DICE.format(comment="rotate")),
                           vectors)
    assert "- Then add the script that turns the dice: [1]\n\n  ```\n  <script>" in plain
    # ... for a how-to question only
    other = compose_answer("What makes the dice turn on every click?",
                           parse_references(SPINNING_DICE.format(comment="turn the dice")),
                           vectors)
    assert "<script>" not in other and "- Then add the script that turns the dice. [1]" in other


def test_a_lead_pointing_back_opens_with_the_sentence_it_points_to():
    text = """[1] Names > Primary names (names.md)
Register a name for your wallet first.

You can read the primary name of a wallet with the names API. This allows apps to show primary names instead of wallet addresses in the frontend."""
    answer = compose_answer("How can my app show primary names instead of wallet addresses?",
                            parse_references(text), fake_vectors(["name"]))
    assert lead_statement(answer) == (
        "You can read the primary name of a wallet with the names API. This allows apps to "
        "show primary names instead of wallet addresses in the frontend. [1]")
    # ... or from the paragraph before, when that one says one thing
    apart = compose_answer("How can my app show primary names instead of wallet addresses?",
                           parse_references(text.replace("API. This", "API.\n\nThis")),
                           fake_vectors(["name"]))
    assert lead_statement(apart) == lead_statement(answer)
    # ... a lead after a paragraph of several sentences stands alone
    alone = compose_answer("How can my app show primary names instead of wallet addresses?",
                           parse_references(text.replace("API. This", "API. Names cost STT.\n\nThis")),
                           fake_vectors(["name"]))
    assert lead_statement(alone).startswith("This allows apps")


def test_code_shows_under_the_point_announcing_it_not_the_sentence_before():
    text = """[1] Wallets > Install (wallets.md)
Install the wallet kit and its providers with npm.

[2] Wallets > Providers (wallets.md)
Next, the wallet kit needs a providers folder: make one at the root, as npm installs nothing there. Inside that directory, create a file named `Providers.tsx` that wraps the whole wallet application in one more component, with the following content:

```
import { WalletKitProvider } from "wallet-kit";
export function Providers({ children }) {
  return <WalletKitProvider>{children}</WalletKitProvider>;
}
```"""
    answer = compose_answer("How do I set up the wallet kit with npm?", parse_references(text),
                            fake_vectors(["wallet"]))
    assert "installs nothing there. [2]\n- Inside that directory" in answer
    assert "with the following content: [2]\n\n  ```\n  import { WalletKitProvider }" in answer


def test_a_diagram_is_never_shown():
    text = """[1] Behind a proxy (proxy.md)
The proxy strips the path prefix before the request reaches the app, so the docs UI must fetch the schema at the prefixed path:

```mermaid
graph LR
browser --> proxy --> server
```

Set `root_path` to the prefix so the docs UI fetches the schema through the proxy."""
    answer = compose_answer("How do I fix the docs UI behind a proxy with a path prefix?",
                            parse_references(text), fake_vectors(["proxy", "prefix"]))
    assert "`root_path`" in answer
    assert "mermaid" not in answer and "graph LR" not in answer


def test_the_sentence_that_asks_outweighs_the_scene_before_it():
    # The whole question is about deploying (its scene); the sentence that asks is about
    # the timeout. Ranked by the whole question's vector, the scene's statement would lead.
    text = """[1] Operations (ops.md)
Deploys run on Fridays.

The request timeout is 30 seconds."""
    question = "We deploy on Fridays and the deploy takes a while. What is the request timeout?"
    answer = compose_answer(question, parse_references(text), fake_vectors(["deploy", "timeout"]))
    assert lead_statement(answer).startswith("The request timeout is 30 seconds.")


CHANGELOG_AND_GUIDE = """[1] Release Notes > 0.81.0 > Docs (release-notes.md)
- 📝 Update docs for HTTP Basic Auth with `secrets.compare_digest()` for non-ASCII passwords.

[2] HTTP Basic Auth > Check the username (security/http-basic-auth.md)
Check the username and password with `secrets.compare_digest()`, which resists timing attacks."""


def test_a_changelog_entry_leads_only_an_answer_about_releases():
    refs = parse_references(CHANGELOG_AND_GUIDE)
    vectors = fake_vectors(["compare_digest"])
    why = compose_answer("Why does HTTP Basic Auth use secrets.compare_digest() for passwords?",
                         refs, vectors)
    assert lead_statement(why).startswith("Check the username and password")
    assert "📝 Update docs" in why  # still a key point
    # "when" that sets a condition asks about no release
    condition = compose_answer("Which function does HTTP Basic Auth use when it checks the "
                               "passwords, secrets.compare_digest()?", refs, vectors)
    assert lead_statement(condition).startswith("Check the username and password")
    when = compose_answer("Which release updated the HTTP Basic Auth docs for "
                          "secrets.compare_digest() with non-ASCII passwords?", refs, vectors)
    assert lead_statement(when).startswith("📝 Update docs for HTTP Basic Auth")
    changed = compose_answer("Why does secrets.compare_digest() no longer fail on non-ASCII "
                             "passwords in the HTTP Basic Auth docs?", refs, vectors)
    assert lead_statement(changed).startswith("📝 Update docs for HTTP Basic Auth")


CHANGELOG_ENTRIES = """[1] WebSockets > Install (advanced/websockets.md)
Add the websockets package to your project before you write a websocket route.

[2] Release Notes > 0.97.0 > Features (release-notes.md)
- ✨ Add support for dependencies in websocket routes.
- ✨ Add an exception handler for websocket route validation errors.

[3] Release Notes > 0.61.0 > Features (release-notes.md)
- Add support for injecting the websocket route's connection.
- Export the websocket route's disconnect exception."""


def test_an_answer_not_about_releases_quotes_at_most_two_changelog_entries():
    refs = parse_references(CHANGELOG_ENTRIES)
    answer = compose_answer("Which package do I add before I write my first websocket route?",
                            refs, fake_vectors(["websocket"]))
    assert lead_statement(answer).startswith("Add the websockets package")
    entries = [line for line in answer.splitlines() if "[2]" in line or "[3]" in line]
    assert len(entries) == 2, answer
    # an answer about releases quotes every entry
    answer = compose_answer("Which releases added websocket route features?", refs,
                            fake_vectors(["websocket"]))
    assert len([line for line in answer.splitlines() if "[2]" in line or "[3]" in line]) >= 4
    # nor is the cap for an answer the changelog alone can give: it leads with an entry
    only = parse_references(CHANGELOG_ENTRIES.split("\n\n", 1)[1].replace("[2]", "[1]", 1)
                            .replace("[3]", "[2]", 1))
    answer = compose_answer("Which package do I add before I write my first websocket route?",
                            only, fake_vectors(["websocket"]))
    assert len([line for line in answer.splitlines() if "[1]" in line or "[2]" in line]) >= 4


def test_one_of_the_best_statements_of_all_is_a_key_point_whatever_its_page():
    # [2]'s statement ranks second of all, yet its page falls short of 0.8 of the lead's.
    text = """[1] Launch checklist (launch.md)
Before mainnet, keep the mainnet and testnet RPC settings apart in separate env files.

Audit every contract before the mainnet launch.

Start on testnet and keep testnet keys out of mainnet files.

[2] Deploy scripts (deploy.md)
Define `RPC_MAINNET` and `RPC_TESTNET` as the network URLs.

Deploy scripts read the network name from the command line."""
    answer = compose_answer("Which env var names keep the mainnet and testnet RPC URLs apart?",
                            parse_references(text))
    assert "- Define `RPC_MAINNET` and `RPC_TESTNET` as the network URLs. [2]" in answer
    assert "Deploy scripts read" not in answer  # the rest of its page stays out


GLOBAL_CHECK = """[1] Headers > Duplicate headers (headers.md)
To receive a header that can appear more than once, declare it as a list:

```python
async def read_items(x_token: Annotated[list[str] | None, Header()] = None):
    return {"X-Token values": x_token}
```

[2] Global checks (global.md)
```python
async def verify_key(x_key: Annotated[str, Header()]):
    if x_key != "secret":
        raise HTTPException(status_code=400, detail="X-Key header invalid")

app = FastAPI(dependencies=[Depends(verify_key)])
```"""


def test_a_passage_of_code_alone_shows_when_it_matches_the_question():
    # The chunker cut the global check's code from the sentences before it: no statement
    # of its passage can be chosen, yet it is what the question asks for.
    question = "Can I check the X-Key header once for the whole app instead of on each route?"
    vectors = fake_vectors(["header", "check"])
    answer = compose_answer(question, parse_references(GLOBAL_CHECK), vectors)
    assert "Example [2]:\n\n```python\nasync def verify_key" in answer
    # ... not when its words match the question less than the passage quoted
    other = compose_answer("How do I receive a header that appears more than once?",
                           parse_references(GLOBAL_CHECK), vectors)
    assert "verify_key" not in other


def test_code_a_crawl_flattened_into_a_paragraph_does_not_lead():
    text = """[1] Verify > Initialize Hardhat (verify.md)
import "dotenv/config"; import "@nomicfoundation/hardhat-verify"; import { HardhatUserConfig } from "hardhat/config";

The verified source of the contract appears on the explorer after `npx hardhat verify`."""
    answer = compose_answer("How do I set up the HardhatUserConfig with hardhat-verify and dotenv "
                            "config to verify on the explorer?",
                            parse_references(text), fake_vectors(["verify", "hardhat"]))
    assert lead_statement(answer).startswith("The verified source of the contract appears")
    # As a key point it reads as code again, a statement a line, not as a sentence.
    assert ('- Example [1]:\n\n  ```\n  import "dotenv/config";\n  import '
            '"@nomicfoundation/hardhat-verify";\n  import { HardhatUserConfig } from '
            '"hardhat/config";\n  ```') in answer


def test_flattened_code_the_example_shows_already_is_no_point_of_its_own():
    text = """[1] Verify > Initialize Hardhat (verify.md)
import "dotenv/config"; import "@nomicfoundation/hardhat-verify"; import { HardhatUserConfig } from "hardhat/config";

The verified source of the contract appears on the explorer after `npx hardhat verify`.

[2] Verify > Configure (verify.md)
Set up the HardhatUserConfig with the verify settings:

```
import "dotenv/config";
import "@nomicfoundation/hardhat-verify";
import { HardhatUserConfig } from "hardhat/config";

const config: HardhatUserConfig = { solidity: "0.8.28" };
export default config;
```"""
    answer = compose_answer("How do I set up the HardhatUserConfig with hardhat-verify and dotenv "
                            "config to verify on the explorer?",
                            parse_references(text), fake_vectors(["verify", "hardhat"]))
    assert 'Example [2]:\n\n```\nimport "dotenv/config";' in answer
    assert answer.count('import "dotenv/config";') == 1
    assert "- The verified source of the contract appears" in answer
    # When it was the only point, no "Key Points" heading is left over it.
    alone = compose_answer("How do I set up the HardhatUserConfig with hardhat-verify and dotenv "
                           "config to verify on the explorer?",
                           parse_references(text.replace(
                               "The verified source of the contract appears on the explorer "
                               "after `npx hardhat verify`.\n\n", "")),
                           fake_vectors(["verify", "hardhat"]))
    assert alone.endswith("export default config;\n```")
    assert "Key Points" not in alone


TWICE_QUOTED = """[1] Classes as dependencies > Shortcut (classes.md)
But you see that we are having some code repetition here, writing `CommonQueryParams` twice:

```Python
commons: Annotated[CommonQueryParams, Depends(CommonQueryParams)]
```

[2] Classes as dependencies > Type annotation (classes.md)
Notice how we write `CommonQueryParams` twice in the above code:

```Python
commons: Annotated[CommonQueryParams, Depends(CommonQueryParams)]
```"""


def test_code_two_passages_quote_is_shown_once():
    question = "Why do I write CommonQueryParams twice in the dependency code?"
    answer = compose_answer(question, parse_references(TWICE_QUOTED))
    assert answer.count("commons: Annotated") == 1
    assert "writing `CommonQueryParams` twice. [1]" in answer  # a sentence, no dangling colon
    # ... unless the point would read as a fragment without it
    cut = TWICE_QUOTED.replace("But you see that we are having some code repetition here, "
                               "writing `CommonQueryParams` twice:",
                               "The code repetition of `CommonQueryParams` twice happens when it is "
                               "called with:")
    answer = compose_answer(question, parse_references(cut))
    assert "called with." not in answer and answer.count("commons: Annotated") == 2


def test_a_flattened_comment_and_its_statements_get_a_line_each():
    from docent.models.compose import _reflowed

    text = ("const wsUrl = 'wss://rpc.example.com/ws'; //change url for Mainnet "
            "const provider = new WebSocketProvider(wsUrl);")
    assert _reflowed(text) == ["```", "const wsUrl = 'wss://rpc.example.com/ws';",
                               "//change url for Mainnet",
                               "const provider = new WebSocketProvider(wsUrl);", "```"]


def test_a_flattened_declaration_named_like_a_keyword_stays_on_its_line():
    from docent.models.compose import _reflowed

    text = ("const contract = new ethers.Contract(address, abi, provider); "
            "export const total = await contract.count();")
    assert _reflowed(text) == ["```", "const contract = new ethers.Contract(address, abi, provider);",
                               "export const total = await contract.count();", "```"]


DAO_VARIABLES = """[1] DAO > Overview (dao.md)
Members deposit STT to gain voting power, then vote on proposals before their deadline:

```
dao.deposit{value: 1 ether}();
dao.vote(proposalId, true);
```

[2] DAO > Key Variables (dao.md)
```
uint256 public votingDuration = 10 minutes;
```

Sets the default duration for voting on proposals.

```
{!> ../../docs_src/dao/tutorial004.sol!}
```

Members gain voting power to vote on proposals before the deadline, for as long as voting is open."""


def test_a_key_point_shows_the_short_block_it_describes_from_below():
    # Crawled pages show a line of code first and say what it does below it.
    answer = compose_answer("How do members gain voting power to vote on proposals before the "
                            "deadline, and for how long is voting open?",
                            parse_references(DAO_VARIABLES), fake_vectors(["voting", "proposal"]))
    assert ("- Sets the default duration for voting on proposals. [2]\n\n"
            "  ```\n  uint256 public votingDuration = 10 minutes;\n  ```") in answer
    # ... never an include directive, which shows nothing
    assert "{!>" not in answer


def test_a_long_clause_that_answers_is_quoted():
    # Legal pages put the answer in one long clause; past 1,000 characters a unit is not
    # quoted (a table or code a crawl ran together).
    terms = ", ".join(f"term {i} of the agreement" for i in range(20))
    clause = (f"You are not eligible to take part in the distribution if you are a resident of "
              f"the United States of America, Canada or China, under {terms}.")
    assert 600 < len(clause) < 1000
    text = f"""[1] Legal (legal.md)
The distribution is governed by separate terms.

{clause}"""
    answer = compose_answer("Can residents of Canada take part in the distribution?",
                            parse_references(text), fake_vectors(["distribution"]))
    assert "Canada" in answer
    too_long = text.replace(terms, terms + ", " + terms)
    assert "Canada" not in compose_answer("Can residents of Canada take part in the distribution?",
                                          parse_references(too_long), fake_vectors(["distribution"]))


def test_a_key_point_pointing_back_comes_with_the_sentence_it_points_to():
    text = """[1] Execution > Compilation (execution.md)
The node compiles contract bytecode to native code, which runs contracts near native speed.

However, there is no free lunch: it is slow. For this reason, the node compiles only the contracts that are called often, and interprets the rest."""
    answer = compose_answer("Why doesn't the node compile every contract to native code?",
                            parse_references(text), fake_vectors(["compil", "contract"]))
    assert ("- However, there is no free lunch: it is slow. For this reason, the node "
            "compiles only the contracts") in answer



def test_a_statement_opening_on_but_and_or_comes_with_the_sentence_before_it():
    # "But if the item did not exist..." only reads after what it turns from.
    text = """[1] Status codes > Upserts (status.md)
The endpoint returns 200 when the item exists and was updated. But if the item did not exist, \
you create it and return the status code 201 for the upsert.

Clients retry on 503."""
    answer = compose_answer("Which status code does an upsert return when it creates the item?",
                            parse_references(text), fake_vectors(["upsert", "creat"]))
    assert answer.split("\n\n")[1].startswith(
        "The endpoint returns 200 when the item exists and was updated. But if the item")



SHOWCASE = """[1] Ecosystem > Showcase (showcase.md)
The Somnia ecosystem showcase lists the decentralized projects built on Somnia.

Tokos is a decentralized lending protocol on Somnia. Harbor Swap is a decentralized exchange \
(DEX) on Somnia for trading tokens."""


def test_a_which_question_is_led_by_the_statement_naming_one_of_its_kind():
    question = "Which decentralized exchange is among the Somnia ecosystem showcase projects?"
    assert kind_asked(question) == "decentralized exchange"
    answer = compose_answer(question, parse_references(SHOWCASE),
                            fake_vectors(["decentraliz", "ecosystem", "showcase"]))
    assert answer.split("\n\n")[1].startswith("Harbor Swap is a decentralized exchange")
    # Asking for several of a kind, the statement of one does not lead.
    plural = "Which decentralized protocols are among the Somnia ecosystem showcase projects?"
    answer = compose_answer(plural, parse_references(SHOWCASE),
                            fake_vectors(["decentraliz", "ecosystem", "showcase"]))
    assert not answer.split("\n\n")[1].startswith("Tokos is")



def test_a_whole_class_said_to_be_of_the_kind_asked_names_none_of_it():
    # "Every ... setting is an environment variable" says what all settings are, and does
    # not answer which one sets the model; the statement naming one does.
    text = """[1] Configuration > Settings (configuration.md)
Every docent setting is an environment variable that sets a Gemini model or a limit.

`DOCENT_GEMINI_MODEL` is the environment variable naming the Gemini model to call."""
    answer = compose_answer("Which environment variable sets the Gemini model?",
                            parse_references(text), fake_vectors(["gemini"]))
    assert answer.split("\n\n")[1].startswith("`DOCENT_GEMINI_MODEL` is the")


STREAMING = """[1] Streaming > Stream data (stream.md)
If you declare a streaming response class in your path function, you can yield each chunk of data in turn from that streaming path function.

Streaming {added}."""


def test_the_value_asked_for_leads_when_it_scores_nearly_as_well():
    # "Since which version...?": the version leads, not what the version added
    question = "Since which version can I yield chunks of data from a streaming path function?"
    vectors = fake_vectors(["stream"])
    answer = compose_answer(question, parse_references(STREAMING.format(added="was added in 0.134.0")),
                            vectors)
    assert lead_statement(answer) == "Streaming was added in 0.134.0. [1]"
    # ... and not without a version in it
    other = compose_answer(question, parse_references(STREAMING.format(added="was added later")),
                           vectors)
    assert lead_statement(other).startswith("If you declare a streaming response class")


def test_a_short_question_is_about_the_code_it_gives():
    # "/chat returns 429": the number is what it asks about, though "returned" matches too
    text = """[1] HTTP API > The chat request (api.md)
`top_k` — Passages returned by one search.

[2] Configuration > Rate limits (configuration.md)
Docent answers HTTP 429 above the rate limits of the chat endpoint."""
    answer = compose_answer("/chat returns 429", parse_references(text), fake_vectors(["x"]))
    assert lead_statement(answer).startswith("Docent answers HTTP 429")


def test_whats_the_minimum_version_leads_with_the_version():
    question = "What's the minimum version to yield chunks of data from a streaming path function?"
    answer = compose_answer(question, parse_references(STREAMING.format(added="was added in 0.134.0")),
                            fake_vectors(["stream"]))
    assert lead_statement(answer) == "Streaming was added in 0.134.0. [1]"


def test_a_count_is_given_next_to_what_it_counts():
    question = "How many validator nodes does the network start out with?"
    intent, measure = intent_of(question), measure_of(question)
    assert gives_value(intent, Unit("There will initially be 100 distributed validator nodes.",
                                    "prose", 0), measure)
    assert not gives_value(intent, Unit("Validator nodes halt on any divergence between the two.",
                                        "prose", 0), measure)


def test_how_to_leads_with_what_to_use_not_with_the_question_restated():
    # Same meaning, as many of the question's words: the statement naming what to use
    # answers it; the other only says the question is a good one to ask.
    text = """[1] Bigger applications (bigger-applications.md)
When your application grows, you will want to split it across several modules.

To split them, each module gets its own `APIRouter`, and the app takes every module's endpoints with `app.include_router()`."""
    answer = compose_answer("How do I split my endpoints across several modules?",
                            parse_references(text), fake_vectors(["module"]))
    assert "`APIRouter`" in lead_statement(answer)


def test_another_pages_statement_naming_something_does_not_take_a_how_tos_lead():
    # The second page's statement names identifiers the question lacks, but it is about
    # another subject (keeping keys secret); the first page's statement answers.
    text = """[1] Getting started (index.md)
Docent needs no API key to run with its defaults.

[2] Secrets (configuration.md)
Docent holds `GOOGLE_API_KEY` as a secret value and never shows the key."""
    answer = compose_answer("How do I run docent without an API key?", parse_references(text),
                            fake_vectors(["key"]))
    assert lead_statement(answer).startswith("Docent needs no API key")


def test_the_same_code_in_two_passages_is_one_example():
    # A page and another page that includes the same file: one example, shown once.
    code = """```python
from fastapi import FastAPI, Request

app = FastAPI()

@app.get("/items/{item_id}")
def read_root(item_id: str, request: Request):
    client_host = request.client.host
    return {"client_host": client_host, "item_id": item_id}
```"""
    text = f"""[1] Using the Request directly > Use the Request object directly (request.md)
Declare a parameter of type `Request` and read the client's host from it:

{code}

[2] Custom Request and APIRoute class > Accessing the request (custom-request.md)
The same request object gives the client's address in an exception handler too:

{code}"""
    answer = compose_answer("How do I get the client's host from the request in my handler?",
                            parse_references(text), fake_vectors(["request", "client", "host"]))
    assert answer.count("client_host = request.client.host") == 1
    assert "Example [1]:" in answer and "Example [2]:" not in answer


def test_a_key_point_announcing_a_list_comes_with_the_list_or_not_at_all():
    # The cap on key points can cut a list from the sentence announcing it.
    from docent.models.compose import _complete, _with_lists

    text = """[1] Background tasks (background-tasks.md)
Background tasks run after returning a response. This includes, for example:

* Email notifications sent after an action.
* Processing a file a client uploaded."""
    cands = candidates(parse_references(text))
    intro = next(c for c in cands if c.unit.text.startswith("This includes"))
    items = [c for c in cands if c.unit.kind == "item"]
    assert not _complete(intro, cands, set(), {id(intro)})  # "for example:" and nothing
    assert _with_lists([intro], cands, set()) == [intro, *items]
    assert _complete(intro, cands, set(), {id(c) for c in [intro, *items]})
    # an item the answer shows already (the lead) is not repeated
    assert _with_lists([intro], cands, {id(items[0])}) == [intro, items[1]]
    assert _with_lists([intro, items[1]], cands, set()) == [intro, items[1]]


def test_a_key_point_announcing_the_example_names_it_instead_of_ending_in_a_colon():
    text = """[1] Response cookies > Return a Response directly (response-cookies.md)
You can create cookies when returning a `Response` directly in your code.

Then set cookies in it, and then return it:

```python
response = JSONResponse(content={"message": "hi"})
response.set_cookie(key="session", value="fake-cookie")
return response
```

[2] Response cookies > Use a Response parameter (response-cookies.md)
You can declare a parameter of type `Response` in your path operation function and set a cookie on the response:

```python
def create(item: Item):
    return item
```"""
    answer = compose_answer("How do I set a cookie on the response I return?",
                            parse_references(text), fake_vectors(["cookie", "response"]))
    assert "Example [1]:" in answer
    assert "- Then set cookies in it, and then return it (Example [1]). [1]" in answer


def test_a_key_point_cut_off_before_code_the_answer_does_not_show_is_left_out():
    # "...create a file with:" closed as "...create a file with." reads as a fragment.
    text = """[1] Settings > Environment variables (settings.md)
Read settings from environment variables with a `BaseSettings` class:

```python
class Settings(BaseSettings):
    app_name: str = "Awesome API"
```

[2] Settings > A settings file (settings.md)
You can keep your settings in a separate module.

To read the settings from environment variables, create a file with:

```python
from pydantic_settings import BaseSettings, SettingsConfigDict

class AppConfig(BaseSettings):
    model_config = SettingsConfigDict(env_file=".env")
    admin_email: str
    items_per_user: int = 50
```

If your settings module reads environment variables that you set in the shell, the settings class picks them up each time you create it, like:

```python
settings = Settings()
print(settings.app_name)
print(settings.items_per_user)
```"""
    answer = compose_answer("How do I read settings from environment variables?",
                            parse_references(text), fake_vectors(["settings", "environment"]))
    assert "- You can keep your settings in a separate module. [2]" in answer
    assert "create a file with" not in answer

    from docent.models.compose import _says_nothing_alone

    def alone(text: str) -> bool:
        return _says_nothing_alone(candidates(parse_references(f"[1] T (t.md)\n{text}"))[0])

    assert alone("The response would be like:") and alone("Here's how it might look:")
    assert not alone("First import `Header`:")  # names what to import
    # a longer sentence says something before its cut-off clause, and stays (closed)
    assert not alone("If your library does not support `await`, then declare your path "
                     "operation functions as normally, with just `def`, like:")


def test_the_following_and_what_it_is_announces_like_a_colon():
    assert Unit("First add the following javascript.", "prose", 0).announces
    assert Unit("Run the following command:", "prose", 0).announces
    assert not Unit("The following steps are optional.", "prose", 0).announces
    # what it announces comes right after it
    text = """[1] Spinning dice (dice.md)
We are going to make the dice spin when it is clicked. First add the following javascript.

```
<script>
  let counter = 1;
  function spinDice() {
    const dice = document.getElementById("dice");
    dice.setAttribute("ry", (counter / 10 * 360) % 360);
    counter = counter + 1;
  }
</script>
```

[2] Spinning dice > Click (dice.md)
Add the onclick attribute to the dice so a click spins it."""
    answer = compose_answer("How do I make the dice spin when it is clicked?",
                            parse_references(text), fake_vectors(["dice", "spin"]))
    assert "First add the following javascript. [1]\n\nExample [1]:\n\n```\n<script>" in answer


PROXY_PAGE = """[1] Subgraph UI > Create an API route (subgraph-ui.md)
Since the subgraph API refuses calls from browsers, we use an API route as a proxy.

Create the file `api/proxy/route.ts` with the following code:

```
export async function POST(req) {
  return fetch(SUBGRAPH_URL, {headers: {"Client-ID": CLIENT_ID}});
}
```"""

PROXY_QUESTION = "The browser blocks my subgraph calls. What's the workaround?"


def test_a_how_to_lead_comes_with_the_next_step_and_the_code_it_announces():
    # The lead says what to do; the next paragraph, a step announcing code, says how.
    answer = compose_answer(PROXY_QUESTION, parse_references(PROXY_PAGE),
                            fake_vectors(["proxy", "browser"]))
    assert lead_statement(answer) == (
        "Since the subgraph API refuses calls from browsers, we use an API route as a proxy. "
        "Create the file `api/proxy/route.ts` with the following code: [1]")
    assert 'Example [1]:\n\n```\nexport async function POST(req) {' in answer


def test_the_next_steps_code_does_not_replace_a_block_matching_the_question_better():
    text = PROXY_PAGE + """

[2] Subgraph UI > Proxy for browsers (subgraph-ui.md)
```
// proxy every browser call to the subgraph
app.use("/subgraph", proxy(SUBGRAPH_URL));
```"""
    answer = compose_answer(PROXY_QUESTION, parse_references(text),
                            fake_vectors(["proxy", "browser"]))
    assert lead_statement(answer) == (
        "Since the subgraph API refuses calls from browsers, we use an API route as a proxy. [1]")


def test_a_key_points_own_code_still_shows_under_it_beside_the_next_steps_code():
    text = PROXY_PAGE + """

[2] Subgraph UI > Show the data (subgraph-ui.md)
Each browser screen reads what the proxy returns through the provider that shares it:

```
function App({ Component, pageProps }) {
  return (
    <DataProvider>
      <Component {...pageProps} />
    </DataProvider>
  );
}
```"""
    answer = compose_answer(PROXY_QUESTION, parse_references(text),
                            fake_vectors(["proxy", "browser"]))
    assert "with the following code: [1]" in lead_statement(answer)
    assert "shares it: [2]\n\n  ```\n  function App(" in answer


DEBUGGING_PAGES = """[1] Debugging > Run with your debugger (debugging.md)
It will then start the server with your code and stop at your breakpoints.

[2] Debugging (debugging.md)
```python
import uvicorn
from fastapi import FastAPI

app = FastAPI()

if __name__ == "__main__":
    uvicorn.run(app)  # COMMENT
```

[3] First steps (first-steps.md)
The editor extension shows your breakpoints and your debugger next to your code.

```python
from fastapi import FastAPI

app = FastAPI()
# the debugger stops at breakpoints in your code
```"""
DEBUGGING_QUESTION = "How can I stop at breakpoints in my code with a debugger?"


def test_the_leads_page_shows_its_own_code_beside_another_pages_block():
    # The lead's page's block scores a little below another quoted page's: it is the
    # example, and the other page's block stays under the key point introducing it.
    text = DEBUGGING_PAGES.replace("COMMENT", "stops at breakpoints")
    answer = compose_answer(DEBUGGING_QUESTION, parse_references(text),
                            fake_vectors(["breakpoint", "debugger"]))
    assert "Example [2]:\n\n```python\nimport uvicorn" in answer
    assert "next to your code. [3]\n\n  ```python\n  from fastapi import FastAPI" in answer


def test_the_leads_page_shows_its_code_only_when_it_scores_near_the_best(monkeypatch):
    # Here the lead's page's block scores 0.88 of the other page's: below a share of 0.9,
    # the answer is as if the lead's page had no block.
    from docent.models import compose

    text = DEBUGGING_PAGES.replace("COMMENT", "breakpoint")
    vectors = fake_vectors(["breakpoint", "debugger"])
    assert "Example [2]:" in compose_answer(DEBUGGING_QUESTION, parse_references(text), vectors)
    monkeypatch.setattr(compose, "_OWN_CODE_SHARE", 0.9)
    answer = compose_answer(DEBUGGING_QUESTION, parse_references(text), vectors)
    assert "uvicorn.run" not in answer


OWN_DOCS = """[1] Getting started > Your own documentation (getting-started.md)
Ingest your own folder of documentation files with `docent ingest`, then start the server with `docent serve`:

```bash
docent ingest path/to/your/docs
docent serve
```

Add `--reset` to rebuild the index from scratch instead of updating it.
Use `--reset` when switching the server to your own docs, so that the index holds only your files."""


def test_a_how_to_whose_best_match_is_code_leads_with_the_sentence_announcing_it():
    # The commands match the question best; "Use `--reset` when switching the server to
    # your own docs" shares more of its words than the sentence announcing them.
    answer = compose_answer("How do I serve my own docs?", parse_references(OWN_DOCS),
                            fake_vectors(["doc"]))
    assert lead_statement(answer).startswith("Ingest your own folder of documentation files")
    assert "docent ingest path/to/your/docs" in answer


def test_a_short_step_announcing_the_best_code_does_not_lead():
    # "First import `Cookie`:" is a step of the how, not the answer to it.
    text = """[1] Cookie parameters (cookies.md)
You can define cookie parameters the same way you define `Query` parameters.

First import `Cookie`:

```python
from fastapi import Cookie, FastAPI
```"""
    answer = compose_answer("How do I use Cookie from fastapi?", parse_references(text),
                            fake_vectors(["cookie"]))
    assert lead_statement(answer).startswith("You can define cookie parameters")


def test_what_is_x_leads_with_the_statement_defining_x():
    text = """[1] Exit reasons (exit-reasons.md)
`MAX_CONTEXT_REACHED` means the conversation outgrew the context budget.

[2] Configuration > Context budget (configuration.md)
Set `DOCENT_MAX_CONTEXT_CHARS` to change the context budget.

The context budget is the largest conversation history, in characters, sent to the model."""
    answer = compose_answer("What is the context budget?", parse_references(text),
                            fake_vectors(["context"]))
    assert lead_statement(answer).startswith("The context budget is the largest")


def test_what_does_x_mean_leads_with_the_statement_defining_x():
    text = """[1] Exit reasons (exit-reasons.md)
Every docent run ends with exactly one `exit_reason`, and the exit reason says why it ended.

## COMPLETED

`COMPLETED` means the model answered without asking for another search."""
    # The question names the name's kind too: the docs define the name alone.
    for question in ("What does exit_reason COMPLETED mean?",
                     "What does the exit reason `COMPLETED` mean?"):
        # (every statement as close in meaning: the words the question shares decide)
        answer = compose_answer(question, parse_references(text), fake_vectors([]))
        assert lead_statement(answer).startswith("`COMPLETED` means"), answer


def test_what_an_acronym_stands_for_is_where_the_docs_spell_it_out():
    text = """[1] Streaming answers (streaming.md)
SSE parsers ignore comment lines.

`POST /chat/stream` sends the answer as a stream of Server-Sent Events (SSE)."""
    for question in ("What does SSE stand for?", "What is SSE?"):
        answer = compose_answer(question, parse_references(text), fake_vectors([]))
        assert lead_statement(answer).startswith("`POST /chat/stream` sends"), answer


def test_a_block_repeating_most_of_the_example_is_not_shown_again():
    # The page's snippet, then the whole contract holding it: one example, not two.
    text = """[1] Payments (payments.md)
A simple contract that accepts exact SOMI payments:

```
function payToAccess() external payable {
  require(msg.value == 0.01 ether, "Must send exactly 0.01 SOMI");
}
```

[2] Payments > The whole contract (payments.md)
The contract that accepts exact SOMI payments, with a withdraw function:

```
contract SOMIPayment {
function payToAccess() external payable {
  require(msg.value == 0.01 ether, "Must send exactly 0.01 SOMI");
}
function withdraw() external { payable(owner).transfer(address(this).balance); }
}
```"""
    answer = compose_answer("How do I accept exact SOMI payments in a contract?",
                            parse_references(text), fake_vectors(["somi"]))
    assert answer.count("payToAccess") == 1


def test_a_yes_no_question_leads_with_the_statement_saying_no():
    # "Does it use websockets?": the sentence denying it, not the one describing the rest.
    text = """[1] Chat app (chat.md)
The chat app sends each new message to the server.

The user interface of the chat app updates by polling and does not use websockets."""
    answer = compose_answer("Does the chat app use websockets for new messages?",
                            parse_references(text), fake_vectors(["chat", "message"]))
    assert lead_statement(answer).startswith("The user interface of the chat app")


def test_a_negation_far_from_the_question_words_is_no_answer():
    text = """[1] Chat app (chat.md)
The chat app sends each new message to the server.

The chat app sends its messages to nobody else, and the server does not delete old notes."""
    answer = compose_answer("Does the chat app use websockets for new messages?",
                            parse_references(text), fake_vectors(["chat", "message"]))
    assert lead_statement(answer).startswith("The chat app sends each new message")


def test_a_value_on_the_best_matching_page_leads_before_another_pages():
    # Both give a duration; the token unlock schedule is another page's, about another token.
    text = """[1] Meme coins > Launch a meme token (meme.md)
People can trade a meme token you launch from the launch page.

Trade opens instantly after the launch.

[2] Tokenomics > Unlock schedule (tokenomics.md)
People trade unlocked tokens over 48 months after the launch page."""
    answer = compose_answer("How long until people can trade a meme token I launch?",
                            parse_references(text), fake_vectors(["trade", "meme"]))
    assert lead_statement(answer).startswith("Trade opens instantly after the launch.")


MIGRATION = """[1] Migrate in steps (migration.md)
To run a mixed Gadget app with old v1 models, upgrade Pydantic to the latest version 2.

The mixed app only works in **Gadget 0.119.0** to 0.127.x."""


def test_the_version_of_the_thing_asked_about_leads_not_another_things_version():
    question = "Which Gadget versions run a mixed app with old v1 models?"
    measure = measure_of(question)
    assert versions_named(Unit("It only works in **Gadget 0.119.0** to 0.127.x.", "prose", 0),
                          measure)
    assert versions_named(Unit("Gadget version 0.99.0 added it.", "prose", 0), measure)
    assert not versions_named(Unit("Upgrade Pydantic to the latest version 2.", "prose", 0),
                              measure)
    answer = compose_answer(question, parse_references(MIGRATION), fake_vectors(["mixed"]))
    assert lead_statement(answer).startswith("The mixed app only works in **Gadget 0.119.0**")


PROVIDERS = """[1] RPC Providers (rpc.md)
Multiple RPC providers support the network:

Primary Providers:

- **Ankr**: Enterprise-grade RPC infrastructure
- **Stakely**: High-performance RPC services"""


def test_a_lead_announcing_a_labelled_list_shows_the_label_and_its_list_below_it():
    answer = compose_answer("Which RPC providers support the network?",
                            parse_references(PROVIDERS), fake_vectors(["rpc"]))
    assert lead_statement(answer) == "Multiple RPC providers support the network: [1]"
    lines = answer.split("\n")
    at = lines.index("Multiple RPC providers support the network: [1]")
    assert lines[at + 1 : at + 5] == [
        "", "- Primary Providers: [1]", "  - **Ankr**: Enterprise-grade RPC infrastructure [1]",
        "  - **Stakely**: High-performance RPC services [1]"]


PAIRS = """[1] Trading pairs (exchange.md)
- **ALPHA/BETA**: Main trading pair with the highest liquidity
- **BETA/GAMMA**: Secondary major trading pair
- **DELTA/GAMMA**: A pair for meme tokens"""


def test_a_statement_about_what_the_question_sets_aside_does_not_lead():
    assert set_aside("Besides ALPHA/BETA, what's the other major trading pair?") == "ALPHA/BETA"
    assert set_aside("Apart from games, social apps and DeFi, what else runs there?") == (
        "games, social apps and DeFi")
    assert set_aside("What differs between the two besides the name?") == "the name"
    # a long clause after "besides" sets a scene, not a thing aside
    assert set_aside("Besides our web frontend we need Java and Go clients. Which tool?") is None
    assert set_aside("Which trading pair has the highest liquidity?") is None
    vectors = fake_vectors(["trading"])
    plain = compose_answer("Which trading pair has the most liquidity?",
                           parse_references(PAIRS), vectors)
    assert lead_statement(plain).startswith("**ALPHA/BETA**: Main trading pair")
    aside = compose_answer("Besides ALPHA/BETA, which trading pair has the most liquidity?",
                           parse_references(PAIRS), vectors)
    assert lead_statement(aside).startswith("**BETA/GAMMA**: Secondary major trading pair")


RUN_AND_OUTPUT = """[1] Run the worker (worker.md)
Run both processes in separate terminals:

```
npm run worker
```

You will see the worker output:

```
start: worker started on the jobs queue
start: worker ready for jobs on the jobs queue
```"""


def test_a_how_to_gets_the_command_to_run_not_a_sample_of_what_it_prints():
    from docent.models.scoring import shows_output
    from docent.models.units import Unit

    assert shows_output(Unit("You'll see Publisher Output:", "prose", 0))
    assert shows_output(Unit("The response will look like:", "prose", 0))
    assert not shows_output(Unit("Run both scripts in separate terminals:", "prose", 0))
    assert not shows_output(Unit("```\nworker output\n```", "code", 0))
    answer = compose_answer("How do I start the worker on the jobs queue?",
                            parse_references(RUN_AND_OUTPUT), fake_vectors(["worker"]))
    assert "npm run worker" in answer
    assert "worker ready for jobs" not in answer


def _below(answer: str, line: str, n: int) -> list[str]:
    """The `n` lines of `answer` after `line` (the blank one first)."""
    lines = answer.split("\n")
    at = lines.index(line)
    return lines[at + 1 : at + 1 + n]


SCHEMES = """[1] Security schemes (security.md)
The API defines the following security schemes:

* `apiKey`: an application specific key that can come from:
    * A query parameter named in the scheme, such as `?key=abc` on every call.
    * A header named in the scheme, such as `X-Key` on every call.
    * A cookie named in the scheme, sent by the browser on every call.
* `oauth2`: all the ways to handle security, called flows.
    * Several of these flows suit building an authentication provider yourself:
        * `implicit` for apps running in the browser without a backend.
        * `authorizationCode` for apps with a backend of their own.
* `openIdConnect`: a way to discover the provider's settings automatically."""


def test_a_lead_item_announcing_a_list_shows_the_items_nested_under_it_below_it():
    answer = compose_answer("Where can the client send the apiKey key?",
                            parse_references(SCHEMES), fake_vectors(["key"]))
    lines = answer.split("\n")
    assert _below(answer, "`apiKey`: an application specific key that can come from: [1]", 4) == [
        "", "- A query parameter named in the scheme, such as `?key=abc` on every call. [1]",
        "- A header named in the scheme, such as `X-Key` on every call. [1]",
        "- A cookie named in the scheme, sent by the browser on every call. [1]"]
    # the key points keep the docs' nesting: each item one level under its parent
    assert "  - `oauth2`: all the ways to handle security, called flows. [1]" in lines
    assert ("    - Several of these flows suit building an authentication provider yourself:"
            " [1]") in lines
    assert "      - `implicit` for apps running in the browser without a backend. [1]" in lines


def test_a_nested_lead_shows_its_own_list_not_the_rest_of_its_parents():
    answer = compose_answer("Which flows suit building an authentication provider yourself?",
                            parse_references(SCHEMES), fake_vectors(["flow"]))
    lead = "Several of these flows suit building an authentication provider yourself: [1]"
    assert _below(answer, lead, 3) == [
        "", "- `implicit` for apps running in the browser without a backend. [1]",
        "- `authorizationCode` for apps with a backend of their own. [1]"]


LONG_SCHEMES = SCHEMES.replace(
    "    * A cookie named in the scheme, sent by the browser on every call.\n",
    "    * A cookie named in the scheme, sent by the browser on every call.\n"
    "    * A form field named in the scheme, posted with every call.\n"
    "    * A path segment named in the scheme, part of every call.\n",
) + "\n    * The discovery is what the OpenID Connect specification defines."


def test_a_lead_items_nested_items_go_below_it_and_a_long_lists_items_stay_in_it():
    answer = compose_answer(
        "Which security scheme discovers the provider's settings automatically?",
        parse_references(LONG_SCHEMES), fake_vectors(["discover"]))
    lead = "`openIdConnect`: a way to discover the provider's settings automatically. [1]"
    assert _below(answer, lead, 2) == [
        "", "- The discovery is what the OpenID Connect specification defines. [1]"]
    # the key points keep the list under its sentence, one level down
    assert "  - `oauth2`: all the ways to handle security, called flows. [1]" in answer.split("\n")


def test_a_lead_announcing_a_list_has_every_item_under_it_at_its_depth():
    answer = compose_answer("Which security schemes does the API define?",
                            parse_references(LONG_SCHEMES), fake_vectors(["scheme"]))
    lines = answer.split("\n")
    assert _below(answer, "The API defines the following security schemes: [1]", 4) == [
        "", "- `apiKey`: an application specific key that can come from: [1]",
        "  - A query parameter named in the scheme, such as `?key=abc` on every call. [1]",
        "  - A header named in the scheme, such as `X-Key` on every call. [1]"]
    assert "    - `implicit` for apps running in the browser without a backend. [1]" in lines


STEPS = """[1] Listen for events (events.md)
To test the listener:

* Run the listener in one terminal:
* Trigger events from another script.
* Watch the updates arrive in the listener."""


def test_a_list_item_ending_in_a_colon_over_no_nested_list_announces_no_siblings():
    answer = compose_answer("How do I test the event listener?", parse_references(STEPS),
                            fake_vectors(["listener"]))
    assert _below(answer, "To test the listener: [1]", 4) == [
        "", "- Run the listener in one terminal: [1]", "- Trigger events from another script. [1]",
        "- Watch the updates arrive in the listener. [1]"]


TWICE = """[1] Docs assets > Custom CDN (assets.md)
Pass these to the docs page function:

* `openapi_url`: the URL where the docs page gets the schema.
* `title`: the title of your docs page.
* `js_url`: the URL of the script, here the custom CDN.

[2] Docs assets > Self-hosting (assets.md)
Pass these to the docs page function:

* `openapi_url`: the URL where the docs page gets the schema.
* `title`: the title of your docs page.
* `js_url`: the URL of the script, here the one your own app serves.
* `css_url`: the URL of the styles, here the one your own app serves."""


def test_a_list_a_page_gives_twice_shows_its_repeated_items_once():
    answer = compose_answer("Which docs page URLs point at the files your own app serves?",
                            parse_references(TWICE), fake_vectors(["docs"]))
    lines = answer.split("\n")
    assert "  - `openapi_url`: the URL where the docs page gets the schema. [2]" not in lines
    assert "  - `title`: the title of your docs page. [2]" not in lines
    # what differs between the two stays, each under its own sentence
    assert "  - `js_url`: the URL of the script, here the one your own app serves. [2]" in lines
    assert "  - `js_url`: the URL of the script, here the custom CDN. [1]" in lines


CONTINUED_AFTER_CODE = """[1] Query parameters > Type conversion (query-params.md)
If you go to:

```
http://127.0.0.1:8000/items/foo?short=1
```

or any other case variation (uppercase, first letter in uppercase, etc), your function will see the parameter `short` with a `bool` value of `True`."""


def test_a_lead_the_docs_continue_after_code_opens_with_a_capital():
    answer = compose_answer("Which case variations of short does my bool parameter see as True?",
                            parse_references(CONTINUED_AFTER_CODE),
                            fake_vectors(["case variation"]))
    assert lead_statement(answer).startswith("Or any other case variation (uppercase,")


def test_a_lead_opening_with_a_name_keeps_its_case():
    text = """[1] Password hashing (security.md)
pwdlib also supports the bcrypt hashing algorithm but does not include legacy algorithms."""
    answer = compose_answer("Does pwdlib support the bcrypt hashing algorithm?",
                            parse_references(text), fake_vectors(["bcrypt"]))
    assert lead_statement(answer).startswith("pwdlib also supports the bcrypt")


def test_a_lead_opening_with_a_verb_keeps_its_case():
    # Its subject came before it: a capital would make it read as a question.
    text = """[1] Token terms (legal.md)
- The token:
- is non-refundable and cannot be exchanged for cash."""
    answer = compose_answer("Can the token be exchanged for cash?",
                            parse_references(text), fake_vectors(["cash"]))
    assert lead_statement(answer).startswith("is non-refundable and cannot be exchanged")


WSGI_PAGES = """[1] Including WSGI (wsgi.md)
Using `WSGIMiddleware` from `fastapi.middleware.wsgi` in your app is deprecated.

[2] Including WSGI > Mounting (wsgi.md)
The a2wsgi package mounts a WSGI app in FastAPI with its middleware instead."""


def test_a_statement_saying_back_the_question_does_not_lead():
    # Every word of the first but "using" is the question's: it tells the user nothing new.
    answer = compose_answer("My app imports WSGIMiddleware from fastapi.middleware.wsgi and "
                            "it says deprecated. What should I use instead?",
                            parse_references(WSGI_PAGES), fake_vectors(["wsgi"]))
    assert lead_statement(answer).startswith("The a2wsgi package mounts a WSGI app")


@pytest.mark.parametrize(("question", "first", "second", "topic", "lead"), [
    pytest.param(  # a yes/no question's answer may well say it back
        "Can I use any template engine I want with FastAPI?",
        "You can use any template engine you want with FastAPI.",
        "A common choice for a FastAPI template engine is Jinja2.",
        "template", "You can use any template engine you want", id="yes-or-no"),
    pytest.param(  # so may the answer to a question offering alternatives
        "Which HTTPException do I register my handler for, FastAPI's or Starlette's?",
        "Register your handler for the HTTPException of Starlette.",
        "A handler registered for Starlette's HTTPException also gets the errors Starlette "
        "raises itself.",
        "handler", "Register your handler for the HTTPException", id="alternatives"),
    pytest.param(  # code of its own is something new
        "How do I turn off the docs UI through openapi_url?",
        "Change openapi_url in your app settings file to turn off the docs UI.",
        "Pass `openapi_url=None` to turn off the docs UI.",
        "docs", "Pass `openapi_url=None`", id="own-code"),
    pytest.param(  # the sentence after it says more, and joins it as the lead
        "Where do I go to create a new project for the dice tutorial?",
        "First create a new project for the dice tutorial. Head over to "
        "<https://mmleditor.com/> and click the create project button.",
        "The dice tutorial project you create makes a dice that spins when you click it, in a "
        "new editor window.",
        "dice", "First create a new project for the dice tutorial. Head over to <https://",
        id="next-sentence-says-more"),
])
def test_a_statement_in_the_questions_words_may_still_lead(question, first, second, topic,
                                                           lead):
    refs = parse_references(f"[1] Page (page.md)\n{first}\n\n[2] Other (other.md)\n{second}")
    answer = compose_answer(question, refs, fake_vectors([topic]))
    assert lead_statement(answer).startswith(lead)


def test_a_statement_in_the_questions_words_announcing_a_list_keeps_the_lead():
    text = """[1] Running (run.md)
The command `uvicorn main:app` refers to:

* `main`: the file `main.py`
* `app`: the object created with `app = FastAPI()`

[2] Other (other.md)
In the command, uvicorn loads `main.py` and serves the `app` it refers to."""
    answer = compose_answer("What does the command `uvicorn main:app` refer to?",
                            parse_references(text), fake_vectors(["uvicorn"]))
    assert lead_statement(answer).startswith("The command `uvicorn main:app` refers to:")


@pytest.mark.parametrize(("statement", "echoing"), [
    ("Django REST Framework was created by a developer.", True),
    # a name, a quoted label, a link the question does not give: something new
    ("Django REST Framework was created by Tom Christie.", False),
    ('Django REST Framework was created as a "browsable" framework.', False),
    ("Django REST Framework was created at <https://framework.django>.", False),
])
def test_what_a_statement_gives_beyond_the_questions_words(statement, echoing):
    question = "Who created Django REST Framework?"
    (c,) = candidates(parse_references(f"[1] Page (page.md)\n{statement}"))
    assert echoes(c, set(terms(question)), question) is echoing


def test_a_statement_with_three_words_of_its_own_says_more_than_a_long_question():
    question = ("In our pytest suite I don't want get_current_user to call our paid external auth "
                "provider on every test. How can I swap that dependency for a fake one that "
                "returns a mock user only during tests?")
    (c,) = candidates(parse_references(
        "[1] Page (page.md)\nIn this case, you can override the dependency that calls that "
        "provider with a custom one that returns a mock user, only for your tests."))
    assert len(c.terms - set(terms(question))) == 3
    assert not echoes(c, set(terms(question)), question)


@pytest.mark.parametrize("text", [
    "I will also teach you later in this **Deployment** guide all the details.",
    "This is explained later in the advanced docs.",
    "In **this** tutorial you build a chat app.",
    "I will teach you how each piece fits together.",
    "Whether you're bridging stablecoins or ETH, this guide will walk you through the process.",
    "This guide teaches developers how to create WebSocket connections.",
    "This comprehensive guide teaches developers how to manage RPC keys.",
    "This short step-by-step tutorial walks you through a first deployment.",
])
def test_a_promise_of_more_docs_is_filler_whatever_its_emphasis(text):
    assert is_filler(text)


def test_a_statement_about_a_thing_named_guide_is_no_filler():
    assert not is_filler("This setting shows users the guide page first.")
    assert not is_filler("This install guide file teaches nothing new; run `make`.")


PRICE_FEEDS = """[1] Price Feeds > Somnia Testnet Price Feeds (price-feeds.md)
USDC/USD — Contract Address: 0xa2515C9480e62B510065917136B08F3f7ad743B4

[2] Network Info > Smart Contracts (network-info.md)
USDC — Address: 0x28bec7e30e6faee657a03e19bf1128aad7632a00"""


def test_a_statement_of_the_other_network_does_not_lead():
    # The testnet feed matches more of the question's words; the question asks for mainnet.
    question = "What's the USDC contract address on mainnet?"
    answer = compose_answer(question, parse_references(PRICE_FEEDS), fake_vectors(["usdc"]))
    assert lead_statement(answer).startswith("USDC — Address: 0x28bec7e3")
    # asked of the testnet, or of no network, the feed leads as before
    answer = compose_answer(question.replace("mainnet", "testnet"),
                            parse_references(PRICE_FEEDS), fake_vectors(["usdc"]))
    assert lead_statement(answer).startswith("USDC/USD — Contract Address: 0xa2515C94")


ITEM_BUILDER = """[1] Glossary (glossary.md)
Item builder: A tool for building digital items for Somnia's virtual society.

[2] Create an item (items.md)
Click the item builder button to bring up the tool: (https://items-builder.example.org/build)"""


def test_a_statement_giving_a_url_leads_an_answer_asking_for_one():
    # The glossary's line matches "item builder tool" best; the question asks where it is.
    vectors = fake_vectors(["item", "builder", "tool"])
    answer = compose_answer("What's the web address of the Item Builder tool?",
                            parse_references(ITEM_BUILDER), vectors)
    assert lead_statement(answer).startswith("Click the item builder button")
    # asked what it is, the glossary leads; and a URL far from the question does not lead
    answer = compose_answer("What is the Item Builder tool for?",
                            parse_references(ITEM_BUILDER), vectors)
    assert lead_statement(answer).startswith("Item builder: A tool")
    elsewhere = ITEM_BUILDER.split("\n\n[2]")[0] + (
        "\n\n[2] Weather (weather.md)\nForecasts come from https://weather.example.org daily.")
    answer = compose_answer("What's the web address of the Item Builder tool?",
                            parse_references(elsewhere), vectors)
    assert lead_statement(answer).startswith("Item builder: A tool")
    # asked where the link is, the same as asked for the web address
    answer = compose_answer("Where's the item builder tool's link?",
                            parse_references(ITEM_BUILDER), vectors)
    assert lead_statement(answer).startswith("Click the item builder button")


@pytest.mark.parametrize(("question", "asks"), [
    ("What's the web address of the Item Builder?", True),
    ("What WebSocket URL do I use on testnet?", True),
    ("Which website do the docs point you to?", True),
    ("At which URL are the sub-application's docs?", True),
    ("whats the default url", True),
    # where it is, or a terse request naming only the thing and the link
    ("Where's the builder link?", True),
    ("ok, so where's Sequence's website?", True),
    ("palmera docs link", True),
    ("How do I share a link?", False),
    # a path in a URL, a link between things, a URL the user has
    ("If item_id is in the URL path, which one is the query?", False),
    ("What is the link between stake and rewards?", False),
    ("My API posts to a URL the client gives. How do I document it?", False),
])
def test_a_question_asking_for_a_url(question, asks):
    assert asks_for_url(question) is asks


WEBSOCKET_TESTS = """[1] Testing WebSockets (testing-websockets.md)
You can use the same `TestClient` to test WebSockets.

For more details, check Starlette's documentation for [testing WebSockets](https://starlette.dev/testclient/)."""


def test_a_question_asking_where_to_read_more_is_answered_by_the_docs_pointer():
    vectors = fake_vectors(["websockets", "testing"])
    answer = compose_answer("Where do the docs send me for more detail on testing websockets?",
                            parse_references(WEBSOCKET_TESTS), vectors)
    assert lead_statement(answer).startswith("For more details, check Starlette's")
    # asked how to test them, the pointer is the docs talking of themselves, left out
    answer = compose_answer("How do I test websockets?", parse_references(WEBSOCKET_TESTS),
                            vectors)
    assert "Starlette's documentation" not in answer


@pytest.mark.parametrize(("question", "asks"), [
    ("Where do the docs send me for more detail on testing websockets?", True),
    ("Where can I learn more about HTTPS?", True),
    ("Which learning resources do the docs point beginners to?", True),
    ("Any further reading on OAuth2 scopes?", True),
    # where to go in an app, where to look at something: no reading asked for
    ("Where do I go to claim the fee rewards?", False),
    ("Where can I look at the raw OpenAPI schema?", False),
    ("How do I test websockets?", False),
])
def test_a_question_asking_where_to_read_more(question, asks):
    assert asks_where_to_read(question) is asks


NETWORK_FAQ = """[1] Network Overview (Mainnet / Testnet) > Somnia Mainnet (overview.md)
All transactions on this chain are final and require SOMI tokens as gas.

[2] Developer FAQs > Network parameters (faqs.md)
Key network information:

Mainnet:

  * **Chain ID** : 5031

  * **Currency** : SOMI

Testnet:

  * **Chain ID** : 50312

  * **Currency** : STT"""


def test_the_nearest_heading_or_list_intro_tells_the_network():
    # [1]'s page names both networks, its section only the main one; the chain IDs' lists
    # are introduced by "Mainnet:" and "Testnet:". Asked of the testnet, neither the main
    # network's gas statement nor its chain ID leads.
    # The lead item is read with its network's label, which says whose the value is.
    question = "Which chain ID and gas token does the testnet use?"
    answer = compose_answer(question, parse_references(NETWORK_FAQ),
                            fake_vectors(["chain", "gas", "token"]))
    assert lead_statement(answer).startswith("Testnet: **Chain ID** : 50312 [2]")
    answer = compose_answer(question.replace("testnet", "mainnet"),
                            parse_references(NETWORK_FAQ), fake_vectors(["chain", "gas", "token"]))
    assert "50312" not in lead_statement(answer)


def test_only_a_networks_name_over_a_lead_item_is_read_with_it():
    # "Key Features:" over "Instant Execution: transfers in 1-10 seconds" says nothing of
    # whose the item is; the lead is the item alone.
    text = """[1] Relay (relay.md)
Key Features:

  * Instant Execution: cross-chain transfers in 1-10 seconds

  * Low Fees: a small relay fee"""
    answer = compose_answer("How long does a Relay transfer take?", parse_references(text),
                            fake_vectors(["transfer", "seconds"]))
    assert lead_statement(answer).startswith("Instant Execution: cross-chain transfers")


TOKEN_TABLE = """[1] Network Info > Smart Contracts (network-info.md)
USDT — Contract Address: 0x67B302E35Aef5EEE8c32D934F5856869EF428330

WETH — Contract Address: 0x936Ab8C674bcb567CD5dEB85D8A216494704E9D8

Mainnet — Contract Address: 0xbA0E0750A56e995506CA458b2BdD752754CF39C4

BTC — Address: 0xb12e1d47b0022fA577c455E7df2Ca9943D0152bE

ARB — Address: 0x6a96a0232402c2BC027a12C73f763b604c9F77a6

USDC — Address: 0x28bec7e30e6faee657a03e19bf1128aad7632a00"""


def test_the_row_labelled_with_what_is_asked_leads():
    # By meaning (the stand-in embedder reads "contract") the USDT row is nearest; its label
    # is not what the question asks about, USDC's is, and few rows use that word.
    question = "What's the contract address of USDC on mainnet?"
    answer = compose_answer(question, parse_references(TOKEN_TABLE),
                            fake_vectors(["contract", "usdc"]))
    assert lead_statement(answer).startswith("USDC — Address: 0x28bec7e3")
    # (a network's name labels no particular row: "Mainnet — Contract Address" did not lead)
    # Not for a question that asks no value or name: how something works.
    answer = compose_answer("How do I swap USDC for WETH in a contract?",
                            parse_references(TOKEN_TABLE), fake_vectors(["contract", "usdc"]))
    assert not lead_statement(answer).startswith("USDC — Address")


def test_a_row_label_counts_when_it_names_the_asked_thing_by_rare_words():
    from docent.models.compose import _labelled_asked

    def row(text):
        return candidates(parse_references(f"[1] Table (t.md)\n{text}"))[0]

    wanted = set(terms("What's the USDC contract address on mainnet, and which version?"))
    rare = wanted
    assert _labelled_asked(row("USDC — Address: 0x28bec7e3"), wanted, rare)
    assert not _labelled_asked(row("USDT — Address: 0x67B302E3"), wanted, rare)
    # the label must be rare among the statements, as "Somnia" is not
    assert not _labelled_asked(row("USDC — Address: 0x28bec7e3"), wanted, rare - {"usdc"})
    # a network's name labels no particular row
    assert not _labelled_asked(row("Mainnet — Contract Address: 0xbA0E0750"), wanted, rare)
    # a field named by a plain word is no name: "`version` — Type: `str`"
    assert not _labelled_asked(row("`version` — Type: `str` — Description: The address."),
                               wanted, rare)
    # the row must give something asked, by what it shows, not by its links' targets
    assert not _labelled_asked(row("USDC — Decimals: [6](https://x.org/address/contract)"),
                               wanted, rare)


def test_a_row_label_leads_only_a_value_or_name_question():
    answer = compose_answer("How do I send USDC to a contract address?",
                            parse_references(TOKEN_TABLE), fake_vectors(["contract", "usdc"]))
    assert not lead_statement(answer).startswith("USDC — Address")


SERVE_PAGES = """[1] Deployment > Running the server (deployment.md)
`docent serve` listens on 127.0.0.1 by default, which accepts connections from this machine.

[2] Configuration > HTTP settings (configuration.md)
`DOCENT_PORT` sets the port of `docent serve`; the default is 8000."""


@pytest.mark.parametrize("question, noun", [
    ("What port does docent listen on by default?", "port"),
    ("Which version is required?", "version"),
    ("What kind of port does it use?", None),  # names no thing
    ("What is the default port?", None),
    ("How many ports are there?", None),
])
def test_the_thing_a_what_question_asks_the_value_of(question, noun):
    assert noun_asked(question) == noun


def test_a_value_question_is_led_by_the_statement_naming_what_it_asks_about():
    # Both statements give a number and share "docent ... by default" with the question; the
    # first matches it better, only the second is about the port.
    question = "What port does docent listen on by default?"
    assert intent_of(question).kind == "value"
    answer = compose_answer(question, parse_references(SERVE_PAGES), fake_vectors(["docent"]))
    assert lead_statement(answer).startswith("`DOCENT_PORT` sets the port"), answer
    # Naming it does not lead a statement far below the best.
    far = SERVE_PAGES.replace("`DOCENT_PORT` sets the port of `docent serve`; the default is 8000.",
                              "Its port is 8000 by default.")
    answer = compose_answer(question, parse_references(far), fake_vectors(["docent"]))
    assert lead_statement(answer).startswith("`docent serve` listens on 127.0.0.1"), answer
    # Asking for a name, not a value: a statement using the word in passing does not lead.
    packages = """[1] Testing (testing.md)
The test client needs `httpx`: install it with pip.

[2] Bigger applications (apps.md)
Because a file sits in the same package, it imports the client relatively."""
    question = "Which package does the test client need?"
    assert intent_of(question).kind == "name" and noun_asked(question) == "package"
    answer = compose_answer(question, parse_references(packages), fake_vectors(["client"]))
    assert lead_statement(answer).startswith("The test client needs `httpx`"), answer


SETTINGS_TABLE = """[1] Configuration > All settings at a glance (configuration.md)
| Environment variable | Default |
| --- | --- |
| `DOCENT_REDIS_PREFIX` | `docent:` |
| `DOCENT_TOP_K` | `5` |

[2] Configuration > Shared state with Redis (configuration.md)
`DOCENT_REDIS_URL` is the address of a Redis server that every docent replica shares.

Redis keeps sessions."""


def test_a_how_to_is_not_led_by_a_bare_row_of_a_reference_table():
    # "`DOCENT_REDIS_PREFIX` — Default: `docent:`" names a setting and its default: nothing
    # to do, though it matches "How do I enable Redis?" best
    answer = compose_answer("How do I enable Redis?", parse_references(SETTINGS_TABLE))
    assert lead_statement(answer).startswith("`DOCENT_REDIS_URL` is the address")
    # a row with more to say is no bare row: "Cause: ... — Fix: ..." may lead a how-to
    errors = parse_references("""[1] Errors (errors.md)
| Error | Cause | Fix |
| --- | --- | --- |
| `redis refused` | Redis is not enabled | Set the Redis address and restart |""")
    assert [_bare_row(c) for c in candidates(errors)] == [False]
    assert [_bare_row(c) for c in candidates(parse_references(SETTINGS_TABLE))
            if c.unit.kind == "row"] == [True, True]


def test_a_bare_row_another_point_says_in_full_is_not_repeated():
    passages = SETTINGS_TABLE.replace(
        "Redis keeps sessions.",
        "`DOCENT_REDIS_PREFIX` is the prefix of every Redis key docent writes; the default "
        "is `docent:`.")
    answer = compose_answer("How do I enable Redis?", parse_references(passages))
    assert "the default is `docent:`" in answer
    assert "`DOCENT_REDIS_PREFIX` — " not in answer  # the row saying only that
    # ... a row whose value no other point gives stays
    unsaid = passages.replace("; the default is `docent:`", "")
    assert "`DOCENT_REDIS_PREFIX` — " in compose_answer("How do I enable Redis?",
                                                        parse_references(unsaid))


TEMPLATE_PAGE = """[1] Full Stack FastAPI Template (project-generation.md)
GitHub Repository: [Full Stack FastAPI Template](https://github.com/fastapi/full-stack-fastapi-template)

You can use this template to get started, as it includes a lot of the initial setup, security, database and some API endpoints already done for you.

Templates are designed to be flexible and customizable, so you can adapt them to your project."""


@pytest.mark.parametrize(("question", "leads_with_link"), [
    # a label and one link says where a thing is, nothing of it...
    ("Is the full stack template meant to be used as shipped or adapted to our stack?", False),
    ("Which database does the Full Stack FastAPI Template set up?", False),
    # ... which is what a question asking where, or for the link, wants
    ("Where is the Full Stack FastAPI Template's repository?", True),
    ("What's the link to the full stack template?", True),
    # ... or a which-question its text answers by a name the question does not give
    ("Which template gives a full stack project to start from?", True),
])
def test_a_label_with_one_link_leads_only_where_or_link_questions(question, leads_with_link):
    answer = compose_answer(question, parse_references(TEMPLATE_PAGE))
    assert lead_statement(answer).startswith("GitHub Repository:") is leads_with_link


def test_a_name_and_its_version_joined_by_a_slash_is_one_term():
    # "HTTP/2" is no bare "http": the statement naming it answers "Does Hypercorn support
    # HTTP/2?", not one naming Hypercorn and an earlier passage's HTTP option.
    assert "http/2" in terms("Does Hypercorn support HTTP/2?")
    assert "http/1.1" in terms("It speaks HTTP/1.1 only.")
    assert "api/v1" not in terms("Mount it under /api/v1.")
    text = """[1] Behind a proxy (proxy.md)
If you use Hypercorn, it also has the option `--root-path` for HTTP servers.

[2] Servers (servers.md)
Hypercorn: an ASGI server compatible with HTTP/2 and Trio among other features."""
    answer = compose_answer("Does Hypercorn support HTTP/2?", parse_references(text),
                            fake_vectors(["hypercorn"]))
    assert lead_statement(answer).startswith("Hypercorn: an ASGI server compatible with HTTP/2")


def test_an_api_reference_line_leads_only_a_question_for_the_object():
    # A reference page's "API reference: `x`." says where the object lives: it answers
    # "where do I import it from?", not why the docs chose it or what it does.
    text = """[1] OpenAPI docs (reference/openapi/docs.md)
::: fastapi.openapi.docs.get_swagger_ui_html

[2] Alternatives (alternatives.md)
Swagger UI and ReDoc were chosen for being fairly popular and stable."""
    refs = parse_references(text)
    assert referenced(candidates(refs)[0].unit.text) == "fastapi.openapi.docs.get_swagger_ui_html"
    why = compose_answer("Why did FastAPI go with Swagger UI for get_swagger_ui_html?", refs,
                         fake_vectors(["swagger"]))
    assert lead_statement(why).startswith("Swagger UI and ReDoc were chosen")
    where = compose_answer("Where do I import get_swagger_ui_html from for Swagger UI?", refs,
                           fake_vectors(["swagger"]))
    assert lead_statement(where).startswith("API reference: `fastapi.openapi.docs.")
