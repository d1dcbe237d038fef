"""codecite's closed vocabularies, each declared once: node kinds, file suffixes, fixes.

Every module that tests membership in one of these sets imports it from here; a
test (tests/test_house.py) fails when a module spells one out again. Node kinds are
part of the on-disk format and of the public metadata contract (docs/architecture.md);
adding one means bumping the parser version (node_parsers/dispatch.py).
"""

from __future__ import annotations

from enum import Enum


class NodeKind(str, Enum):
    """What a retrievable unit is."""

    PYTHON_SYMBOL = "python_symbol"
    PYTHON_METHOD = "python_method"
    MODULE_DOC = "module_doc"
    DOC_SECTION = "doc_section"
    RECIPE = "recipe"

    def __str__(self) -> str:
        return self.value


KINDS: tuple[str, ...] = tuple(k.value for k in NodeKind)  # in this order in messages
CODE_KINDS = frozenset({NodeKind.PYTHON_SYMBOL.value, NodeKind.PYTHON_METHOD.value})
DOC_KINDS = frozenset(
    {NodeKind.DOC_SECTION.value, NodeKind.RECIPE.value, NodeKind.MODULE_DOC.value}
)
PAGE_KINDS = frozenset({NodeKind.DOC_SECTION.value, NodeKind.RECIPE.value})  # one page, many

PYTHON_SUFFIXES = (".py", ".pyi")
MARKDOWN_SUFFIXES = (".md", ".markdown", ".qmd")  # .qmd: Quarto, Markdown with chunks
RST_SUFFIXES = (".rst", ".txt")
DOC_SUFFIXES = MARKDOWN_SUFFIXES + RST_SUFFIXES  # other named root docs read as Markdown
NOTEBOOK_SUFFIX = ".ipynb"

# Words a follow-up question opens with that say nothing about its subject.
LEAD_IN_WORDS = ("and", "so", "ok", "okay", "now", "then", "also", "but")

REBUILD_FIX = "run `codecite build --full`"
