"""Build performance on a large real corpus (>= 10,000 nodes).

    python tests/benchmarks/bench_build.py

Corpus: the installed llama_index, openai and pydantic packages (all installed
with codecite) plus this repository's docs/, copied to a temporary folder. Each build runs in its
own process pinned to one core, after ``os.sync()`` (so that no build pays for
the disk writeback of the one before); the table gives each time as a ratio of the
full build (targets: no-change <= 3%, one-file change <= 10%, full build
>= 1,000 nodes/s on one core), then the tokenizer's rate against a per-occurrence
split in the same process. The clock starts after the imports (the builder
and the parsers): it times the build as a long-running process sees it. No
build imports llama_index.core (see docs/architecture.md).
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _corpus import make_corpus

CHILD = """
import json, os, sys, time
os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
import codecite.indexer.build as b
import codecite.node_parsers.docs, codecite.node_parsers.python, codecite.node_parsers.recipes
t = time.perf_counter()
r = b.build_index(sys.argv[1], full=sys.argv[2] == "full")
print(json.dumps({"seconds": time.perf_counter() - t, "nodes": r.nodes, "files": r.files,
                  "reparsed": r.reparsed, "up_to_date": r.up_to_date}))
"""


def build(root: Path, mode: str) -> dict:
    os.sync()  # each build starts with no writeback of the previous one's files pending
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    out = subprocess.run(
        [sys.executable, "-c", CHILD, str(root), mode], capture_output=True, text=True, check=True
    )
    result = json.loads(out.stdout.strip().splitlines()[-1])
    after = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    result["peak_mib"] = max(before, after) / 1024
    return result


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = make_corpus(Path(tmp) / "corpus")
        full = build(root, "full")
        nochange = build(root, "incremental")
        target = sorted(root.joinpath("llama_index").rglob("*.py"))[7]
        target.write_text(target.read_text() + "\n\ndef bench_added():\n    '''Added.'''\n")
        onefile = build(root, "incremental")
        rows = [("full build", full), ("no-change build", nochange), ("one-file change", onefile)]
        print(
            f"corpus: installed llama_index, openai, pydantic + docs, {full['files']} files, "
            f"{full['nodes']} nodes"
        )
        print(f"{'stage':<18}{'seconds':>10}{'ratio':>9}{'reparsed':>10}{'peak MiB':>10}")
        for name, r in rows:
            print(
                f"{name:<18}{r['seconds']:>10.3f}{r['seconds'] / full['seconds']:>9.1%}"
                f"{r['reparsed']:>10}{r['peak_mib']:>10.0f}"
            )
        rate = full["nodes"] / full["seconds"]
        print(f"full build rate: {rate:,.0f} nodes/s on one core (target >= 1,000)")
        print(
            f"targets: no-change <= 3% -> {nochange['seconds'] / full['seconds']:.1%}; "
            f"one-file <= 10% -> {onefile['seconds'] / full['seconds']:.1%}; "
            f"no-change said up to date: {nochange['up_to_date']}"
        )
        tokenizer_rate(root / ".codecite" / "nodes.jsonl")


def tokenizer_rate(nodes_file: Path) -> None:
    """Tokens/s of ``tokenize`` over the corpus's node texts, cold cache, against the
    same split made one word occurrence at a time (the tokenizer before its word cache)."""
    from codecite.retrievers import tokenizer as tk

    texts = [json.loads(line)["text"] for line in nodes_file.open(encoding="utf-8")]

    def per_occurrence(text: str) -> list[str]:
        return [
            token
            for match in tk._WORD.finditer(text)
            for word in match.group().split(".")
            for token in tk._word_tokens(word, tk.DEFAULT_MIN_LENGTH)
        ]

    timed = {}
    for name, fn in (("per occurrence", per_occurrence), ("tokenize", tk.tokenize)):
        tk.clear_word_cache()
        start = time.perf_counter()
        count = sum(len(fn(text)) for text in texts)
        timed[name] = (count, time.perf_counter() - start)
    (n, base), (m, mine) = timed["per occurrence"], timed["tokenize"]
    assert n == m, "the tokenizer's output changed"
    print(
        f"tokenizer: {m:,} tokens, {m / mine:,.0f} tokens/s cold cache "
        f"({base / mine:.1f}x the per-occurrence split, {n / base:,.0f} tokens/s)"
    )


if __name__ == "__main__":
    start = time.perf_counter()
    main()
    print(f"(benchmark wall time {time.perf_counter() - start:.1f}s)")
