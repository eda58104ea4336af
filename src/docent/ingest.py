"""Ingestion: markdown files under a folder into the store, incrementally by content hash."""

from __future__ import annotations

import hashlib
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from docent.config import Settings
from docent.models.unit_vectors import UNITS_VERSION, encode_chunks
from docent.retrieval.checkpoint import persist_vector_index
from docent.retrieval.chunking import chunk_markdown
from docent.retrieval.embeddings import Embedder, MiniLMEmbedder
from docent.retrieval.store import DocStore, drop_collection, open_store
from docent.retrieval.suspicious import Finding, find_suspicious, without_lines

SUFFIXES = (".md", ".markdown")
_BAR_MIN_FILES = 50  # below this a run is quick enough to need no progress bar


class IngestError(Exception):
    """Ingestion cannot start; the message is meant for the user as is."""


@dataclass
class IngestReport:
    """What one ingestion run did."""

    root: str
    files_seen: int = 0
    added: int = 0
    updated: int = 0
    removed: int = 0
    unchanged: int = 0
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (file, reason)
    suspicious: list[tuple[str, Finding]] = field(default_factory=list)  # (file, line found)
    dropped_suspicious: bool = True  # the suspicious lines were left out of the index
    chunks_written: int = 0
    total_chunks: int = 0
    seconds: float = 0.0
    rebuilt: bool = False  # every file re-embedded: the index predates this unit-vector format

    def summary(self) -> str:
        """One paragraph for the terminal."""
        text = (
            f"Ingested {self.root}: {self.files_seen} files seen, {self.added} added, "
            f"{self.updated} updated, {self.removed} removed, {self.unchanged} unchanged, "
            f"{len(self.skipped)} skipped; {self.chunks_written} chunks written, "
            f"{self.total_chunks} in the store; {self.seconds:.1f} s."
        )
        if self.rebuilt:
            text += " Every file was re-embedded: the index was built by an older docent."
        if self.skipped:
            text += " Skipped: " + "; ".join(f"{f} ({why})" for f, why in self.skipped) + "."
        if self.suspicious:
            what = "left out of the index" if self.dropped_suspicious else "indexed anyway"
            text += (
                f"\n{len(self.suspicious)} lines look like secrets or injected instructions "
                f"({what}; DOCENT_DROP_SUSPICIOUS_LINES):"
                + "".join(f"\n  {file}:{f.line}: {f.kind}: {f.excerpt}"
                          for file, f in self.suspicious)
            )
        return text


def markdown_files(root: Path) -> Iterator[Path]:
    """Markdown files under `root`, sorted, leaving out hidden folders such as .git."""
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root)
        if any(part.startswith(".") for part in rel.parts[:-1]):
            continue
        if path.suffix.lower() in SUFFIXES and path.is_file():
            yield path


def _decode(data: bytes) -> tuple[str | None, str]:
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        return None, f"not UTF-8 text (invalid byte at offset {exc.start})"
    if not text.strip():
        return None, "empty file"
    return text, ""


def ingest_path(
    path: str | Path,
    settings: Settings,
    *,
    reset: bool = False,
    store: DocStore | None = None,
    embedder: Embedder | None = None,
    progress: bool = True,
) -> IngestReport:
    """Bring the store in step with the markdown under `path`; bad files are skipped, reported."""
    started = time.perf_counter()
    root = Path(path).expanduser()
    if not root.exists():
        raise IngestError(f"docs path not found: {root} (pass a folder of markdown files)")
    single = root.is_file()
    files = [root] if single else list(markdown_files(root))
    base = root.parent if single else root
    embedder = embedder or MiniLMEmbedder()
    embedded = store is None and settings.chroma_url is None  # the store under data_dir
    if store is None:
        if reset:  # before opening: the old collection may come from another model
            drop_collection(settings)
        store = open_store(settings, embedder)
    elif reset:
        store.reset()
    source_root = str(base.resolve())
    report = IngestReport(root=str(root), files_seen=len(files),
                          dropped_suspicious=settings.drop_suspicious_lines)
    known = store.files(source_root)
    # An index without this version's answer-unit vectors: embed every file again.
    report.rebuilt = bool(known) and store.units_version() != UNITS_VERSION
    base_url = str(settings.docs_base_url) if settings.docs_base_url else None
    present: set[str] = set()
    changed = completed = False
    show = progress and (sys.stderr.isatty() or len(files) >= _BAR_MIN_FILES)
    try:
        for file in _progress(files, show):
            rel = file.relative_to(base).as_posix()
            present.add(rel)
            try:
                data = file.read_bytes()
            except OSError as exc:
                # Content unknown: keep whatever was ingested from it before.
                report.skipped.append((rel, f"unreadable: {exc.strerror or exc}"))
                continue
            digest = hashlib.sha256(data).hexdigest()
            if known.get(rel) == digest and not report.rebuilt:
                report.unchanged += 1
                continue
            text, reason = _decode(data)
            chunks = []
            if text is not None:
                text = _screen(text, rel, report, settings.drop_suspicious_lines)
                chunks = chunk_markdown(
                    text, rel, count_tokens=embedder.count_tokens,
                    max_tokens=settings.chunk_max_tokens, base_url=base_url,
                )
                reason = "" if chunks else "no content besides headings and page chrome"
            if rel in known:
                store.delete_files([rel], source_root)
                changed = True
            if not chunks:
                report.skipped.append((rel, reason))
                report.removed += rel in known
                continue
            vectors, units = encode_chunks(embedder, chunks)
            store.upsert(chunks, vectors, file_hash=digest, source_root=source_root,
                         units=units)
            changed = True
            report.chunks_written += len(chunks)
            if rel in known:
                report.updated += 1
            else:
                report.added += 1
        gone = [] if single else sorted(set(known) - present)
        if gone:
            store.delete_files(gone, source_root)
            report.removed += len(gone)
            changed = True
        completed = True
    finally:
        # Written last, after every chunk, so a reader never pairs new data with an old index.
        if changed:
            # A rebuild cut short leaves old chunks without unit vectors: keep the old
            # version so the next run rebuilds again.
            store.touch(units_version=UNITS_VERSION if completed or not report.rebuilt else None)
    if changed and embedded:
        persist_vector_index(settings)  # so readers open the store without writing to it
    report.total_chunks = store.count()
    report.seconds = time.perf_counter() - started
    return report


def _screen(text: str, rel: str, report: IngestReport, drop: bool) -> str:
    """Report the lines that look like secrets or injected instructions; drop them if asked."""
    findings = find_suspicious(text)
    report.suspicious += [(rel, f) for f in findings]
    return without_lines(text, findings) if drop and findings else text


def _progress(files: list[Path], show: bool) -> Iterator[Path]:
    if not show:
        yield from files
        return
    from tqdm import tqdm

    yield from tqdm(files, desc="ingesting", unit="file", file=sys.stderr)
