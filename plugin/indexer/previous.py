"""The previous index, as a build reuses it: its manifest, per-file node lines and arrays.

A build reuses the previous index only when its settings (configuration,
tokenizer, ``PARSER_VERSION``) match and every file verifies; an unchanged
file's ``nodes.jsonl`` lines, term rows and namespace line are then copied
without decoding them (see ``codecite.store.reuse``).
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from codecite.config.model import CodeciteConfig
from codecite.errors import CodeciteError, IndexIntegrityError
from codecite.node_parsers.dispatch import PARSER_VERSION
from codecite.retrievers.tokenizer import TokenizerSettings
from codecite.store.files import (
    LINES,
    MANIFEST,
    NODES,
    SYMBOLS,
    Manifest,
    read_manifest_text,
    read_verified,
    verify_files,
)
from codecite.store.reuse import REUSE_FILES, Keys, OldRows
from codecite.store.seal import verifies

from .file_result import FileResult
from .refs import REFS_FILE
from .symbols_file import read_symbols

if TYPE_CHECKING:
    from codecite.store.term_counts import NodeTerms

logger = logging.getLogger(__name__)


def reusable_manifest(cfg: CodeciteConfig) -> tuple[Manifest | None, str | None]:
    """The previous manifest when its settings match this build's and every index file
    is there at its recorded size, else None; and, for an index found damaged or
    untrusted, what was found.

    Contents are checked by whoever reads them: ``load_previous`` (every file a
    changed build reuses), the dense vectors' reader, or ``verify_previous`` when
    nothing changed; so a one-file build hashes each reused file once, not twice.
    """
    if not (cfg.index_path / MANIFEST).exists():  # no index yet (an empty --index-dir too)
        return None, None
    try:
        manifest, text = read_manifest_text(cfg.index_path)
    except (CodeciteError, OSError, ValueError) as exc:
        return None, str(exc)
    if (
        manifest.get("config_digest") != cfg.digest()
        or manifest.get("tokenizer") != TokenizerSettings().to_json()
        or manifest.get("parser_version") != PARSER_VERSION
    ):
        return None, None
    if not cfg.trust_index_from_elsewhere and not verifies(manifest, text):
        return None, (
            f"index at '{cfg.index_path}' was not built here (its keyed digest does not verify)"
        )
    try:
        verify_files(cfg.index_path, manifest, read_later=manifest.get("checksums", {}))
    except (CodeciteError, OSError) as exc:
        return None, str(exc)
    return manifest, None


def verify_previous(cfg: CodeciteConfig, manifest: Manifest) -> str | None:
    """What is wrong with the contents of the index ``reusable_manifest`` accepted, if
    anything: for a build with nothing to do, which reads none of them."""
    try:
        verify_files(cfg.index_path, manifest)
    except (CodeciteError, OSError) as exc:
        return str(exc)
    return None


@dataclass
class Previous:
    """The previous index, undecoded: per-file results, its keys and term arrays."""

    files: dict[str, FileResult]
    keys: Keys
    terms: NodeTerms
    lines: Any  # the line table of nodes.jsonl (codecite.store.lines), a numpy array
    refs: dict[str, Any] | None = None  # its doc-reference resolutions (``indexer.refs``)


def load_previous(cfg: CodeciteConfig, manifest: Manifest) -> tuple[Previous | None, str | None]:
    """The previous index's per-file results, to reuse unchanged files; or None, and
    for a file that fails its checksum, what was found (the build is then full)."""
    from codecite.store.lines import checked_line_table  # numpy: not for a no-change build
    from codecite.store.term_counts import NodeTerms

    path = cfg.index_path
    try:
        wanted = (NODES, LINES, SYMBOLS, *REUSE_FILES)
        blobs = {rel: read_verified(path, manifest, rel) for rel in wanted}
        data = blobs[NODES]
        lines = checked_line_table(path / LINES, blobs[LINES], path / NODES, len(data))
        keys = Keys.load(path, blobs)
        terms = NodeTerms.load(path, blobs)
        namespaces = read_symbols(blobs[SYMBOLS], path / SYMBOLS)
        counts = [(int(info["nodes"]), int(info["bytes"])) for info in manifest["files"].values()]
    except IndexIntegrityError as exc:
        return None, str(exc)
    except (CodeciteError, OSError, ValueError, TypeError, KeyError, AttributeError) as exc:
        logger.info("previous index not reusable (%s); full build", exc)
        return None, None
    total = sum(n for n, _ in counts)
    if (
        len(keys) != total
        or terms.size != total
        or data.count(b"\n") != total
        or len(data) != sum(size for _, size in counts)
    ):
        return None, None  # the manifest does not describe these files
    per_file: dict[str, FileResult] = {}
    start = offset = 0
    for (rel, info), (count, size) in zip(manifest["files"].items(), counts, strict=True):
        chunk = data[offset : offset + size]
        if size and not chunk.endswith(b"\n"):
            return None, None
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
    return Previous(per_file, keys, terms, lines, _previous_refs(cfg, manifest)), None


def _previous_refs(cfg: CodeciteConfig, manifest: Manifest) -> dict[str, Any] | None:
    """The previous build's resolutions, when it wrote them and they verify; else None
    (every reference is then resolved again: slower, never different)."""
    if REFS_FILE not in manifest.get("checksums", {}):
        return None
    try:
        refs = json.loads(read_verified(cfg.index_path, manifest, REFS_FILE))
    except (CodeciteError, OSError, ValueError) as exc:
        logger.info("previous doc-reference resolutions not reusable (%s)", exc)
        return None
    ok = isinstance(refs, dict) and isinstance(refs.get("resolved"), dict)
    return refs if ok else None
