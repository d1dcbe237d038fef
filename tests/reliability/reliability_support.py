"""Helpers shared by the reliability tests: node records per file, CLI runs, copies."""

from __future__ import annotations

import io
import json
import shutil
import subprocess
import sys
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

FIXTURE_REPO = Path(__file__).resolve().parents[1] / "fixtures" / "sample_repo"


def copy_sample(dest: Path) -> Path:
    """A fresh copy of the fixture repository at ``dest``."""
    shutil.copytree(FIXTURE_REPO, dest, ignore=shutil.ignore_patterns(".codecite*"))
    return dest


def records_by_file(root: Path, index_dir: str = ".codecite") -> dict[str, list[str]]:
    """Every stored node record (id, text, metadata) of the index, grouped by source file."""
    out: dict[str, list[str]] = {}
    with (root / index_dir / "nodes.jsonl").open(encoding="utf-8") as fh:
        for line in fh:
            rec = json.loads(line)
            out.setdefault(rec["metadata"]["source_path"], []).append(
                json.dumps(rec, sort_keys=True)
            )
    return {path: sorted(recs) for path, recs in out.items()}


def cli(
    *args: str,
    cwd: Path | None = None,
    timeout: float = 120,
    env: dict[str, str] | None = None,
    **kwargs: Any,
) -> subprocess.CompletedProcess[str]:
    """``codecite ARGS`` in a real process."""
    return subprocess.run(
        [sys.executable, "-m", "codecite", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        **kwargs,
    )


def cli_inproc(*args: str) -> tuple[int, str, str]:
    """``codecite ARGS`` in this process (fast): exit code, stdout, stderr."""
    from codecite.cli import main

    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(list(args))
    return code, out.getvalue(), err.getvalue()


def _fake_vector(text: str, dim: int = 16) -> list[float]:
    import hashlib

    vec = [0.0] * dim
    for word in text.lower().split():
        h = int.from_bytes(hashlib.sha256(word.encode()).digest()[:4], "little")
        vec[h % dim] += 1.0
    return vec


def _fake_embedding_class() -> type:
    from llama_index.core.base.embeddings.base import BaseEmbedding

    class FakeEmbedding(BaseEmbedding):
        """A deterministic in-process embedding (hashed bag of words); no network."""

        def _get_query_embedding(self, query: str) -> list[float]:
            return _fake_vector(query)

        def _get_text_embedding(self, text: str) -> list[float]:
            return _fake_vector(text)

        async def _aget_query_embedding(self, query: str) -> list[float]:
            return _fake_vector(query)

    return FakeEmbedding


FakeEmbedding = _fake_embedding_class()
