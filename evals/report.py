"""A Markdown reproducibility record of an index and, optionally, its evaluation.

It follows the reproducibility checklist of docs/evaluation.md: versions,
the indexed repository's git commit and dirty state, Python and OS, the
build command and config digest, the manifest summary, embeddings (provider
and model only, never a key or endpoint), the eval command, suites and
metrics, and representative outputs kept for later comparison.
"""

from __future__ import annotations

import logging
import platform
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .harness import EvalReport
from .render import breakdown_table, overall_table
from .runs import item_of
from .suite import Suite

logger = logging.getLogger(__name__)
EXAMPLE_QUERIES = 3
EXAMPLE_TOP = 3
EMBEDDING_KEYS = ("backend", "provider", "model", "dimension")


def _git(root: Path, *args: str) -> str | None:
    try:
        done = subprocess.run(
            ["git", "-C", str(root), *args], capture_output=True, text=True, timeout=10, check=False
        )
    except (OSError, subprocess.SubprocessError) as exc:
        logger.info("git unavailable: %s", exc)
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def git_state(root: Path) -> dict[str, Any]:
    """Commit and dirty flag of the repository at ``root`` (``None`` without git)."""
    commit = _git(root, "rev-parse", "HEAD")
    if commit is None:
        return {"commit": None, "dirty": None}
    status = _git(root, "status", "--porcelain", "--untracked-files=no")
    return {"commit": commit, "dirty": bool(status) if status is not None else None}


def build_command(config: Any, manifest: dict[str, Any]) -> str:
    """The ``codecite build`` invocation that reproduces this index."""
    parts = ["codecite", "build", str(config.root)]
    if config.source:
        parts += ["--config", str(config.source)]
    if config.index_dir != ".codecite":
        parts += ["--index-dir", str(config.index_dir)]
    emb = manifest.get("embedding") or {}
    if emb:
        parts.append("--embed")
        for flag, key in (("--embed-backend", "backend"), ("--embed-model", "model")):
            if emb.get(key):
                parts += [flag, str(emb[key])]
    return " ".join(parts)


def embedding_line(manifest: dict[str, Any]) -> str:
    """Embedding provider and model only (a whitelist, so no secret can leak)."""
    emb = manifest.get("embedding")
    if not emb:
        return "off (lexical retrieval only)"
    return "on: " + ", ".join(f"{k} {emb[k]}" for k in EMBEDDING_KEYS if emb.get(k) is not None)


def _counts(counts: dict[str, int]) -> str:
    return ", ".join(f"{k} {v}" for k, v in sorted(counts.items())) or "none"


def environment_section(index: Any) -> list[str]:
    from codecite import __version__

    git = git_state(index.config.root)
    dirty = {None: "", True: "; dirty (uncommitted changes)", False: "; clean"}[git["dirty"]]
    return [
        "## Environment",
        "",
        f"- codecite: {__version__}",
        f"- repository: `{index.config.root}`",
        f"- git commit: {git['commit'] or 'unknown (not a git checkout or no git)'}{dirty}",
        f"- Python: {platform.python_version()} ({sys.implementation.name})",
        f"- OS: {platform.platform()}",
        "",
    ]


def index_section(index: Any) -> list[str]:
    m, cfg = index.manifest, index.config
    counts = m.get("counts", {})
    registry = sorted(cfg.registry)
    return [
        "## Index",
        "",
        f"- build command: `{build_command(cfg, m)}`",
        f"- config: {cfg.source or 'defaults (no settings file)'}; digest "
        f"`{m.get('config_digest')}` (current `{cfg.digest()}`)",
        f"- manifest: format {m.get('format_version')}, built by codecite "
        f"{m.get('codecite_version')}, created {m.get('created')}",
        f"- nodes: {m.get('node_count')} from {len(m.get('files', {}))} files",
        f"- by kind: {_counts(counts.get('by_kind', {}))}",
        f"- by workflow: {_counts(counts.get('by_workflow', {}))}",
        f"- fingerprint: `{m.get('fingerprint')}`",
        "- sources: "
        + (
            "STALE: the files changed since this build (the record is the index's, not the "
            "working tree's); run `codecite build` and write it again"
            if index.is_stale()
            else "fresh (the indexed files are as built)"
        ),
        f"- embeddings: {embedding_line(m)}",
        f"- project registry: {', '.join(registry) if registry else 'none'}"
        + (f" (from {cfg.registry_file})" if cfg.registry_file else ""),
        "",
    ]


def eval_section(report: EvalReport) -> list[str]:
    lines = [
        "## Evaluation",
        "",
        f"- command: `{report.command or 'codecite eval'}`",
        f"- k: {report.k} (MRR and hit@10 over the top {report.top})",
    ]
    lines += [f"- suite `{path}`: {count} records" for _, path, count in report.suites]
    lines += [f"- note: {n}" for n in report.notes]
    lines += ["", "```text", overall_table(report), "```", ""]
    for section in ("suites", "kinds"):
        if len(report.metrics[report.primary][section]) > 1:
            lines += [
                f"By {section[:-1]} ({report.primary}):",
                "",
                "```text",
                breakdown_table(report, section),
                "```",
                "",
            ]
    flagged = [o for o in report.outcomes[report.primary] if o.violations]
    lines += [
        f"- guard violation: {o.record.query!r} retrieved {', '.join(o.violations)}"
        for o in flagged
    ]
    return lines + ([""] if flagged else [])


def examples_section(index: Any, suites: Sequence[Suite], k: int = EXAMPLE_TOP) -> list[str]:
    """Top results of the first few suite queries, for comparison with later runs."""
    records = [r for s in suites for r in s.records][:EXAMPLE_QUERIES]
    lines = ["## Representative query outputs", ""]
    for record in records:
        ctx = index.query(record.query, k=k)
        lines.append(f"- `{record.query}` (workflow: {ctx.workflow or 'none'})")
        items = [item_of(n) for n in ctx.nodes] or None
        lines += [
            f"  {i}. {it.label} score {it.score:.3f}" for i, it in enumerate(items or [], 1)
        ] or ["  (no evidence)"]
    return [*lines, ""]


def reproducibility_report(
    index: Any, *, eval_report: EvalReport | None = None, suites: Sequence[Suite] = ()
) -> str:
    """The Markdown record for ``index`` (and ``eval_report`` / ``suites`` when given)."""
    lines = ["# codecite reproducibility record", ""]
    lines += environment_section(index)
    lines += index_section(index)
    if eval_report is not None:
        lines += eval_section(eval_report)
    if suites:
        lines += examples_section(index, suites)
    return "\n".join(lines).rstrip() + "\n"
