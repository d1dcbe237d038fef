"""Recipe files (Markdown workflow guides) -> ``recipe`` nodes plus a ``RecipeInfo``.

A recipe answers "how do I ..." for one workflow. The retriever boosts recipe
nodes and nodes of the workflow inferred from a query, so every node must carry
its recipe's ``workflow`` tag, and the phrases a user would type ("index a new
repository") must be searchable text.

Convention
----------
An optional front matter block opens the file::

    ---
    workflow: index_repo
    title: Index a new repository
    intents: ["index a new repository", "build the index"]
    inputs: ["a repository path"]
    outputs:
      - .codecite/ index
    ---
    # Index a new repository
    ...

Keys (others are ignored): ``workflow``, ``title``, ``intents``, ``inputs``,
``outputs``. A value is a scalar (bare or quoted), a JSON-like ``[...]`` list
of quoted or bare strings, or, when the value is empty, the ``- item`` lines
that follow. It is read without a YAML dependency.

Fallbacks, in order:

- workflow: front matter ``workflow``; else a line ``Workflow: name``
  (case-insensitive, optionally bold, ``**Workflow:** name``, or a list item)
  before the second heading; else the file stem, lower-cased with every run of
  non-word characters turned into ``_`` (``index-repo.md`` -> ``index_repo``).
- title: front matter ``title``; else the first heading; else the file stem.

Each Markdown section becomes a node (as in :mod:`codecite.node_parsers.docs`)
with ``kind = "recipe"`` and the workflow tag; its text starts with
``recipe <title> (workflow <workflow>)`` and, on the first node only, a line
``intents: a; b``. Line numbers are real file lines, front matter included.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any

from codecite.lazy import lazy_attributes

from .doc_lines import front_matter_end, split_lines
from .markdown import markdown_chunks, markdown_headings
from .schema import NodeKind, NodeRecord
from .sections import DEFAULT_MAX_SECTION_CHARS, chunks_to_nodes

LIST_KEYS = ("intents", "inputs", "outputs")
SCALAR_KEYS = ("workflow", "title")

_FM_FIELD = re.compile(r"^([A-Za-z_][\w-]*)[ \t]*:[ \t]*(.*)$")
_FM_ITEM = re.compile(r"^[ \t]*-[ \t]+(.*)$")
_LIST_ITEM = re.compile(r'\s*(?:"((?:[^"\\]|\\.)*)"|\'([^\']*)\'|([^,]+))')
# the blanks after the colon are one run, or two around a bold marker, never two adjacent
# runs (which split a long run in every way before failing: docs/reliability.md)
_WORKFLOW_LINE = re.compile(
    r"^[ \t]*(?:[-*+][ \t]+)?(?:\*\*|__)?workflow(?:\*\*|__)?[ \t]*:[ \t]*(?:(?:\*\*|__)[ \t]*)?"
    r"`?([\w.-]+)`?",
    re.IGNORECASE,
)
_TRAILING_COMMENT = re.compile(r"(?<![ \t])[ \t]+#.*$")  # tried only where the blanks start


@dataclass(frozen=True)
class RecipeInfo:
    """What a recipe is for: its workflow tag, title and intent phrases.

    Example:
        >>> _, info = parse_recipe("# Build\\nWorkflow: build_index\\n\\nRun it.\\n", "r/b.md")
        >>> info.workflow, info.title
        ('build_index', 'Build')
    """

    source_path: str
    workflow: str
    title: str
    intents: tuple[str, ...] = ()
    inputs: tuple[str, ...] = ()
    outputs: tuple[str, ...] = ()


# -- front matter ----------------------------------------------------------------


def _unquote(raw: str) -> str:
    """A scalar without its quotes; bare scalars lose a trailing ``# comment``."""
    raw = raw.strip()
    if len(raw) >= 2 and raw[0] == raw[-1] == '"':
        try:
            return str(json.loads(raw))
        except ValueError:
            return raw[1:-1]
    if len(raw) >= 2 and raw[0] == raw[-1] == "'":
        return raw[1:-1]
    return _TRAILING_COMMENT.sub("", raw).strip()


def _inline_list(raw: str) -> list[str]:
    """``["a", 'b', c]`` -> ``['a', 'b', 'c']`` (JSON first, then a tolerant split)."""
    try:
        value = json.loads(raw)
        if isinstance(value, list):
            return [str(v) for v in value]
    except ValueError:
        pass
    items = []
    for m in _LIST_ITEM.finditer(raw.strip()[1:-1]):
        text = m.group(1) if m.group(1) is not None else m.group(2)
        text = text if text is not None else m.group(3).strip()
        if text:
            items.append(text)
    return items


def _field_value(raw: str) -> str | list[str]:
    raw = raw.strip()
    if not raw:
        return []
    if raw.startswith("[") and raw.endswith("]"):
        return _inline_list(raw)
    return _unquote(raw)


def _front_matter_fields(lines: Sequence[str]) -> dict[str, str | list[str]]:
    fields: dict[str, str | list[str]] = {}
    key: str | None = None
    for line in lines:
        item = _FM_ITEM.match(line)
        current = fields.get(key) if key is not None else None
        if item and isinstance(current, list):
            current.append(_unquote(item.group(1)))
            continue
        m = _FM_FIELD.match(line)
        if m:
            key = m.group(1).lower()
            fields[key] = _field_value(m.group(2))
    return fields


def parse_front_matter(lines: Sequence[str]) -> tuple[dict[str, Any], int]:
    """Recipe keys from a leading ``---`` block, and the index of the line after it.

    Example:
        >>> parse_front_matter(["---", "workflow: ask", "intents: [a, 'b c']", "---"])
        ({'workflow': 'ask', 'intents': ['a', 'b c']}, 4)
    """
    end = front_matter_end(lines)
    if not end:
        return {}, 0
    raw = _front_matter_fields(lines[1 : end - 1])
    fields: dict[str, Any] = {}
    for key in SCALAR_KEYS:
        value = raw.get(key)
        if isinstance(value, list):
            value = value[0] if value else None
        if value:
            fields[key] = value
    for key in LIST_KEYS:
        value = raw.get(key)
        if value:
            fields[key] = [value] if isinstance(value, str) else list(value)
    return fields, end


# -- info --------------------------------------------------------------------------


def _stem_workflow(source_path: str) -> str:
    stem = PurePosixPath(source_path).stem or "recipe"
    return re.sub(r"\W+", "_", stem).strip("_").lower() or "recipe"


def _workflow_line(lines: Sequence[str], first: int, headings: Sequence[Any]) -> str | None:
    """The ``Workflow: name`` value before the second heading, if any."""
    end = headings[1].start if len(headings) > 1 else len(lines)
    for line in lines[first:end]:
        m = _WORKFLOW_LINE.match(line)
        if m:
            return m.group(1)
    return None


def recipe_info(text: str, source_path: str) -> RecipeInfo:
    """Read a recipe's workflow, title and phrases (see the module docstring)."""
    lines = split_lines(text)
    fields, first = parse_front_matter(lines)
    headings = markdown_headings(lines, first)
    workflow = (
        fields.get("workflow")
        or _workflow_line(lines, first, headings)
        or _stem_workflow(source_path)
    )
    title = fields.get("title") or (
        headings[0].title if headings else PurePosixPath(source_path).stem or source_path
    )
    return RecipeInfo(
        source_path, workflow, title, *(tuple(fields.get(key, ())) for key in LIST_KEYS)
    )


# -- nodes ---------------------------------------------------------------------------


def _headers(info: RecipeInfo) -> tuple[str, str]:
    """(header of the first node, header of the others)."""
    header = f"recipe {info.title} (workflow {info.workflow})\n"
    intents = f"intents: {'; '.join(info.intents)}\n" if info.intents else ""
    return header + intents, header


def parse_recipe(
    text: str, source_path: str, max_chars: int = DEFAULT_MAX_SECTION_CHARS
) -> tuple[list[NodeRecord], RecipeInfo]:
    """A recipe file -> its section nodes (``kind = "recipe"``) and its ``RecipeInfo``.

    Node texts stay within ``max_chars`` where possible: the room the recipe
    header takes is reserved before sections are split.
    """
    info = recipe_info(text, source_path)
    first_header, header = _headers(info)
    room = max(max_chars - len(first_header), max_chars // 2, 1)
    chunks = markdown_chunks(text, source_path, room)
    nodes = chunks_to_nodes(
        chunks,
        source_path,
        NodeKind.RECIPE.value,
        header=lambda i: first_header if i == 0 else header,
        extra={"workflow": info.workflow},
    )
    return nodes, info


# ``RecipeNodeParser``: this parser as a LlamaIndex ``NodeParser``, made in ``llama.py``
__getattr__ = lazy_attributes("codecite.node_parsers", {"RecipeNodeParser": "llama"})
