"""``codecite build`` and ``codecite stats``: make or update the index, show what it holds.

Build progress is a tqdm bar per stage (parsing, embedding) on stderr, drawn only
when stderr is a terminal; piped or captured output carries no progress at all.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from codecite.cli.shared import EXIT_OK, Command, add_common_options, load_index


def _configure_build(p: argparse.ArgumentParser) -> None:
    p.add_argument("root_pos", nargs="?", metavar="PATH", help="repository root")
    add_common_options(p)
    p.add_argument("--full", action="store_true", help="re-parse every file")
    p.add_argument("--wait", action="store_true", help="wait for a running build to finish")
    p.add_argument("--embed", action="store_true", help="also embed nodes (dense retrieval)")
    p.add_argument("--embed-backend", default=None, help="openai or local")
    p.add_argument("--embed-model", default=None, help="embedding model name")
    p.add_argument("--json", action="store_true", help="print the report as JSON")


_UNITS = {"parsing": "file", "embedding": "node", "evaluating": "question"}  # what a stage counts


class _StageBars:
    """A ``build_index`` progress callback: one tqdm bar per stage, closed when the
    stage completes or a new stage starts."""

    def __init__(self) -> None:
        self._stage: str | None = None
        self._bar: Any = None

    def __call__(self, stage: str, done: int, total: int) -> None:
        from tqdm import tqdm

        if stage != self._stage or self._bar is None:
            self.close()
            self._stage = stage
            self._bar = tqdm(total=total, desc=stage, unit=_UNITS.get(stage, "it"), file=sys.stderr)
        self._bar.update(done - self._bar.n)
        if done >= total:
            self.close()

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None


@contextmanager
def stage_bars() -> Iterator[_StageBars | None]:
    """Stage bars when stderr is a terminal, else None (no progress output)."""
    if not sys.stderr.isatty():
        yield None
        return
    bars = _StageBars()
    try:
        yield bars
    finally:
        bars.close()


def cmd_build(args: argparse.Namespace) -> int:
    """``codecite build``: call ``build_index`` on the repository, print its report."""
    from codecite.indexer.build import build_index
    from codecite.indexer.redaction import RedactionSummary

    root = args.root_pos or args.root
    embed = _embed_request(args) if args.embed else None
    with stage_bars() as progress:
        report = build_index(
            root,
            full=args.full,
            config_file=args.config_file,
            index_dir=args.index_dir,
            wait=args.wait,
            progress=progress,
            embed=embed,
        )
    redaction = RedactionSummary.of_index(report.index_dir)
    if args.json:
        print(
            json.dumps({**report.__dict__, "redaction": redaction.to_json()}, default=str, indent=1)
        )
        return EXIT_OK
    if report.up_to_date:
        print(
            f"index is up to date ({report.nodes} nodes from {report.files} files, "
            f"{report.seconds:.2f}s): {report.index_dir}"
        )
        _print_embedding(report.embedding, report.nodes, stale_only=True)
        return EXIT_OK
    if report.repaired:
        print(f"previous index not reused: {report.repaired}; rebuilt it in full")
    print(
        f"built {report.index_dir}: {report.nodes} nodes from {report.files} files "
        f"({report.reparsed} parsed) in {report.seconds:.2f}s"
    )
    print("  by kind: " + ", ".join(f"{k} {v}" for k, v in sorted(report.kinds.items())))
    if redaction.line():  # the whole index's: a reused file keeps its count
        print(f"  {redaction.line()}")
    _print_embedding(report.embedding, report.nodes)
    for reason, paths in sorted(report.skipped.items()):
        shown = ", ".join(paths[:5]) + (f", ... ({len(paths)} in all)" if len(paths) > 5 else "")
        print(f"  skipped ({reason}): {shown}")
    for warning in report.warnings[:20]:
        print(f"  warning: {warning}")
    return EXIT_OK


def _embed_request(args: argparse.Namespace) -> dict[str, Any]:
    # required: --embed that cannot embed fails (exit 1) and leaves the index as it was
    return {"backend": args.embed_backend, "model": args.embed_model, "required": True}


def _print_embedding(info: dict[str, Any] | None, nodes: int, stale_only: bool = False) -> None:
    """The line about vectors: how many nodes lack a current one, else the count."""
    if not info:
        return
    from codecite.dense.vectors import stale_note

    note = stale_note(info, nodes)
    if note is None and not stale_only:
        note = f"embeddings: {info['count']} vectors ({info['backend']} {info['model']})"
    if note is not None:
        print(f"  {note}")


def _configure_stats(p: argparse.ArgumentParser) -> None:
    add_common_options(p)
    p.add_argument("--json", action="store_true", help="print JSON")
    p.add_argument(
        "--verify",
        action="store_true",
        help="also decode and check every record (a query reads only those it returns), "
        "and read every source file again to tell if the index is stale",
    )


def cmd_stats(args: argparse.Namespace) -> int:
    """``codecite stats``: what the index holds, what was skipped and redacted."""
    from codecite.indexer.redaction import RedactionSummary
    from codecite.indexer.walk import walk_corpus
    from codecite.store.opening import stale_fix

    index = load_index(args, check_stale=False)
    stats = index.stats()
    redaction = RedactionSummary.of_manifest(index.manifest)
    stats["redaction"] = redaction.to_json()
    if args.verify:  # a damaged record fails here, with its file, line and field
        stats["verified"] = index.verify()
        # every file read again, none trusted by size and mtime (an edit that kept both)
        stats["stale"] = walk_corpus(index.config).fingerprint != index.manifest.get("fingerprint")
    if args.json:
        print(json.dumps(stats, indent=1))
        return EXIT_OK
    print(
        f"index {stats['index_dir']} (format {stats['format_version']}, codecite "
        f"{stats['codecite_version']}, created {stats['created']})"
    )
    fix = stale_fix(index.manifest.get("root"), index.config.root)
    freshness = f"STALE: {fix}" if stats["stale"] else "fresh"
    print(f"  {stats['nodes']} nodes from {stats['files']} files; {freshness}")
    print(f"  fingerprint {stats['fingerprint']}")
    if args.verify:
        print(f"  verified: all {stats['verified']} records decoded and checked")
    print("  by kind: " + ", ".join(f"{k} {v}" for k, v in stats["by_kind"].items()))
    print("  by workflow: " + ", ".join(f"{k} {v}" for k, v in stats["by_workflow"].items()))
    emb = stats.get("embedding")
    print(
        f"  embeddings: {emb['backend']} {emb['model']} dim {emb['dimension']}"
        if emb
        else "  embeddings: none (lexical only)"
    )
    _print_embedding(emb, stats["nodes"], stale_only=True)
    print(
        f"  doc references resolved: {(stats.get('doc_refs') or {}).get('edges', 0)}; "
        f"mined expansion words: {(stats.get('mined_expansion') or {}).get('words', 0)}"
    )
    print(f"  answer or ask: {calibration_line(stats.get('calibration'), index.config)}")
    print(
        f"  secrets redacted: {redaction.values} in {len(redaction.files)} file(s)"
        if redaction.enabled
        else "  secrets redacted: off (redact_secrets = false)"
    )
    for path, count in redaction.files.items():
        print(f"    {path}: {count}")
    for reason, paths in sorted(stats["skipped"].items()):
        print(f"  skipped ({reason}): {len(paths)}")
        for path in paths[:50]:
            print(f"    {path}")
    for warning in stats["warnings"]:
        print(f"  warning: {warning}")
    return EXIT_OK


def calibration_line(cal: dict[str, Any] | None, cfg: Any) -> str:
    """How this index decides to answer or ask (docs/answers.md, "Calibration")."""
    from codecite.retrievers.evidence import CALIBRATED_COVERAGE_FLOOR, DEFAULT_COVERAGE_FLOOR

    if cfg.confidence_floor is not None:
        return f"confidence_floor {cfg.confidence_floor} configured (the calibration is not used)"
    if not cal:
        return (
            "not calibrated (built by an older codecite: rebuild); "
            f"coverage floor {DEFAULT_COVERAGE_FLOOR:.0%}"
        )
    if cal.get("score_floor") is None:
        return (
            f"only {cal['probes']} questions could be generated from the index: "
            f"coverage floor {DEFAULT_COVERAGE_FLOOR:.0%} alone"
        )
    refused, clarified = cal.get("probes_refused") or 0.0, cal.get("offtopic_clarified") or 0.0
    return (
        f"calibrated on {cal['probes']} questions generated from the index and "
        f"{cal['offtopic_probes']} off-topic ones: score floor {cal['score_floor']:.2f} "
        f"({cal['score_factor']:g} x median {cal['median_probe_score']:.2f}), coverage floor "
        f"{CALIBRATED_COVERAGE_FLOOR:.0%}; asks back on {refused:.0%} of the generated and "
        f"{clarified:.0%} of the off-topic questions"
    )


COMMANDS = (
    Command("build", "build or update the index", _configure_build, cmd_build),
    Command("stats", "show what is indexed and what was skipped", _configure_stats, cmd_stats),
)
