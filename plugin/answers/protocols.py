"""What the answer modules need of an index, as a structural type.

The answer room reads an index through :class:`IndexLike` instead of importing
``codecite.index``: ``codecite.index`` imports the engine (``as_query_engine``,
``ask``), so an import back would be a cycle. :class:`codecite.index.CodeciteIndex`
satisfies the protocol; so does any test double with these attributes.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from codecite.config.model import CodeciteConfig
from codecite.retrievers.results import RetrievedContext
from codecite.store.symbols import SymbolTable


class IndexLike(Protocol):
    """The attributes of a loaded index that answers, context and tools use.

    Example:
        >>> index: IndexLike = codecite.load(".")               # doctest: +SKIP
        >>> index.retriever(8).retrieve_context("render")       # doctest: +SKIP
    """

    config: CodeciteConfig

    @property
    def manifest(self) -> Mapping[str, Any]: ...

    @property
    def symbol_table(self) -> SymbolTable: ...

    def retriever(self, similarity_top_k: int = ..., *, dense: bool = ...) -> Any: ...

    def scorer(self, similarity_top_k: int = ...) -> Any: ...

    def query(self, query: str, k: int = ...) -> RetrievedContext: ...
