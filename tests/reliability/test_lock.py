"""One lock holder, always: the build lock is a kernel lock.

Processes race for the lock of one index in fixed numbers of trials (never
in a time window); a holder proves it is alone by creating a marker file with
``O_EXCL`` while it holds the lock. docs/reliability.md lists the promise.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
from pathlib import Path

import pytest

import codecite
from codecite.store.lock import build_lock, build_running

PROCESSES, TRIALS = 8, 40


def _hold_forever(index_dir: str, ready: multiprocessing.synchronize.Event) -> None:
    with build_lock(Path(index_dir)):
        ready.set()
        signal.pause()


def _race(
    index_dir: str,
    marker: str,
    start: multiprocessing.synchronize.Barrier,
    overlaps: multiprocessing.sharedctypes.Synchronized,
) -> None:
    start.wait()
    with build_lock(Path(index_dir), wait=True):
        try:
            fd = os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
        except FileExistsError:  # another process holds the lock at the same time
            with overlaps.get_lock():
                overlaps.value += 1
            return
        for _ in range(2000):  # hold the lock for a while, by work, not by time
            os.stat(marker)
        os.close(fd)
        os.unlink(marker)


def test_never_two_holders_after_a_dead_holder(tmp_path: Path) -> None:
    ctx = multiprocessing.get_context("fork")
    index_dir, marker = str(tmp_path / "idx"), str(tmp_path / "holder")
    overlaps = ctx.Value("i", 0)
    for _ in range(TRIALS):
        ready = ctx.Event()
        dead = ctx.Process(target=_hold_forever, args=(index_dir, ready))
        dead.start()
        assert ready.wait(60)
        os.kill(dead.pid, signal.SIGKILL)  # dies holding the lock: the kernel releases it
        dead.join(60)
        start = ctx.Barrier(PROCESSES)
        racers = [
            ctx.Process(target=_race, args=(index_dir, marker, start, overlaps))
            for _ in range(PROCESSES)
        ]
        for p in racers:
            p.start()
        for p in racers:
            p.join(120)
        assert [p.exitcode for p in racers] == [0] * PROCESSES
    assert overlaps.value == 0
    assert not build_running(Path(index_dir))


def _vote(root: str, start: multiprocessing.synchronize.Barrier) -> None:
    index = codecite.load(root, check_stale=False)
    start.wait()
    for _ in range(5):
        index.feedback("geokit.agents.static_shift.StaticShiftAgent", up=True)


def test_concurrent_feedback_votes_are_all_kept(sample_repo: Path) -> None:
    codecite.build(sample_repo)
    ctx = multiprocessing.get_context("fork")
    start = ctx.Barrier(4)
    voters = [ctx.Process(target=_vote, args=(str(sample_repo), start)) for _ in range(4)]
    for p in voters:
        p.start()
    for p in voters:
        p.join(120)
    assert [p.exitcode for p in voters] == [0] * 4
    index = codecite.load(sample_repo, check_stale=False)
    import json

    votes = json.loads((sample_repo / ".codecite" / "feedback.json").read_text())
    assert votes["geokit.agents.static_shift.StaticShiftAgent"]["up"] == 20
    assert index.stats()["nodes"] > 0


@pytest.mark.parametrize("wait", [False, True])
def test_lock_is_released_when_the_holder_raises(tmp_path: Path, wait: bool) -> None:
    index_dir = tmp_path / "idx"
    with pytest.raises(RuntimeError), build_lock(index_dir, wait=wait):
        raise RuntimeError("boom")
    with build_lock(index_dir):
        assert build_running(index_dir)  # seen from another open file description
    assert not build_running(index_dir)


_SLOW_BUILD = """
import sys, time
from codecite.indexer import parallel
parse = parallel._parse_encoded
def slow(file):  # every file takes a while: the build is surely mid-parse when killed
    time.sleep(0.2)
    return parse(file)
parallel._parse_encoded = slow
from codecite.cli.app import main
sys.exit(main(["build", "--full", sys.argv[1]]))
"""


def _children(pid: int) -> list[int]:
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                out.append(int(entry))
    return out


def _running(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc (Linux)")
@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM])
def test_a_build_killed_mid_parse_leaves_no_worker_and_no_lock(tmp_path: Path, sig: int) -> None:
    """A build killed while its forked workers parse: the workers held the lock's open
    file and outlived the build, so every later build failed ("another build is writing
    the index") until someone killed them by pid."""
    import subprocess
    import sys
    import time

    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "codecite.toml").write_text("build_workers = 2\n")  # two, whatever the cores
    for i in range(120):  # parallel parsing starts at 64 files
        (tmp_path / "pkg" / f"m{i}.py").write_text(f'def f{i}(x):\n    """Step {i}."""\n')
    build = subprocess.Popen(
        [sys.executable, "-c", _SLOW_BUILD, str(tmp_path)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    workers: list[int] = []
    deadline = time.monotonic() + 120  # however slow the machine: until both workers run
    while len(workers) < 2 and build.poll() is None and time.monotonic() < deadline:
        workers = _children(build.pid)
        time.sleep(0.02)
    assert len(workers) == 2 and build.poll() is None, "the build never started its workers"
    os.kill(build.pid, sig)
    build.wait()
    deadline = time.monotonic() + 120
    while any(_running(w) for w in workers) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(_running(w) for w in workers), "a parse worker outlived its build"
    after = subprocess.run(
        [sys.executable, "-m", "codecite", "build", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert after.returncode == 0, after.stderr
    assert codecite.load(tmp_path).stats()["nodes"] >= 120
