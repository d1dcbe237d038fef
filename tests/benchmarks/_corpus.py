"""A large real corpus available offline: installed llama_index, openai, pydantic, docs.

Copied into a temporary folder so builds never write into site-packages.
"""

from __future__ import annotations

import importlib
import shutil
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PACKAGES = ("llama_index", "openai", "pydantic")  # installed with codecite's dependencies


def make_corpus(dest: Path) -> Path:
    """``dest`` holding installed package sources and this repo's ``docs/``."""
    roots = []
    for name in PACKAGES:
        module = importlib.import_module(name)
        source = Path(next(iter(module.__path__))).resolve()
        shutil.copytree(
            source, dest / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "*.so")
        )
        roots.append(name)
    if (REPO / "docs").is_dir():
        shutil.copytree(REPO / "docs", dest / "docs")
        roots.append("docs")
    quoted = ", ".join(f'"{r}"' for r in roots)
    (dest / "codecite.toml").write_text(
        f"packages = [{', '.join(repr(p) for p in PACKAGES)}]\nroots = [{quoted}]\n".replace(
            "'", '"'
        )
    )
    return dest
