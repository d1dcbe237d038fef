"""Helpers shared by the reliability tests: node records per file, CLI runs, copies."""

from __future__ import annotations

import hashlib
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


def reseal_nodes(index_dir: Path) -> None:
    """After an edit of ``nodes.jsonl``: its line table, both checksums and the seal made
    again with this user's key, as a careful tamperer holding the key would."""
    from codecite.store.lines import line_table, save_line_table
    from codecite.store.seal import sealed_text

    save_line_table(index_dir / "lines.npy", line_table([(index_dir / "nodes.jsonl").read_bytes()]))
    path = index_dir / "manifest.json"
    manifest = json.loads(path.read_text(encoding="utf-8"))
    for rel in ("nodes.jsonl", "lines.npy"):
        manifest["checksums"][rel] = hashlib.sha256((index_dir / rel).read_bytes()).hexdigest()
    path.write_bytes(sealed_text(manifest))


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
    from codecite.cli.app import main

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


# -- as another user: root drops to uid 65534 ('nobody') in a child ----------------------------

# Everything is imported as root first: the interpreter's own files need not be readable
# by 'nobody', only what the command reads after the drop.
AS_NOBODY = """
import os, sys
import codecite.indexer.build, codecite.cli.app, codecite.cli.eval, codecite.index
from codecite.cli.app import main
os.setgid(65534); os.setuid(65534)
sys.exit(main(sys.argv[1:]))
"""


def _others_can_enter(path: Path) -> bool:
    """Every folder from the root down to ``path`` lets other users in (o+x)."""
    import os
    import stat

    return all(os.stat(p).st_mode & stat.S_IXOTH for p in [path, *path.parents])


def nobody_folder() -> Path:
    """A folder every user can enter, with ``home/`` and ``cache/`` owned by nobody (its
    per-user index key lives there); the caller removes it. Skips the test when nobody
    could not read this checkout or its environment (a clone in a 0700 folder): codecite
    and its dependencies import modules lazily, after the drop."""
    import os
    import tempfile

    import pytest

    import codecite

    for needed in (Path(codecite.__file__).resolve().parent, Path(sys.prefix).resolve()):
        if not _others_can_enter(needed):
            pytest.skip(f"'nobody' cannot enter '{needed}' (a folder above it is private)")
    base = Path(tempfile.mkdtemp(prefix="codecite-nobody-"))
    os.chmod(base, 0o755)
    for own in ("home", "cache"):
        (base / own).mkdir()
        os.chown(base / own, 65534, 65534)
    return base


def as_nobody(base: Path, *args: str) -> tuple[int, str, str]:
    """``codecite ARGS`` run as nobody with ``base`` from ``nobody_folder``; skips the test
    when this environment cannot run codecite as nobody at all."""
    import os

    import pytest

    env = {**os.environ, "HOME": str(base / "home"), "XDG_CACHE_HOME": str(base / "cache")}
    run = subprocess.run(
        [sys.executable, "-c", AS_NOBODY, *args],
        env=env,
        cwd=base,
        capture_output=True,
        text=True,
        timeout=120,
    )
    if run.returncode != 0 and (
        "ModuleNotFoundError" in run.stderr or "ImportError" in run.stderr
    ):  # the setup, not codecite
        pytest.skip(f"this environment cannot run codecite as nobody: {run.stderr[-300:]}")
    return run.returncode, run.stdout, run.stderr
