"""The keyword index saved on disk beside the store, so a process starts in seconds.

Building the BM25 index means reading every chunk from Chroma and tokenising it: about a
minute at 100,000 chunks. The index of one collection fingerprint is saved under
`<data_dir>/keyword-index/<collection>/<fingerprint>/`: bm25s' own arrays, the chunks the
retriever reads hits from, and the term statistics of the sufficiency check. Ingestion
writes it for the fingerprint it leaves; a server loads it when the fingerprints match, and
otherwise builds the index itself and saves it. A folder is written under a temporary name
and renamed into place, so a reader never sees half of one; older fingerprints are deleted.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import tempfile
import time
from collections import Counter
from dataclasses import fields
from pathlib import Path

from docent.config import Settings
from docent.retrieval.bm25 import Changelog, KeywordIndex, new_bm25
from docent.retrieval.types import Chunk

log = logging.getLogger(__name__)

# Bump when tokenisation or what is saved changes: older folders are then rebuilt.
# 2: the words and terms only changelogs use.
# 4: contraction fragments ("doesn", "re") are no terms.
# 5: a word ending in "eed" keeps it (speed, not "spe"; as speeds, speed).
# 6: the words include the attribute a dotted name ends in (status.HTTP_201_CREATED).
# 7: a hex number (an address, a hash) is one term, not its letters and digits.
FORMAT = 7
_FIELDS = [f.name for f in fields(Chunk)]
_KEEP = 2  # fingerprints kept: the current one and the one a slow reader may still load
_ABANDONED = 3600.0  # seconds after which a temporary folder is a dead writer's


def index_dir(settings: Settings) -> Path:
    """Where the keyword indexes of the configured collection are saved."""
    return settings.data_dir / "keyword-index" / settings.collection


def load(directory: Path, fingerprint: str) -> KeywordIndex | None:
    """The saved index of `fingerprint`, or None when there is none (or it is unreadable)."""
    folder = directory / fingerprint
    try:
        meta = json.loads((folder / "meta.json").read_text(encoding="utf-8"))
        if meta.get("format") != FORMAT or meta.get("fingerprint") != fingerprint:
            return None
        rows = json.loads((folder / "chunks.json").read_text(encoding="utf-8"))
        chunks = [Chunk(**dict(zip(_FIELDS, row, strict=True))) for row in rows]
        stats = json.loads((folder / "terms.json").read_text(encoding="utf-8"))
        bm25 = new_bm25()
        if chunks:
            import bm25s

            bm25 = bm25s.BM25.load(str(folder / "bm25"), mmap=False)
    except (OSError, ValueError, TypeError, KeyError) as exc:
        if not isinstance(exc, FileNotFoundError):
            log.warning("saved keyword index unreadable; rebuilding",
                        extra={"path": str(folder), "error_type": type(exc).__name__})
        return None
    changelog_only = Changelog(frozenset(stats["changelog_words"]),
                               frozenset(stats["changelog_terms"]))
    return KeywordIndex.from_parts(
        chunks, bm25, Counter(stats["doc_freq"]), frozenset(stats["raw_words"]), changelog_only
    )


def _saved_format(folder: Path) -> int | None:
    """The format of the index saved in `folder`; None when it holds none (no meta.json)."""
    try:
        meta = json.loads((folder / "meta.json").read_text(encoding="utf-8"))
        return int(meta.get("format", 0))
    except FileNotFoundError:
        return None
    except (OSError, ValueError, TypeError, AttributeError):
        return 0  # unreadable: an index to replace


def save(index: KeywordIndex, directory: Path, fingerprint: str) -> None:
    """Save `index` as the one of `fingerprint`, unless a folder of this format holds it
    already; one of an older format is replaced (left in place, it would make every
    process rebuild the index after an upgrade)."""
    target = directory / fingerprint
    saved = _saved_format(target)
    if saved == FORMAT:
        return
    if saved is None:
        shutil.rmtree(target, ignore_errors=True)  # a folder without meta.json is no index
    directory.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=".tmp-", dir=directory))
    try:
        rows = [[getattr(c, name) for name in _FIELDS] for c in index.chunks]
        (tmp / "chunks.json").write_text(json.dumps(rows), encoding="utf-8")
        (tmp / "terms.json").write_text(
            json.dumps({
                "doc_freq": dict(index.doc_freq), "raw_words": sorted(index.raw_words),
                "changelog_words": sorted(index.changelog_only.words),
                "changelog_terms": sorted(index.changelog_only.terms),
            }),
            encoding="utf-8",
        )
        if index.chunks:
            index.bm25.save(str(tmp / "bm25"))
        # meta.json last: a folder without it is never loaded.
        (tmp / "meta.json").write_text(
            json.dumps({"format": FORMAT, "fingerprint": fingerprint, "chunks": len(rows)}),
            encoding="utf-8",
        )
        if saved is not None:  # an older format's folder: moved aside, then deleted
            stale = Path(tempfile.mkdtemp(prefix=".tmp-", dir=directory))
            os.replace(target, stale / fingerprint)
            shutil.rmtree(stale, ignore_errors=True)
        os.rename(tmp, target)
    except OSError:
        if _saved_format(target) == FORMAT:  # another process saved the same one first
            return
        raise
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
    _prune(directory, keep=fingerprint)


def _prune(directory: Path, keep: str) -> None:
    """Delete all but the newest saved fingerprints, and temporary folders left by a
    process that died while writing (another may be writing one now: they are young)."""
    now = time.time()
    saved, leftovers = [], []
    for path in directory.iterdir():
        if not path.is_dir() or path.name == keep:
            continue
        if path.name.startswith(".tmp-"):
            if now - path.stat().st_mtime > _ABANDONED:
                leftovers.append(path)
        else:
            saved.append(path)
    saved.sort(key=lambda p: p.stat().st_mtime, reverse=True)
    for old in saved[_KEEP - 1 :] + leftovers:
        shutil.rmtree(old, ignore_errors=True)
