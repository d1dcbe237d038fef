"""``codecite build``: files -> nodes -> index on disk, incremental and atomic.

Only files whose content digest changed are re-parsed; nodes of deleted files
are dropped; everything else (node lines, term counts, keys, namespaces,
vectors) is reused without decoding it, and the corpus-wide tables are
recomputed from arrays (see ``codecite.store.reuse``).
"""

from __future__ import annotations

import bisect
import json
import logging
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from codecite.config import CodeciteConfig, load_config
from codecite.config.packages import no_package_found
from codecite.errors import ConfigError
from codecite.indexer.corpus import Corpus, CorpusFile
from codecite.indexer.walk import walk_corpus
from codecite.node_parsers.dispatch import parse_text, read_text
from codecite.retrievers.tokenizer import code_node_tokens, tokenize
from codecite.store.files import (
    MANIFEST,
    NODES,
    SYMBOLS,
    Manifest,
    checksum_files,
    write_bytes_hashed,
    write_manifest,
)
from codecite.store.lock import Journal, build_lock
from codecite.store.ownership import (
    check_replaceable,
    recover_index,
    staging_dir,
    swap_in,
    write_marker,
)
from codecite.store.records import collector_paused
from codecite.store.reuse import Keys, mining_rows, node_keys
from codecite.store.seal import sealed_text
from codecite.store.symbols import SymbolTable
from codecite.vocabulary import CODE_KINDS

from .file_result import FileResult
from .manifest import build_manifest
from .parallel import parse_many
from .previous import Previous, load_previous, reusable_manifest, verify_previous
from .symbols_file import write_symbols

if TYPE_CHECKING:
    from codecite.store.term_counts import NewRows

logger = logging.getLogger(__name__)
Progress = Callable[[str, int, int], None]


@dataclass
class BuildReport:
    """The summary ``codecite build`` prints."""

    index_dir: Path
    up_to_date: bool
    files: int
    reparsed: int
    nodes: int
    kinds: dict[str, int]
    skipped: dict[str, list[str]]
    warnings: list[str]
    seconds: float
    fingerprint: str
    repaired: str | None = None  # the damage found in the previous index, rebuilt in full
    embedding: dict[str, Any] | None = None  # the manifest's entry (``stale`` when some are)


def parse_file(file: CorpusFile, cfg: CodeciteConfig) -> FileResult:
    """Parse one corpus file into node records (id, text, metadata) and tokens.

    Which parser reads the file, and how, is ``codecite.node_parsers.dispatch``.
    A parser failure on one file (a bug, or input beyond what a parser can take)
    becomes a warning and no nodes for that file; it never stops the build.
    """
    try:
        return _parse_file(file, cfg)
    except Exception as exc:  # isolate one file's failure from the rest of the corpus
        logger.warning("%s: parser failed (%s)", file.rel, type(exc).__name__, exc_info=True)
        return FileResult(
            file.rel,
            file.digest,
            warnings=[
                f"{file.rel}: could not be parsed ({type(exc).__name__}); indexed without nodes"
            ],
        )


def _parse_file(file: CorpusFile, cfg: CodeciteConfig) -> FileResult:
    from codecite.indexer.redaction import redact_secrets

    result = FileResult(file.rel, file.digest)
    text = read_text(file, result.warnings)
    if cfg.redact_secrets:  # before any parser: nodes, terms, symbols, vectors see placeholders
        redacted = redact_secrets(text, file.rel)
        text, result.redacted = redacted.text, redacted.count
    parsed = parse_text(text, file, cfg)
    result.namespace = parsed.namespace
    result.warnings += parsed.warnings
    for node in parsed.nodes:
        meta = dict(node.metadata)
        tag_node(meta, node.text, cfg)
        result.records.append({"id": node.node_id, "text": node.text, "metadata": meta})
        code = meta.get("kind") in CODE_KINDS  # its doctest examples add each term once
        result.tokens.append(code_node_tokens(node.text) if code else tokenize(node.text))
    result.keys = Keys.of(node_keys(r["metadata"]) for r in result.records)
    return result


def tag_node(meta: dict[str, Any], text: str, cfg: CodeciteConfig) -> None:
    """Workflow tag and static priority from the configuration (in place)."""
    meta["priority"] = cfg.priority_for(meta["source_path"])
    if meta.get("kind") == "recipe" and meta.get("workflow"):
        return
    meta["workflow"] = infer_node_workflow(meta, text, cfg)


def infer_node_workflow(meta: dict[str, Any], text: str, cfg: CodeciteConfig) -> str | None:
    """First workflow (file order) whose keyword occurs; then path fragments."""
    if not cfg.workflows:
        return None
    hay = f"{meta['source_path']} {meta.get('symbol') or ''} {text}".lower()
    for rule in cfg.workflows:
        if any(k in hay for k in rule.keywords):
            return rule.name
    for rule in cfg.workflows:
        if any(p in meta["source_path"] for p in rule.paths):
            return rule.name
    return None


# -- the build ------------------------------------------------------------------------------


def build_index(
    root: str | Path = ".",
    *,
    full: bool = False,
    config_file: str | Path | None = None,
    index_dir: str | None = None,
    wait: bool = False,
    progress: Progress | None = None,
    cfg: CodeciteConfig | None = None,
    embed: Any = None,
) -> BuildReport:
    """Build or update the index of the repository at ``root``.

    Example:
        >>> report = build_index("path/to/repo")            # doctest: +SKIP
        >>> report.nodes, report.up_to_date                 # doctest: +SKIP
    """
    started = time.perf_counter()
    cfg = cfg or load_config(root, config_file, index_dir=index_dir)
    check_replaceable(cfg.index_path)  # before the lock file is made beside it
    with build_lock(cfg.index_path, wait=wait) as journal, collector_paused():
        recover_index(cfg.index_path, journal, clean=True)
        check_replaceable(cfg.index_path)
        old_manifest, damage = (None, None) if full else reusable_manifest(cfg)
        corpus = walk_corpus(cfg, known=old_manifest.get("files") if old_manifest else None)
        if (
            old_manifest is not None
            and old_manifest.get("fingerprint") == corpus.fingerprint
            and embed is None
        ):
            damage = verify_previous(cfg, old_manifest)
            if damage is None:
                return _report(cfg, corpus, old_manifest, True, 0, started)
            old_manifest = None
        manifest, reparsed, found = _update(cfg, corpus, old_manifest, embed, progress, journal)
    return _report(cfg, corpus, manifest, False, reparsed, started, damage or found)


def _update(
    cfg: CodeciteConfig,
    corpus: Corpus,
    old_manifest: Manifest | None,
    embed: Any,
    progress: Progress | None,
    journal: Journal,
) -> tuple[dict[str, Any], int, str | None]:
    """Parse what changed and write the new index; (manifest, files re-parsed, the
    damage found in the previous index's files, which makes the build full).

    A function of its own so that the per-file tables are freed before the
    garbage collector is switched back on (it would otherwise scan them all).
    """
    previous, damage = load_previous(cfg, old_manifest) if old_manifest else (None, None)
    results, reparsed = _parse_all(corpus, cfg, previous.files if previous else {}, progress)
    calibration = (old_manifest or {}).get("calibration") if previous is not None else None
    manifest = _write(cfg, corpus, results, previous, embed, progress, journal, calibration)
    return manifest, reparsed, damage


def _parse_all(
    corpus: Corpus, cfg: CodeciteConfig, old: dict[str, FileResult], progress: Progress | None
) -> tuple[list[FileResult], int]:
    def reusable(file: CorpusFile) -> FileResult | None:
        prev = old.get(file.rel)
        return prev if prev is not None and prev.digest == file.digest else None

    todo = [file for file in corpus.files if reusable(file) is None]
    parsed = parse_many(todo, cfg, parse_file)  # in corpus order, on every core if worth it
    results, total = [], len(corpus.files)
    for i, file in enumerate(corpus.files, 1):
        results.append(reusable(file) or next(parsed))
        if progress is not None:
            progress("parsing", i, total)
    return results, len(todo)


def _write(
    cfg: CodeciteConfig,
    corpus: Corpus,
    results: list[FileResult],
    previous: Previous | None,
    embed: Any,
    progress: Progress | None,
    journal: Journal,
    calibration: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Write the new index; ``calibration`` is the previous one, kept if still valid."""
    import numpy as np  # here and below, not at import: a build with nothing to do needs none

    from codecite.indexer.calibration import keep_previous
    from codecite.indexer.tables import annotate_public, write_derived  # retrieval-side tables
    from codecite.store.lines import LINES, line_table, save_line_table
    from codecite.store.term_counts import assemble, merge_runs

    terms = assemble(
        [fr.rows or _new_rows(fr) for fr in results], previous.terms if previous else None
    )
    if not terms.doc_ids.size:  # bm25 cannot index an empty vocabulary
        raise ConfigError(
            f"nothing to index in '{cfg.root}': {len(corpus.files)} files under "
            f"roots {', '.join(cfg.roots) or '(none)'} yield no searchable text "
            f"({len(corpus.skipped)} skipped); check roots, suffixes and exclude "
            "in [tool.codecite]"
        )
    keys = Keys.concat(
        merge_runs([fr.rows or fr.keys for fr in results]), previous.keys if previous else None
    )
    before = list(keys.public)
    table = SymbolTable.of_names(
        [fr.namespace for fr in results if fr.namespace],
        (s for k, s in zip(keys.kind, keys.symbol, strict=True) if k in CODE_KINDS and s),
    )
    annotate_public(keys, table)
    flipped = [
        i for i, (old, new) in enumerate(zip(before, keys.public, strict=True)) if old != new
    ]
    starts = np.cumsum([0] + [fr.count for fr in results]).tolist()[:-1]
    chunks = [
        _node_chunk(fr, start, keys.public, flipped)
        for fr, start in zip(results, starts, strict=True)
    ]
    with staging_dir(cfg.index_path, journal) as tmp:
        nodes_digest = write_bytes_hashed(tmp / NODES, chunks)
        known = [  # a reused file's unchanged lines keep their digests
            previous.lines[fr.rows.start : fr.rows.stop]
            if previous is not None and fr.rows is not None and chunk is fr.chunk
            else None
            for fr, chunk in zip(results, chunks, strict=True)
        ]
        save_line_table(tmp / LINES, line_table(chunks, known))
        terms.save(tmp)
        keys.save(tmp)
        (tmp / SYMBOLS).write_bytes(write_symbols(table, results))  # symbols come from nodes
        derived = write_derived(
            tmp,
            cfg,
            keys,
            terms,
            table,
            lambda: [json.loads(line) for c in chunks for line in c.split(b"\n")[:-1]],
            embed,
            progress,
            [fr.count for fr in results if fr.count],
            previous.refs if previous is not None else None,
        )
        if not keep_previous(calibration, len(keys)):
            if progress is not None:
                progress("calibrating", 0, 1)
            calibration = calibrate_staged(tmp, results, chunks)
        derived["calibration"] = calibration
        manifest = build_manifest(cfg, corpus, results, [len(c) for c in chunks], keys, derived)
        manifest["checksums"] = checksum_files(tmp, known={NODES: nodes_digest})
        text = sealed_text(manifest)  # and its seal in manifest
        write_marker(tmp, [*manifest["checksums"], MANIFEST])
        write_manifest(tmp, text)
        swap_in(tmp, cfg.index_path, journal)
    return manifest


def calibrate_staged(tmp: Path, results: list[FileResult], chunks: list[bytes]) -> dict[str, Any]:
    """The calibration of the index staged in ``tmp`` (``codecite.indexer.calibration``).

    A file parsed by this build still has its records: only reused files' lines are decoded.
    """
    from codecite.indexer.calibration import calibrate
    from codecite.retrievers.lexical import load_bm25
    from codecite.retrievers.persist import load_parts, record_from_json
    from codecite.retrievers.scorer import LexicalScorer

    nodes = [
        record_from_json(rec)
        for fr, chunk in zip(results, chunks, strict=True)
        for rec in (fr.records if fr.chunk is None else map(json.loads, chunk.split(b"\n")[:-1]))
    ]
    parts = load_parts(tmp, nodes)
    parts["feedback"] = {}  # the probes measure the corpus, not the votes on it
    return calibrate(LexicalScorer(nodes, load_bm25(tmp), **parts), nodes)


def _new_rows(fr: FileResult) -> NewRows:
    from codecite.store.term_counts import NewRows

    k = fr.keys
    pairs = [
        mining_rows(*row) for row in zip(k.kind, k.symbol, k.docstring, fr.tokens, strict=True)
    ]
    return NewRows(fr.tokens, [p for p, _ in pairs], [i for _, i in pairs])


def _node_chunk(fr: FileResult, start: int, public: list[Any], flipped: list[int]) -> bytes:
    """The ``nodes.jsonl`` lines of one file (its nodes start at ``start``).

    A reused file's lines are copied as they are, unless the public flag of
    one of its nodes flipped (``flipped``: node indices), which happens when
    another file's re-exports change; only then are its lines decoded.
    """
    if fr.chunk is None:
        for rec, flag in zip(fr.records, public[start : start + fr.count], strict=True):
            if flag is not None:
                rec["metadata"]["public"] = flag
        return b"".join(
            json.dumps(rec, ensure_ascii=False).encode("utf-8") + b"\n" for rec in fr.records
        )
    mine = flipped[
        bisect.bisect_left(flipped, start) : bisect.bisect_left(flipped, start + fr.count)
    ]
    if not mine:
        return fr.chunk
    lines = fr.chunk.split(b"\n")[:-1]
    for i in mine:
        rec = json.loads(lines[i - start])
        rec["metadata"]["public"] = public[i]
        lines[i - start] = json.dumps(rec, ensure_ascii=False).encode("utf-8")
    return b"".join(line + b"\n" for line in lines)


def _report(
    cfg: CodeciteConfig,
    corpus: Corpus,
    manifest: Mapping[str, Any],
    up_to_date: bool,
    reparsed: int,
    started: float,
    damage: str | None = None,
) -> BuildReport:
    skipped: dict[str, list[str]] = {}
    for s in corpus.skipped:
        skipped.setdefault(s.reason.value, []).append(s.rel)
    kinds = dict(manifest.get("counts", {}).get("by_kind", {}))
    return BuildReport(
        index_dir=cfg.index_path,
        up_to_date=up_to_date,
        files=len(corpus.files),
        reparsed=reparsed,
        nodes=int(manifest.get("node_count", 0)),
        kinds=kinds,
        skipped=skipped,
        warnings=[
            *no_package_found(cfg.root, cfg.packages, any(kinds.get(k) for k in CODE_KINDS)),
            *manifest.get("warnings", []),
        ],
        seconds=time.perf_counter() - started,
        fingerprint=corpus.fingerprint,
        repaired=damage,
        embedding=manifest.get("embedding"),
    )
