"""``codecite build``: files -> nodes -> index on disk, incremental and atomic.

Only files whose content digest changed are re-parsed; nodes of deleted files
are dropped; everything else (nodes, tokens, namespaces, vectors) is reused.
"""

from __future__ import annotations

import logging
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from codecite import __version__
from codecite.config import CodeciteConfig, load_config
from codecite.corpus import Corpus, CorpusFile, FileRole, walk_corpus
from codecite.errors import CodeciteError, ConfigError
from codecite.node_parsers.docs import parse_doc, parse_markdown
from codecite.node_parsers.python import module_name_for, parse_python_source
from codecite.node_parsers.recipes import parse_recipe
from codecite.retrievers.tokenizer import TokenizerSettings, tokenize
from codecite.store import (
    FORMAT_VERSION,
    NODES,
    SYMBOLS,
    TOKENS,
    build_lock,
    checksum_files,
    read_jsonl,
    read_manifest,
    read_token_lines,
    recover_index,
    staging_dir,
    swap_in,
    verify_files,
    write_json,
    write_jsonl,
    write_token_lines,
)
from codecite.symbols import SymbolTable

logger = logging.getLogger(__name__)
DOC_SUFFIXES = (".md", ".markdown", ".rst", ".txt")  # other named root docs read as Markdown
# Bumped whenever parsing, tagging or the derived tables change what a build yields, so
# that a build never reuses nodes or tables made by older rules.
PARSER_VERSION = 4
Progress = Callable[[str, int, int], None]


@dataclass
class FileResult:
    """What one file contributed: node records, token lists, namespace, warnings."""

    rel: str
    digest: str
    records: list[dict[str, Any]] = field(default_factory=list)
    tokens: list[list[str]] = field(default_factory=list)
    namespace: dict[str, Any] | None = None
    warnings: list[str] = field(default_factory=list)


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


def _decode(file: CorpusFile, warnings: list[str]) -> str:
    try:
        return file.content().decode("utf-8")
    except UnicodeDecodeError:
        warnings.append(f"{file.rel}: not valid UTF-8, decoded with replacement characters")
        return file.content().decode("utf-8", errors="replace")


def parse_file(file: CorpusFile, cfg: CodeciteConfig) -> FileResult:
    """Parse one corpus file into node records (id, text, metadata) and tokens.

    A parser failure on one file (a bug, or input beyond what a parser can take)
    becomes a warning and no nodes for that file; it never stops the build.
    """
    try:
        return _parse_file(file, cfg)
    except Exception as exc:  # isolate one file's failure from the rest of the corpus
        logger.warning("%s: parser failed (%s)", file.rel, type(exc).__name__, exc_info=True)
        return FileResult(file.rel, file.digest, warnings=[
            f"{file.rel}: could not be parsed ({type(exc).__name__}); indexed without nodes"])


def _parse_file(file: CorpusFile, cfg: CodeciteConfig) -> FileResult:
    result = FileResult(file.rel, file.digest)
    text = _decode(file, result.warnings)
    if not text.strip() and not file.rel.endswith(("__init__.py", "__init__.pyi")):
        result.warnings.append(f"{file.rel}: empty file; nothing to index")
    if file.role is FileRole.PYTHON:
        module = module_name_for(file.rel, cfg.package_dirs)
        parsed = parse_python_source(text.encode("utf-8"), file.rel, module,
                                     cfg.include_private)
        nodes = parsed.nodes
        result.namespace = parsed.namespace.to_json()
        if parsed.partial:
            result.warnings.append(f"{file.rel}: syntax errors near line(s) "
                                   f"{', '.join(map(str, parsed.error_lines[:5]))}; "
                                   "partially parsed")
        result.warnings += [f"{file.rel}: {w}" for w in parsed.warnings]
    elif file.role is FileRole.RECIPE:
        nodes, _info = parse_recipe(text, file.rel, max_chars=cfg.max_section_chars)
    else:
        nodes = parse_doc(text, file.rel, max_chars=cfg.max_section_chars) \
            if file.rel.lower().endswith(DOC_SUFFIXES) \
            else parse_markdown(text, file.rel, max_chars=cfg.max_section_chars)
    for node in nodes:
        meta = dict(node.metadata)
        tag_node(meta, node.text, cfg)
        result.records.append({"id": node.node_id, "text": node.text, "metadata": meta})
        result.tokens.append(tokenize(node.text))
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


# -- previous index ----------------------------------------------------------------------

def _reusable_manifest(cfg: CodeciteConfig) -> dict[str, Any] | None:
    """The previous manifest when its settings match this build's, else None."""
    try:
        manifest = read_manifest(cfg.index_path)
    except (CodeciteError, OSError, ValueError):
        return None
    if manifest.get("config_digest") != cfg.digest() or \
            manifest.get("tokenizer") != TokenizerSettings().to_json() or \
            manifest.get("parser_version") != PARSER_VERSION:
        return None
    return manifest


def _previous(cfg: CodeciteConfig,
              manifest: dict[str, Any]) -> tuple[dict[str, Any], dict[str, FileResult]] | None:
    """The previous index's per-file results, to reuse unchanged files."""
    try:
        verify_files(cfg.index_path, manifest, only=(NODES, TOKENS, SYMBOLS))
        records = read_jsonl(cfg.index_path / NODES)
        tokens = read_token_lines(cfg.index_path / TOKENS)
        symbols = SymbolTable.load(cfg.index_path / SYMBOLS)
    except (CodeciteError, OSError, ValueError) as exc:
        logger.info("previous index not reusable (%s); full build", exc)
        return None
    if len(records) != len(tokens):
        return None
    per_file: dict[str, FileResult] = {}
    for rel, info in manifest.get("files", {}).items():
        per_file[rel] = FileResult(rel, info["digest"], warnings=list(info.get("warnings", [])))
    for rec, toks in zip(records, tokens, strict=True):
        fr = per_file.get(rec["metadata"]["source_path"])
        if fr is not None:
            fr.records.append(rec)
            fr.tokens.append(toks)
    for ns in symbols.modules.values():
        if ns.get("source_path") in per_file:
            per_file[ns["source_path"]].namespace = ns
    return manifest, per_file


# -- the build ------------------------------------------------------------------------------

def build_index(root: str | Path = ".", *, full: bool = False,
                config_file: str | Path | None = None,
                index_dir: str | None = None, wait: bool = False,
                progress: Progress | None = None, cfg: CodeciteConfig | None = None,
                embed: Any = None) -> BuildReport:
    """Build or update the index of the repository at ``root``.

    Example:
        >>> report = build_index("path/to/repo")            # doctest: +SKIP
        >>> report.nodes, report.up_to_date                 # doctest: +SKIP
    """
    started = time.perf_counter()
    cfg = cfg or load_config(root, config_file, index_dir=index_dir)
    with build_lock(cfg.index_path, wait=wait):
        recover_index(cfg.index_path, clean=True)
        old_manifest = None if full else _reusable_manifest(cfg)
        corpus = walk_corpus(cfg, known=old_manifest.get("files") if old_manifest else None)
        if old_manifest is not None and old_manifest.get("fingerprint") == corpus.fingerprint \
                and embed is None:
            return _report(cfg, corpus, old_manifest, True, 0, started)
        previous = _previous(cfg, old_manifest) if old_manifest is not None else None
        old_files = previous[1] if previous else {}
        results, reparsed = _parse_all(corpus, cfg, old_files, progress)
        manifest = _write(cfg, corpus, results, embed, progress)
    return _report(cfg, corpus, manifest, False, reparsed, started)


def _parse_all(corpus: Corpus, cfg: CodeciteConfig, old: dict[str, FileResult],
               progress: Progress | None) -> tuple[list[FileResult], int]:
    results, reparsed = [], 0
    total = len(corpus.files)
    for i, file in enumerate(corpus.files, 1):
        prev = old.get(file.rel)
        if prev is not None and prev.digest == file.digest:
            results.append(prev)
        else:
            results.append(parse_file(file, cfg))
            reparsed += 1
        if progress is not None:
            progress("parsing", i, total)
    return results, reparsed


def _write(cfg: CodeciteConfig, corpus: Corpus, results: list[FileResult], embed: Any,
           progress: Progress | None) -> dict[str, Any]:
    from codecite.indexing import annotate_public, write_derived  # retrieval-side tables

    records = [r for fr in results for r in fr.records]
    tokens = [t for fr in results for t in fr.tokens]
    if not any(tokens):  # bm25 cannot index an empty vocabulary
        raise ConfigError(f"nothing to index in '{cfg.root}': {len(corpus.files)} files under "
                          f"roots {', '.join(cfg.roots) or '(none)'} yield no searchable text "
                          f"({len(corpus.skipped)} skipped); check roots, suffixes and exclude "
                          "in [tool.codecite]")
    table = SymbolTable.from_parts([fr.namespace for fr in results if fr.namespace],
                                   (r["metadata"] for r in records))
    annotate_public(records, table)
    with staging_dir(cfg.index_path) as tmp:
        write_jsonl(tmp / NODES, records)
        write_token_lines(tmp / TOKENS, tokens)
        write_json(tmp / SYMBOLS, {"modules": table.modules})  # symbols come from nodes
        derived = write_derived(tmp, cfg, records, tokens, table, embed, progress)
        manifest = _manifest(cfg, corpus, results, records, derived)
        manifest["checksums"] = checksum_files(tmp)
        write_json(tmp / "manifest.json", manifest)
        swap_in(tmp, cfg.index_path)
    return manifest


def _manifest(cfg: CodeciteConfig, corpus: Corpus, results: list[FileResult],
              records: list[dict[str, Any]], derived: dict[str, Any]) -> dict[str, Any]:
    kinds = Counter(r["metadata"]["kind"] for r in records)
    workflows = Counter(r["metadata"].get("workflow") or "none" for r in records)
    stats = {f.rel: f.stat_entry() for f in corpus.files}
    return {
        "format_version": FORMAT_VERSION,
        "codecite_version": __version__,
        "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "root": str(cfg.root),
        "config_source": cfg.source,
        "config_digest": cfg.digest(),
        "tokenizer": TokenizerSettings().to_json(),
        "parser_version": PARSER_VERSION,
        "fingerprint": corpus.fingerprint,
        "node_count": len(records),
        "counts": {"by_kind": dict(sorted(kinds.items())),
                   "by_workflow": dict(sorted(workflows.items()))},
        "files": {fr.rel: {"digest": fr.digest, "nodes": len(fr.records),
                           **stats.get(fr.rel, {}),
                           "warnings": fr.warnings} for fr in results},
        "skipped": [{"path": s.rel, "reason": s.reason.value} for s in corpus.skipped],
        "warnings": [w for fr in results for w in fr.warnings],
        **derived,
    }


def _report(cfg: CodeciteConfig, corpus: Corpus, manifest: dict[str, Any], up_to_date: bool,
            reparsed: int, started: float) -> BuildReport:
    skipped: dict[str, list[str]] = {}
    for s in corpus.skipped:
        skipped.setdefault(s.reason.value, []).append(s.rel)
    return BuildReport(
        index_dir=cfg.index_path, up_to_date=up_to_date, files=len(corpus.files),
        reparsed=reparsed, nodes=int(manifest.get("node_count", 0)),
        kinds=dict(manifest.get("counts", {}).get("by_kind", {})), skipped=skipped,
        warnings=list(manifest.get("warnings", [])),
        seconds=time.perf_counter() - started, fingerprint=corpus.fingerprint)
