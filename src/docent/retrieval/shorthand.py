"""Developers' shorthand and the words it stands for ("k8s": kubernetes, "certs":
certificates): a question written in it asks about what the docs spell out."""

from __future__ import annotations

from functools import lru_cache

from docent.retrieval.bm25 import stem

SHORTHAND = {
    "lib": "library", "libs": "libraries", "repo": "repository", "repos": "repositories",
    "env": "environment", "envs": "environments", "config": "configuration",
    "configs": "configurations", "auth": "authentication", "db": "database",
    "dbs": "databases", "param": "parameter", "params": "parameters", "arg": "argument",
    "args": "arguments", "dir": "directory", "dirs": "directories", "func": "function",
    "funcs": "functions", "app": "application", "apps": "applications", "doc": "document",
    "docs": "documentation", "dev": "development", "prod": "production",
    "deps": "dependencies", "dep": "dependency", "msg": "message", "msgs": "messages",
    "req": "request", "reqs": "requests", "res": "response", "resp": "response",
    "perf": "performance", "info": "information", "impl": "implementation",
    "k8s": "kubernetes", "cert": "certificate", "certs": "certificates", "py": "python",
    "cmd": "command", "cmds": "commands",
}


@lru_cache(maxsize=2)
def _stems(spelled_first: bool) -> dict[str, frozenset[str]]:
    """The stem of each spelled-out word and the stems of the shorthand for it, or, with
    `spelled_first` false, the stem of each shorthand word and what it stands for."""
    out: dict[str, set[str]] = {}
    for short, spelled in SHORTHAND.items():
        key, value = (spelled, short) if spelled_first else (short, spelled)
        out.setdefault(stem(key), set()).add(stem(value))
    return {k: frozenset(v) for k, v in out.items()}


def with_shorthand(terms: set[str]) -> set[str]:
    """`terms` (stemmed) and the shorthand for any of them: a passage saying
    "certificates" says what a question's "certs" asks about."""
    stems = _stems(True)
    return terms.union(*(stems.get(t, frozenset()) for t in terms))


def spelled_out(term: str) -> frozenset[str]:
    """What a (stemmed) shorthand term stands for, stemmed: "prod" gives "production"'s
    stem; empty for any other term."""
    return _stems(False).get(term, frozenset())
