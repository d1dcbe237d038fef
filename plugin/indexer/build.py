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
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np

from codecite import __version__
from codecite.config.model import DEFAULT_EXAMPLE_DIRS, CodeciteConfig, load_config
from codecite.errors import CodeciteError, ConfigError, IndexIntegrityError
from codecite.indexer.corpus import Corpus, CorpusFile, FileRole, walk_corpus
from codecite.retrievers.tokenizer import TokenizerSettings, tokenize
from codecite.store.files import (
    FORMAT_VERSION,
    MANIFEST,
    NODES,
    REBUILD_FIX,
    SYMBOLS,
    check_replaceable,
    checksum_files,
    read_manifest,
    read_verified,
    recover_index,
    staging_dir,
    swap_in,
    verify_files,
    write_bytes_hashed,
    write_json,
    write_marker,
)
from codecite.store.lock import Journal, build_lock
from codecite.store.records import collector_paused
from codecite.store.reuse import (
    CODE_KINDS,
    REUSE_FILES,
    Keys,
    NewRows,
    NodeTerms,
    OldRows,
    assemble,
    merge_runs,
    mining_rows,
    node_keys,
)
from codecite.store.seal import SEAL, seal, verifies
from codecite.store.symbols import SymbolTable

logger = logging.getLogger(__name__)
DOC_SUFFIXES = (".md", ".markdown", ".rst", ".txt")  # other named root docs read as Markdown
# Bumped whenever parsing, tagging or the derived tables change what a build yields, so
# that a build never reuses nodes or tables made by older rules.
PARSER_VERSION = 17  # 7: glossary terms are sections; 8: whole names mined; 9: share 1.0;
# 10: module docstrings carry refs; 11: `f.__doc__ = "..."` is f's docstring; 12: notebooks;
# 13: gallery scripts are pages; 14: add_newdoc(module, name, doc) documents a symbol;
# 15: `# ## Title` comments in gallery scripts are headings; 16: add_newdoc(name, doc);
# 17: add_newdoc with implicitly concatenated strings
Progress = Callable[[str, int, int], None]


@dataclass
class FileResult:
    """What one file contributed: nodes, their keys and terms, namespace, warnings.

    A re-parsed file has ``records`` and ``tokens``; a reused one has its
    undecoded ``chunk`` of ``nodes.jsonl`` (one line per node) and the
    ``rows`` of the previous term arrays. Both have ``keys`` (one per node).
    """

    rel: str
    digest: str
    records: list[dict[str, Any]] = field(default_factory=list)
    tokens: list[list[str]] = field(default_factory=list)
    namespace: dict[str, Any] | None = None
    namespace_line: bytes | None = None
    warnings: list[str] = field(default_factory=list)
    keys: Keys = field(default_factory=Keys)  # empty for a reused file: see ``rows``
    chunk: bytes | None = None
    rows: OldRows | None = None
    redacted: int = 0  # secret values replaced by placeholders (codecite.indexer.redaction)

    @property
    def count(self) -> int:
        return self.rows.stop - self.rows.start if self.rows is not None else len(self.keys)


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
        return FileResult(
            file.rel,
            file.digest,
            warnings=[
                f"{file.rel}: could not be parsed ({type(exc).__name__}); indexed without nodes"
            ],
        )


def _parse_file(file: CorpusFile, cfg: CodeciteConfig) -> FileResult:
    # imported here: the parsers make LlamaIndex nodes, and importing llama_index.core
    # (0.75 s) is most of a build that finds nothing changed
    from codecite.indexer.redaction import redact_secrets
    from codecite.node_parsers.docs import parse_doc, parse_markdown
    from codecite.node_parsers.python import module_name_for, parse_python_source
    from codecite.node_parsers.recipes import parse_recipe

    result = FileResult(file.rel, file.digest)
    text = _decode(file, result.warnings)
    if cfg.redact_secrets:  # before any parser: nodes, terms, symbols, vectors see placeholders
        redacted = redact_secrets(text, file.rel)
        text, result.redacted = redacted.text, redacted.count
    if not text.strip() and not file.rel.endswith(("__init__.py", "__init__.pyi")):
        result.warnings.append(f"{file.rel}: empty file; nothing to index")
    if file.role is FileRole.PYTHON:
        module = module_name_for(file.rel, cfg.package_dirs)
        parsed = parse_python_source(text.encode("utf-8"), file.rel, module, cfg.include_private)
        nodes = parsed.nodes
        result.namespace = parsed.namespace.to_json()
        if parsed.partial:
            result.warnings.append(
                f"{file.rel}: syntax errors near line(s) "
                f"{', '.join(map(str, parsed.error_lines[:5]))}; "
                "partially parsed"
            )
        result.warnings += [f"{file.rel}: {w}" for w in parsed.warnings]
        if file.rel.split("/", 1)[0] in DEFAULT_EXAMPLE_DIRS:
            from codecite.node_parsers.scripts import example_page

            page = example_page(text, file.rel, max_chars=cfg.max_section_chars)
            if page is not None:  # a gallery page: its docstring opens the page's first
                # section, and its variables (`tips = load_dataset(...)`) are not API
                nodes = [
                    n
                    for n in nodes
                    if n.metadata["kind"] != "module_doc"
                    and n.metadata.get("symbol_type") != "assignment"
                ] + page
    elif file.role is FileRole.RECIPE:
        nodes, _info = parse_recipe(text, file.rel, max_chars=cfg.max_section_chars)
    elif file.rel.lower().endswith(".ipynb"):
        from codecite.node_parsers.notebooks import NotebookError, parse_notebook

        try:
            nodes = parse_notebook(text, file.rel, max_chars=cfg.max_section_chars)
        except NotebookError as exc:
            nodes = []
            result.warnings.append(f"{file.rel}: {exc}; not indexed")
    else:
        nodes = (
            parse_doc(text, file.rel, max_chars=cfg.max_section_chars)
            if file.rel.lower().endswith(DOC_SUFFIXES)
            else parse_markdown(text, file.rel, max_chars=cfg.max_section_chars)
        )
    for node in nodes:
        meta = dict(node.metadata)
        tag_node(meta, node.text, cfg)
        result.records.append({"id": node.node_id, "text": node.text, "metadata": meta})
        result.tokens.append(tokenize(node.text))
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


# -- previous index ----------------------------------------------------------------------


def _reusable_manifest(cfg: CodeciteConfig) -> tuple[dict[str, Any] | None, str | None]:
    """The previous manifest when its settings match this build's and every index file
    verifies, else None; and, for an index found damaged or untrusted, what was found."""
    if not cfg.index_path.exists():
        return None, None
    try:
        manifest = read_manifest(cfg.index_path)
    except (CodeciteError, OSError, ValueError) as exc:
        return None, str(exc)
    if (
        manifest.get("config_digest") != cfg.digest()
        or manifest.get("tokenizer") != TokenizerSettings().to_json()
        or manifest.get("parser_version") != PARSER_VERSION
    ):
        return None, None
    if not cfg.trust_index_from_elsewhere and not verifies(manifest):
        return None, (
            f"index at '{cfg.index_path}' was not built here (its keyed digest does not verify)"
        )
    try:
        verify_files(cfg.index_path, manifest)
    except (CodeciteError, OSError) as exc:
        return None, str(exc)
    return manifest, None


@dataclass
class Previous:
    """The previous index, undecoded: per-file results, its keys and term arrays."""

    files: dict[str, FileResult]
    keys: Keys
    terms: NodeTerms


def _previous(cfg: CodeciteConfig, manifest: dict[str, Any]) -> Previous | None:
    """The previous index's per-file results, to reuse unchanged files."""
    path = cfg.index_path
    try:
        blobs = {rel: read_verified(path, manifest, rel) for rel in (NODES, SYMBOLS, *REUSE_FILES)}
        data = blobs[NODES]
        keys = Keys.load(path, blobs)
        terms = NodeTerms.load(path, blobs)
        namespaces = read_symbols(blobs[SYMBOLS], path / SYMBOLS)
        counts = [(int(info["nodes"]), int(info["bytes"])) for info in manifest["files"].values()]
    except (CodeciteError, OSError, ValueError, TypeError, KeyError, AttributeError) as exc:
        logger.info("previous index not reusable (%s); full build", exc)
        return None
    total = sum(n for n, _ in counts)
    if (
        len(keys) != total
        or terms.size != total
        or data.count(b"\n") != total
        or len(data) != sum(size for _, size in counts)
    ):
        return None  # the manifest does not describe these files
    per_file: dict[str, FileResult] = {}
    start = offset = 0
    for (rel, info), (count, size) in zip(manifest["files"].items(), counts, strict=True):
        chunk = data[offset : offset + size]
        if size and not chunk.endswith(b"\n"):
            return None
        per_file[rel] = FileResult(
            rel,
            info["digest"],
            warnings=list(info.get("warnings", [])),
            chunk=chunk,
            rows=OldRows(start, start + count),
            redacted=int(info.get("redacted", 0)),
        )
        start, offset = start + count, offset + size
    for ns, line in namespaces:
        if ns.get("source_path") in per_file:
            per_file[ns["source_path"]].namespace = ns
            per_file[ns["source_path"]].namespace_line = line
    return Previous(per_file, keys, terms)


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
        old_manifest, damage = (None, None) if full else _reusable_manifest(cfg)
        corpus = walk_corpus(cfg, known=old_manifest.get("files") if old_manifest else None)
        if (
            old_manifest is not None
            and old_manifest.get("fingerprint") == corpus.fingerprint
            and embed is None
        ):
            return _report(cfg, corpus, old_manifest, True, 0, started)
        manifest, reparsed = _update(cfg, corpus, old_manifest, embed, progress, journal)
    return _report(cfg, corpus, manifest, False, reparsed, started, damage)


def _update(
    cfg: CodeciteConfig,
    corpus: Corpus,
    old_manifest: dict[str, Any] | None,
    embed: Any,
    progress: Progress | None,
    journal: Journal,
) -> tuple[dict[str, Any], int]:
    """Parse what changed and write the new index; (manifest, files re-parsed).

    A function of its own so that the per-file tables are freed before the
    garbage collector is switched back on (it would otherwise scan them all).
    """
    previous = _previous(cfg, old_manifest) if old_manifest is not None else None
    results, reparsed = _parse_all(corpus, cfg, previous.files if previous else {}, progress)
    return _write(cfg, corpus, results, previous, embed, progress, journal), reparsed


def _parse_all(
    corpus: Corpus, cfg: CodeciteConfig, old: dict[str, FileResult], progress: Progress | None
) -> tuple[list[FileResult], int]:
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


def _write(
    cfg: CodeciteConfig,
    corpus: Corpus,
    results: list[FileResult],
    previous: Previous | None,
    embed: Any,
    progress: Progress | None,
    journal: Journal,
) -> dict[str, Any]:
    from codecite.indexer.tables import annotate_public, write_derived  # retrieval-side tables

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
        )
        manifest = _manifest(cfg, corpus, results, [len(c) for c in chunks], keys, derived)
        manifest["checksums"] = checksum_files(tmp, known={NODES: nodes_digest})
        manifest[SEAL] = seal(manifest)
        write_marker(tmp, [*manifest["checksums"], MANIFEST])
        write_json(tmp / MANIFEST, manifest)
        swap_in(tmp, cfg.index_path, journal)
    return manifest


def _new_rows(fr: FileResult) -> NewRows:
    k = fr.keys
    pairs = [
        mining_rows(*row) for row in zip(k.kind, k.symbol, k.docstring, fr.tokens, strict=True)
    ]
    return NewRows(fr.tokens, [p for p, _ in pairs], [i for _, i in pairs])


# symbols.json holds one module a line, so a reused file's namespace is copied as it is:
# {"modules": {
# "pkg.mod": {...},
# ...
# }}
_SYMBOLS_HEAD, _SYMBOLS_TAIL = b'{"modules": {\n', b"\n}}\n"


def write_symbols(table: SymbolTable, results: list[FileResult]) -> bytes:
    raw = {id(fr.namespace): fr.namespace_line for fr in results if fr.namespace is not None}
    lines = [
        raw.get(id(ns))
        or json.dumps(module, ensure_ascii=False).encode("utf-8")
        + b": "
        + json.dumps(ns, ensure_ascii=False).encode("utf-8")
        for module, ns in table.modules.items()
    ]
    return _SYMBOLS_HEAD + b",\n".join(lines) + _SYMBOLS_TAIL


def read_symbols(data: bytes, path: Path) -> list[tuple[dict[str, Any], bytes]]:
    """(namespace, its line) for every module of a ``symbols.json`` written by this build."""
    modules = json.loads(data).get("modules", {})
    lines = data[len(_SYMBOLS_HEAD) : -len(_SYMBOLS_TAIL)].split(b",\n") if modules else []
    if not data.startswith(_SYMBOLS_HEAD) or len(lines) != len(modules):
        raise IndexIntegrityError(
            f"index file '{path}' is not laid out one module a line; {REBUILD_FIX}"
        )
    return list(zip(modules.values(), lines, strict=True))


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


def _manifest(
    cfg: CodeciteConfig,
    corpus: Corpus,
    results: list[FileResult],
    sizes: list[int],
    keys: Keys,
    derived: dict[str, Any],
) -> dict[str, Any]:
    from codecite.indexer.redaction import RedactionSummary

    kinds = Counter(keys.kind)
    workflows = Counter(w or "none" for w in keys.workflow)
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
        "node_count": len(keys),
        "counts": {
            "by_kind": dict(sorted(kinds.items())),
            "by_workflow": dict(sorted(workflows.items())),
        },
        "files": {
            fr.rel: {
                "digest": fr.digest,
                "nodes": fr.count,
                "bytes": size,
                **stats.get(fr.rel, {}),
                "warnings": fr.warnings,
                "redacted": fr.redacted,
            }
            for fr, size in zip(results, sizes, strict=True)
        },
        "redaction": RedactionSummary(
            cfg.redact_secrets,
            {  # what `codecite stats` counts
                fr.rel: fr.redacted for fr in results if fr.redacted
            },
        ).to_json(),
        "skipped": [{"path": s.rel, "reason": s.reason.value} for s in corpus.skipped],
        "warnings": [w for fr in results for w in fr.warnings],
        **derived,
    }


def _report(
    cfg: CodeciteConfig,
    corpus: Corpus,
    manifest: dict[str, Any],
    up_to_date: bool,
    reparsed: int,
    started: float,
    damage: str | None = None,
) -> BuildReport:
    skipped: dict[str, list[str]] = {}
    for s in corpus.skipped:
        skipped.setdefault(s.reason.value, []).append(s.rel)
    return BuildReport(
        index_dir=cfg.index_path,
        up_to_date=up_to_date,
        files=len(corpus.files),
        reparsed=reparsed,
        nodes=int(manifest.get("node_count", 0)),
        kinds=dict(manifest.get("counts", {}).get("by_kind", {})),
        skipped=skipped,
        warnings=list(manifest.get("warnings", [])),
        seconds=time.perf_counter() - started,
        fingerprint=corpus.fingerprint,
        repaired=damage,
        embedding=manifest.get("embedding"),
    )
