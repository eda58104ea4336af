"""CONTRACT.md, refusal in code: the sufficiency check that makes retrieval count as empty."""

from __future__ import annotations

import re
from collections import Counter

import pytest

from docent.intent import later_asks
from docent.retrieval.bm25 import Changelog, KeywordIndex
from docent.retrieval.sufficiency import (
    _one_short,
    asked_part,
    coverage,
    known_api_names,
    pointed_scene,
    unknown_names,
    unknown_words,
    unnamed_features,
    without,
)
from docent.retrieval.types import Chunk, Hit


def chunk(i: int, text: str) -> Chunk:
    return Chunk(f"c{i}", f"f{i}.md", "Guide", "Guide", "guide", "", text)


CHUNKS = [
    chunk(1, "Use JWT tokens with OAuth2 and read backend files from main.py."),
    chunk(2, "The streaming endpoint sends server-sent events over HTTP/1.1."),
    chunk(3, "Dependencies with yield can run cleanup code after the response."),
    chunk(4, "A path such as /files//home/johndoe/myfile.txt keeps its slashes."),
]
INDEX = KeywordIndex(CHUNKS)


def names(question: str) -> list[str]:
    return unknown_names(question, INDEX.doc_freq, INDEX.raw_words)


def names_against(text: str, question: str) -> list[str]:
    """The unknown names of `question` in a corpus of the one passage `text`."""
    index = KeywordIndex([chunk(1, text)])
    return unknown_names(question, index.doc_freq, index.raw_words)


def test_names_the_corpus_never_uses_are_reported():
    assert names("How do I expose Prometheus metrics?") == ["Prometheus"]
    assert names("Can I call a gRPC backend?") == ["gRPC"]
    assert names("Does it support HTTP/3?") == ["HTTP/3"]
    # typed in lower case, a name shows only when it cannot be a word: no vowel
    assert names("can i call a grpc backend over tls?") == ["grpc", "tls"]
    assert names("can i call a docker backend?") == []
    assert names("btw can i validate jwts pls") == []  # chat shorthand names nothing
    assert names("How do I validate JWTs, BTW?") == []


def test_a_coined_compound_in_the_asking_sentence_names_a_technology():
    # Lower case and hyphenated, so no name by its look; but none of its words is the docs'.
    assert names("How do I turn on permessage-deflate for the streaming endpoint?") == [
        "permessage-deflate"]
    assert names("Are brotli-precompressed files served?") == ["brotli-precompressed"]
    # A compound with a word the docs use is a plain word ("server-sent" events).
    assert names("How do I turn on server-deflate for the endpoint?") == []
    # Setting the scene, it is the user's own: "our cluster is air-gapped".
    assert names("Our cluster is air-gapped. How do I read backend files?") == []


def test_a_name_only_the_release_notes_use_is_unknown():
    # A changelog line ("Add docs for Azure Functions") documents nothing about the thing.
    index = KeywordIndex([
        chunk(1, "Deploy the app with Docker on any cloud."),
        Chunk("c2", "release-notes.md", "Release notes", "0.99", "", "",
              "Fix a typo in the Azure deployment docs. Docker images are smaller."),
    ])

    def found(question: str) -> list[str]:
        return unknown_names(question, index.doc_freq, index.raw_words, index.changelog_only)

    assert found("How do I deploy to Azure?") == ["Azure"]
    assert found("How do I deploy with Docker?") == []  # the docs use it too
    # ... unless the question asks which release did it: the changelog answers that
    assert found("Which release fixed the Azure docs?") == []
    # without the changelog reading, the release note's mention made it known
    assert unknown_names("How do I deploy to Azure?", index.doc_freq, index.raw_words) == []


def test_known_names_plurals_paths_and_sentence_starts_are_not():
    assert names("How do I validate JWTs with OAuth2?") == []
    assert names("Where does backend/main.py come from?") == []
    assert names("Streaming works how? Dependencies too.") == []  # capitals after . or ?
    assert names("what about http/1.1 streaming") == []
    assert names("how do i validate jwts?") == []  # known, lower case and plural
    # a two-letter name's plural: "ID" is too short a keyword term to stem to
    index = KeywordIndex([chunk(1, "Each LP earns a share of the ID fees.")])
    assert unknown_names("What do LPs earn on IDs?", index.doc_freq, index.raw_words) == []
    assert unknown_names("What do LPTs earn?", index.doc_freq, index.raw_words) == ["LPTs"]


def test_an_identifier_in_code_is_a_name_when_the_question_asks_for_it():
    # "what pool_size ... do the docs recommend": identifiers the docs never use
    assert names("What pool_size and max_overflow should the backend use?") == [
        "pool_size", "max_overflow"]
    # ... or for its default, maximum, minimum
    assert names("What default pool_size does the engine use?") == ["pool_size"]
    assert names("Which max_overflow does the engine use?") == ["max_overflow"]
    # the user's own, written so in passing, is not checked
    assert names("My backend sends a header named x_tenant_id. Why is it empty?") == []


def test_a_figure_with_its_unit_is_the_users_own_not_a_name():
    # "a ~1GB model ... about 4GB": quantities, whatever the docs write
    assert names("My backend loads a ~1GB model and with 4 workers uses about 4GB. Why?") == []
    assert names("What is the 4-byte selector of a 256-bit hash in a 10-minute window?") == []
    assert names("Streaming 10k events takes 500ms, 2x slower than HTTP/1.1. Why?") == []
    assert names("Can a 3D backend stream over HTTP/3?") == ["3D", "HTTP/3"]  # names


def test_a_name_starting_with_my_is_the_users_own():
    # "Annotated[MyParams, Depends(MyParams)]": the user's class
    assert names("Why write MyParams twice in a backend?") == []
    assert names("Does my_dep run twice?") == []
    assert names("Does Mypy check the params?") == ["Mypy"]  # a name, not "my"


def test_a_custom_compound_name_is_the_users_own():
    # "raises a custom OutOfStockError": their exception class
    assert names("My backend raises a custom OutOfStockError. How do I stream it?") == []
    assert names("My backend raises its own OutOfStockError. How do I stream it?") == []
    assert names("My backend raises an OutOfStockError. How do I stream it?") == [
        "OutOfStockError"]
    # a product's one-word name stays a name after "custom"
    assert names("How do I stream from a custom Pinecone backend?") == ["Pinecone"]


def test_keys_pressed_together_are_no_name():
    assert names("Does the backend stop streaming when I press Ctrl+C?") == []
    assert names("Does the backend stop streaming on Cmd-Shift-R?") == []


def test_a_way_of_writing_identifiers_is_no_name():
    assert names("Why is the backend's streaming flag in camelCase, not snake_case?") == []
    assert names("Why is the backend's streaming flag in PascalCase?") == []


def test_a_name_in_the_users_own_code_is_theirs():
    docs = "Declare `commons: Annotated[Params, Depends(Params)]`; stream events with send()."
    # Beside names the docs use, in inline code: their class, their string
    assert names_against(docs, "Do I lose cleanup with `Annotated[Any, Depends(Pagination)]`?"
                         ) == []
    assert names_against(docs, "Is `send('OrderShipped')` a valid event?") == []
    # A path template's placeholder
    assert names_against(docs, "How do I stream events from /reports/{fmtID}?") == []
    # Alone in code, or beside nothing the docs use, it is still a name
    assert names_against(docs, "How do I configure `Prometheus`?") == ["Prometheus"]
    assert names_against(docs, "Does `Prometheus(Grafana)` read events?") == [
        "Prometheus", "Grafana"]
    assert names_against(docs, "Can Prometheus read `Depends`?") == ["Prometheus"]


def test_what_the_user_is_leaving_is_named_in_passing():
    # "coming from Spring": where the user comes from, not what they ask about
    assert names("Coming from Spring: what does dependency injection mean here?") == []
    assert names("Migrating a legacy PHP site: how do I read form fields?") == []
    assert names("We're porting our app over from Sinatra. How do routes work?") == []
    assert names("How does Spring compare for dependency injection?") == ["Spring"]


def test_an_x_header_is_the_users_own():
    # By the HTTP convention a header named X-... is one the user made up.
    assert names("How do I put a custom X-Trace-Id header on the response?") == []
    assert names("Should every route check the x-api-key?") == []
    assert names("How do I put a custom Trace-Id header on the response?") == ["Trace-Id"]


def test_a_name_set_against_one_the_docs_use_is_the_users_own():
    # "saved as Latin-1, not UTF-8": the docs' word on backend files is the answer
    assert names("My backend files are Latin-1, not OAuth2. Will the response fail?") == []
    # ... but not a name the question asks to use instead of a known one
    assert names("How do I keep backend files in Pinecone instead of OAuth2?") == ["Pinecone"]
    assert names("My backend files are Latin-1, not Pinecone. Will it fail?") == [
        "Latin-1", "Pinecone"]
    # a file name the docs write with its dot: their words hold it without
    docs = "Put the settings in a .env file and point env_file at it."
    assert names_against(docs, "Our settings live in config/staging.env, not .env. How?") == []
    assert names_against(docs, "Our settings live in config/staging.env, not .cfg. How?") == [
        "config/staging.env", "cfg"]


def test_a_file_of_the_users_own_and_a_cmd_are_not_unknown_names():
    docs = "Run the deploy command with the path of your contract."
    # "cmd" is developers' shorthand for command; "src/MyContract.sol" is the user's file
    assert names_against(docs, "whats the cmd to deploy src/MyContract.sol?") == []
    assert names_against(docs, "whats the cmd to deploy src/Escrow.sol?") == ["src/Escrow.sol"]


def test_a_name_the_docs_write_after_its_module_and_a_dot_is_known():
    docs = "Return status.HTTP_201_CREATED from Starlette, or load main.py as a module."
    assert names_against(docs, "Is HTTP_201_CREATED from Starlette?") == []
    # a file's extension is no attribute the docs name
    assert names_against(docs, "Can it read a config.py file?") == []
    assert names_against(docs, "Is HTTP_202_ACCEPTED from Starlette?") == ["HTTP_202_ACCEPTED"]
    assert "py" not in KeywordIndex([chunk(1, docs)]).raw_words


def test_a_name_before_or_another_is_an_example():
    # "AWS or another provider": the question asks about providers
    assert names("Can the backend run on AWS or another provider?") == []
    assert names("Does it stream to an Oculus or any other headset?") == []
    assert names("Can the backend run on AWS or on Azure?") == ["AWS", "Azure"]


def test_a_name_given_as_an_example_is_the_users_own():
    # "notes.txt" is the user's file: the question is about paths with slashes.
    assert names("How do I keep slashes in a path, e.g. home/johndoe/notes.txt?") == []
    assert names("Can a backend, for example Prometheus, stream?") == []
    assert names("Can a Prometheus backend stream?") == ["Prometheus"]


def test_names_joined_by_a_slash_are_each_looked_up():
    assert names("Is the OAuth2/JWT backend streaming?") == []  # two names the docs use
    assert names("Is the OAuth2/Prometheus backend streaming?") == ["OAuth2/Prometheus"]
    assert names("Does it support HTTP/3?") == ["HTTP/3"]  # a version, not two names
    # single letters standing for things the question makes up: placeholders, no names
    assert names("Can I swap A for C with no A/C pool, only A/B and B/C?") == []


def test_an_identifier_a_yes_no_question_asks_for_as_an_option_is_a_name():
    # "Is there a max_retries option?" asks whether the docs name it; the user's own
    # parameter, or one a how-to question adds, is theirs.
    assert names("Does it retry? Is there something like a max_retries option?") == [
        "max_retries"]
    assert names("Can I change that with a max_retries setting?") == ["max_retries"]
    assert names("How do I add an x_token parameter to the route?") == []
    assert names("Is my x_token parameter read from the header?") == []


def test_a_dotted_name_whose_every_part_the_docs_use_is_known():
    # "typing.Annotated" when the docs import Annotated from typing
    assert names("What does backend.Streaming do at runtime?") == []
    assert names("What does backend.Prometheus do at runtime?") == ["backend.Prometheus"]
    # a file or a package named like one is a name of its own
    assert names("Is there an OAuth2.py plugin for streaming?") == ["OAuth2.py"]


def test_a_known_name_run_into_its_version_is_known():
    index = KeywordIndex([chunk(1, "Python 3.10 reads X | Y as a union of the two types.")])

    def unknown(question: str) -> list[str]:
        return unknown_names(question, index.doc_freq, index.raw_words)

    # "py" is developers' shorthand for python
    assert unknown("Is X | Y fine as a hint in py3.10?") == []
    assert unknown("Is X | Y fine as a hint in python3.12?") == []
    assert unknown("Is X | Y fine as a hint in rust1.75?") == ["rust1.75"]
    assert unknown("Is X | Y fine as a hint in ERC721?") == ["ERC721"]  # a number, no version


def test_a_series_of_versions_is_known_when_the_docs_give_a_version_of_it():
    docs = "Breaking changes come in minor versions such as 0.2.3."
    assert names_against(docs, "We are on 0.x. Which bumps can break my code?") == []
    assert names_against(docs, "We are on v0.2.x. Which bumps can break my code?") == []
    assert names_against(docs, "We are on 1.x. Which bumps can break my code?") == ["1.x"]


def test_a_version_is_known_when_the_docs_give_it_with_more_parts():
    # "0.122" for the 0.122.0 the docs name, also after a prefix ("pre-0.122")
    docs = "Before FastAPI 0.122.0, a missing token got a 403."
    assert names_against(docs, "Since 0.122, what does a missing token get?") == []
    assert names_against(docs, "A client needs the pre-0.122 status. Which hook sets it?") == []
    assert names_against(docs, "Since v0.122, what does a missing token get?") == []
    assert names_against(docs, "Since 0.12, what does a missing token get?") == ["0.12"]
    assert names_against(docs, "Since 0.123, what does a missing token get?") == ["0.123"]


def test_a_class_of_status_codes_is_known_when_the_docs_give_a_code_of_it():
    # "4xx" for the 400-499 codes, as web developers write them
    docs = "Use 404 when the item is not found; 400 - 499 are client errors."
    assert names_against(docs, "Which code fits a generic 4xx error?") == []
    assert names_against(docs, "Which code fits a generic 4XX error?") == []
    assert names_against(docs, "Which code fits a generic 5xx error?") == ["5xx"]


def test_a_name_after_a_prefix_is_known_when_the_docs_use_the_name():
    # "non-English versions of the docs" when the docs say "English": no name of its own
    docs = "The docs are written in English and translated into other languages."
    assert names_against(docs, "Who writes the non-English versions of the docs?") == []
    assert names_against(docs, "Who writes the Non-English versions of the docs?") == []
    assert names_against(docs, "Are the non-Spanish docs translated?") == ["non-Spanish"]


def test_an_acronym_the_question_spells_out_is_known_as_its_words():
    # "I'm migrating from Django REST Framework. Who created DRF?"
    assert names("We use Server Sent Events. Does SSE stream over HTTP/1.1?") == []
    assert names("Does SSE stream over HTTP/1.1?") == ["SSE"]
    assert names("We use Streaming Events. Does SSE stream?") == ["SSE"]  # initials differ
    # ... in the scene before the part that asks, which is where the names are read
    question = "Before that we used Server Sent Events. Which companies use SSE?"
    asked = asked_part(question)
    assert asked == "Which companies use SSE?"
    assert unknown_names(asked, INDEX.doc_freq, INDEX.raw_words) == ["SSE"]
    assert unknown_names(asked, INDEX.doc_freq, INDEX.raw_words, whole=question) == []


def test_a_name_one_character_short_of_one_the_docs_use_is_known():
    docs = "Somnia's MiCAR white paper lists the SHA2-256 precompile. Use lambdas as keys."
    assert names_against(docs, "Is there a MiCA white paper?") == []
    assert names_against(docs, "How is the SHA-256 precompile priced?") == []
    # two characters short, or a word one letter longer than the docs', is another name
    assert names_against(docs, "Is there a MiC white paper?") == ["MiC"]
    assert names_against(docs, "How is the SHA2-2560 precompile priced?") == ["SHA2-2560"]
    # ... and a plural's "s" does not make the docs' word the name the question gives
    # (the docs' "lambdas" of Python, only in their changelog's stems, and "AWS Lambda")
    assert not _one_short("lambda", {"lambdas"}, Changelog())
    assert _one_short("lambda", {"lambdax"}, Changelog())


def test_a_name_with_a_plain_word_after_it_is_looked_up_without_the_word():
    # "JSON-encoded", "OAuth2-based": a known name and a known word, no name of their own.
    index = KeywordIndex([chunk(1, "Tokens are JWT, encoded as JSON; OAuth2 flows are based "
                                   "on them.")])

    def found(question: str) -> list[str]:
        return unknown_names(question, index.doc_freq, index.raw_words)

    assert found("Why do OAuth2-based flows send JSON-encoded tokens?") == []
    assert found("Why do Prometheus-based flows send JSON-encoded tokens?") == [
        "Prometheus-based"]
    assert found("Why do OAuth2-flavoured flows send tokens?") == ["OAuth2-flavoured"]
    # words the user tied with hyphens, a joining word among them, are a phrase: each
    # part is looked up ("the NFT-metadata-on-IPFS guide"), and one unknown part is unknown
    assert found("Where is the JWT-tokens-as-JSON guide?") == []
    assert found("Where is the JWT-tokens-as-YAML guide?") == ["JWT-tokens-as-YAML"]
    # shorthand for a word the docs spell out: "k8s" is Kubernetes, "req/s" requests
    index2 = KeywordIndex([chunk(1, "Run it on Kubernetes; it serves 900 requests a second.")])
    assert unknown_names("Our k8s pods do 900 req/s, ok?", index2.doc_freq,
                         index2.raw_words) == []
    assert unknown_names("Our k3s pods do 900 tx/s, ok?", index2.doc_freq,
                         index2.raw_words) == ["k3s", "tx/s"]
    # each name joined by a slash too: "JIT/AOT-compile" is JIT, AOT and compile
    index = KeywordIndex([chunk(1, "Contracts are compiled JIT or AOT to native code.")])
    assert unknown_names("Does it JIT/AOT-compile contracts?", index.doc_freq,
                         index.raw_words) == []
    assert unknown_names("Does it JIT/LLVM-compile contracts?", index.doc_freq,
                         index.raw_words) == ["JIT/LLVM-compile"]
    # "per-IP", "gRPC-web", "X-Process-Time": names as a whole
    assert found("Can I add per-JWT limits?") == ["per-JWT"]


def test_a_file_the_docs_name_at_the_end_of_another_path_is_known():
    # The docs write "/files//home/johndoe/myfile.txt" (one raw word); the question's path
    # differs, its file name does not.
    assert names("How do I serve /files/home/johndoe/myfile.txt?") == []
    assert names("How do I serve /files/home/johndoe/other.txt?") == [
        "files/home/johndoe/other.txt"]


def test_coverage_weighs_rare_terms_most():
    hits = [Hit(CHUNKS[2], 0.6)]
    n = len(CHUNKS)
    full = coverage("cleanup code after the response with yield", hits, INDEX.doc_freq, n)
    partial = coverage("boiling point of mercury with yield", hits, INDEX.doc_freq, n)
    assert full == 1.0 and partial < 0.3


def test_a_question_of_only_generic_words_is_fully_covered():
    assert coverage("how do I use it?", [], Counter(), 10) == 1.0


def test_content_quoted_as_an_example_is_no_word_the_docs_must_cover():
    # "...a file upload field, like 'the avatar image, max 2MB'?": the user's own text
    hits = [Hit(CHUNKS[2], 0.6)]
    n = len(CHUNKS)
    plain = coverage("cleanup code after the response", hits, INDEX.doc_freq, n)
    for example in ("like 'boiling point of mercury'", 'e.g. "boiling point of mercury"',
                    "such as “boiling point of mercury”"):
        asked = f"cleanup code after the response, {example}?"
        assert coverage(asked, hits, INDEX.doc_freq, n) == plain == 1.0
    # ... but not words in quotes that are what the question is about
    assert coverage("what does 'boiling point of mercury' mean after the response?", hits,
                    INDEX.doc_freq, n) < plain


def test_emphasis_and_else_name_nothing_the_docs_must_cover():
    # "How does it relate EXACTLY? ... something ELSE?": the docs never need those words
    hits = [Hit(CHUNKS[2], 0.6)]
    n = len(CHUNKS)
    plain = coverage("cleanup code after the response", hits, INDEX.doc_freq, n)
    for asked in ("Exactly when does cleanup code run after the response, or else?",
                  "Does cleanup code really run after the response, actually?",
                  # nor these, which only tell the user's story
                  "I'm already sure cleanup code runs completely after the response, "
                  "while yield still runs?"):
        assert coverage(asked, hits, INDEX.doc_freq, n) == plain == 1.0


def words(question: str, index: KeywordIndex = INDEX) -> list[str]:
    found = unknown_words(question, index.doc_freq, index.raw_words, index.root_freq)
    return [m.group(0) for m in found]


def test_unknown_words_are_the_ones_the_corpus_never_uses_in_any_form():
    assert words("How do I join the ambassador program for cleanup code?") == [
        "join", "ambassador", "program"
    ]
    # stopwords, generic question words, numbers, stemmed and written forms are not unknown
    assert words("How do I use streamed events with backend/main.py in 2 steps?") == []
    assert words("Do dependencies run cleanups officially?") == ["officially"]


def test_a_word_the_docs_use_in_another_derived_form_is_known_and_covered():
    index = KeywordIndex([chunk(1, "The deployment guide covers configuration of servers.")])
    assert words("How do I deploy and configure the server?", index) == []
    assert words("How do I deploy the ambassador?", index) == ["ambassador"]
    hits = [Hit(index.chunks[0], 0.5)]
    question = "deploy and configure"
    plain = coverage(question, hits, index.doc_freq, 1)
    assert plain < 0.5 and coverage(question, hits, index.doc_freq, 1, index.root_freq) == 1.0


def test_a_which_question_asking_for_an_unknown_thing_is_caught():
    from docent.retrieval.sufficiency import asks_for_unknown

    def asks(question: str) -> bool:
        found = unknown_words(question, INDEX.doc_freq, INDEX.raw_words, INDEX.root_freq)
        return asks_for_unknown(question, found)

    assert asks("In which ambassador programs can cleanup code run?")
    assert asks("What ambassador perks do I get?")  # the second word is the thing asked for
    # ... also before what it is of: "with what BACKOFF between attempts?"
    assert asks("Does cleanup code retry, and with what ambassador between attempts?")
    assert asks("What ambassador per request does cleanup code allow?")
    assert not asks("What cleanup code runs for the ambassador program?")
    # an unknown word elsewhere in the question, or after a verb, is not what it asks for
    assert not asks("Which cleanup code runs for the ambassador program?")
    assert not asks("What officially happens to cleanup code?")
    # after a comma, "which" starts a clause about something else, not a question
    assert not asks("Cleanup code changed, which broke our ambassador tests. What now?")
    # which firm / company asks who: docs name the auditor without saying "firm"
    assert not asks("Which firm did the cleanup code audits?")
    # a yes/no question asks whether the thing can be used
    assert asks("Can I use an ambassador file for cleanup code?")
    assert not asks("Can I use cleanup code in the ambassador program?")
    # ... whatever can do it, with what it can serve, accept, parse, return...
    assert asks("Can the program automatically serve ambassador versions of cleanup code?")
    assert not asks("Can the program serve cleanup code to an ambassador?")
    # ... or change, customise, configure, set...
    assert asks("Can I change the ambassador of the cleanup code?")
    assert asks("can we customize the ambassador of the program")
    assert not asks("Can I change the cleanup code for an ambassador?")
    # ... or whether something does it
    assert asks("Does cleanup code enable code ambassador by default?")
    assert asks("We run cleanup code. Does it enable code ambassador by default?")
    # ... of a subject of up to five words ("Does the docent chat page support speech...?")
    assert asks("Does the cleanup code program page enable ambassador input?")
    assert asks("Does our cleanup code page enable ambassador input?")
    assert not asks("Does the cleanup code program page enable code for an ambassador?")
    # ... or the doing a "way to" question asks about
    assert asks("What's the recommended way, for cleanup code, to ambassador or code it?")
    assert not asks("What's the recommended way to run cleanup code for an ambassador?")
    assert not asks("Does the ambassador program enable cleanup code?")
    # ... or the means it asks whether something works over
    assert asks("Can the cleanup code talk to others over ambassador chat?")
    assert asks("Does cleanup code run via an ambassador?")
    assert asks("When we run cleanup code, can it talk to others over ambassador chat?")
    assert not asks("Can the ambassador program talk to others over cleanup code?")
    assert not asks("How do I send cleanup code over ambassador chat?")  # no yes/no question
    # ... but in any question, the tool it names to do it with: "...call a SOAP service
    # using zeep?" (not in a sentence setting the scene)
    assert asks("What's the recommended way to run cleanup code using ambassador?")
    assert asks("How do I run cleanup code via the ambassador?")
    assert asks("how do i run cleanup code through ambassador?")
    assert not asks("We deploy using ambassador. How do I run cleanup code?")
    assert not asks("How do I run cleanup code with the ambassador program?")
    # ... with whatever it is done, each means it names
    assert asks("Can I run cleanup code through the program using an ambassador instead?")
    assert asks("Can cleanup code compress its output with ambassador?")
    assert not asks("Can an ambassador run with cleanup code?")
    assert asks("can cleanup code compress its output with ambassador")  # typed without "?"
    # ... and in a few words typed as a query, each means it names
    assert asks("deploy cleanup code with ambassador")
    assert asks("run cleanup code over ambassador")
    assert not asks("deploy cleanup code with ambassador. Then what?")  # sentences: no query
    assert not asks("how do i deploy cleanup code for my team and then run it with an ambassador")
    # ... and what it asks whether there is protection against
    assert asks("Is there any protection in cleanup code against ambassador loss?")
    assert not asks("Is there any protection in the ambassador program against cleanup code?")
    # ... or whether something has or offers it ("does the exchange have a REFERRAL
    # program?"), but not what a user has to do ("do I have to ambassador it myself?")
    assert asks("Does cleanup code have an ambassador program?")
    assert asks("Does the program offer any ambassador perks?")
    assert not asks("Do I have to ambassador the cleanup code myself?")
    # ... or whether the thing it names is the way ("is SLOWAPI the recommended way?")
    assert asks("How do I run cleanup code? Is ambassador the recommended way?")
    assert asks("is ambassador the best library for cleanup code")
    assert not asks("Is cleanup code the recommended way to run the ambassador program?")
    # ... or what a "how much" question asks the amount of; not a "how many" question's
    # count, which users name in their own words
    assert asks("How much ambassador is there between cleanup code runs?")
    assert not asks("How much cleanup code runs per ambassador program?")
    assert not asks("How many ambassadors does cleanup code remember?")
    # ... or whether there is such an option, setting or parameter
    assert asks("Does cleanup code reload itself? Is there an ambassador option?")
    assert asks("is there any ambassador setting for cleanup code")
    assert not asks("Is there an option for cleanup code in the ambassador program?")


def test_a_name_a_question_offers_as_its_guess_at_the_answer_is_what_it_asks_for():
    from docent.retrieval.sufficiency import asks_for_unknown

    def asks(question: str) -> bool:
        return asks_for_unknown(question, list(re.finditer(r"Ambassador\w*|AMBASSADOR\w*|"
                                                           r"\w+\.on_\w+", question)))

    # "Which environment variable turns on debug mode, something like FASTAPI_DEBUG?":
    # docs that never name it cannot say it is the one
    assert asks("Which setting streams cleanup code, something like AMBASSADOR_STREAM?")
    assert asks("Does cleanup code run on hosts such as Ambassador Cloud?")
    assert asks("Our backend streams files. Is there a hook, like @main.on_ambassador, "
                "that runs after cleanup code?")
    # ... read whole though its dot was taken for the end of the asking sentence
    assert names("Is there a hook, like @main.on_ambassador, that runs after cleanup?") == [
        "main.on_ambassador"]
    # not a use given as an example, nor a name in the scene before the question, nor in a
    # how-to question
    assert not asks("Which tag shows text in a world, like an Ambassador's scoreboard?")
    assert not asks("We name settings in caps like AMBASSADOR_URL. Will the fields match?")
    assert not asks("How do I run cleanup code on hosts like Ambassador Cloud?")
    # the dot ending a sentence makes no word a name
    ended = "Is there cleanup code like ambassadors. Does it run?"
    assert not asks_for_unknown(ended, list(re.finditer("ambassadors", ended)))
    # a guess is never a name in passing, not even a header named as custom ones are
    assert names("Which header says how many requests are left, like X-Ambassador-Left?") == [
        "X-Ambassador-Left"]
    assert names("Our client sends X-Ambassador-Left. Which header says how many are left?") == []


def test_a_why_question_asks_why_not_the_other_thing_it_names():
    from docent.retrieval.sufficiency import asks_for_unknown

    def asks(question: str, unknown: str) -> bool:
        return asks_for_unknown(question, list(re.finditer(re.escape(unknown), question)))

    # "Why did FastAPI go with Pydantic rather than msgspec?": docs that never name the
    # other cannot say why not it
    assert asks("Why does cleanup code use JWT rather than ambassadorjs?", "ambassadorjs")
    assert asks("Why do the docs stream over HTTP/1.1 instead of an older protocol like "
                "AMB2?", "AMB2")
    assert asks("In the guide, why is cleanup code run instead of `amb_run`?", "amb_run")
    # a plain English word is the user's way of putting it; elsewhere in the question, or
    # in a question that is no why question, the name is not the other thing
    assert not asks("Why do the docs call it an advantage rather than a nuisance?", "nuisance")
    # ... short ones too, which the word list leaves out; not a short name without a vowel
    assert not asks("Why does cleanup code use JWT rather than a hack?", "hack")
    assert asks("Why does cleanup code use JWT rather than zmq?", "zmq")
    assert not asks("Why does ambassadorjs run cleanup code instead of JWT?", "ambassadorjs")
    assert not asks("Can I use JWT rather than ambassadorjs?", "ambassadorjs")


def test_a_camel_case_name_a_passage_writes_as_words_is_spelled_apart():
    from docent.retrieval.sufficiency import spelled_apart

    said = ["The chat page keeps the conversation in memory, with no cookies and no local "
            "storage."]
    assert spelled_apart("localStorage", said)
    assert spelled_apart("localStorage", ["Nothing is kept in local-storage."])
    assert not spelled_apart("sessionStorage", said)
    assert not spelled_apart("persistAuthorization", ["Authorization persists across reloads."])
    # a class name is a name of its own, not words: "FileResponse" is no "file response"
    assert not spelled_apart("FileResponse", ["Return a file response."])


def test_in_what_situations_asks_when_and_names_nothing():
    # docs say when to use something without the word "situations" or "scenarios"
    for frame in ("In what situations", "In which scenarios", "In what cases"):
        assert words(f"{frame} is cleanup code after the response the wrong choice?") == [
            "wrong", "choice"]


def test_developer_shorthand_is_read_as_the_word_docs_spell_out():
    index = KeywordIndex([chunk(1, "Use the streaming library in your application code.")])

    def unknown(question: str) -> list[str]:
        found = unknown_words(question, index.doc_freq, index.raw_words, index.root_freq)
        return [m.group() for m in found]

    assert unknown("Which streaming lib does my app use?") == []
    assert unknown("Which streaming gizmo does my app use?") == ["gizmo"]


def test_a_passage_spelling_out_shorthand_covers_it():
    index = KeywordIndex([chunk(1, "Hiding the docs in production does not secure the API."),
                          chunk(2, "Run the app.")])
    hits = [Hit(index.chunks[0], 0.5)]
    assert coverage("Is hiding the docs in prod secure?", hits, index.doc_freq, 2,
                    index.root_freq) == 1.0


def test_a_feature_taken_for_granted_as_built_in_must_be_named_by_a_passage():
    passages = ["Responses are cached in the response cache for 60 seconds.",
                "Rate limits apply to every request; set the request rate limits here."]
    assert unnamed_features("How do I clear FastAPI's built-in response cache?", passages) == []
    assert unnamed_features("How do I open the built-in admin panel so I can edit rows?",
                            passages) == ["admin panel"]
    # the name ends where the clause does; its last two terms must be read in order
    assert unnamed_features("Can I turn off docent's built-in request rate limits for tests?",
                            passages) == []
    assert unnamed_features("Does its built-in cache response expire?", passages) == [
        "cache response expire"]
    # ... at a preposition of time or means too: "after logging" is when, not the name
    assert unnamed_features("Can my handler hand off to the built-in response cache after "
                            "logging?", passages) == []
    assert unnamed_features("Can I reuse the built-in admin panel through a proxy?",
                            passages) == ["admin panel"]
    # "on-chain" is one word, not a preposition ending the name
    assert unnamed_features("How do I use Somnia's built-in on-chain cron to call it?",
                            passages) == ["on-chain cron"]
    assert unnamed_features("How do I cache responses?", passages) == []  # presumes nothing
    # "the built-in FastAPI WAY to...": a way of doing it, named by the product alone
    assert unnamed_features("What's the built-in response way to cache it?", passages) == []
    assert unnamed_features("What's the built-in admin way to edit rows?", passages) == [
        "admin way"]
    assert unnamed_features("Is its built-in response cache feature enough?", passages) == []
    # What the user moves away from is not what they ask about.
    assert unnamed_features("How do I edit rows in my own UI instead of the built-in admin "
                            "panel?", passages) == []
    assert unnamed_features("Can I edit rows without the built-in admin panel?", passages) == []


def test_without_removes_the_words_and_tidies_spaces():
    question = "How do I join the ambassador program for cleanup code?"
    found = unknown_words(question, INDEX.doc_freq, INDEX.raw_words)
    assert without(question, found) == "How do I the for cleanup code?"
    assert without(question, []) == question


@pytest.mark.parametrize(("question", "asked"), [
    # The scene before the question holds the user's own names.
    ("I add an X-Total-Count header to responses, but my frontend can't read it. What am I "
     "missing?", "What am I missing?"),
    ("We generate a client. Its names look like readItemsGet. How do I get shorter ones?",
     "How do I get shorter ones?"),
    # ... or before the comma of the asking sentence
    ("Adding Somnia mainnet to Rabby by hand, what chain id do I type in?",
     "what chain id do I type in?"),
    ("In Prometheus-speak, which metric counts runs?", "which metric counts runs?"),
    # ... or before a colon or a spaced dash
    ("Setting up ConnectKit in a Next.js app - what do I wrap my layout in?",
     "what do I wrap my layout in?"),
    ("Coming from Ethereum's warm/cold pricing: why does a read cost more on Somnia?",
     "why does a read cost more on Somnia?"),
    ("If my Prometheus setup breaks, what do I do with it?",
     "If my Prometheus setup breaks, what do I do with it?"),  # "it" points back
    # a lead-in that asks itself is no scene
    ("What's the cloud's pricing like, is there a free tier?",
     "What's the cloud's pricing like, is there a free tier?"),
    # A question alone, one that asks first, or one that points back at the scene: all of it.
    ("How do I expose Prometheus metrics?", "How do I expose Prometheus metrics?"),
    ("How do I deploy? I want to use Heroku.", "How do I deploy? I want to use Heroku."),
    ("We run on Azure Functions. How do I deploy there?",
     "We run on Azure Functions. How do I deploy there?"),
    ("My files are Latin-1. Will that break ingestion?",
     "My files are Latin-1. Will that break ingestion?"),
    ("I use Slack and want docent in it.", "I use Slack and want docent in it."),
    # "its" and "their" point within their own clause ("each token ... ITS metadata")
    ("Planning a PFP drop. Should each token store its own URI?",
     "Should each token store its own URI?"),
    # "i.e." and "e.g." end no sentence: what comes before them asks too
    ("What's the voting period for proposals in governance, i.e. how many days is a vote "
     "open?", "What's the voting period for proposals in governance, i.e. how many days is a "
     "vote open?"),
    ("Any limit on names, e.g. how long can a name be?",
     "Any limit on names, e.g. how long can a name be?"),
])
def test_the_asked_part_of_a_question(question, asked):
    assert asked_part(question) == asked


def test_the_part_a_question_leans_to_leaves_out_a_scene_its_sentence_points_back_at():
    # The refusal checks read the OApp the ask points back at; the answer ranks statements
    # by the address asked for. A later sentence pointing back keeps the scene for both.
    question = "Setting up an OApp on mainnet - what address do I point it at?"
    assert asked_part(question) == question
    assert asked_part(question, keep_pointed_scene=False) == "what address do I point it at?"
    later = "Running on testnet, how many seconds does it take? Is that configurable?"
    assert asked_part(later, keep_pointed_scene=False) == later
    # A lead-in that asks itself is no scene to leave out.
    two = "What's the cloud's pricing like, is there a free tier?"
    assert asked_part(two, keep_pointed_scene=False) == two


def test_a_scene_the_asking_part_points_back_at():
    question = "I serve PDF downloads with FileResponse. Which headers does it add?"
    assert pointed_scene(question) == ("I serve PDF downloads with FileResponse.",
                                       "Which headers does it add?")
    # a scene nothing points back at, and a question without a scene
    assert pointed_scene("I serve PDF downloads. Which headers does FileResponse add?") is None
    assert pointed_scene("Which headers does it add?") is None
    # a lead-in before the question word is a scene too
    assert pointed_scene("Serving PDFs with FileResponse, which headers does it add?") == (
        "Serving PDFs with FileResponse", "which headers does it add?")


def test_names_the_docs_use_written_as_code():
    def known(text):
        return known_api_names(text, INDEX.doc_freq, INDEX.raw_words)

    assert known("We call main.py and read_files from OAuth2.") == ["main.py"]
    # proper names and acronyms the docs use are no code ("JWT", "OAuth2"); unknown code
    # names are not known
    assert known("Our JWT via OAuth2 goes to ReportBuilder.") == []


@pytest.mark.parametrize(("question", "asks"), [
    ("Which REST endpoint do I hit and how do I authenticate?", ["how do I authenticate?"]),
    ("Deployed with Ignition. How do I verify it? What goes in the hardhat config?",
     ["What goes in the hardhat config?"]),
    ("whats the CLI command, and what credential does it need?",
     ["what credential does it need?"]),
    # one ask, whatever its scene or its "and"s
    ("We run two replicas and a Redis. How do I share sessions and rate limits?", []),
    ("How do I add a router? And why?", []),  # too short to search for
])
def test_the_asks_after_the_first(question, asks):
    assert later_asks(question) == asks


def test_a_message_of_many_asks_searches_for_the_first_few():
    question = "How do I add CORS? " + " ".join(f"And how do I set option {i}?" for i in range(50))
    assert later_asks(question) == [f"And how do I set option {i}?" for i in range(3)]


def test_a_name_in_a_yes_no_question_is_read_within_it_past_abbreviations_and_versions():
    from docent.retrieval.sufficiency import in_yes_no

    def inside(question: str, name: str = "Arduino") -> bool:
        return in_yes_no(question, list(re.finditer(name, question)))

    assert inside("Does it run on Arduino boards?")
    # "i.e." and "e.g." end no sentence, nor does a dot inside a word
    assert inside("Does it handle conditional GETs, i.e. answer Arduino with a 304?")
    assert inside("Can it serve old clients, e.g. Arduino boards?")
    assert inside("Does it speak HTTP/1.1 to Arduino boards?")
    # not in a how-to, nor in a sentence after the yes/no one ends
    assert not inside("How do I run it on Arduino boards?")
    assert not inside("Does it run on boards. We use Arduino ones, how do I flash them?")
