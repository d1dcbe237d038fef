"""Killed builds, interrupted builds, concurrent builds, readers during builds.

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
import threading
from pathlib import Path

import pytest
from reliability_support import cli, cli_inproc, copy_sample

import codecite
from codecite.errors import IndexIntegrityError
from codecite.store import files as store
from codecite.store.lock import lock_path


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
import codecite.indexer.build as b
b.build_index(root, full=True)
"""

STAGES = {
    "walk": ("codecite.indexer.build", "walk_corpus", 1),
    "reuse_tables": ("codecite.store.term_counts", "assemble", 1),
    "bm25_save": ("codecite.indexer.tables", "save_bm25_arrays", 1),
    "derived_tables": ("codecite.indexer.tables", "write_derived", 1),
    "checksum": ("codecite.indexer.build", "checksum_files", 1),
    "manifest": ("codecite.indexer.build", "write_manifest", 1),
    "between_renames": ("os", "replace", 2),  # old index retired, new one not yet in
    "old_index_cleanup": ("shutil", "rmtree", 1),  # new index in, old one not yet removed
}


@pytest.mark.parametrize("stage", sorted(STAGES))
def test_build_killed_at_any_stage(sample_repo: Path, stage: str) -> None:
    codecite.build(sample_repo)
    before = _node_ids(sample_repo)
    (sample_repo / "geokit" / "phase.py").write_text('def changed():\n    """Changed."""\n')
    proc = subprocess.Popen(
        [sys.executable, "-c", STOPPER, str(sample_repo), *map(str, STAGES[stage])],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=120)  # a hang guard only
    after = _node_ids(sample_repo)  # loadable without any repair step by the user
    if stage == "old_index_cleanup":
        assert "geokit.phase.changed" in str(after)  # the new index was already in place
    else:
        assert after == before
    report = codecite.build(sample_repo)  # the dead build's lock is taken over
    assert report.nodes > 0 and "geokit.phase.changed" in str(_node_ids(sample_repo))
    assert _leftovers(sample_repo) == []


def test_keyboard_interrupt_inside_the_writer(
    sample_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    codecite.build(sample_repo)
    before = _node_ids(sample_repo)
    (sample_repo / "geokit" / "phase.py").write_text('def changed():\n    """Changed."""\n')

    def interrupt(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr("codecite.indexer.build.checksum_files", interrupt)
    with pytest.raises(KeyboardInterrupt):
        codecite.build(sample_repo)
    assert _node_ids(sample_repo) == before and _leftovers(sample_repo) == []
    code, _, err = cli_inproc("build", str(sample_repo))
    assert code == 130 and err == "codecite build: interrupted; no index was changed\n"
    assert _node_ids(sample_repo) == before and _leftovers(sample_repo) == []


def test_keyboard_interrupt_between_the_renames(
    sample_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
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


# A build that holds the lock (stopped at its first parse) until told "go" on stdin.
HOLDER = """
import sys
import codecite.indexer.build as b
orig = b.parse_file
first = [True]
def held(*a, **k):
    if first[0]:
        first[0] = False
        print("ready", flush=True)
        sys.stdin.readline()
    return orig(*a, **k)
b.parse_file = held
b.build_index(sys.argv[1], full=True)
print("done", flush=True)
"""

# `codecite build --wait` that says "blocked" the first time it finds the lock taken.
WAITER = """
import sys
import codecite.store.lock as lock
from codecite.cli.app import main
real = lock._try_lock
told = [False]
def try_lock(fd):
    got = real(fd)
    if not got and not told[0]:
        told[0] = True
        print("blocked", flush=True)
    return got
lock._try_lock = try_lock
sys.exit(main(["build", sys.argv[1], "--full", "--wait"]))
"""


def test_two_real_builds_are_serialized(sample_repo: Path) -> None:
    """The holder keeps the lock until told: no step depends on how fast a process starts."""
    codecite.build(sample_repo)
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(sample_repo)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    waiter = None
    try:
        assert holder.stdout is not None and holder.stdin is not None
        assert holder.stdout.readline().strip() == "ready"
        second = cli("build", str(sample_repo), "--full")
        assert second.returncode == 1 and second.stdout == ""
        assert second.stderr == (
            f"codecite build: another build (pid {holder.pid}) is writing the index at "
            f"'{sample_repo / '.codecite'}'; wait for it, or run `codecite build --wait`\n"
        )
        waiter = subprocess.Popen(
            [sys.executable, "-c", WAITER, str(sample_repo)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert waiter.stdout is not None
        assert waiter.stdout.readline().strip() == "blocked"  # it met the held lock
        holder.stdin.write("go\n")
        holder.stdin.flush()
        assert holder.stdout.readline().strip() == "done"
        assert holder.wait(timeout=120) == 0
        out, err = waiter.communicate(timeout=120)  # hang guards only
        assert waiter.returncode == 0, err
        assert out.startswith("built ")  # after the holder was done: it waited
    finally:
        for proc in (holder, waiter):
            if proc is not None and proc.poll() is None:
                proc.kill()
    assert not lock_path(sample_repo / ".codecite").exists()
    assert _leftovers(sample_repo) == []


# -- readers during rebuilds ------------------------------------------------------------

VERSIONS = [
    'def alpha():\n    """Alpha."""\n',
    'def beta():\n    """Beta."""\n',  # same node count as alpha
    'def gamma():\n    """Gamma."""\n\n\ndef delta():\n    """Delta."""\n',
    'class Epsilon:\n    """Epsilon."""\n\n    def run(self):\n        """Run."""\n',
]

# A writer that runs BUILDS builds, each with the next version of geokit/extra.py, and
# stops twice in each to let the reader load at exactly that point; everything else the
# two processes do overlaps freely. Counts, not seconds, bound the test.
WRITER = """
import json, os, sys
from pathlib import Path
import codecite, codecite.indexer.build as builder
root, versions, builds = Path(sys.argv[1]), json.loads(sys.argv[2]), int(sys.argv[3])
index_dir = (root / ".codecite").resolve()

def pause(stage):
    print(stage, flush=True)
    if sys.stdin.readline().strip() != "go":
        sys.exit("the reader went away")

real_swap, real_replace = builder.swap_in, os.replace
def swap_in(*args, **kwargs):
    pause("staged")    # the new index is complete beside the old one, still in place
    return real_swap(*args, **kwargs)
def replace(src, dst, *args, **kwargs):
    real_replace(src, dst, *args, **kwargs)
    if Path(src).resolve() == index_dir:
        pause("between")    # the old index is retired, the new one not yet in place
builder.swap_in, os.replace = swap_in, replace
for n in range(1, builds + 1):
    (root / "geokit" / "extra.py").write_text(versions[n % len(versions)])
    codecite.build(root)
print("done", flush=True)
"""
BUILDS = 8  # every version twice
FREE_LOADS = 2  # loads after each pause, while the writer goes on


def _version_table(tmp_path: Path) -> dict[str, frozenset[str]]:
    """Fingerprint -> node ids of every version the writer writes, in that order."""
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
    """At each pause the result is known: the previous index while the new one is staged,
    a retryable error between the renames; every other load returns one whole version
    (nodes, bm25 and manifest of one build) or a retryable error."""
    versions = _version_table(tmp_path)
    (sample_repo / "geokit" / "extra.py").write_text(VERSIONS[0])
    codecite.build(sample_repo)

    def load() -> str | None:
        """The fingerprint of a consistent load, None for a retryable error."""
        try:
            index = codecite.load(sample_repo, check_stale=False)
        except IndexIntegrityError:
            return None
        fingerprint = index.manifest["fingerprint"]
        ids = frozenset(n.node_id for n in index.nodes)
        assert versions[fingerprint] == ids  # nodes and manifest of one and the same build
        assert int(index.bm25.scores["num_docs"]) == len(ids) == index.manifest["node_count"]
        assert index.query("alpha beta gamma delta epsilon", k=3) is not None
        return fingerprint

    expected = list(versions)  # fingerprints in the order of VERSIONS
    writer = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(sample_repo), json.dumps(VERSIONS), str(BUILDS)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    hang_guard = threading.Timer(300, writer.kill)  # only if the writer hangs: never a limit
    hang_guard.start()
    assert writer.stdin is not None and writer.stdout is not None
    try:
        for n in range(1, BUILDS + 1):
            assert writer.stdout.readline().strip() == "staged"
            assert load() == expected[(n - 1) % len(VERSIONS)]  # still the previous index
            writer.stdin.write("go\n")
            writer.stdin.flush()
            assert writer.stdout.readline().strip() == "between"
            assert load() is None  # no index in place: retryable, never a mix or a miss
            writer.stdin.write("go\n")
            writer.stdin.flush()
            for _ in range(FREE_LOADS):  # while the writer goes on: whole or retryable
                load()
        assert writer.stdout.readline().strip() == "done"
        assert writer.wait(timeout=120) == 0
    finally:
        hang_guard.cancel()
        if writer.poll() is None:
            writer.kill()
    assert load() == expected[BUILDS % len(VERSIONS)]
