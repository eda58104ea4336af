"""Ingestion: doc files under a folder into the store, incrementally by content hash.

Two passes. The plan reads every file, skips those whose hash is unchanged, converts the
rest to markdown (`docent.formats`), screens and chunks them, and keeps the chunks whose id
(a hash of their text) and metadata are already stored: only new chunk texts are embedded.
Then the queue (`docent.ingestion.pipeline`) embeds those across files in length-sorted
batches and writes them, with progress counted in chunks.
"""

from __future__ import annotations

import hashlib
import logging
import os
import sys
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, field
from pathlib import Path

from docent.config import Settings
from docent.counted import counted
from docent.formats import FORMATS, SUFFIXES, Format, format_of
from docent.formats.charset import decode, meta_charset
from docent.ingestion.pipeline import EmbeddingQueue, FileWork
from docent.ingestion.progress import ChunkProgress
from docent.models.unit_vectors import UNITS_VERSION
from docent.retrieval import keyword_store
from docent.retrieval.bm25 import KeywordIndex
from docent.retrieval.checkpoint import persist_vector_index
from docent.retrieval.chunking import chunk_markdown
from docent.retrieval.embeddings import Embedder, MiniLMEmbedder
from docent.retrieval.store import DocStore, drop_collection, new_fingerprint, open_store
from docent.retrieval.suspicious import Finding, find_suspicious, without_lines
from docent.retrieval.types import Chunk
from docent.textfile import not_utf8

log = logging.getLogger(__name__)

INGEST_LOCK = "ingest.lock"  # in DOCENT_DATA_DIR: one ingestion writes an embedded store at a time


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
    chunks_written: int = 0  # chunks embedded and written
    chunks_reused: int = 0  # chunks of changed files kept as stored: their text is unchanged
    total_chunks: int = 0
    seconds: float = 0.0
    rebuilt: bool = False  # every file re-embedded: the index predates this unit-vector format

    def summary(self) -> str:
        """One paragraph for the terminal."""
        text = (
            f"Ingested {self.root}: {counted(self.files_seen, 'file')} seen, {self.added} added, "
            f"{self.updated} updated, {self.removed} removed, {self.unchanged} unchanged, "
            f"{len(self.skipped)} skipped; {counted(self.chunks_written, 'chunk')} written"
            + (f" ({counted(self.chunks_reused, 'unchanged chunk')} kept)"
               if self.chunks_reused else "")
            + f", {self.total_chunks} in the store; {self.seconds:.1f} s."
        )
        if self.rebuilt:
            text += " Every file was re-embedded: the index was built by an older docent."
        if self.skipped:
            text += " Skipped: " + "; ".join(f"{f} ({why})" for f, why in self.skipped) + "."
        if self.suspicious:
            what = "left out of the index" if self.dropped_suspicious else "indexed anyway"
            text += (
                f"\n{counted(len(self.suspicious), 'line')} "
                f"{'looks' if len(self.suspicious) == 1 else 'look'} like secrets or injected "
                "instructions "
                f"({what}; DOCENT_DROP_SUSPICIOUS_LINES):"
                + "".join(f"\n  {file}:{f.line}: {f.kind}: {f.excerpt}"
                          for file, f in self.suspicious)
            )
        return text


def doc_files(root: Path) -> Iterator[Path]:
    """Doc files (`docent.formats.SUFFIXES`) under `root`, sorted, leaving out hidden
    folders such as .git. A symbolic link to no file is one too: reading it fails, and
    the summary says so, instead of the page vanishing unnoticed."""
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root)
        if any(part.startswith(".") for part in rel.parts[:-1]):
            continue
        if path.suffix.lower() in SUFFIXES and (
                path.is_file() or path.is_symlink() and not path.exists()):
            yield path


def ingest_embedder(settings: Settings) -> MiniLMEmbedder:
    """The embedder ingestion runs with: its batch size, one onnxruntime thread per model
    run (`DOCENT_INGEST_THREADS` runs go side by side, see `docent.ingestion.pipeline`)."""
    return MiniLMEmbedder(batch_size=settings.ingest_batch_size, threads=1)


def _decode(data: bytes, fmt: Format) -> tuple[str | None, str]:
    """A file's text, or None and the reason. An HTML page that is not UTF-8 is read in
    the charset its `<meta>` declares (`docent.formats.charset`)."""
    declared = meta_charset(data) if fmt.name == "html" else None
    try:
        text = decode(data, declared)
    except UnicodeDecodeError as exc:
        why = not_utf8(exc)
        if fmt.name == "html":
            why += " and no <meta charset> names its charset"
        return None, why
    if not text.strip():
        return None, "empty file"
    return text, ""


@dataclass
class _Run:
    """One ingestion's fixed inputs."""

    settings: Settings
    store: DocStore
    embedder: Embedder
    source_root: str
    base_url: str | None
    page_urls: dict[str, str]
    known: dict[str, str]
    report: IngestReport


def ingest_path(
    path: str | Path,
    settings: Settings,
    *,
    reset: bool = False,
    store: DocStore | None = None,
    embedder: Embedder | None = None,
    progress: bool = True,
    base_url: str | None = None,
    page_urls: Mapping[str, str] | None = None,
) -> IngestReport:
    """Bring the store in step with the doc files under `path`; bad files are skipped and
    reported. Deep links are a file's URL in `page_urls` (by relative path: a crawled
    site), else `base_url` (default `DOCENT_DOCS_BASE_URL`) and the file's path. One
    ingestion at a time writes an embedded store: another waits for it (`_one_at_a_time`)."""
    root = Path(path).expanduser()
    if not root.exists():
        raise IngestError(f"docs path not found: {root} (pass a folder of doc files)")
    embedded = store is None and settings.chroma_url is None  # the store under data_dir
    with _one_at_a_time(settings) if embedded else nullcontext():
        return _ingest(root, settings, reset, store, embedder, progress, base_url, page_urls,
                       embedded)


# The formats docent reads, as its messages list them: ".md, .markdown, ... or .htm".
_KINDS = ", ".join(SUFFIXES[:-1]) + " or " + SUFFIXES[-1]


def _no_doc_files(root: Path) -> str:
    found_files = (p.relative_to(root) for p in root.rglob("*") if p.is_file())
    others = sorted(rel.as_posix() for rel in found_files
                    if not any(part.startswith(".") for part in rel.parts))
    found = (f"; it holds {counted(len(others), 'other file')}, such as {others[0]}"
             if others else "")
    return f"no doc files in {root}: docent ingests {_KINDS} files{found}"


@contextmanager
def _one_at_a_time(settings: Settings) -> Iterator[None]:
    """Hold the data dir's ingestion lock, waiting (and saying so) while another process
    holds it: two ingestions writing one embedded store at once failed with SQLite's
    "database is locked" halfway through. The second then runs against what the first
    wrote, so it has little left to do."""
    from filelock import FileLock, Timeout

    settings.data_dir.mkdir(parents=True, exist_ok=True)
    lock = FileLock(settings.data_dir / INGEST_LOCK)
    try:
        lock.acquire(timeout=0)
    except Timeout:
        log.warning("another docent ingest is writing %s; waiting for it to finish",
                    settings.data_dir)
        lock.acquire()
    try:
        yield
    finally:
        lock.release()


def _ingest(
    root: Path, settings: Settings, reset: bool, store: DocStore | None,
    embedder: Embedder | None, progress: bool, base_url: str | None,
    page_urls: Mapping[str, str] | None, embedded: bool,
) -> IngestReport:
    started = time.perf_counter()
    single = root.is_file()
    files = [root] if single else list(doc_files(root))
    base = root.parent if single else root
    embedder = embedder or ingest_embedder(settings)
    if not files:
        # A wrong path, or docs in a format docent does not read, is said so (and never
        # empties the index with --reset); a folder emptied on purpose still removes what
        # was ingested from it.
        if reset:
            raise IngestError(_no_doc_files(root))
        store = store if store is not None else open_store(settings, embedder)
        if not store.files(str(base.resolve())):
            raise IngestError(_no_doc_files(root))
    if store is None:
        if reset:  # before opening: the old collection may come from another model
            drop_collection(settings)
        store = open_store(settings, embedder)
    elif reset:
        store.reset()
    report = IngestReport(root=str(root), files_seen=len(files),
                          dropped_suspicious=settings.drop_suspicious_lines)
    source_root = str(base.resolve())
    known = store.files(source_root)
    # An index without this version's answer-unit vectors: embed every file again.
    report.rebuilt = bool(known) and store.units_version() != UNITS_VERSION
    if base_url is None and settings.docs_base_url:
        base_url = str(settings.docs_base_url)
    run = _Run(settings, store, embedder, source_root, base_url, dict(page_urls or {}), known,
               report)
    completed = False
    try:
        if progress and not sys.stderr.isatty():
            sys.stderr.write(f"ingest: reading {counted(len(files), 'file')}\n")
        present: set[str] = set()
        work: list[FileWork] = []
        for file in files:
            rel = file.relative_to(base).as_posix()
            present.add(rel)
            planned = _plan(run, file, rel)
            if planned is not None:
                work.append(planned)
        _embed(run, work, progress)
        gone = [] if single else sorted(set(known) - present)
        if gone:
            store.delete_files(gone, source_root)
            report.removed += len(gone)
        completed = True
    finally:
        changed = bool(report.added or report.updated or report.removed)
        # Written last, after every chunk, so a reader never pairs new data with an old index.
        if changed:
            fingerprint = new_fingerprint()
            if completed:
                _save_keyword_index(settings, store, fingerprint)
            # A rebuild cut short leaves old chunks without unit vectors: keep the old
            # version so the next run rebuilds again.
            store.touch(units_version=UNITS_VERSION if completed or not report.rebuilt else None,
                        fingerprint=fingerprint)
    if changed and embedded:
        persist_vector_index(settings)  # so readers open the store without writing to it
    report.total_chunks = store.count()
    report.seconds = time.perf_counter() - started
    return report


def _save_keyword_index(settings: Settings, store: DocStore, fingerprint: str) -> None:
    """Save the keyword index of the store's final contents under the fingerprint about to
    be written, so a server that sees the fingerprint finds the index ready: at 100,000
    chunks loading it takes seconds, building it a minute or more."""
    try:
        keyword_store.save(KeywordIndex(store.all_chunks()), keyword_store.index_dir(settings),
                           fingerprint)
    except OSError as exc:  # the index is only a head start: a server builds its own
        log.warning("could not save the keyword index", extra={"detail": str(exc)[:500]})


def _plan(run: _Run, file: Path, rel: str) -> FileWork | None:
    """What a file needs: None when it is unchanged or has no content (then its old chunks,
    if any, are removed here); else its chunks, split into those to embed and those kept."""
    report, store = run.report, run.store
    try:
        data = file.read_bytes()
    except OSError as exc:
        # Content unknown: keep whatever was ingested from it before.
        why = (f"a symbolic link to {os.readlink(file)}, which does not exist"
               if file.is_symlink() and not file.exists() else
               f"unreadable: {exc.strerror or exc}")
        report.skipped.append((rel, why))
        return None
    digest = hashlib.sha256(data).hexdigest()
    if run.known.get(rel) == digest and not report.rebuilt:
        report.unchanged += 1
        return None
    chunks, reason = _chunks(run, data, rel)
    if not chunks:
        report.skipped.append((rel, reason))
        if rel in run.known:
            store.delete_files([rel], run.source_root)
            report.removed += 1
        return None
    work = FileWork(rel=rel, digest=digest, n_chunks=len(chunks), fresh=chunks,
                    place={c.chunk_id: i for i, c in enumerate(chunks)})
    if rel in run.known:
        report.updated += 1
        stored = store.file_chunks(rel, run.source_root)
        new_ids = {c.chunk_id for c in chunks}
        work.stale = [i for i in stored if i not in new_ids]
        if not report.rebuilt:
            same = [c.chunk_id for c in chunks if stored.get(c.chunk_id) == c]
            with_units = store.with_units(same)
            work.kept = [i for i in same if i in with_units]
            kept = set(work.kept)
            work.fresh = [c for c in chunks if c.chunk_id not in kept]
            report.chunks_reused += len(kept)
    else:
        report.added += 1
    return work


def _chunks(run: _Run, data: bytes, rel: str) -> tuple[list[Chunk], str]:
    """A file's chunks, or none and the reason."""
    # A file named on the command line is read as markdown whatever its name.
    fmt = format_of(rel) or FORMATS[".md"]
    text, reason = _decode(data, fmt)
    if text is None:
        if format_of(rel) is None:  # "report.pdf": a document docent cannot read as text
            reason += f"; docent reads {_KINDS} files, so convert it to one of them"
        return [], reason
    drop = run.settings.drop_suspicious_lines
    try:
        if fmt.screen_source:
            text = fmt.convert(_screen(text, rel, run.report, drop))
        else:
            text = _screen(fmt.convert(text), rel, run.report, drop)
    except Exception as exc:  # noqa: BLE001 - one odd page never stops the ingestion
        return [], f"could not be converted from {fmt.name} ({type(exc).__name__})"
    chunks = chunk_markdown(
        text, rel, count_tokens=run.embedder.count_tokens,
        max_tokens=run.settings.chunk_max_tokens, base_url=run.base_url,
        url=run.page_urls.get(rel),
    )
    return chunks, "" if chunks else "no content besides headings and page chrome"


def _embed(run: _Run, work: list[FileWork], progress: bool) -> None:
    """Embed and write the planned files' new chunks."""
    total = sum(len(w.fresh) for w in work)
    bar = ChunkProgress(total) if progress and total else None

    def finished(done: FileWork) -> None:
        run.report.chunks_written += done.n_chunks - len(done.kept)

    queue = EmbeddingQueue(
        run.store, run.embedder, run.source_root,
        on_embedded=bar.update if bar is not None else (lambda n: None),
        on_finished=finished, parallel=run.settings.ingest_threads,
    )
    try:
        for each in work:
            queue.add(each)
        queue.close()
    finally:
        queue.shutdown()
        if bar is not None:
            bar.close()


def _screen(text: str, rel: str, report: IngestReport, drop: bool) -> str:
    """Report the lines that look like secrets or injected instructions; drop them if asked."""
    findings = find_suspicious(text)
    report.suspicious += [(rel, f) for f in findings]
    return without_lines(text, findings) if drop and findings else text
