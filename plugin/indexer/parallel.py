"""Parsing on every core: the files a build re-parses, shared among worker processes.

Parsing is per file and is most of a full build (pyCSAMT: about two thirds), so a
build with many files to parse hands them to a pool of forked workers, one per
core (at most ``MAX_WORKERS``), and takes their results back in corpus order: the
index is byte-identical to a build in one process (tests/test_build.py). A worker
sends each result back as JSON text (node records, tokens, namespace, warnings),
never as a pickled object; the parent rebuilds the node keys from the records.

A worker that dies (killed for memory, say) never hangs the build: the files it
did not return are parsed in the build's own process. Fewer than ``PARALLEL_FROM``
files, ``build_workers = 1``, or a platform without ``fork`` parse in the build's
own process, as a one-file build does.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from codecite.config import CodeciteConfig
from codecite.indexer.corpus import CorpusFile
from codecite.store.reuse import Keys, node_keys

from .file_result import FileResult

logger = logging.getLogger(__name__)

PARALLEL_FROM = 64  # files to parse; below this a pool's start-up costs more than it saves
MAX_WORKERS = 4  # past this, the parent's share (decoding, writing) dominates
Parse = Callable[[CorpusFile, CodeciteConfig], FileResult]

_job: tuple[Parse, CodeciteConfig] | None = None  # a worker's parser and configuration


def workers_for(cfg: CodeciteConfig, files: int) -> int:
    """How many processes parse ``files`` files: ``build_workers``, or one per core."""
    if files < PARALLEL_FROM or sys.platform != "linux":
        return 1  # fork is the one start method that needs nothing pickled to a worker
    if cfg.build_workers:
        return cfg.build_workers
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return max(1, min(cores or 1, MAX_WORKERS))


def parse_many(
    files: Sequence[CorpusFile], cfg: CodeciteConfig, parse: Parse
) -> Iterator[FileResult]:
    """``parse(file, cfg)`` of every file, in order; in worker processes when worth it."""
    workers = workers_for(cfg, len(files))
    if workers <= 1:
        for file in files:
            yield parse(file, cfg)
        return
    import multiprocessing  # here: a one-file build never starts a pool (about 25 ms)
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    done = 0
    context = multiprocessing.get_context("fork")
    start = (parse, cfg, os.getpid())
    with ProcessPoolExecutor(workers, context, initializer=_start, initargs=start) as pool:
        try:
            for text in pool.map(_parse_encoded, files, chunksize=4):
                yield _decoded(files[done], text)
                done += 1
        except BrokenProcessPool:  # a worker was killed (out of memory?): never a hang
            logger.warning(
                "a parse worker stopped; parsing the other %d files in this process",
                len(files) - done,
            )
    for file in files[done:]:
        yield parse(file, cfg)


def _start(parse: Parse, cfg: CodeciteConfig, parent: int) -> None:
    """A worker's set-up: its job, and its end with the build's process. A build killed
    by SIGKILL or SIGTERM runs no clean-up, and its workers, blocked on the task queue,
    would live on (holding the caller's pipes) without the parent-death signal."""
    global _job
    _job = (parse, cfg)
    _die_with(parent)


def _die_with(parent: int) -> None:
    """Ask Linux to send this process SIGTERM when its parent ends (PR_SET_PDEATHSIG)."""
    import ctypes
    import signal

    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # 1: PR_SET_PDEATHSIG
    if os.getppid() != parent:  # the build died before the signal was asked for
        os._exit(1)


def _parse_encoded(file: CorpusFile) -> str:
    assert _job is not None, "a parse worker runs only in a pool started by parse_many"
    parse, cfg = _job
    result = parse(file, cfg)
    return json.dumps(
        {
            "records": result.records,
            "tokens": result.tokens,
            "namespace": result.namespace,
            "warnings": result.warnings,
            "redacted": result.redacted,
        },
        ensure_ascii=False,
    )


def _decoded(file: CorpusFile, text: str) -> FileResult:
    data: dict[str, Any] = json.loads(text)
    records = data["records"]
    return FileResult(
        file.rel,
        file.digest,
        records=records,
        # one object per distinct token, as the tokenizer's cache gives a build in one
        # process: JSON makes a string for every occurrence (pyCSAMT: 593,000 strings for
        # 22,000 tokens; a full build of 98,500 nodes peaked at 1,355 MB so, 1,018 MB now)
        tokens=[list(map(sys.intern, node)) for node in data["tokens"]],
        namespace=data["namespace"],
        warnings=data["warnings"],
        keys=Keys.of(node_keys(r["metadata"]) for r in records),
        redacted=data["redacted"],
    )


__all__ = ["MAX_WORKERS", "PARALLEL_FROM", "parse_many", "workers_for"]
