"""What the MCP server's tools do, as plain functions over a resident index.

Each takes the ``ResidentIndex`` and the tool's arguments and returns a
JSON-able dictionary; every result names its evidence by node id and
``path:start-end`` citation. A bad argument raises ``ToolInputError`` with a
message a model can act on (``codecite.server.app`` turns it into an MCP
error). Nothing here imports the MCP SDK or LlamaIndex.
"""

from __future__ import annotations

import hashlib
import re
import threading
from collections.abc import Container
from functools import partial
from pathlib import Path
from typing import Any

from codecite.answers.absent import owner_names
from codecite.answers.context import without_admonitions
from codecite.answers.session import Session
from codecite.errors import CodeciteError
from codecite.node_parsers.dispatch import source_encoding
from codecite.node_parsers.doc_lines import source_lines
from codecite.node_parsers.schema import citation, node_label
from codecite.node_parsers.signatures import shown_param, without_doc
from codecite.retrievers.render import evidence_row
from codecite.safe_io import UnsafeFileError, read_regular_file
from codecite.server.resident import ResidentIndex
from codecite.validation.calls import MAX_BASE_DEPTH, class_doubt
from codecite.validation.namespace import Namespace
from codecite.validation.suggestions import did_you_mean, suggest

MAX_K = 50
MAX_SNIPPET = 300
MAX_READ_LINES = 400  # lines `read` returns at most
MAX_READ_BYTES = 4 << 20  # a corpus file larger than this is not read whole
MAX_CONTEXT_LINES = 50
MAX_SESSIONS = 256  # follow-up sessions kept in memory, oldest dropped
CITATION = re.compile(r"^(?P<path>[^:]+):(?P<start>\d+)(?:-(?P<end>\d+))?$")
SHOWN_FACTORS = ("priority", "workflow", "recipe", "symbol", "name", "feedback", "zero_config")


class ToolInputError(ValueError):
    """A tool argument codecite cannot act on; the message says what to send instead."""


def search(
    resident: ResidentIndex,
    query: str,
    k: int = 8,
    kind: str | None = None,
    path: str | None = None,
) -> dict[str, Any]:
    """Ranked evidence for ``query`` with citations and the score's factors in brief."""
    if not isinstance(query, str) or not query.replace("\x00", "").strip():  # NULs say nothing
        raise ToolInputError("query is empty: pass a question, a task or a symbol name")
    if type(k) is not int or not 1 <= k <= MAX_K:  # `True` is an int to isinstance
        raise ToolInputError(f"k must be an integer from 1 to {MAX_K}, got {k!r}")
    index = resident.current()
    try:
        ctx = index.query(query, k=k, kind=kind, path=path)
    except CodeciteError as exc:
        raise ToolInputError(str(exc)) from exc
    results = []
    for i, hit in enumerate(ctx.nodes, 1):
        row = evidence_row(i, hit, MAX_SNIPPET)
        explained = ctx.breakdown.get(hit.node.node_id)
        if explained is not None:
            factors = {f: round(getattr(explained, f), 3) for f in SHOWN_FACTORS}
            row["why"] = {
                "lexical": round(explained.lexical, 3),
                "factors": {f: v for f, v in factors.items() if v != 1.0},
                "propagated_from": explained.propagated_from,
            }
        results.append(row)
    return {
        "query": query,
        "tokens": ctx.tokens,
        "top_score": round(ctx.top_score, 4),
        "results": results,
    }


class Sessions:
    """Follow-up memory per ``session_id``, in memory, for the life of the server."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._by_id: dict[str, Session] = {}

    def get(self, session_id: str | None) -> Session | None:
        if session_id is None:
            return None
        if not isinstance(session_id, str) or not session_id.strip():
            raise ToolInputError("session_id must be a non-empty string, or left out")
        with self._lock:
            if session_id not in self._by_id and len(self._by_id) >= MAX_SESSIONS:
                self._by_id.pop(next(iter(self._by_id)))
            return self._by_id.setdefault(session_id, Session())


def ask(
    resident: ResidentIndex,
    sessions: Sessions,
    question: str,
    session_id: str | None = None,
    llm: Any = None,
) -> dict[str, Any]:
    """The cited answer, or the clarification request, for ``question``."""
    from codecite.answers.answerer import Answerer

    if not isinstance(question, str) or not question.strip():
        raise ToolInputError("question is empty: ask something about the indexed code")
    answerer = Answerer(index=resident.current(), llm=llm, session=sessions.get(session_id))
    answer = answerer.query(question)
    meta = answer.metadata
    keep = ("path", "confident", "citations", "api_cards", "related", "options", "intent")
    return {"answer": answer.text, **{k: meta.get(k) for k in keep if k in meta}}


def lookup_symbol(resident: ResidentIndex, name: str) -> dict[str, Any]:
    """The definition a dotted or public name means, or real names close to it."""
    if not isinstance(name, str) or not name.strip():
        raise ToolInputError("name is empty: pass a dotted name such as pkg.module.Class")
    index = resident.current()
    wanted = name.strip().strip("`").removesuffix("()")
    symbol = index.resolve_symbol(wanted)
    nodes = index.symbol_nodes(symbol) if symbol is not None else []
    via: dict[str, str] = {}
    if symbol is None or not nodes:  # `sunpy.net.Fido.fetch`: a method of what Fido holds
        symbol, via = _through_instance(index, wanted)
        nodes = index.symbol_nodes(symbol) if symbol is not None else []
    if symbol is None or not nodes:
        if attribute := _attribute(index, wanted):  # `SQLModel.metadata`, set on the class
            return {"name": name, "found": True, **attribute}
        outside = _outside(index, wanted)
        near = [] if "outside_index" in outside else _near(index, wanted)
        return {"name": name, "found": False, **outside, "did_you_mean": near}
    node = next((n for n in nodes if n.metadata.get("kind") != "module_doc"), nodes[0])
    node_symbol = node.metadata.get("symbol") or symbol
    alias = _alias_target(index, node.metadata)
    held = None if alias is not None else _instance_class(index, node_symbol)
    if alias is not None:  # `ib = attr = attrib`: the definition, with its signature
        symbol, node = alias
    elif held:  # `Map = MapFactory()`: its class's doc
        via = {"instance_of": held}
    meta = node.metadata
    doc = (meta.get("docstring") or "").strip()
    if not doc and held and (made := index.symbol_nodes(held)):  # not a member's (`.login`)
        doc = (made[0].metadata.get("docstring") or "").strip()
    return {
        "name": name,
        "found": True,
        "symbol": symbol,
        **({"alias": node_symbol} if alias is not None else {}),
        **via,
        "kind": meta.get("kind"),
        "symbol_type": meta.get("symbol_type"),
        "signature": without_doc(meta["signature"]) if meta.get("signature") else None,
        "params": [shown_param(p) for p in meta.get("params") or []],
        "returns": meta.get("returns"),
        "summary": without_admonitions(doc).split("\n\n", 1)[0].strip(),
        "id": node.node_id,
        "citation": citation(meta),
        "related": _related(index, symbol, meta),
    }


def _attribute(index: Any, wanted: str) -> dict[str, Any] | None:
    """A class's attribute that is no node of its own: one annotated in the class body
    (``metadata: ClassVar[MetaData]``) or set on ``self`` by a method (typer's
    ``self.registered_commands = []``), inherited ones too; None if ``wanted`` is none."""
    owner, _, leaf = wanted.rpartition(".")
    cls = index.resolve_symbol(owner) if owner else None
    cls = _instance_class(index, cls) or cls  # `Vizier.ROW_LIMIT`: what `Vizier` holds
    made = index.symbol_nodes(cls) if cls else []
    if cls is None or not made or made[0].metadata.get("symbol_type") != "class":
        return None
    table = index.symbol_table
    members = Namespace.of(table, table.top_packages).class_members(cls)[0]
    if leaf not in members or (members[leaf] and index.symbol_nodes(members[leaf])):
        return None
    defined_by = (members[leaf] or f"{cls}.{leaf}").rpartition(".")[0]
    where = index.symbol_nodes(defined_by) or made
    fields = where[0].metadata.get("fields") or []
    field: dict[str, Any] = next((f for f in fields if f.get("name") == leaf), {})
    return {
        "symbol": f"{defined_by}.{leaf}",
        "kind": "attribute",
        "owner": defined_by,
        "annotation": field.get("annotation"),
        "default": field.get("default"),
        "citation": citation(where[0].metadata),
        "note": "an attribute of the class (annotated in its body or set on self), no node",
    }


def _instance_class(index: Any, symbol: str | None) -> str | None:
    """``SymbolTable.instance_class``: what ``Fido = UnifiedDownloaderFactory(...)`` holds."""
    return index.symbol_table.instance_class(symbol) if symbol else None


def _through_instance(index: Any, wanted: str) -> tuple[str | None, dict[str, str]]:
    """A member read through a module-level instance, as the class (or a base) defines it:
    ``sunpy.net.Fido.fetch`` is ``UnifiedDownloaderFactory.fetch``; (None, {}) if not."""
    owner, _, leaf = wanted.rpartition(".")
    cls = _instance_class(index, index.resolve_symbol(owner)) if owner else None
    if cls is None:
        return None, {}
    table = index.symbol_table
    member = Namespace.of(table, table.top_packages).class_members(cls)[0].get(leaf)
    return (member, {"instance_of": cls}) if member else (None, {})


def _outside(index: Any, wanted: str) -> dict[str, str]:
    """Why an unfound name may still be real: the package binds it from a package outside
    the index (``fastapi.Request`` is ``starlette.requests.Request``), or its class has a
    base outside the index that may define it (``FastAPI.add_middleware``, Starlette's)."""
    from codecite.validation.namespace import RefKind

    table = index.symbol_table
    namespace = Namespace.of(table, table.top_packages)
    ref = namespace.chain(wanted)
    if ref.kind is RefKind.OPAQUE and ref.canonical and ref.canonical != wanted:
        note = f"`{wanted}` is `{ref.canonical}`, from a package outside the index"
        return {"outside_index": ref.canonical, "note": note}
    owner, _, leaf = wanted.rpartition(".")
    held = _instance_class(index, index.resolve_symbol(owner)) if owner else None  # `Vizier`
    kind, names, complete = owner_names(namespace, held or owner) if owner else (None, set(), True)
    if kind is RefKind.CLASS and not complete and leaf not in names:
        cls = held or namespace.chain(owner).canonical or owner
        why = _why_open(namespace, cls, owner if held is None else cls, leaf)
        return {"note": why} if why else {}
    return {}


def _why_open(namespace: Any, cls: str, shown: str, leaf: str, depth: int = 0) -> str | None:
    """Why ``cls`` (written ``shown``) may have members the index does not list: a class
    decorator (astroquery's ``@async_to_sync`` makes ``query_region``), ``__getattr__``,
    or a base outside the index (fastapi's ``FastAPI``: Starlette's ``add_middleware``)."""
    table = namespace.table
    entry = table.symbols.get(cls) or table.private_class(cls) or {}
    if doubt := class_doubt(entry.get("decorators") or []):
        return f"`{shown}` is {doubt}, which may add `{leaf}` at run time"
    if table.is_dynamic(cls):
        return f"`{shown}` defines __getattr__, which may answer `{leaf}`"
    bases = namespace.bases_of(cls)
    if bases is None:
        return f"`{shown}` has a base class outside the index, which may define `{leaf}`"
    found = (_why_open(namespace, b, b, leaf, depth + 1) for b in bases if depth < MAX_BASE_DEPTH)
    return next(filter(None, found), None)


def _near(index: Any, wanted: str) -> list[str]:
    """Real names close to ``wanted``: the members its owner has, inherited ones too, as
    ``codecite validate`` finds them (``statsmodels.api.OLS.fti`` -> ``...OLS.fit``, from
    ``RegressionModel``); else the closest symbols of the whole index."""
    table = index.symbol_table
    owner, _, leaf = wanted.rpartition(".")
    if owner:
        namespace = Namespace.of(table, table.top_packages)
        held = _instance_class(index, index.resolve_symbol(owner))  # `Fido.fecth`
        names = set(namespace.class_members(held)[0]) if held else owner_names(namespace, owner)[1]
        if close := did_you_mean(leaf, names):
            return [f"{owner}.{n}" for n in close]
    every = sorted(table.symbols, key=lambda s: (len(s), s))
    prefix = (index.resolve_symbol(owner) or owner) if owner else ""  # its class, resolved
    members = [s[len(prefix) + 1 :] for s in every if prefix and s.startswith(prefix + ".")]
    siblings = [m for m in members if "." not in m]  # its own members, not theirs
    near = [f"{owner}.{s}" if s in siblings else s for s in suggest(leaf, siblings, every)]
    if near or owner:
        return near
    # a bare misspelt name (`train_test_splt`): close leaves, each by its shortest public name
    shortest: dict[str, str] = {}
    for full in sorted(
        [*every, *table.public_aliases()], key=partial(_public_first, table.symbols)
    ):
        shortest.setdefault(full.rsplit(".", 1)[-1], full)
    return [shortest[close] for close in did_you_mean(leaf, shortest)]


def _public_first(defined: Container[str], name: str) -> tuple[bool, bool, int, str]:
    """Public names first, then a definition before a name importing it, then shorter."""
    private = any(part.startswith("_") for part in name.split("."))
    return (private, name not in defined, len(name), name)


_NAME = re.compile(r"[A-Za-z_][\w.]*")


def _alias_target(index: Any, meta: dict[str, Any]) -> tuple[str, Any] | None:
    """The definition a module-level ``name = other_name`` assignment re-binds, if indexed."""
    if meta.get("symbol_type") != "assignment":
        return None
    value = str(meta.get("signature") or "").rsplit("=", 1)[-1].strip()
    if not _NAME.fullmatch(value):
        return None
    for candidate in (f"{meta.get('module')}.{value}", value):
        target = index.resolve_symbol(candidate)
        nodes = index.symbol_nodes(target) if target and target != meta.get("symbol") else []
        defined = [n for n in nodes if n.metadata.get("symbol_type") not in (None, "assignment")]
        if defined:
            return target, defined[0]
    return None


def _related(index: Any, symbol: str, meta: dict[str, Any]) -> list[str]:
    members, in_file, _ = index.symbol_table.related_maps()
    if meta.get("symbol_type") == "class":
        near = members.get(symbol, [])
    else:
        near = [s for s in in_file.get(str(meta.get("source_path")), ()) if s != symbol]
    return [s for s in near if not s.rsplit(".", 1)[-1].startswith("_")][:10]


def read(resident: ResidentIndex, ref: str, context_lines: int = 0) -> dict[str, Any]:
    """The source lines behind a node id or a ``path:start-end`` citation."""
    if not isinstance(ref, str) or not ref.strip():
        raise ToolInputError("ref is empty: pass a node id or a citation like pkg/a.py:10-30")
    if type(context_lines) is not int or not 0 <= context_lines <= MAX_CONTEXT_LINES:
        raise ToolInputError(f"context_lines must be 0 to {MAX_CONTEXT_LINES}")
    index = resident.current()
    node = index.node(ref.strip())
    if node is not None:
        path = str(node.metadata["source_path"])
        start, end = int(node.metadata["start_line"]), int(node.metadata["end_line"])
    else:
        m = CITATION.match(ref.strip())
        if m is None:
            raise ToolInputError(
                f"{ref!r} is neither a node id nor a citation path:start-end from a result "
                "(a rebuild gives nodes new ids: search again for a current one)"
            )
        path, start = m["path"], int(m["start"])
        end = int(m["end"] or start)
    if path not in index.manifest.get("files", {}):
        raise ToolInputError(f"'{path}' is not a file of the indexed corpus")
    if start < 1 or end < start:
        raise ToolInputError(f"lines {start}-{end} are not a range (start >= 1, end >= start)")
    root = Path(index.config.root)
    try:
        data = read_regular_file(root / path, root=root, limit=MAX_READ_BYTES)
    except (OSError, UnsafeFileError) as exc:
        raise ToolInputError(f"'{path}' cannot be read now ({exc}); rebuild the index") from exc
    text = data.decode(source_encoding(data, path), errors="replace")  # as the build did
    lines = source_lines(text)  # numbered as the build did
    if start > len(lines):
        raise ToolInputError(
            f"'{path}' has {len(lines)} lines; lines {start}-{end} are past its end"
        )
    first = max(1, start - context_lines)
    last = min(len(lines), end + context_lines, first + MAX_READ_LINES - 1)
    return {
        "ref": ref,
        "path": path,
        "start_line": first,
        "end_line": last,
        "truncated": last < min(len(lines), end + context_lines),
        "file_lines": len(lines),  # a range ending past the file ends at its last line
        "text": "\n".join(lines[first - 1 : last]),
        "label": node_label(node.metadata) if node is not None else path,
        # the file was edited since the build: a node's lines may have moved
        "changed_since_build": hashlib.sha256(data).hexdigest()
        != index.manifest["files"][path].get("digest"),
    }


def validate_code(resident: ResidentIndex, code: str) -> dict[str, Any]:
    """The generated-code check: errors with suggestions, warnings, names verified."""
    from codecite.validation.checker import validate_generated_code

    if not isinstance(code, str):
        raise ToolInputError("code must be the Python source text to check")
    report = validate_generated_code(code, index=resident.current())
    keys = ("ok", "syntax_ok", "errors", "warnings", "checked", "findings")
    return {k: report.get(k) for k in keys}


def index_status(resident: ResidentIndex) -> dict[str, Any]:
    """What is indexed, whether it is fresh, and how to rebuild."""
    index = resident.current()
    stats = index.stats(check_stale=True)
    keep = ("index_dir", "nodes", "files", "by_kind", "created", "codecite_version", "stale")
    out = {k: stats.get(k) for k in keep}
    out["root"] = str(index.config.root)
    out["rebuild"] = f"codecite build -C {index.config.root}"
    out["loads"] = resident.loads
    return out
