"""``manifest.json`` of a build: versions, settings, per-file entries, counts, warnings.

The per-file entries (digest, node count, byte length of its ``nodes.jsonl``
lines, size and mtime to trust, warnings) are what the next build reuses
(``codecite.indexer.previous``).
"""

from __future__ import annotations

from collections import Counter
from datetime import datetime, timezone
from typing import Any

from codecite import __version__
from codecite.config.model import CodeciteConfig
from codecite.indexer.corpus import Corpus
from codecite.node_parsers.dispatch import PARSER_VERSION
from codecite.retrievers.tokenizer import TokenizerSettings
from codecite.store.files import FORMAT_VERSION
from codecite.store.reuse import Keys

from .file_result import FileResult


def build_manifest(
    cfg: CodeciteConfig,
    corpus: Corpus,
    results: list[FileResult],
    sizes: list[int],
    keys: Keys,
    derived: dict[str, Any],
) -> dict[str, Any]:
    """The manifest of a build, before its checksums and seal are added.

    ``sizes`` are the byte lengths of each file's ``nodes.jsonl`` lines;
    ``derived`` the entries the retrieval-side tables add (``write_derived``).
    """
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
