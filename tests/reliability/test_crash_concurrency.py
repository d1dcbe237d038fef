"""Issue 6.4: killed builds, interrupted builds, concurrent builds, readers during builds.

- A build killed (SIGKILL) at any stage leaves the previous index loadable,
  unchanged, and the next build cleans up after it.
- ``KeyboardInterrupt`` inside the writer (even between the two renames of the
  swap) leaves the previous index in place; the CLI says so and exits 130.
- Two builds on one index are serialized by the lock file: the second fails
  with one clear line, or waits with ``--wait``.
- A reader loading in a loop while another process rebuilds with changing
  content always gets one whole built version, or ``IndexIntegrityError``.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from reliability_support import cli, cli_inproc, copy_sample

import codecite
from codecite import store
from codecite.errors import IndexIntegrityError


def _node_ids(root: Path) -> list[tuple[str, str]]:
    return sorted((n.node_id, n.get_content()) for n in codecite.load(root).nodes)


def _leftovers(root: Path) -> list[str]:
    return sorted(p.name for p in root.glob(".codecite.*"))


# A child build that stops at one stage (module attribute, n-th call) and says "ready".
STOPPER = """
import importlib, os, sys, time
root, module, attr, nth = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
target = importlib.import_module(module)
orig = getattr(target, attr)
calls = [0]
def stop(*a, **k):
    calls[0] += 1
    if calls[0] == nth:
        print("ready", flush=True)
        time.sleep(60)
    return orig(*a, **k)
setattr(target, attr, stop)
import codecite.builder as b
b.build_index(root, full=True)
"""

STAGES = {
    "walk": ("codecite.builder", "walk_corpus", 1),
    "reuse_tables": ("codecite.builder", "assemble", 1),
    "bm25_save": ("codecite.indexing", "save_bm25_arrays", 1),
    "derived_tables": ("codecite.indexing", "write_derived", 1),
    "checksum": ("codecite.builder", "checksum_files", 1),
    "manifest": ("codecite.builder", "write_json", 1),
    "between_renames": ("os", "replace", 2),     # old index retired, new one not yet in
    "old_index_cleanup": ("shutil", "rmtree", 1),  # new index in, old one not yet removed
}


@pytest.mark.parametrize("stage", sorted(STAGES))
def test_build_killed_at_any_stage(sample_repo: Path, stage: str) -> None:
    codecite.build(sample_repo)
    before = _node_ids(sample_repo)
    (sample_repo / "geokit" / "phase.py").write_text('def changed():\n    """Changed."""\n')
    proc = subprocess.Popen([sys.executable, "-c", STOPPER, str(sample_repo),
                             *map(str, STAGES[stage])], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=10)
    after = _node_ids(sample_repo)  # loadable without any repair step by the user
    if stage == "old_index_cleanup":
        assert "geokit.phase.changed" in str(after)  # the new index was already in place
    else:
        assert after == before
    report = codecite.build(sample_repo)  # the dead build's lock is taken over
    assert report.nodes > 0 and "geokit.phase.changed" in str(_node_ids(sample_repo))
    assert _leftovers(sample_repo) == []


def test_keyboard_interrupt_inside_the_writer(sample_repo: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    codecite.build(sample_repo)
    before = _node_ids(sample_repo)
    (sample_repo / "geokit" / "phase.py").write_text('def changed():\n    """Changed."""\n')

    def interrupt(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr("codecite.builder.checksum_files", interrupt)
    with pytest.raises(KeyboardInterrupt):
        codecite.build(sample_repo)
    assert _node_ids(sample_repo) == before and _leftovers(sample_repo) == []
    code, _, err = cli_inproc("build", str(sample_repo))
    assert code == 130 and err == "codecite build: interrupted; the previous index is intact\n"
    assert _node_ids(sample_repo) == before and _leftovers(sample_repo) == []


def test_keyboard_interrupt_between_the_renames(sample_repo: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    codecite.build(sample_repo)
    before = _node_ids(sample_repo)
    (sample_repo / "geokit" / "phase.py").write_text('def changed():\n    """Changed."""\n')
    real_replace = os.replace
    calls = []

    def replace(src: str | os.PathLike[str], dst: str | os.PathLike[str]) -> None:
        calls.append(dst)
        if len(calls) == 2:  # staged -> index: the previous index is already retired
            raise KeyboardInterrupt
        real_replace(src, dst)

    monkeypatch.setattr(store.os, "replace", replace)
    with pytest.raises(KeyboardInterrupt):
        codecite.build(sample_repo)
    monkeypatch.setattr(store.os, "replace", real_replace)
    assert _node_ids(sample_repo) == before and _leftovers(sample_repo) == []


HOLDER = """
import sys, time
import codecite.builder as b
orig = b.parse_file
first = [True]
def slow(*a, **k):
    if first[0]:
        first[0] = False
        print("ready", flush=True)
        time.sleep(float(sys.argv[2]))
    return orig(*a, **k)
b.parse_file = slow
b.build_index(sys.argv[1], full=True)
print(f"done {time.time()}", flush=True)
"""


def test_two_real_builds_are_serialized(sample_repo: Path) -> None:
    codecite.build(sample_repo)
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(sample_repo), "4"],
                              stdout=subprocess.PIPE, text=True)
    assert holder.stdout is not None and holder.stdout.readline().strip() == "ready"
    second = cli("build", str(sample_repo), "--full")
    assert second.returncode == 1 and second.stdout == ""
    assert second.stderr == (
        f"codecite build: another build (pid {holder.pid}) is writing the index at "
        f"'{sample_repo / '.codecite'}'; wait for it, or run `codecite build --wait`, or "
        f"remove '{sample_repo / '.codecite.lock'}' if no build is running\n")
    waiting = cli("build", str(sample_repo), "--full", "--wait")
    finished = time.time()
    holder_done = float(holder.stdout.readline().split()[1])
    holder.wait(timeout=30)
    assert waiting.returncode == 0, waiting.stderr
    assert waiting.stdout.startswith("built ") and finished >= holder_done
    assert not store.lock_path(sample_repo / ".codecite").exists()
    assert _leftovers(sample_repo) == []


# -- readers during rebuilds ------------------------------------------------------------

VERSIONS = [
    'def alpha():\n    """Alpha."""\n',
    'def beta():\n    """Beta."""\n',                         # same node count as alpha
    'def gamma():\n    """Gamma."""\n\n\ndef delta():\n    """Delta."""\n',
    'class Epsilon:\n    """Epsilon."""\n\n    def run(self):\n        """Run."""\n',
]

REBUILDER = """
import json, sys, time
from pathlib import Path
import codecite
root, versions, seconds = Path(sys.argv[1]), json.loads(sys.argv[2]), float(sys.argv[3])
end, n = time.monotonic() + seconds, 0
while time.monotonic() < end:
    (root / "geokit" / "extra.py").write_text(versions[n % len(versions)])
    codecite.build(root)
    n += 1
print(n, flush=True)
"""


def _version_table(tmp_path: Path) -> dict[str, frozenset[str]]:
    """Fingerprint -> node ids of every version the rebuilder writes."""
    root = copy_sample(tmp_path / "versions")
    table = {}
    for text in VERSIONS:
        (root / "geokit" / "extra.py").write_text(text)
        codecite.build(root)
        index = codecite.load(root)
        table[index.manifest["fingerprint"]] = frozenset(n.node_id for n in index.nodes)
    assert len(set(table.values())) == len(VERSIONS)
    return table


def test_reader_never_sees_a_mix(sample_repo: Path, tmp_path: Path) -> None:
    versions = _version_table(tmp_path)
    (sample_repo / "geokit" / "extra.py").write_text(VERSIONS[0])
    codecite.build(sample_repo)
    writer = subprocess.Popen([sys.executable, "-c", REBUILDER, str(sample_repo),
                               json.dumps(VERSIONS), "4"], stdout=subprocess.PIPE, text=True)
    loads, retryable, seen = 0, 0, set()
    while writer.poll() is None:
        try:
            index = codecite.load(sample_repo, check_stale=False)
        except IndexIntegrityError:
            retryable += 1
            continue
        loads += 1
        fingerprint = index.manifest["fingerprint"]
        ids = frozenset(n.node_id for n in index.nodes)
        assert versions[fingerprint] == ids  # nodes and manifest of one and the same build
        assert int(index.bm25.scores["num_docs"]) == len(ids) == index.manifest["node_count"]
        assert index.query("alpha beta gamma delta epsilon", k=3) is not None
        seen.add(fingerprint)
    assert writer.returncode == 0
    builds = int(writer.stdout.read())  # type: ignore[union-attr]
    print(f"{builds} builds, {loads} consistent loads, {retryable} retryable errors")
    assert builds >= 8 and loads >= 10 and len(seen) >= 2, (builds, loads, retryable, seen)
