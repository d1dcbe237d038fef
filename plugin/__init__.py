"""codecite: a grounded, cited technical memory of a Python codebase for LlamaIndex.

Heavy modules load on first use, so ``import codecite`` stays cheap; type checkers
see the real signatures through the ``TYPE_CHECKING`` imports below.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from codecite.answers.tools import as_tools
    from codecite.config import load_config
    from codecite.index import CodeciteIndex, load
    from codecite.indexer.build import build_index as build

__version__ = "0.1.0"
__all__ = [
    "CodeciteIndex",
    "__version__",
    "as_tools",
    "build",
    "load",
    "load_config",
]

_LAZY = {
    "CodeciteIndex": ("codecite.index", "CodeciteIndex"),
    "load": ("codecite.index", "load"),
    "build": ("codecite.indexer.build", "build_index"),
    "load_config": ("codecite.config", "load_config"),
    "as_tools": ("codecite.answers.tools", "as_tools"),
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        module, attr = _LAZY[name]
        return getattr(importlib.import_module(module), attr)
    raise AttributeError(f"module 'codecite' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(__all__) | set(globals()))
