"""CONTRACT.md §3, sufficiency (4): a question asking for a value the docs never state is
refused, however well the docs cover its subject ("disk space of a full node")."""

from __future__ import annotations

import pytest

from docent.intent import Measure, measure_of
from docent.retrieval.evidence import states_kind, states_value
from docent.retrieval.types import Chunk, Hit

# A corpus of 100 chunks; "node" is in 5 of them, "validator" in 10, "docent" in 60.
FREQ = {"node": 5, "run": 30, "full": 8, "disk": 2, "space": 3, "validator": 10, "session": 6,
        "docent": 60, "conversation": 4, "character": 5, "preview": 2, "content_preview": 2,
        "passag": 6, "stake": 7, "slash": 2, "epoch": 2, "stak": 9, "memory": 3, "process": 9,
        "markdown": 20, "file": 15, "ingest": 12, "largest": 4, "may": 3,
        "last": 4, "bootstrap": 2, "rough": 2, "stay": 3, "certificat": 4, "valid": 5,
        "reward": 3, "say": 4, "pick": 3, "top": 5, "back": 6, "drop": 3, "cert": 1,
        "googl": 2, "cloud": 3, "faucet": 2, "token": 9, "tokens": 9, "pull": 1, "end": 3,
        "wait": 1, "tap": 2, "put": 1, "dao": 3, "answer": 2, "reply": 2,
        "expect": 1, "team": 4, "ship": 2, "anti": 1, "money": 2, "launder": 1, "aml": 2,
        "policy": 3, "record": 3, "websocket": 3, "ping": 2, "idle": 2, "aliv": 2,
        "connection": 5, "come": 4, "check": 6, "strict": 2, "argument": 3, "parameter": 5,
        "longer": 3, "first": 8, "templat": 3, "registration": 2, "claim": 3, "name": 4,
        "user": 9, "stop": 4, "proposal": 3, "open": 4, "vote": 3, "vot": 3, "declar": 3,
        "bunch": 1, "cooky": 2, "cooki": 2, "model": 8, "self": 1, "shannon": 2,
        "testnet": 6, "stt": 5, "thread": 4, "delegator": 3, "delegat": 4, "try": 1, "trie": 1,
        "replica": 30, "redis": 30}


def hit(text: str, section: str = "Guide") -> Hit:
    return Hit(Chunk("c1", "guide.md", "Guide", section, "", "", text), 0.5)


def states(question: str, *texts: str, section: str = "Guide") -> bool:
    return states_value(question, [hit(t, section) for t in texts], FREQ, 100)


def test_a_size_the_docs_never_give_is_missing_though_they_cover_the_subject():
    node_page = ("A full node runs the Somnia client and keeps the whole chain.\n"
                 "Hardware: 32 GB of RAM and 8 CPU cores.")
    assert not states("How much disk space does a Somnia full node need?", node_page)
    assert states("How much disk space does a Somnia full node need?",
                  node_page + "\nA full node needs 2 TB of disk space.")


def test_a_count_needs_a_number_next_to_what_is_counted():
    assert states("What is the largest number of sessions one docent process can hold?",
                  "About 20 MB for 1000 such sessions.")
    # A count in characters is about content_preview only if it says so.
    other = "A `selected_text` longer than 10000 characters is rejected with HTTP 400."
    question = "How many characters of the passage text does content_preview contain?"
    assert not states(question, other)
    assert states(question, "`content_preview` holds the first 300 characters of the passage.")
    # "more than one", "at least one", "one or more" give no number of sessions
    question = "How many sessions does one docent process hold by default?"
    assert not states(question, "A request can touch more than one session.",
                      "A process holds at least one session; one or more sessions expire.")
    assert states(question, "By default one process holds 1000 sessions.")


def test_a_share_is_no_count():
    # "50% of the fees go to validators" says what share they get, not how many there are.
    question = "How many validators are active on the network?"
    assert not states(question, "50% of all fees are distributed to all validators.")
    assert not states(question, "Validators receive 12.5 % of the rewards.")
    assert not states(question, "Validators earn 20 percent of each block's fees.")
    assert states(question, "The network has 100 active validators; 50% of fees go to them.")


def test_a_size_is_stated_of_what_the_question_names_before_size():
    # "markdown file" names what the size is of: a size of something else in the same
    # words' neighbourhood ("files", "largest", "ingestion") does not answer it.
    question = "What is the largest markdown file size docent will ingest?"
    batches = ("Ingestion sorts the chunks of many files by length; onnxruntime keeps the "
               "memory of its largest run: batches of 8 held about 300 MB more.")
    assert not states(question, batches)
    assert states(question, batches, "Docent ingests markdown files of up to 10 MB each.")


def test_only_the_sentence_asking_for_the_value_must_be_next_to_it():
    # The first sentence sets the scene; its words need not be next to the duration, nor
    # does the modal "may" of the question's frame.
    text = "A conversation expires after 30 minutes."
    assert states("How long may a conversation last?", text)
    assert states("Validators run a full node with a session. How long may a conversation "
                  "last?", text)
    assert not states("Validators run a full node with a session. How long may a staking "
                      "epoch last?", text)
    # "last" is the question's verb here, not what the duration is of.
    assert states("How long does the bootstrap last?", "Bootstrap\n0-6 months post-mainnet")


def test_a_crawled_table_is_read_a_row_at_a_time():
    # "Phase | Duration | Overview" flattened to one cell a line: the overview that says
    # what the duration is of comes after the value, outside the lines before it.
    table = "\n\n".join(["Phase", "Duration", "Overview",
                            "Bootstrap", "0-6 months post-mainnet",
                            "Foundation board in control. Other groups have no control.",
                            "Transition", "6-24 months", "All groups take part in votes."])
    freq = {**FREQ, "foundation": 3, "board": 3, "control": 5, "stay": 4}
    question = "How long does the foundation board stay in control?"
    assert states_value(question, [hit(table)], freq, 100)
    assert not states_value(question, [hit(table.replace("Foundation board", "The council"))],
                            freq, 100)


def test_how_big_a_cache_is_may_be_told_by_how_many_things_it_holds():
    freq = {**FREQ, "retriev": 3, "cach": 4, "result": 5, "search": 6}
    question = "How big is the retrieval cache by default?"
    held = ("`DOCENT_RETRIEVAL_CACHE_SIZE` is the number of search results kept in the "
            "retrieval cache; the default is 1024.")
    assert states_value(question, [hit(held)], freq, 100)
    # ... not by a number that says nothing of what it holds
    assert not states_value(question, [hit("The retrieval cache was added in 2024.")], freq,
                            100)


def test_a_list_items_own_number_counts_nothing():
    # A crawled GitBook list: "1 - [Elements Panel](...) \\- Allows you to drag and drop MML
    # elements", "2) ...", "3. ...": the place in the list, not how many elements.
    freq = {**FREQ, "element": 3, "scene": 2, "contain": 4}
    question = "Is there a maximum number of elements a scene can contain?"
    for item in ("1 - [Elements Panel](/tour#elements-panel) \\- Allows you to drag and drop "
                 "elements into the scene", "2) Drag elements into the scene",
                 "3. Drag elements into the scene"):
        assert not states_value(question, [hit(item)], freq, 100), item
    assert states_value(question, [hit("A scene holds at most 500 elements.")], freq, 100)
    assert states_value(question, [hit("1 - 5 elements fit in one scene.")], freq, 100)


def test_how_long_something_is_expected_to_run_asks_only_how_long_it_lasts():
    table = "\n\n".join(["Phase", "Duration", "Overview", "Bootstrap", "0-6 months",
                          "Foundation board in control.", "Transition", "6-24 months",
                          "All groups take part in votes."])
    freq = {**FREQ, "run": 10, "transition": 2, "phas": 3}
    assert states_value("How long is the Transition phase expected to run?", [hit(table)],
                        freq, 100)
    # (the table gives no duration of a phase it does not list)
    assert not states_value("How long is the Mature phase expected to run?", [hit(table)],
                            {**freq, "matur": 2}, 100)


def test_a_number_under_a_money_column_states_money():
    # "Storage duration | Gas Amount" flattened: the column names what the number is.
    assert states_kind("money", "1 day — Gas Amount: 40,000")
    assert states_kind("money", "Fee: 0.5")
    assert not states_kind("money", "1 day — Slots: 40,000")


def test_a_cost_given_as_a_share_states_money():
    # "what does it cost them?" of unstaking early: a share of what they staked
    assert states_kind("money", "Emergency unstake at the cost of 50% of their staked Tokens.")
    assert states_kind("money", "Each swap takes a 0.3% fee.")
    # a share of something else is no cost
    assert not states_kind("money", "50% of the fees go to validators.")


def test_a_table_row_reads_with_its_column_names():
    # The value check reads a pipe table's row as the answer shows it: "Somnia gas: 18560".
    table = ("| EVM Op | Ethereum gas | Somnia gas |\n| --- | --- | --- |\n"
             "| LOG1 with 32 bytes of data | 1006 | 13440 |\n"
             "| LOG2 with 32 bytes of data | 1381 | 18560 |")
    assert states("What does a LOG2 with 32 bytes of data cost?", table)
    assert not states("What does a LOG2 with 32 bytes of data cost?",
                      table.replace("Ethereum gas", "Ethereum").replace("Somnia gas", "Somnia"))


def test_how_often_something_happens_states_no_timeout():
    # "a ping every 15 seconds" says how often, not how long an idle connection is kept
    ping = "The server sends a keep alive ping comment every 15 seconds on idle connections."
    assert not states("What's the keep-alive timeout for idle connections?", ping)
    assert states("How often does the server send a keep alive ping?", ping)
    assert states("What's the keep-alive timeout for idle connections?",
                  "Idle connections are closed after a keep alive timeout of 5 seconds.")


def test_a_sentence_summing_up_a_list_reads_with_the_list():
    # "All records..." states the value of every record the list above it names; a sentence
    # that does not look back reads only its own neighbourhood.
    question = "How long are customer identification records kept?"
    page = ("We maintain records of:\n\n* Customer identification documents\n"
            "* Transaction records\n* Compliance documentation\n* Suspicious activity reports"
            "\n\n{} are retained for a minimum of five years.")
    freq = {**FREQ, "customer": 3, "identification": 2, "record": 6}

    def stated(text: str) -> bool:
        return states_value(question, [hit(text, "Record keeping")], freq, 100)

    assert stated(page.format("All records"))
    assert not stated(page.format("Audit logs"))


def test_digits_in_markup_are_no_values():
    page = 'Open WebSocket connections: ![up to 64](/img/ws.png) <img src="/img/ws-2.png">'
    assert not states("How many WebSocket connections can one worker keep open?", page)


def test_a_duration_counts_with_the_heading_saying_what_it_is_about():
    text = "A session lasts as long as it is in use, and expires after 30 minutes idle."
    assert states("How long does docent keep a conversation?", text,
                  section="Sessions and conversations > How long a session lasts")
    assert not states("How long is one staking epoch?",
                      "Validators who fail the minimum stake get a cooldown of 7 days.")


def test_a_bare_number_is_a_duration_when_its_neighbourhood_names_the_unit():
    question = "How long does a docent session last before it expires?"
    assert states(question, "| `DOCENT_SESSION_TTL_SECONDS` | 1800 |")
    assert states(question, "A session expires after a time in seconds.\nDefaults to 1800.")
    assert not states(question, "| `DOCENT_SESSION_MAX_COUNT` | 1800 |")


def test_a_setting_measured_in_a_unit_of_size_states_a_size_with_a_bare_number():
    question = "Below what file size does docent skip a markdown file?"
    assert states(question, "The largest markdown file size in bytes to ingest.\n"
                            "Defaults to `500`.")
    assert states(question, "| `DOCENT_MAX_FILE_BYTES` | 500 |")
    # `bytes` is also a type: a number near it states no size
    assert not states(question, "A markdown file is read as `bytes` with `seek(0)`.")
    assert not states(question, "A markdown file of bytes.\nSee PR #63.")


def test_a_frequency_in_words_is_a_duration():
    assert states("How often is the validator set rotated?",
                  "The validator set is rotated quarterly.")
    assert not states("How often is the validator set rotated?",
                      "The validator set is rotated by a vote.")


def test_saying_there_is_no_limit_answers_a_question_about_the_limit():
    question = "Is there a maximum session size?"
    assert not states(question, "A session keeps its conversation in memory.")
    assert states(question, "There is no limit on the size of a session.")
    assert states(question, "A session can hold a conversation of any size.")
    assert states("How many sessions can one process hold?", "The number of sessions is "
                  "unlimited.")


def test_a_value_of_no_particular_kind_is_not_checked():
    # "What chain ID", "what is its address": any digit would state one, so nothing to check.
    assert measure_of("What chain ID do I enter?") == Measure("number")
    assert states("What chain ID do I enter?", "The network is live.")


def test_only_the_clause_asking_for_the_value_must_be_covered():
    text = "Set `DOCENT_TOP_K` to change it; the default is 5 passages."
    assert states("How many passages does a search return, and can a client change that "
                  "for a single request?", text)


def test_a_share_is_of_what_undergoes_what_the_question_says():
    # "what percentage ... gets SLASHED": a share that is earned answers nothing
    question = "What percentage of a validator's stake gets slashed?"
    assert not states(question, "A validator with its full stake earns 100% of the rewards.")
    assert states(question, "Up to 5% of a validator's stake is slashed for a double sign.")


def test_a_count_is_a_number_close_to_what_it_counts():
    # "ONE single request could use more than one thread": no count of threads
    question = "How many threads does the session pool have?"
    assert not states(question, "One single session request could use more than one thread.")
    assert states(question, "The session pool runs 40 worker threads.")
    assert states(question, "Session pool threads: 40.")
    # ... not a number in a quoted sample of what the app shows
    assert not states(question, "To display stats of the session pool (“40 threads busy”).")
    # ... or the default of the setting the sentence says counts them
    assert states(question, "Set `POOL_SIZE` to change how many threads the session pool "
                            "runs; the default is 40.")
    # ... and it counts what it names, not a word of the same root: tokens DELEGATED are no
    # count of DELEGATORS
    question = "Is there a maximum number of delegators a single validator can accept?"
    assert not states(question, "You are delegating 1M out of the 5M tokens delegated to the "
                                "validator.")
    assert states(question, "A single validator accepts at most 100 delegators.")


def test_a_clause_asking_about_that_reads_with_the_clause_before_it():
    # "...and what percent of the stake is THAT?": the subject is in the first clause.
    table = "Validator rewards\n\n12%\n\nEpoch\n\n4%"
    question = "How much goes to validator rewards, and what percent of the stake is that?"
    assert states(question, table)
    assert not states("How much goes to epoch bootstrap, and what percent of the stake is "
                      "that?", "Validator rewards: 12%")


def test_a_changelog_gives_its_version_in_the_heading():
    entry = "Fix support for `StreamingResponse` with dependencies: close the session after it."
    question = "In which version did the session close move back to after the response?"
    assert states(question, entry, section="Release Notes > 0.118.0 > Fixes")
    assert not states(question, entry, section="Release Notes > Fixes")


def test_a_length_in_words_may_be_spelled_out():
    assert states("How long may a greeting be?", "A greeting may be at most five words long.")
    assert not states("How long may a greeting be?", "Docent writes one line per greeting.")


def test_a_version_another_name_gives_as_its_own_is_not_the_asked_things():
    # "Solidity Version: <0.8" is Solidity's, not the Safe contracts' the question asks for
    question = "Which version of the Safe contracts does Palmera use for its safes?"
    row = "SafeMath Library — Solidity Version: <0.8 — Effectiveness: High"
    assert not states(question, row, "Palmera's safes are multisig wallets.")
    assert not states(question, "Manual Checks — Solidity Version: Any — safe code")
    assert states(question, "Palmera uses the Safe contracts version 1.3.0 for its safes.")
    # the asked thing's own labelled version stays
    assert states("Which Markdown version does docent ingest?", "Docent — Markdown Version: 1.0")
    assert states("Which Markdown version does docent ingest?",  # "Minimum" names nothing
                  "Docent ingests Markdown. Minimum Version: 1.0")
    assert not states("Which Markdown version does docent ingest?",
                      "Docent — Node Version: 18.1 — Markdown: any")


def test_a_major_version_right_after_the_asked_thing_is_its_version():
    # "Node.js 18+" gives no dotted version; after the thing it is of, it is one
    question = "Which Node.js version does the subgraph tutorial list as a prerequisite?"
    assert states(question, "Prerequisites for the subgraph tutorial: Node.js 18+ and npm.")
    assert states(question, "Prerequisites for the subgraph tutorial: Node 20 and npm.")
    assert not states(question, "Prerequisites for the subgraph tutorial: npm and 18 GB.")


def test_and_between_nouns_keeps_them_in_the_clause():
    # "AML/KYC AND transaction records": one subject, not a second question.
    assert states("For how many years are validator and session records kept?",
                  "Session records are kept for 5 years.")
    # "..., and can a client change that": a second question, left out
    test_only_the_clause_asking_for_the_value_must_be_covered()


def test_what_is_measured_is_read_from_the_clause_asking_for_the_value():
    # the stake named in the other clause is no part of what "how long" measures
    assert states("How long is a session kept, and how much validator stake do I need?",
                  "A session is kept for 30 minutes.")


def test_a_question_asking_for_two_values_is_answered_by_either():
    question = "How long is a session kept, and how much SOMI does a validator stake?"
    assert states(question, "A validator stakes 5,000,000 SOMI.")
    assert states(question, "A session is kept for 30 minutes.")
    assert not states(question, "Sessions and validators are explained below.")


def test_a_dash_ends_the_scene_before_the_question():
    # "the docs mention free certs - roughly how long is one of THOSE valid?"
    assert states("The docs mention the session epoch bootstrap - roughly how long is one of "
                  "those sessions kept?", "A session is kept for 30 minutes.")


def test_a_passage_spelling_out_the_shorthand_of_the_question_states_its_value():
    # "certs" in the question, "certificates" in the docs
    certificates = "These certificates are short-lived (about 3 months)."
    assert states("How long are the certs valid before renewal?", certificates)
    assert not states("How long are the certs valid before renewal?",
                      "Sessions are short-lived (about 3 months).")


def test_the_site_a_here_link_goes_to_is_next_to_the_value():
    # "Google Cloud" is only in the link's target: the sentence still says it.
    faucet = ("You can request test tokens [here](https://cloud.google.com/web3/faucet), "
              "limited to 1 STT per day.")
    assert states("How much STT does the Google Cloud faucet give per day?", faucet)
    assert not states("How much STT does the Google Cloud faucet give per day?",
                      faucet.replace("[here](https://cloud.google.com", "[here](https://x.org"))


def test_the_words_of_a_here_links_path_are_next_to_the_value():
    # The faucet is named only in the link's path ("/faucet/somnia/shannon").
    faucet = ("Alternatively, you can request test tokens [here](https://cloud.google.com/"
              "application/web3/faucet/somnia/shannon), limited to 1 STT per day.")
    asked = ("Is there a self-serve faucet for Shannon testnet tokens, and how much STT can I get "
             "from it?")
    assert states(asked, faucet)
    assert not states(asked, faucet.replace("/faucet/somnia/shannon", "/x2"))


def test_a_verb_of_getting_is_frame():
    # "how much can I PULL from the faucet": what is got, not how, is what the value is about
    assert states("How much STT can I pull from the faucet?", "The faucet gives 1 STT a day.")
    # "ends up with validators": goes to them
    assert states("What share of the fees ends up with validators?",
                  "50% of all fees are distributed to validators.")


def test_a_count_may_end_in_a_magnitude():
    # "3M+ users" counts users; the "40+" next to "chains" does not.
    freq = {**FREQ, "ferry": 2, "bridg": 3, "volum": 3, "handl": 3}
    question = ("how big is Ferry actually? how many users and how much volume has that "
                "bridge handled so far?")
    page = [hit("Ferry is a transfer network that has served 3M+ users and moved $2B+ in "
                "volume across 40+ chains. It settles transfers in seconds.")]
    assert states_value(question, page, freq, 100)
    assert states_value("How many users does Ferry have?", [hit("Ferry has 20k users.")],
                        {**freq, "ferry": 2}, 100)


def test_how_long_something_is_kept_asks_how_long_it_lasts():
    # "kept" and "held", the past of two frame verbs, are frame as well: "...expires after
    # 30 minutes" answers how long sessions are kept, in docs that say "kept" elsewhere.
    freq = {**FREQ, "kept": 3, "held": 2}
    page = [hit("A session lasts as long as it is in use, and expires after 30 minutes "
                "without activity.")]
    assert states_value("how long are sessions kept?", page, freq, 100)
    assert states_value("How long is a session held?", page, freq, 100)
    # the frame verb does not make any duration an answer: it must still be of sessions
    assert not states_value("how long are sessions kept?",
                            [hit("A proposal stays open for 30 minutes.")], freq, 100)


def test_coming_in_is_frame():
    # "In which release did that check COME IN?": when it was added, not what came
    assert states("In which release did that check come in?",
                  "The strict check was added in version 0.132.0.")


def test_the_activity_after_the_part_asking_says_what_the_value_is_of():
    question = "What's the longest registration period I can pick when claiming a name?"
    assert states(question, "Claim periods for a name are 1, 2 or 3 years.")
    assert not states(question, "Sessions for a user last 30 minutes.")
    # a circumstance after it is the user's wording, not what the docs say it of
    assert states("How long is a session kept if the user stops asking?",
                  "A session expires after 30 minutes without activity.")


def test_a_word_is_there_whichever_ending_it_lost():
    # "voting" stems to "vot", "votes" to "vote"
    assert states("How long does a proposal stay open for votes?",
                  "Each proposal has a votingDuration of 10 minutes.")
    # "cookie" stems to "cooki", "cookies" to "cooky"; "a bunch of" says how many, not what
    assert states("From which release can I declare a bunch of cookies as one model?",
                  "Cookie models are supported since version 0.115.0.")
    # a short word's "tries" stems to "trie", "try" to itself
    assert states("While Redis is down, how often does a replica try Redis again?",
                  "While Redis is down, a replica tries Redis again at most once a second.")


def test_an_argument_is_a_parameter_and_no_longer_is_frame():
    # "...the template is no longer the first ARGUMENT": the docs say "parameter"
    question = "In which release is the template no longer the first argument?"
    assert states(question, "Before version 0.108.0, the template was the first parameter.")
    assert not states(question, "Version 0.108.0 added a template cache.")


@pytest.mark.parametrize(("question", "stated", "not_stated"), [
    # "how much do I PUT INTO the DAO": the docs say "deposit"; what is put in is the value
    ("How much STT do I have to put into the DAO?",
     "The DAO requires a minimum deposit of 0.001 STT.", "The faucet gives 1 STT a day."),
    # "how soon should I EXPECT an ANSWER": the docs say when the team aims to REPLY
    ("How soon should I expect an answer from the team?",
     "The team aims to reply within 24 hours.", "The team aims to ship within 24 hours."),
    # a passage's initials say what the question spells out
    ("How long are records kept under the anti-money-laundering policy?",
     "AML: all records are retained for five years.",
     "All records are retained for five years."),
    # "how long must a player WAIT between taps": the docs state the cooldown of taps
    ("How long does a player have to wait between taps?",
     "Taps have a 1-second cooldown.", "Sessions last 30 minutes."),
], ids=["putting-in-is-frame", "a-reply-is-an-answer", "initials", "waiting-asks-a-duration"])
def test_what_a_value_is_about_is_read_as_the_docs_say_it(question, stated, not_stated):
    assert states(question, stated)
    assert not states(question, not_stated)


def test_the_frame_of_a_change_or_a_choice_names_nothing():
    # "say", "move ... back", "pick", "top up" are how the question is put, not its subject
    assert states("Say a session drops - how long may I pick to top it back up?",
                  "If a session drops, it is kept for 30 minutes.")


def test_people_are_counted_as_what_they_are():
    # Docs count people by their role ("a four-member board"), never as "people".
    text = "A four-member validator board oversees the stake."
    assert states("How many people sit on the validator board?", text)
    assert states("How many members does the validator board have?", text)
    assert not states("How many people sit on the session board?", text)
    # ... and a role as people: "3 people ... willing to commit" counts committed reviewers
    said = ("Find 2 other people who would be willing to be reviewing translation PRs. Once "
            "there are at least 3 people that would be willing to commit to help, go on.")
    assert states("How many committed reviewers does a new translation need?", said)
    assert not states("How many committed reviewers does a new translation need?",
                      "Reviewers commit to reviewing translation PRs for a language.")
    # ... and "people" counts whoever a question names by their part, said there or not
    assert states("How many volunteers does a new translation need?", said)
    assert not states("How many volunteers does a new translation need?",
                      "Volunteers commit to reviewing translation PRs for a language.")
    assert not states("How many validators does a new translation need?", said)


def test_a_verb_of_the_question_names_nothing_that_is_counted():
    # "How many people NEED to commit": "need" belongs to the frame, not to what is counted.
    assert states("How many people need to commit to reviewing?",
                  "Once there are at least 3 people willing to commit to reviewing, go on.")


def test_a_counted_word_the_docs_never_use_need_not_be_next_to_the_number():
    # "back-and-forths" is the user's word for the docs' "turns": no passage can hold it.
    question = "How many back-and-forths does a session remember?"
    assert measure_of(question) == Measure("count", ("back-and-forths",))
    turns = "A session keeps the last 10 turns of the conversation."
    assert states(question, turns)
    # The rest of the question still has to be there, and the number too.
    assert not states("How many back-and-forths does a validator remember?", turns)
    assert not states(question, "A session keeps the last turns of the conversation.")
    # A counted word the docs do use must still be next to the number.
    assert not states("How many epochs does a session remember?", turns)


def test_hedges_and_linking_verbs_are_no_part_of_what_a_value_is_about():
    # "ROUGHLY how long does it STAY valid": the statement need not repeat either word.
    text = "Each certificate would expire (about 3 months after acquiring it)."
    assert states("Roughly how long does a certificate stay valid?", text)
    assert not states("Roughly how long does a session stay valid?", text)


def test_a_how_question_about_charging_less_asks_for_no_value():
    question = "How can Somnia charge less gas for storage reads of frequently used data?"
    assert measure_of(question) is None
    assert states(question, "Frequently used data is cached, so reads of it are cheaper.")
    assert measure_of("What does Somnia charge for storage?") == Measure("money")


def test_the_largest_value_allowed_is_no_size():
    # "the largest value allowed" of a setting is a bare number ("is 600"), no data size
    assert measure_of("What's the largest value allowed?") == Measure("number")
    assert states("What's the largest value allowed?", "The largest allowed value is 600.")
    assert measure_of("What is the largest file I can upload?").kind == "size"


def test_counting_as_something_is_no_count():
    # "when does a proposal COUNT AS passed": a verb, not "the proposal count"
    assert measure_of("When does a proposal count as passed?") == Measure("number")
    assert measure_of("What is the default thread count?").kind == "count"


def test_a_value_inside_a_how_question_is_part_of_the_how():
    # "how do I work out HOW MUCH STT to send": the answer is the way, not a sum of STT.
    for question in (
        "In my VRF consumer contract, how do I work out how much STT to send with the request?",
        "There's no order book, so how does the pool decide what price a swap gets?",
    ):
        assert measure_of(question) is None, question
        assert states(question, "Call the contract's price function before requesting.")
    # A value asked in its own sentence, or before the how, is still asked.
    assert measure_of("How does the base fee change? What is the maximum fee?") is not None
    assert measure_of("What's the default port, and how do I change it?") == Measure("number")


def test_a_question_asking_for_no_value_always_passes():
    assert states("How do I deploy docent?", "Nothing here.")
    assert measure_of("How do I deploy docent?") is None


@pytest.mark.parametrize(("question", "measure"), [
    ("How much disk space does a full node need?", Measure("size", ("disk", "space"))),
    ("How many SOMI tokens will ever exist?", Measure("count", ("somi", "tokens"))),
    ("What is the maximum number of WebSocket connections a worker keeps?",
     Measure("count", ("websocket", "connections"))),
    ("What percentage of the stake is slashed?", Measure("percent")),
    ("How long is one staking epoch?", Measure("duration")),
    # a cache's max-age is a time
    ("What Cache-Control max-age does the server put on assets?", Measure("duration")),
    ("What's the default max_age of the CORS middleware?", Measure("duration")),
    # ... and a max_size a size
    ("What is the default max_size for incoming WebSocket messages?", Measure("size")),
    ("What is the mint price of a key?", Measure("money")),
    ("What's the pricing for the hosted tier?", Measure("money")),
    # a possessive is one of the words before what is measured
    ("What's FastAPI Cloud's pricing like, is there a free tier?", Measure("money")),
    ("What's Somnia's minimum stake?", Measure("number")),
    ("Is there a monthly limit on how much gas the sponsor covers?", Measure("money", ("gas",))),
    # "the max players": a count of players, not a value of no kind
    ("What's the max players one world server can host?", Measure("count", ("players",))),
    ("What's the max batch of records one call can write?", Measure("count", ("records",))),
    ("Which Python version do I need?", Measure("version", ("python",))),
    ("Which version of Chroma does docent require?", Measure("version", ("chroma",))),
    ("Which version of the Safe contracts does Palmera use?", Measure("version", ("safe",))),
    # the version of OpenAPI, a spec: "spec" says what kind of thing, not which
    ("Which OpenAPI spec version does FastAPI declare?", Measure("version", ("openapi",))),
    # "what's the minimum X version": a version, of X; "minimum" and "latest" name nothing
    ("What's the minimum FastAPI version for form models?", Measure("version", ("fastapi",))),
    ("whats the minimum fastapi version needed for that", Measure("version", ("fastapi",))),
    ("What is the latest version?", Measure("version")),
    ("Which Node.js version does the tutorial list?", Measure("version", ("node.js",))),
    ("What is the difference between version 1 and 2?", Measure("number")),
    # the words the duration reading knows ask for a value in a what-question too
    ("what's the TTL of a session", Measure("duration")),
    ("What is the block time?", Measure("duration")),
    ("What is the delay between two retries?", Measure("duration")),
    # a cap, a quota or a ceiling is a number asked for; a cap on a rate, a count
    ("What's the requests per minute cap on the public endpoint?", Measure("count")),
    ("What is the API quota per project?", Measure("number")),
    # a penalty is a value; "liquidation penalty" one of lending's percentages
    ("What liquidation penalty is charged on the collateral?", Measure("percent")),
    # "is there a ... limit" with more words between, but "or" names nothing measured
    ("Is there a polygon count or file size limit for uploaded models?",
     Measure("size", ("file",))),
    ("What is the address of the ETH/USD price feed?", Measure("number")),
    # "price" naming a kind of data ("price pairs", "price feeds") asks for no amount
    ("Which price pairs does the oracle provide feeds for?", Measure("number")),
    ("Which price feeds are live on testnet?", Measure("number")),
    ("What is the largest markdown file size docent will ingest?",
     Measure("size", ("markdown", "file"))),
    ("What is the default chunk size?", Measure("size", ("chunk",))),
    # a greeting and an answer are texts: how long they may be is a length
    ("How long may a greeting be and still take the fast path?", Measure("size")),
    ("How long can an answer be?", Measure("size")),
    ("Below what size does docent merge a piece?", Measure("size")),  # "below" says which
    ("What is the maximum size of an uploaded file?", Measure("size", ("uploaded", "file"))),
    ("What size limit applies to a request body?", Measure("size")),
    # the largest piece of data is a size; the largest set of something is no particular kind
    ("What's the largest single message a WebSocket endpoint accepts?", Measure("size")),
    ("What's the biggest payload I can put in one record?", Measure("size")),
    ("How large can the gap log file grow?", Measure("size")),
    ("How big is the validator committee?", Measure("number")),
    ("What is the largest validator set?", Measure("number")),
    # the unit the answer is asked in says its kind; "how much of" asks for a share
    ("What trade window, in minutes, does the oracle use?", Measure("duration")),
    ("How many minutes until an access token expires?", Measure("duration")),
    ("How many bytes may a header hold?", Measure("size")),
    # a count of things that hold data, not a size
    ("How many storage slots are hot?", Measure("count", ("storage", "slots"))),
    # "FREE compute units" are compute units: a modifier names no other thing
    ("How many free compute units do I get?", Measure("count", ("compute", "units"))),
    # ... nor does one saying which ones in time: "the last 10 turns" answers it
    ("And how many earlier turns does it remember?", Measure("count", ("turns",))),
    ("How many previous messages are kept?", Measure("count", ("messages",))),
    ("Which FastAPI release dropped Python 3.9?", Measure("version")),
    # "the default THREAD COUNT" counts threads; "other spellings COUNT the same" is a verb
    ("What's the default thread count of the pool?", Measure("count", ("thread",))),
    ("Which other spellings count the same?", Measure("number")),
    # a rate counts what it is a rate of
    ("What's the requests-per-second cap on the public endpoint?", Measure("count")),
    ("What is the cap on request size per project?", Measure("size", ("request",))),
    ("What's the cap on requests per minute for the endpoint?", Measure("count")),
    # an amount of a token or currency named in capitals is money; RAM is no currency
    ("What's the minimum amount of SOMI I can buy?", Measure("money")),
    ("How much SOMI does it cost to mint a key?", Measure("money")),
    ("How much RAM does a node need?", Measure("size", ("ram",))),
    ("What do the release notes say about sessions?", None),
    ("Which body limit, in bytes, does the server apply?", Measure("size")),
    ("How much of a validator's stake gets slashed?", Measure("percent")),
    # lending's ratios are stated as percentages
    ("What's the max loan-to-value for SOMI collateral?", Measure("percent")),
    ("What's the liquidation threshold for SOMI?", Measure("percent")),
    ("How do I set the timeout in seconds?", None),  # an instruction, not a value
    # "is there a maximum...?" is answered by the limit, or by there being none
    ("Is there a maximum file size for uploads?", Measure("size", ("file",))),
    ("Is there any size limit on request bodies?", Measure("size")),
    ("Is there a limit on how many sessions I can open?", Measure("count", ("sessions",))),
    ("Is there a way to limit uploads?", None),
    # "in charge of" says who is responsible, not what it costs
    ("Which group is in charge of hard forks and gas economics?", None),
    ("What does the relayer charge for a transfer?", Measure("money")),
    # what a thing costs, asked as "what does it cost" (its "storage" names no size)
    ("What does each SSTORE into a new storage slot cost?", Measure("money")),
    # "how much slower" asks for a factor ("up to 1000x"): the "memory" and "storage" it
    # is of name no size asked
    ("How much slower can a storage read get when it misses memory?", Measure("number")),
    ("How many times faster is a cached read?", Measure("number")),
    # ... and so does what something costs relative to something else ("250 times")
    ("What does the pairing precompile cost relative to Ethereum?", Measure("number")),
    ("How much does the Pro plan cost in VS Code?", Measure("money")),  # no "vs" there
    # the extra gas a storage access costs, or a storage slot, names no size
    ("When does a BALANCE call avoid the extra storage gas?", Measure("number")),
    ("How much storage does a full node need?", Measure("size", ("storage",))),
    # how a thing looks is set by a bare number (`radius="4"`, `font-size="200"`): no size
    # of data is asked
    ("What colour and size is the clock face by default?", Measure("number")),
    ("Which font size do the labels use?", Measure("number")),
    ("What is the maximum upload size?", Measure("size", ("upload",))),
    # a count per something names that too ("per core"); a rate per unit of time does not
    ("How many uvicorn workers per core do the docs recommend?",
     Measure("count", ("uvicorn", "workers", "core"))),
    ("How many requests per minute can one key make?", Measure("count", ("requests",))),
])
def test_what_a_value_question_measures(question, measure):
    assert measure_of(question) == measure


def test_the_check_is_on_by_default_and_can_be_turned_off(tmp_path):
    from docent.config import load_settings
    from docent.ingest import ingest_path
    from docent.retrieval.retriever import HybridRetriever
    from docent.retrieval.store import open_store
    from tests.retrieval.conftest import FakeEmbedder, write_docs

    docs = write_docs(tmp_path / "docs", {
        "nodes.md": "# Nodes\n\nA full node keeps the whole chain and serves the RPC API.\n",
        "other.md": "# Other\n\nUnrelated text about wallets.\n",
    })
    settings = load_settings(data_dir=tmp_path / "data")
    embedder = FakeEmbedder()
    ingest_path(docs, settings, embedder=embedder, progress=False)
    question = "How much disk space does a full node need?"

    def retriever(**kw):
        return HybridRetriever(open_store(settings, embedder), embedder, settings,
                               max_unknown_shift=2.0, min_coverage=0.0, check_names=False, **kw)

    assert retriever().search(question, 3) == []
    assert retriever(check_values=False).search(question, 3)
    off = settings.model_copy(update={"refuse_missing_values": False})
    assert HybridRetriever(open_store(off, embedder), embedder, off, max_unknown_shift=2.0,
                           min_coverage=0.0, check_names=False).search(question, 3)


@pytest.mark.parametrize(("kind", "text", "stated"), [
    ("duration", "A session expires after 30 minutes.", True),
    ("duration", "`TIMEOUT_SECONDS` | 30", True),  # a bare number with a unit of time
    ("duration", "At most 1000 sessions fit in memory.", False),
    ("duration", "      timeout: 10000,", True),  # a line setting an interval by its name
    ("duration", "refreshMs = 5000;", True),
    ("duration", "Items: 5", False),  # a name ending in "ms" is no unit of time
    ("size", "Each replica needs about 400 MB.", True),
    ("size", "Each replica answers 85 questions a second.", False),
    ("size", "`MAX_BODY_BYTES` | 1048576", True),  # a setting's bare value in a unit of size
    ("percent", "50% of all fees are burnt.", True),
    ("percent", "Ten percent of the supply is unlocked.", True),
    ("percent", "Half of the fees go to validators.", True),
    ("percent", "The validator sets this percentage, the delegation rate.", False),
    ("version", "Added in FastAPI 0.134.0.", True),
    ("version", "EVM Version: select the EVM version (default: Prague)", True),  # a named one
    ("version", "Select the appropriate EVM version", False),
    ("version", "Pick a version: See below.", False),
    ("size", "Read the `bytes` with `seek(0)`.", False),
    ("count", "50% of all fees go to validators.", False),
    ("money", "Registering a name costs 3.5 SOMI a year.", True),
    # Digits inside a hex address are no amount ("07BEC") and no size ("67b").
    ("money", '"wallet": "0x4F40da1a67b891Ec7cCD54F809AFDD72CCc07BEC"', False),
    ("size", "Deployed at 0x9ac0da1a67b.", False),
    # A decimal with a unit is a measure, an address's four parts a host: no version.
    ("version", "Docent waits at most 0.5 seconds for Redis.", False),
    ("version", "DOCENT_REDIS_URL=redis://127.0.0.1:6379/0 docent serve", False),
    ("version", "Answers come 2.5x faster and use 1.5 MB.", False),
    ("version", "Docent needs Python 3.11 or newer.", True),
    ("version", "`DOCENT_REDIS_TIMEOUT_SECONDS` — `0.5`", False),  # its unit in its name
    ("version", "FASTAPI_VERSION=0.110.1", True),
    # "A second one", "a second replica": an ordinal, no duration.
    ("duration", "A second one started meanwhile waits for the first.", False),
    ("duration", "Add a second replica behind the balancer.", False),
    ("duration", "The index is swapped in less than a second.", True),
    ("duration", "It retries a second or two later.", True),
    # "exit code 1", "HTTP 404", "one of the files": a code and a choice, no count.
    ("count", "It stops with exit code 1 and names one of the files.", False),
    ("count", "The page answered HTTP 404.", False),
    ("count", "It keeps one file per page.", True),
    # An index and a call's argument count nothing.
    ("count", 'tag = operation["tags"][0]', False),
    ("count", "await dao.executeProposal(0);", False),  # a call's argument
])
def test_what_states_a_value_of_a_kind(kind, text, stated):
    assert states_kind(kind, text) is stated


def test_it_pointing_back_to_a_scene_sentence_means_what_that_sentence_names():
    # "We're stuck on Python 3.9 in production for now. Which release dropped it?": "it" is
    # Python 3.9, not being stuck or production.
    freq = {"stuck": 1, "production": 1, "python": 5, "3.9": 2}
    question = ("We're stuck on Python 3.9 in production for now. Which FastAPI release was the "
                "first one that no longer supports it?")
    entry = Hit(Chunk("c1", "release-notes.md", "Release Notes", "0.129.0 > Breaking Changes",
                      "", "", "Drop support for Python 3.9."), 0.5)
    assert states_value(question, [entry], freq, 100)
    # In the same sentence, the clause before is read whole ("..., and what share is that?").
    assert not states_value("We're stuck on Python 3.9 in production for now, so which "
                            "FastAPI release was the first one that no longer supports it?",
                            [entry], freq, 100)


def test_that_thing_pointing_back_to_a_scene_sentence_means_what_that_sentence_names():
    # "...still import BaseModel from pydantic.v1. In which release was THAT COMPATIBILITY
    # removed?": the question's own word for the scene; what the scene names is read with it.
    freq = {"compatibility": 1, "remov": 5, "basemodel": 2, "v1": 2}
    question = ("Our models still import BaseModel from pydantic.v1. In which release was "
                "that compatibility removed completely?")
    said = Hit(Chunk("c1", "migrate.md", "Migrate", "Migrate", "", "",
                     "Importing BaseModel from Pydantic v1 works up to 0.127.0. It was "
                     "removed in FastAPI 0.128.0."), 0.5)
    assert states_value(question, [said], freq, 100)
    other = Hit(Chunk("c2", "migrate.md", "Migrate", "Migrate", "", "",
                      "Python 3.8 support was removed in FastAPI 0.125.0."), 0.5)
    assert not states_value(question, [other], freq, 100)
    # ... or read as its own word: a passage saying it of "the compatibility" answers too
    own = Hit(Chunk("c3", "migrate.md", "Migrate", "Migrate", "", "",
                    "The compatibility layer was removed in FastAPI 0.128.0."), 0.5)
    assert states_value(question, [own], freq, 100)


def test_a_changelog_heading_gives_the_products_versions_not_another_things():
    freq = {**FREQ, "traefik": 2, "proxi": 5, "webhook": 3}
    entry = hit("Add docs for Behind a Proxy, with a local Traefik proxy.",
                "Release Notes > 0.56.0")
    assert not states_value("Which Traefik version does the proxy guide use?", [entry], freq, 100)
    # the docs' own release: its heading gives the version
    webhooks = hit("Add support for webhooks in docent.", "Release Notes > 0.99.0")
    assert states_value("Which docent version added webhooks?", [webhooks], freq, 100)
    assert states_value("Since which release are webhooks supported?", [webhooks], freq, 100)


def test_a_settings_value_with_a_unit_measures_and_counts_nothing():
    freq = {**FREQ, "sse": 3, "stream": 4, "worker": 3}
    question = "How many SSE streams can one worker keep open?"
    ping = "Set `DOCENT_SSE_PING_SECONDS` to change the keep-alive interval; the default is 15 seconds."
    assert not states_value(question, [hit(ping, "Streaming > SSE streams")], freq, 100)
    limit = "`DOCENT_MAX_SSE_STREAMS` caps the open streams; the default is 100."
    assert states_value(question, [hit(limit)], freq, 100)


def test_a_relative_clause_after_what_is_counted_is_no_part_of_it():
    # "the maximum number of files DOCENT CAN ingest": docent opens a relative clause, and
    # "docent writes one progress line" counts no files; the clause still says whose files.
    question = "What's the maximum number of files docent can ingest in one run?"
    assert measure_of(question) == Measure("count", ("files", "docent"), counted=1)
    assert not states(question, "Docent writes one progress line every 10 seconds to a log file.")
    assert states(question, "Docent ingests at most 5000 files in one run.")
    # "SOMI tokens will ever exist": the plural is the thing counted, not a clause's subject
    assert measure_of("How many SOMI tokens will ever exist?") == Measure(
        "count", ("somi", "tokens"))
    assert not states(question, "Each run ingests at most 5000 files.")  # whose files?


def test_a_number_right_after_what_it_would_count_names_one():
    question = "Is there a maximum number of sessions a full node can hold?"
    assert not states(question, "Vote yes on session 0 first; a full node runs it.")
    assert states(question, "A full node holds sessions: 1000 at most.")
    assert states(question, "A full node holds 1000 sessions at most.")


def test_a_bound_asked_for_is_not_stated_by_one_as_an_article():
    # "One bad file never stops the ingestion" gives no maximum number of files.
    question = "What is the maximum number of files a run can ingest?"
    assert not states(question, "One bad file never stops the ingestion of the rest.")
    assert states(question, "Only one file is ingested at a time.")
    assert states(question, "A run reads one file at a time.")
    assert states("How many files does a bad run skip?", "One bad file is skipped.")


def test_a_single_one_is_how_many_not_what():
    # "from a SINGLE client address": a quantity, like "one", not what the value is about.
    freq = {**FREQ, "singl": 1, "client": 20, "address": 15, "hour": 4}
    question = "How many requests per hour will docent accept from a single client address?"
    passage = "A client address may send 100 requests an hour; the default is 100 requests."
    assert states_value(question, [hit(passage)], freq, 100)


def test_how_many_times_counts_repeats_of_what_the_question_says():
    # "times" is the unit of a repeat count: what is repeated must be next to the number.
    freq = {**FREQ, "retri": 3, "crawl": 2, "page": 9, "search": 6, "fail": 4, "time": 10}
    passage = "`DOCENT_TOOL_RETRIES` sets how many times docent retries a failing search; " \
              "the default is 3."
    assert not states_value("How many times does docent retry a page during a crawl?",
                            [hit(passage)], freq, 100)
    assert states_value("How many times does docent retry a failing search?",
                        [hit(passage)], freq, 100)


def test_how_long_something_waits_is_no_frequency():
    # "writes a progress line every 10 seconds" says how often, not how long a wait lasts.
    passage = "A waiting ingest logs a line every 10 seconds while the first ingest runs."
    assert not states("How long does a second ingest wait before giving up?", passage)
    assert states("How long does a second ingest wait before giving up?",
                  passage + " It gives up after 10 minutes.")


def test_a_condition_before_the_question_names_what_the_value_is_of():
    # "If I add the CORS middleware and change nothing, how long will browsers cache...?"
    passage = "A full node keeps a session for 30 minutes."
    assert states("If I run a full node, how long is a session preview kept?", passage)
    assert not states("How long is a session preview kept?", passage)
    # a condition pointing back ("if I call IT without ONE") is about what came before it
    assert not states("If I run it on a full node, how long is a session preview kept?",
                      passage)
    # ... and "that" opening a relative clause points at nothing before the question
    assert states("If I run a full node that is synced, how long is a session preview kept?",
                  passage)


def test_a_sentence_after_the_last_question_asks_for_nothing():
    # "How long is one staking epoch? I'm trying to estimate how often rewards show up."
    question = "How long is a session kept? I'm trying to estimate how often validators restart."
    assert not states(question, "Validators restart every 30 minutes.")
    assert states(question, "A session is kept for 30 minutes.")


def test_a_thing_named_in_camel_case_must_be_next_to_the_value():
    # A keep-alive ping of Server-Sent Events states no interval of WebSocket connections.
    question = "What ping interval keeps idle WebSocket connections alive?"
    sse = "Server-Sent Events send a keep-alive ping every 15 seconds on idle connections."
    assert not states(question, sse, section="Server-Sent Events")
    assert states(question, sse.replace("Server-Sent Events", "WebSocket connections"))
    assert states(question, sse, section="WebSocket")  # the heading names it


def test_a_last_sentence_asking_of_the_scene_only_by_a_pronoun_is_not_checked():
    # "they" are what the sentence before names: the check cannot tell what a stated
    # value must be next to, so it lets the question through (the answer step reads on)
    page = "A ping goes out to keep connections alive."
    assert states("Why do I see ping lines in the stream. How often are they sent?", page)
    # ... but it checks a question that says of what, in its own words, or has no scene
    assert not states("How often are ping lines sent?", page)
    assert not states("Why do I see ping lines in the stream. How often are pings sent?", page)
    assert not states("How often are they sent?", page)
    assert not states("How often are they sent? I see ping lines in the stream.", page)
    assert not states("Why do I see ping lines. How often are they sent to idle connections?",
                      page)


def test_how_long_a_text_may_be_asks_for_a_length_not_a_time():
    for question in ("How long can a question be?", "how long can my prompt be before it is "
                     "rejected?", "How long are log lines allowed to be?",
                     "How long can the selected_text field be?"):
        assert measure_of(question).kind == "size", question
    for question in ("How long is the session kept?", "How long can a session stay idle?",
                     "How long can a cache entry be kept?", "How long can my tokens be locked?"):
        assert measure_of(question).kind == "duration", question
    # what "it" is says which: a field's length or a session's time, no definite kind
    for question in ("How long can it be?", "How long is it?"):
        assert measure_of(question).kind == "number", question
    assert measure_of("How long can it be kept?").kind == "duration"
    # "...the default is 10000" in characters answers it; 30 minutes does not
    assert states("How long can a question be?",
                  "The longest question accepted is 10000 characters.")
    assert not states("How long can a question be?",
                      "A question's session expires after 30 minutes.")
