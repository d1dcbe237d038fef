"""``symbols.json``, one module a line, so that a reused file's namespace is copied as is::

{"modules": {
"pkg.mod": {...},
...
}}
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from codecite.errors import IndexIntegrityError
from codecite.store.symbols import SymbolTable
from codecite.vocabulary import REBUILD_FIX

from .file_result import FileResult

_SYMBOLS_HEAD, _SYMBOLS_TAIL = b'{"modules": {\n', b"\n}}\n"


def write_symbols(table: SymbolTable, results: list[FileResult]) -> bytes:
    """The file's bytes: a reused file's namespace line as it was, the others encoded."""
    raw = {id(fr.namespace): fr.namespace_line for fr in results if fr.namespace is not None}
    lines = [
        raw.get(id(ns))
        or json.dumps(module, ensure_ascii=False).encode("utf-8")
        + b": "
        + json.dumps(ns, ensure_ascii=False).encode("utf-8")
        for module, ns in table.modules.items()
    ]
    return _SYMBOLS_HEAD + b",\n".join(lines) + _SYMBOLS_TAIL


def read_symbols(data: bytes, path: Path) -> list[tuple[dict[str, Any], bytes]]:
    """(namespace, its line) for every module of a ``symbols.json`` written by this build."""
    modules = json.loads(data).get("modules", {})
    lines = data[len(_SYMBOLS_HEAD) : -len(_SYMBOLS_TAIL)].split(b",\n") if modules else []
    if not data.startswith(_SYMBOLS_HEAD) or len(lines) != len(modules):
        raise IndexIntegrityError(
            f"index file '{path}' is not laid out one module a line; {REBUILD_FIX}"
        )
    return list(zip(modules.values(), lines, strict=True))
