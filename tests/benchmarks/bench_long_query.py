"""Long queries and lines: the replaced regexes against the linear ones, in the same run.

    python tests/benchmarks/bench_long_query.py          # about a minute
    python tests/benchmarks/bench_long_query.py --full   # also times the old code at
                                                          # 100,000 characters (minutes)

Part 1 times each rewritten regex (and the two query helpers made linear) on its
adversarial input at 1,000 to 100,000 characters, the old form beside the new.
An old time the default run does not measure, because it would take minutes, is
extrapolated from the 20,000-character time by the square of the length ratio
and marked ``~``. Part 2 times whole calls on the fixture repository with
100,000-character queries of several shapes: ``index.query``, ``index.ask``, the
``codecite_search`` and ``codecite_ask`` agent tools, with the new code and with
the old regexes and helpers put back in the same process.
Target: every new time well under a second at 100,000 characters.
"""

from __future__ import annotations

import re
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from contextlib import contextmanager
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/: the reference
from regex_reference import (
    OLD_ATX,
    OLD_ATX_CLOSER,
    OLD_CALL_OR_DOTTED,
    OLD_CODE_SPAN,
    OLD_TRAILING_COMMENT,
    OLD_WORKFLOW_LINE,
    old_contains_phrase,
    old_named_unknowns,
    old_routing_pattern,
)

import codecite
from codecite.answers import routing
from codecite.node_parsers import docs, recipes
from codecite.retrievers import evidence as confidence
from codecite.retrievers import expansion, tokenizer

FIXTURE_REPO = Path(__file__).parents[1] / "fixtures" / "sample_repo"
LENGTHS = (1_000, 5_000, 20_000, 100_000)
SLOW_OLD = 0.5  # s at 20,000 characters: beyond it the 100,000 time is extrapolated


# (name, input of n characters, old call, new call)
CASES: list[tuple[str, Callable[[int], str], Callable[[str], Any], Callable[[str], Any]]] = [
    (
        "_CALL_OR_DOTTED  'aaa...'",
        lambda n: "a" * n,
        OLD_CALL_OR_DOTTED.findall,
        tokenizer._CALL_OR_DOTTED.findall,
    ),
    (
        "_CODE_SPAN       '```...'",
        lambda n: "`" * n,
        OLD_CODE_SPAN.findall,
        tokenizer._CODE_SPAN.findall,
    ),
    (
        "docs._ATX        '# a   ...x'",
        lambda n: "# a" + " " * n + "x",
        OLD_ATX.match,
        docs._ATX.match,
    ),
    (
        "_ATX_CLOSER      'a   ...x'",
        lambda n: "a" + " " * n + "x",
        lambda s: OLD_ATX_CLOSER.sub("", s),
        lambda s: docs._ATX_CLOSER.sub("", s),
    ),
    (
        "_WORKFLOW_LINE   'workflow:  ...`'",
        lambda n: "workflow:" + " " * n + "`",
        OLD_WORKFLOW_LINE.match,
        recipes._WORKFLOW_LINE.match,
    ),
    (
        "recipe comment   'v   ...x'",
        lambda n: "v" + " " * n + "x",
        lambda s: OLD_TRAILING_COMMENT.sub("", s),
        lambda s: recipes._TRAILING_COMMENT.sub("", s),
    ),
    (
        "route phrase     '.....' (40 phrases)",
        lambda n: "." * n,
        lambda s: [re.search(old_routing_pattern(p), s) for p in range_phrases()],
        lambda s: [re.search(routing._phrase_pattern(p), s) for p in range_phrases()],
    ),
    (
        "named_unknowns   'Load Load ...'",
        lambda n: "Load " * (n // 5),
        lambda s: old_named_unknowns(s, {}),
        lambda s: confidence.named_unknowns(s, {}),
    ),
]


def range_phrases() -> list[str]:
    return [p for phrases in routing.DEFAULT_INTENT_PHRASES.values() for p in phrases][:40]


def seconds(fn: Callable[[str], Any], arg: str, repeat: int = 1) -> float:
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        fn(arg)
        best = min(best, time.perf_counter() - t)
    return best


def regex_table(full: bool) -> None:
    print(f"{'regex / helper, input':<40}{'length':>9}{'old (s)':>11}{'new (s)':>11}{'old/new':>9}")
    for name, make, old, new in CASES:
        old_20k = 0.0
        for n in LENGTHS:
            text = make(n)
            new_s = seconds(new, text, repeat=3)
            if n > 20_000 and old_20k > SLOW_OLD and not full:
                old_s, mark = old_20k * (n / 20_000) ** 2, "~"
            else:
                old_s, mark = seconds(old, text), ""
            if n == 20_000:
                old_20k = old_s
            old_cell = f"{mark}{old_s:.4f}"
            print(f"{name:<40}{n:>9,}{old_cell:>11}{new_s:>11.4f}{old_s / max(new_s, 1e-6):>9.0f}")
        print()


@contextmanager
def old_code() -> Any:
    """The replaced regexes and helpers, put back for a measurement."""
    saved = (
        tokenizer._CALL_OR_DOTTED,
        tokenizer._CODE_SPAN,
        routing._phrase_pattern,
        expansion._contains_phrase,
        confidence.named_unknowns,
    )
    tokenizer._CALL_OR_DOTTED, tokenizer._CODE_SPAN = OLD_CALL_OR_DOTTED, OLD_CODE_SPAN
    routing._phrase_pattern = old_routing_pattern
    expansion._contains_phrase = old_contains_phrase
    confidence.named_unknowns = old_named_unknowns
    try:
        yield
    finally:
        (
            tokenizer._CALL_OR_DOTTED,
            tokenizer._CODE_SPAN,
            routing._phrase_pattern,
            expansion._contains_phrase,
            confidence.named_unknowns,
        ) = saved


def end_to_end_table(full: bool) -> None:
    n = 100_000
    shapes = {
        "one word": "a" * n,
        "camelCase": "Ab" * (n // 2),
        "calls a(a(": "a(" * (n // 2),
        "backticks": "`" * n,
        "dots": "." * n,
        "names Load": "Load " * (n // 5),
        "prose": "phase tensor " * (n // 13),
    }
    old_shapes = set(shapes) if full else {"one word", "names Load", "prose"}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "sample_repo"
        shutil.copytree(FIXTURE_REPO, root)
        codecite.build(root)
        index = codecite.load(root)
        ask_tool, search_tool, _ = codecite.as_tools(index)
        calls = {
            "index.query": index.query,
            "index.ask": index.ask,
            "codecite_search": lambda q: search_tool.call(query=q),
            "codecite_ask": lambda q: ask_tool.call(input=q),
        }
        index.ask("warm up the engine")
        print(
            f"whole calls, {n:,}-character queries (seconds; old only for "
            f"{'every shape' if full else ', '.join(sorted(old_shapes)) + '; --full: all'})"
        )
        print(f"{'query shape':<14}{'call':<17}{'old (s)':>10}{'new (s)':>10}{'old/new':>9}")
        worst = 0.0
        for shape, query in shapes.items():
            for label, call in calls.items():
                new_s = seconds(call, query)
                worst = max(worst, new_s)
                if shape in old_shapes:
                    with old_code():
                        old_s = seconds(call, query)
                    cells = f"{old_s:>10.3f}{new_s:>10.3f}{old_s / new_s:>9.1f}"
                else:
                    cells = f"{'-':>10}{new_s:>10.3f}{'':>9}"
                print(f"{shape:<14}{label:<17}{cells}")
        print(f"slowest new call: {worst:.3f} s (target: well under 1 s)")


def main() -> None:
    full = "--full" in sys.argv[1:]
    regex_table(full)
    end_to_end_table(full)


if __name__ == "__main__":
    main()
