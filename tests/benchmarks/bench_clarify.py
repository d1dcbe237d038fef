"""Does the zero-config confidence rule ask back on vague messages and answer short real ones?

    python tests/benchmarks/bench_clarify.py [--corpora DIR]

Reads ``heldout/vague.jsonl`` (20 vague complaints, 20 short answerable
questions about a command-line or web library, written without looking at
codecite), builds the click and flask held-out corpora found under
``--corpora`` (the libraries those short questions are about) with no
configuration, and prints per corpus: vague messages clarified, short
questions answered, and how many vague ones the vague-word check alone
catches (the rest must fail the coverage floor to be clarified).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

import codecite
from codecite.confidence import MIN_SPECIFIC_TOKENS, VAGUE_WORDS, assess
from codecite.retrievers.tokenizer import query_tokens

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from bench_quality import HELD_OUT, _default_dir  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpora", type=Path, default=_default_dir(
        "DEVSUITES_CORPORA", HERE.parents[2] / "devsuite-corpora", Path("devsuite-corpora")))
    args = parser.parse_args()
    rows = [json.loads(line) for line in (HERE / "heldout" / "vague.jsonl").open()]
    vague = [r["query"] for r in rows if r["vague"]]
    specific = [r["query"] for r in rows if not r["vague"]]
    word_rule = sum(len([t for t in query_tokens(q) if t not in VAGUE_WORDS])
                    < MIN_SPECIFIC_TOKENS for q in vague)
    print(f"vague-word check alone: {word_rule}/{len(vague)} vague messages")
    print(f"{'corpus':<14}{'vague clarified':>17}{'short answered':>16}")
    corpora = [(name, args.corpora / HELD_OUT[name]) for name in ("click", "flask")
               if (args.corpora / HELD_OUT[name]).is_dir()]
    if not corpora:
        print(f"no held-out corpus under {args.corpora}; see heldout/README.md", file=sys.stderr)
        return 1
    for name, corpus in corpora:
        with tempfile.TemporaryDirectory() as tmp:
            codecite.build(corpus, index_dir=tmp)
            retriever = codecite.load(corpus, index_dir=tmp, check_stale=False).retriever(10)
            asked = sum(not assess(retriever, retriever.retrieve_context(q)).confident
                        for q in vague)
            answered = sum(assess(retriever, retriever.retrieve_context(q)).confident
                           for q in specific)
        print(f"{name:<14}{f'{asked}/{len(vague)}':>17}{f'{answered}/{len(specific)}':>16}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
