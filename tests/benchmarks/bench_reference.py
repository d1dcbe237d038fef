"""codecite against the reference assistant it replaces (pycsamt 2.6.4), as whole processes.

    python tests/benchmarks/bench_reference.py [--rounds 3] [--corpus DIR ...]
        [--reference-python PY] [--sdist pycsamt-2.6.4.tar.gz]

The reference is ``python -m pycsamt.assistant.rag --root TREE build|query|stats`` run by
``--reference-python`` (default $REFERENCE_PYTHON or /work/ref/venv/bin/python: a venv
with pycsamt's runtime dependencies) with ``PYTHONPATH=TREE``. The sdist (default
$PYCSAMT_SDIST or /work/ref/pycsamt-2.6.4.tar.gz; a folder also works) is unpacked into
a fresh temporary folder for each tool, so neither sees the other's index. codecite gets
the reference's corpus policy (docs/migration.md: ``pycsamt/app``, ``pycsamt/assistant/rag``
and ``pycsamt/assistant/evals`` excluded) from a codecite.toml outside its tree.

Each process is timed by wall clock after ``os.sync()``. Each tool has its own bytecode
cache in the temporary folder (PYTHONPYCACHEPREFIX), filled by one untimed warm-up round,
as an installed package has; nothing is written into /work/main or the sdist. Per round:
reference ``build``, codecite ``build --full``; a comment line appended to one mid-sized
module of both trees, then codecite ``build`` and reference ``build``; codecite ``build``
with nothing changed (the reference always rebuilds fully: its figure there is its plain
``build``); ``query -k 8`` for three questions and ``stats``, with each tool.

Prints the counts each tool reports, then medians over rounds (reference, codecite, ratio
codecite/reference) and the issue's targets (full build <= 1/3 of the reference; one-file
build <= 0.5 s; no-change build <= 0.3 s; query process <= 1.0 s); then, for each
``--corpus`` (copied to a temporary folder, its own configuration or none), codecite's
median full, one-file and no-change build and query process times. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

ALL = "query process (all questions)"
QUESTIONS = ("static shift correction", "how do I read an EDI file", "AMA filter")
REF_EXCLUDE = ("pycsamt/app/", "pycsamt/assistant/rag/", "pycsamt/assistant/evals/")
CONFIG = f"""packages = ["pycsamt"]
roots = ["pycsamt", "docs/source", "examples", "assistant_recipes"]
root_docs = ["README.md", "AGENTS.md"]
recipes = ["assistant_recipes"]
exclude = {json.dumps([*REF_EXCLUDE, "/paper/", "cag-paper"])}
"""
SKIP_PARTS = {"tests", "test", "testing", "docs", "examples", "benchmarks", "__pycache__"}
IGNORE = shutil.ignore_patterns(".codecite", ".pycsamt_rag", "__pycache__", ".git")
REF_PYTHON, SDIST = "/work/ref/venv/bin/python", "/work/ref/pycsamt-2.6.4.tar.gz"
FAILURES: dict[str, str] = {}


def timed(cmd: list[str], env: dict[str, str], label: str) -> tuple[float | None, str]:
    """Wall seconds of one process (None when it fails) and its stdout."""
    os.sync()  # no writeback of the previous process's files pending
    start = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)
    seconds = time.perf_counter() - start
    if proc.returncode:
        tail = (proc.stderr.strip() or proc.stdout.strip()).splitlines()[-1:] or ["?"]
        FAILURES.setdefault(label, f"exit {proc.returncode}: {tail[0][:160]}")
        return None, proc.stdout
    return seconds, proc.stdout


def median(values: list[float | None]) -> float | None:
    done = [v for v in values if v is not None]
    return statistics.median(done) if done else None


def unpack(sdist: Path, dest: Path) -> Path:
    """A fresh copy of the sdist's tree under ``dest``; the sdist is only read."""
    if sdist.is_dir():
        return Path(shutil.copytree(sdist, dest / sdist.name, ignore=IGNORE))
    dest.mkdir(parents=True)
    with tarfile.open(sdist) as tar:
        tar.extractall(dest, filter="data")
    (top,) = [p for p in dest.iterdir() if p.is_dir()]
    return top


def pick_module(root: Path) -> Path:
    """The median-sized non-test, non-``__init__`` module that both tools index."""
    sized = []
    for path in root.rglob("*.py"):
        rel = path.relative_to(root)
        skip = path.name.startswith(("test", "conftest", "__init__")) or SKIP_PARTS & set(rel.parts)
        if not skip and not any(x in rel.as_posix() for x in REF_EXCLUDE):
            sized.append((path.stat().st_size, rel.as_posix()))
    return root / sorted(sized)[len(sized) // 2][1]


def edit(path: Path, n: int) -> None:
    text = path.read_text(encoding="utf-8")
    sep = "" if text.endswith("\n") else "\n"
    path.write_text(f"{text}{sep}# bench_reference edit {n}\n", encoding="utf-8")


def tool_env(tmp: Path, name: str, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(PYTHONPYCACHEPREFIX=str(tmp / f"pycache-{name}"), **extra)
    return env


def codecite(command: str, *rest: str, opts: tuple[str, ...]) -> list[str]:
    """``codecite COMMAND OPTS REST`` by the console script next to this interpreter."""
    script = Path(sys.executable).with_name("codecite")
    base = [str(script)] if script.exists() else [sys.executable, "-m", "codecite"]
    return [*base, command, *opts, *rest]


def fmt(v: float | None) -> str:
    return "failed" if v is None else f"{v:.3f}"


def ratio(c: float | None, r: float | None) -> float | None:
    return c / r if r and c is not None else None


def bench_pycsamt(args: argparse.Namespace, tmp: Path) -> dict[str, str]:
    """Time both tools on the sdist; return codecite's environment (its warm bytecode cache)."""
    ref_tree = unpack(args.sdist, tmp / "ref")
    cc_tree = unpack(args.sdist, tmp / "codecite")
    (tmp / "codecite.toml").write_text(CONFIG, encoding="utf-8")
    ref = [args.reference_python, "-m", "pycsamt.assistant.rag", "--root", str(ref_tree)]
    opts = ("-C", str(cc_tree), "--config", str(tmp / "codecite.toml"))

    def cc(*step: str) -> list[str]:
        return codecite(*step, opts=opts)

    r_env = tool_env(tmp, "ref", PYTHONPATH=str(ref_tree))
    c_env = tool_env(tmp, "codecite")
    module = pick_module(ref_tree).relative_to(ref_tree)
    for step in (["build"], ["query", QUESTIONS[0]], ["stats"]):  # warm-up: bytecode, page cache
        subprocess.run([*ref, *step], capture_output=True, env=r_env, check=False)
        subprocess.run(cc(*step), capture_output=True, env=c_env, check=False)
    rows = ["full build", "one-file build", "no-change build", *QUESTIONS, ALL, "stats"]
    r_t: dict[str, list] = {k: [] for k in rows}
    c_t: dict[str, list] = {k: [] for k in rows}
    r_out = c_json = ""
    for n in range(args.rounds):
        seconds, r_out = timed([*ref, "build"], r_env, "reference build")
        r_t["full build"].append(seconds)
        r_t["no-change build"].append(seconds)  # the reference has no incremental build
        seconds, c_json = timed(cc("build", "--full", "--json"), c_env, "codecite build --full")
        c_t["full build"].append(seconds)
        edit(ref_tree / module, n)
        edit(cc_tree / module, n)
        c_t["one-file build"].append(timed(cc("build"), c_env, "codecite build (edit)")[0])
        r_t["one-file build"].append(timed([*ref, "build"], r_env, "reference build (edit)")[0])
        c_t["no-change build"].append(timed(cc("build"), c_env, "codecite build (none)")[0])
        for q in QUESTIONS:
            r_t[q].append(timed([*ref, "query", q, "-k", "8"], r_env, f"reference query {q!r}")[0])
            c_t[q].append(timed(cc("query", q, "-k", "8"), c_env, f"codecite query {q!r}")[0])
        r_t["stats"].append(timed([*ref, "stats"], r_env, "reference stats")[0])
        c_t["stats"].append(timed(cc("stats"), c_env, "codecite stats")[0])
    for t in (r_t, c_t):
        t[ALL] = [v for q in QUESTIONS for v in t[q]]
    chunks = re.search(r"Built index: (\d+) chunks", r_out)
    kinds = ", ".join(f"{k} {v}" for k, v in re.findall(r"kind:(\w+): (\d+)", r_out))
    print(f"sdist {args.sdist.name}; edited module each round: {module.as_posix()}")
    print(f"reference: {chunks.group(1) if chunks else '?'} chunks ({kinds})")
    report = json.loads(c_json) if c_json.strip() else {}
    kinds = ", ".join(f"{k} {v}" for k, v in report.get("kinds", {}).items())
    print(
        f"codecite:  {report.get('nodes', '?')} nodes from {report.get('files', '?')} files "
        f"({kinds})"
    )
    print(
        f"\n{'median of ' + str(args.rounds) + ' rounds (s)':<40}"
        f"{'reference':>10}{'codecite':>10}{'ratio':>8}"
    )
    medians: dict[str, float | None] = {}
    for name in rows:
        label = f"query {name!r}" if name in QUESTIONS else name
        r, c = median(r_t[name]), median(c_t[name])
        medians[name] = c
        print(f"{label:<40}{fmt(r):>10}{fmt(c):>10}{fmt(ratio(c, r)):>8}")
    full_ratio = ratio(medians["full build"], median(r_t["full build"]))
    print(
        f"targets: full build <= 1/3 of the reference -> {fmt(full_ratio)}; "
        f"one-file <= 0.5 s -> {fmt(medians['one-file build'])}; "
        f"no-change <= 0.3 s -> {fmt(medians['no-change build'])}; "
        f"query process <= 1.0 s -> {fmt(medians[ALL])}"
    )
    return c_env


def bench_corpus(src: Path, tmp: Path, rounds: int, env: dict[str, str]) -> None:
    """codecite alone on a copy of ``src`` (zero configuration unless it has its own)."""
    root = Path(shutil.copytree(src, tmp / "corpus" / src.name, ignore=IGNORE))

    def cc(*step: str) -> list[str]:
        return codecite(*step, opts=("-C", str(root)))

    module = pick_module(root)
    subprocess.run(cc("build", "--full"), capture_output=True, env=env, check=False)
    times: dict[str, list] = {"full": [], "one-file": [], "no-change": [], "query": []}
    out = ""
    for n in range(rounds):
        seconds, out = timed(cc("build", "--full", "--json"), env, f"{src.name} build --full")
        times["full"].append(seconds)
        edit(module, n)
        times["one-file"].append(timed(cc("build"), env, f"{src.name} build (edit)")[0])
        times["no-change"].append(timed(cc("build"), env, f"{src.name} build (none)")[0])
        for q in QUESTIONS:
            times["query"].append(timed(cc("query", q, "-k", "8"), env, f"{src.name} query")[0])
    report = json.loads(out) if out.strip() else {}
    cells = "".join(f"{fmt(median(v)):>11}" for v in times.values())
    print(f"{src.name:<28}{report.get('nodes', '?'):>8}{report.get('files', '?'):>7}{cells}")
    print(f"{'':<28}(edited {module.relative_to(root).as_posix()})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    getenv = os.environ.get
    parser.add_argument("--reference-python", default=getenv("REFERENCE_PYTHON", REF_PYTHON))
    parser.add_argument("--sdist", type=Path, default=Path(getenv("PYCSAMT_SDIST", SDIST)))
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--corpus", type=Path, action="append", default=[])
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench_reference-") as name:
        tmp = Path(name)
        env = bench_pycsamt(args, tmp)
        if args.corpus:
            print(f"\ncodecite alone, median of {args.rounds} rounds (s; query: per process)")
            print(
                f"{'corpus':<28}{'nodes':>8}{'files':>7}"
                f"{'full':>11}{'one-file':>11}{'no-change':>11}{'query':>11}"
            )
            for src in args.corpus:
                bench_corpus(src.resolve(), tmp, args.rounds, env)
    for label, why in FAILURES.items():
        print(f"FAILED {label}: {why}")


if __name__ == "__main__":
    start = time.perf_counter()
    main()
    print(f"(benchmark wall time {time.perf_counter() - start:.1f}s)")
