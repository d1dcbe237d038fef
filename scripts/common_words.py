"""Write ``plugin/data/common_words.txt``: words common in Python's own prose.

    python scripts/common_words.py [STDLIB_DIR] [--min-files 5]

Reads the comments and string literals (docstrings included) of every module
of the standard library this interpreter runs on (tests, idlelib and lib2to3
left out), tokenizes them as codecite tokenizes a query, and keeps each plain
word that occurs in at least ``--min-files`` files. The confidence rule reads
the list (``codecite.retrievers.evidence``): a query word that the indexed corpus never
uses but that is common in Python prose ("month", "working", "somebody") says
little about whether the corpus can answer; a word missing from both ("celery",
"flexbox") may name another tool. Run it by hand; nothing runs it at build,
query or test time. The committed list was made on CPython 3.11.7.
"""

from __future__ import annotations

import argparse
import io
import sys
import sysconfig
import tokenize as pytokenize
from collections import Counter
from pathlib import Path

from codecite.retrievers.tokenizer import tokenize

OUT = Path(__file__).resolve().parents[1] / "plugin" / "data" / "common_words.txt"
SKIP_DIRS = frozenset({"test", "tests", "site-packages", "dist-packages", "idlelib", "lib2to3"})


def prose_words(source: str) -> set[str]:
    """Plain words of the comments and string literals of one Python source."""
    words: set[str] = set()
    for tok in pytokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type in (pytokenize.COMMENT, pytokenize.STRING):
            words.update(w for w in tokenize(tok.string) if w.isalpha() and w.isascii())
    return words


def count_files(root: Path) -> tuple[int, Counter[str]]:
    """How many modules were read, and in how many of them each word occurs."""
    files, df = 0, Counter()
    for path in sorted(root.rglob("*.py")):
        parts = path.relative_to(root).parts
        if any(p in SKIP_DIRS or p.startswith("test_") for p in parts):
            continue
        try:
            words = prose_words(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, SyntaxError, pytokenize.TokenError):
            continue
        files += 1
        df.update(words)
    return files, df


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "stdlib", nargs="?", type=Path, default=Path(sysconfig.get_paths()["stdlib"])
    )
    parser.add_argument("--min-files", type=int, default=5)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    files, df = count_files(args.stdlib)
    if files == 0:
        print(f"no Python modules under {args.stdlib}", file=sys.stderr)
        return 1
    words = sorted(w for w, n in df.items() if n >= args.min_files)
    version = ".".join(map(str, sys.version_info[:3]))
    header = (
        f"# {len(words)} words found in >= {args.min_files} of {files} standard-library "
        f"modules' comments and strings\n# (Python {version}); made by "
        "scripts/common_words.py, read by codecite.retrievers.evidence\n"
    )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(header + "\n".join(words) + "\n", encoding="utf-8")
    print(f"{len(words)} words from {files} modules -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
