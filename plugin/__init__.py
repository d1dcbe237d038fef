"""codecite: a grounded, cited technical memory of a Python codebase for LlamaIndex.

Heavy modules load on first use, so ``import codecite`` stays cheap.
"""

from __future__ import annotations

from typing import Any

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
    "load_config": ("codecite.config.model", "load_config"),
    "as_tools": ("codecite.answers.tools", "as_tools"),
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        module, attr = _LAZY[name]
        return getattr(importlib.import_module(module), attr)
    raise AttributeError(f"module 'codecite' has no attribute {name!r}")
