"""Documentation files (Markdown, reStructuredText) -> one node per section.

This module is the public face of the documentation parsers: ``parse_doc``
picks the format by suffix and ``DocSectionNodeParser`` is the LlamaIndex
component. The work is done, by concern, in:

- ``markdown``: ATX and setext headings, Markdown sections (``parse_markdown``);
- ``rst``: reStructuredText titles and sections (``parse_rst``);
- ``glossary``: each glossary term a section of its own;
- ``sections``: headings -> sections -> nodes, long sections split on paragraphs;
- ``refs``: the API names a section mentions (``refs``) and its code uses
  (``code_refs``);
- ``doc_lines``: fences, front matter and other line helpers.

The names users import from here stay importable from here.
"""

from __future__ import annotations

from pathlib import PurePosixPath

from codecite.errors import ConfigError  # a ValueError too: bad arguments, never bad text
from codecite.lazy import lazy_attributes
from codecite.vocabulary import MARKDOWN_SUFFIXES, RST_SUFFIXES

from .doc_lines import Heading, front_matter_end
from .glossary import GLOSSARY_LEVEL, glossary_headings
from .markdown import _ATX as _ATX  # the linear-regex tests probe these patterns
from .markdown import _ATX_CLOSER as _ATX_CLOSER
from .markdown import markdown_chunks, markdown_headings, parse_markdown
from .refs import extract_code_refs, extract_refs
from .rst import parse_rst, rst_chunks, rst_headings
from .schema import NodeRecord
from .sections import (
    DEFAULT_MAX_SECTION_CHARS,
    DocChunk,
    chunks_to_nodes,
    ensure_unique_ids,
    on_source_lines,
)

__all__ = [
    "DEFAULT_MAX_SECTION_CHARS",
    "GLOSSARY_LEVEL",
    "MARKDOWN_SUFFIXES",
    "RST_SUFFIXES",
    "DocChunk",
    "Heading",
    "chunks_to_nodes",
    "ensure_unique_ids",
    "extract_code_refs",
    "extract_refs",
    "front_matter_end",
    "glossary_headings",
    "markdown_chunks",
    "markdown_headings",
    "on_source_lines",
    "parse_doc",
    "parse_markdown",
    "parse_rst",
    "rst_chunks",
    "rst_headings",
]


def parse_doc(
    text: str, source_path: str, max_chars: int = DEFAULT_MAX_SECTION_CHARS
) -> list[NodeRecord]:
    """Dispatch on the suffix: ``.md``/``.markdown`` -> Markdown, ``.rst``/``.txt`` -> rst."""
    suffix = PurePosixPath(source_path).suffix.lower()
    if suffix in MARKDOWN_SUFFIXES:
        return parse_markdown(text, source_path, max_chars)
    if suffix in RST_SUFFIXES:
        return parse_rst(text, source_path, max_chars)
    raise ConfigError(
        f"cannot parse '{source_path}' as documentation: suffix {suffix or '(none)'!r} is not "
        f"one of {', '.join(MARKDOWN_SUFFIXES + RST_SUFFIXES)}; rename it or drop it from "
        "the configured doc suffixes"
    )


# ``DocSectionNodeParser``: this parser as a LlamaIndex ``NodeParser``, made in ``llama.py``
__getattr__ = lazy_attributes("codecite.node_parsers", {"DocSectionNodeParser": "llama"})
