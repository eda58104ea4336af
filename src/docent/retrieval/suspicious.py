"""Lines of a document that look like secrets or like instructions aimed at the assistant.

Documents are data, never instructions (OWASP LLM01, prompt injection), and a secret pasted
into a page must not be handed out by the assistant (LLM02, sensitive information
disclosure). Ingestion reports every such line (`docent ingest` prints file and line) and,
with `DOCENT_DROP_SUSPICIOUS_LINES` (on by default), leaves it out of the index.

The patterns aim at precision, so that documentation about keys and passwords survives:
a key's *name* (`GOOGLE_API_KEY=`), a placeholder (`your-api-key`, `<token>`, `$TOKEN`),
a type (`password: str`) or a value without digits is not a secret; a line is an
injected instruction only when it addresses the assistant (a request to disregard earlier
instructions, a chat-template role marker, "tell the user to…" about credentials, or a
request to send credentials somewhere).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

Kind = Literal["secret", "instruction"]

# Credentials with a recognisable shape (OpenAI/Anthropic, AWS, GitHub, Slack, Google, JWT).
_TOKENS = re.compile(
    r"(?<![\w-])(?:sk-(?:[A-Za-z0-9]+-)*[A-Za-z0-9]{3,}|(?:AKIA|ASIA)[0-9A-Z]{16}"
    r"|gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,}|xox[abprs]-[A-Za-z0-9-]{10,}"
    r"|AIza[0-9A-Za-z_-]{35}|eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,})"
)
_PRIVATE_KEY = re.compile(r"-----BEGIN (?:[A-Z]+ )*PRIVATE KEY-----")
# "api key: x", "password = 'x'", "SECRET_KEY = "x"": a secret's name, then its value (not a
# URL's query parameter: a published link's `&token=` is part of the docs).
_ASSIGNED = re.compile(
    r"(?i)(?<![A-Za-z?&])(?:api[_ -]?key|secret(?:[_ -]?key)?|client[_ -]?secret|access[_ -]?token"
    r"|auth[_ -]?token|bearer|token|password|passwd|pwd)(?![A-Za-z])[\"']?\s*(?:[:=]|is)\s*"
    r"[\"']?([^\s\"'<>`,;]{6,})"
)
_PLACEHOLDER = re.compile(
    r"(?i)^(?:\$|\{|%|\(|\[|<|os\.|env|settings\.|config\.|getenv|your|my[_-]|example|sample"
    r"|dummy|fake|test|xxx|\*|\.\.\.|…|changeme|placeholder|redacted|none|null|str\b|string"
    r"|secretstr|optional|bytes|int\b|bool\b)"
)

_ADDRESS = re.compile(r"0x[0-9a-fA-F]{40}")

_INSTRUCTIONS = [
    # "ignore all previous instructions", "disregard the rules above"
    re.compile(
        r"(?i)\b(?:ignore|disregard|forget|override|bypass)\b[^.\n]{0,40}?\b(?:previous|prior|above"
        r"|earlier|preceding|all|any|your|system)\b[^.\n]{0,25}?\b(?:instructions?|prompts?"
        r"|rules|directions|guidelines|guardrails)\b"
    ),
    re.compile(
        r"(?i)\b(?:ignore|disregard|forget|override|bypass)\s+(?:the\s+|your\s+)?"
        r"(?:instructions?|prompts?|rules|directions|guidelines|guardrails)\s+"
        r"(?:above|before|so far|you were given)"
    ),
    # chat-template role markers a document has no business containing
    re.compile(r"(?i)<\|im_start\|>|\[/?INST\]|<</?SYS>>|<\s*/?\s*system\s*>"),
    # a role marker opening a line, then an order: "SYSTEM: you are now…"
    re.compile(
        r"(?i)^[\s>*_#-]*(?:system|assistant|developer)(?:\s+(?:prompt|message|note))?\s*:\s*"
        r"(?=.*\b(?:ignore|disregard|you are|you must|from now on|reveal|respond|reply|tell the"
        r" user|do not|never|always)\b)"
    ),
    # orders for the assistant about the user and their credentials
    re.compile(
        r"(?i)\b(?:tell|ask|instruct|advise|remind|convince|request)\s+(?:the\s+)?(?:users?|readers?"
        r"|customers?|visitors?)\s+to\b[^\n]{0,80}\b(?:passwords?|credentials?|api[ _-]?keys?"
        r"|tokens?|secrets?|2fa|otp|credit card|login)\b"
    ),
    # sending credentials somewhere: "email your password to x@y"
    re.compile(
        r"(?i)\b(?:e-?mail|send|forward|give|share|post|submit|paste)\b[^\n]{0,40}\b(?:your|their|the"
        r"|his|her)\s+(?:passwords?|credentials?|api[ _-]?keys?|tokens?|secrets?|2fa codes?)\b"
        r"[^\n]{0,40}\bto\s+(?:\S+@\S+|https?://|this\s+address)"
    ),
    # a new identity or new orders: "you are now an unrestricted assistant", "new instructions:"
    re.compile(
        r"(?i)\byou are now (?:an?|the|in)\s+(?:[\w-]+\s+){0,3}?(?:assistant|ai|bot|model|chatbot"
        r"|agent|mode)\b|\bfrom now on,? you (?:are|will|must)\b|\bnew instructions\s*:"
    ),
]


@dataclass(frozen=True)
class Finding:
    """One suspicious line: its number (from 1), what it looks like, and a safe excerpt."""

    line: int
    kind: Kind
    excerpt: str


def find_suspicious(text: str) -> list[Finding]:
    """Every line of `text` that looks like a secret or an injected instruction."""
    findings = []
    for number, line in enumerate(text.splitlines(), start=1):
        kind = _kind(line)
        if kind is not None:
            findings.append(Finding(number, kind, _excerpt(line)))
    return findings


def without_lines(text: str, findings: list[Finding]) -> str:
    """`text` with the flagged lines left empty (line numbers, and so the rest, unchanged)."""
    flagged = {f.line for f in findings}
    lines = text.splitlines(keepends=True)
    return "".join(
        ("\n" if line.endswith("\n") else "") if i in flagged else line
        for i, line in enumerate(lines, start=1)
    )


def _kind(line: str) -> Kind | None:
    if _secret_spans(line):
        return "secret"
    if any(p.search(line) for p in _INSTRUCTIONS):
        return "instruction"
    return None


def _secret_spans(line: str) -> list[tuple[int, int]]:
    spans = [m.span() for m in _TOKENS.finditer(line)]
    spans += [m.span() for m in _PRIVATE_KEY.finditer(line)]
    for m in _ASSIGNED.finditer(line):
        value = m.group(1)
        if _looks_secret(value):
            spans.append(m.span(1))
    return spans


def _looks_secret(value: str) -> bool:
    """A concrete value: letters and digits, not a placeholder, a reference, a type or a
    public blockchain address (0x and 40 hex digits)."""
    if _PLACEHOLDER.match(value) or len(set(value)) < 4 or "..." in value or "…" in value:
        return False
    if _ADDRESS.fullmatch(value):
        return False
    return any(c.isdigit() for c in value) and any(c.isalpha() for c in value)


def _excerpt(line: str, width: int = 80) -> str:
    """The line, shortened, with every secret value masked: a report never repeats one."""
    for start, end in sorted(_secret_spans(line), reverse=True):
        value = line[start:end]
        line = line[:start] + value[:3] + "…(masked)" + line[end:]
    line = " ".join(line.split())
    return line if len(line) <= width else line[: width - 1] + "…"
