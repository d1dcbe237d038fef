"""The boosted lexical scorer: BM25 over identifier-aware tokens, composed boosts.

Plain Python and numpy over ``bm25s``: it scores the query, its expansion and its
word-form variants, applies metadata filters before ranking, composes the factors
of ``boosts`` vectorised, and returns a ``RetrievedContext`` of plain hits whose
score is ``s(c)``. A retrieval does that work at the query's candidates only (the
nodes holding one of its terms, and those doc propagation can lend to): no factor
lifts a node with ``L(c) = 0``, so every other node scores 0, and the candidates'
vectors are the whole-corpus vectors (``score_all``) at those nodes, bit for bit.
It imports nothing of LlamaIndex, so a ``codecite query`` process does not pay for
it; ``bm25.CodeciteRetriever`` is the same scorer as a LlamaIndex retriever.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any

import bm25s
import numpy as np

from codecite.node_parsers.schema import node_label

from . import boosts
from .candidates import Candidates, named_alone
from .expansion import configured_expansion, infer_workflow
from .lexical import bm25_scores, postings
from .node_arrays import NodeArrays, typed
from .page_lead import TOP, lead_candidate, led, with_lead
from .pages import PageEvidence
from .propagation import DocPropagation
from .ranking import rank_order
from .results import Breakdowns, Hit, RetrievedContext, ScoreBreakdown, breakdown_at, hit_terms
from .settings import ScoringSettings
from .tokenizer import identifier_mentions, query_tokens
from .variants import variant_groups, variant_scores, variant_table

if TYPE_CHECKING:
    from llama_index.core.vector_stores.types import MetadataFilters

logger = logging.getLogger(__name__)

DEFAULT_TOP_K = 10
MAX_TOP_K = 1000
# a query whose candidates are more of the nodes than this is scored at every node (the
# same scores): gathers cost more per node than whole-vector passes (docs/architecture.md)
EVERY_NODE_SHARE = 0.5


class LexicalScorer:
    """Identifier-aware BM25 with expansion and the composed boosts (docs/retrieval.md).

    ``nodes`` are ``NodeRecord``s (or anything with ``node_id``, ``text`` and
    ``metadata``, such as LlamaIndex ``TextNode``s), in the bm25 index's order.

    Example:
        >>> index = codecite.load("path/to/repo")                  # doctest: +SKIP
        >>> index.scorer(5).retrieve_context("correct static shift")  # doctest: +SKIP
    """

    def __init__(
        self,
        nodes: Sequence[Any],
        bm25: bm25s.BM25,
        settings: ScoringSettings | None = None,
        similarity_top_k: int = DEFAULT_TOP_K,
        feedback: Mapping[str, float] | None = None,
        propagation: DocPropagation | None = None,
        mined_expansion: Mapping[str, Sequence[str]] | None = None,
        public_names: Mapping[str, str] | None = None,
        documented: Mapping[str, Sequence[int]] | None = None,
        filters: MetadataFilters | None = None,
        kinds: Sequence[str] | None = None,
        workflow: str | None = None,
        path_prefix: str | None = None,
        node_arrays: NodeArrays | None = None,
        pages: PageEvidence | None = None,
    ) -> None:
        if int(bm25.scores["num_docs"]) != len(nodes):
            raise ValueError(
                f"bm25 index has {bm25.scores['num_docs']} documents but "
                f"{len(nodes)} nodes were given"
            )
        self.bm25 = bm25
        self.settings = settings or ScoringSettings()
        self.nodes = nodes if callable(getattr(nodes, "columns", None)) else list(nodes)  # loaded
        self.feedback = dict(feedback or {})
        self.propagation = propagation
        self.mined_expansion = dict(mined_expansion or {})
        self.public_names = dict(public_names or {})
        self.documented = dict(documented or {})
        self._arrays = node_arrays or NodeArrays(
            self.nodes, self.settings, self.feedback, self.public_names, propagation, documented
        )
        self._filters = filters
        self._kinds = tuple(kinds) if kinds else None
        self._workflow_filter = workflow
        self._path_prefix = path_prefix
        self.pages = pages
        self.similarity_top_k = max(1, min(int(similarity_top_k), MAX_TOP_K))
        self._mask = self._filter_mask()
        # `--path FILE`: every section of that one file, not two (rank_order's per-file cap)
        self._one_file = path_prefix is not None and path_prefix.strip("/") in self._arrays.paths
        # only the query's candidates are scored, unless they are more than this share of
        # the nodes; ``_candidates_only = False`` scores every node, as ``score_all`` does
        self._candidates_only = True
        self._every_node_share = EVERY_NODE_SHARE

    # -- filters (applied before ranking) -------------------------------------------------
    def _filter_mask(self) -> np.ndarray | None:
        n = len(self.nodes)
        mask = np.ones(n, dtype=bool)
        if self._kinds:
            mask &= np.isin(self._arrays.kinds, list(self._kinds))
        if self._workflow_filter:
            mask &= np.array([w == self._workflow_filter for w in self._arrays.workflows])
        if self._path_prefix:
            prefix = self._path_prefix.strip("/")
            mask &= np.array(
                [p == prefix or p.startswith(prefix + "/") for p in self._arrays.paths]
            )
        if self._filters is not None:
            from llama_index.core.vector_stores.utils import build_metadata_filter_fn

            by_id = {node.node_id: node.metadata for node in self.nodes}
            keep = build_metadata_filter_fn(lambda node_id: by_id[node_id], self._filters)
            mask &= np.array([bool(keep(node.node_id)) for node in self.nodes])
        return None if mask.all() else mask

    def _raisers_owners(self, pasted: str, raisers: np.ndarray) -> np.ndarray:
        """What a pasted message names that raises it or constructs with it: ``wait_chain()
        requires at least one strategy``, raised in ``wait_chain.__init__``, names the
        class; ``Limit() only valid in Group mode``, raised in the method
        ``Limit.glomit``, names no more than the method. Other names in the paste
        (values filled into it) name nothing."""
        a = self._arrays
        raising = {str(a.symbols[int(i)]) for i in np.flatnonzero(raisers)}
        out = np.zeros(len(raisers), dtype=bool)
        for symbol in a.names.resolve(pasted):
            if symbol in raising or f"{symbol}.__init__" in raising:
                out[a.names.rows[symbol]] = True
        return out

    # -- the score --------------------------------------------------------------------
    def read_query(self, query: str) -> tuple[list[str], list[str], str | None, str | None]:
        """Query tokens, expansion tokens (and where they came from), inferred workflow."""
        tokens = query_tokens(query)
        expansion = configured_expansion(query, self.settings.expansions, tokens)
        source = "configured" if expansion else None
        if not expansion and self.settings.mined_expansion and self.mined_expansion:
            from .mined import mined_terms

            expansion = mined_terms(tokens, self.mined_expansion)
            source = "mined" if expansion else None
        workflow = infer_workflow(query, self.settings.workflows)
        return tokens, expansion, source, workflow

    def query_variants(self, tokens: list[str], expansion: list[str]) -> list[tuple[str, ...]]:
        """``v(q)``: per query word, its other forms found in the index (see ``variants``)."""
        if not self.settings.query_variants or self.settings.variant_weight <= 0:
            return []
        table = getattr(self.bm25, "_codecite_variants", None)
        if table is None:  # once per bm25 index, shared by every retriever made on it
            table = variant_table(self.bm25.vocab_dict)
            self.bm25._codecite_variants = table
        return variant_groups(tokens, table, exclude=expansion)

    @property
    def page_weight(self) -> float:
        """``wp``: 0 when the index has no page evidence (``pages``)."""
        return self.settings.page_weight if self.pages is not None else 0.0

    def score_all(
        self, query: str, variants: bool = True, names: bool = True, pages: bool = True
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Final score of every node, and the per-node vectors that made it.

        ``variants=False`` scores without word-form variants, as if
        ``query_variants`` were off; ``names=False`` without the name factor, as
        if ``name_boost`` were 1; ``pages=False`` without page evidence, as if
        ``page_weight`` were 0 (the confidence rule uses all three).
        """
        return self._score(query, variants, names, pages, every_node=True)

    def candidates(
        self,
        tokens: list[str],
        expansion: list[str],
        forms: list[tuple[str, ...]],
        named: np.ndarray | None = None,
    ) -> Candidates:
        """The nodes that can score for a query: those holding one of its tokens,
        expansion tokens or variants (``L(c) > 0`` nowhere else, and no factor lifts
        a 0: ``boosts``), the symbols a wordless query names (``candidates.named_alone``), and
        the nodes doc propagation can lend to from them."""
        marked = np.zeros(len(self.nodes), dtype=bool) if named is None else named.copy()
        if getattr(self.bm25, "nonoccurrence_array", None) is not None:  # BM25L/BM25+
            marked[:] = True  # every node scores
        found = postings(self.bm25, [*tokens, *expansion, *(t for g in forms for t in g)])
        if found:
            marked[np.concatenate(found)] = True
        if self.propagation is not None and self.settings.doc_propagation:
            self.propagation.reach(marked)
        return Candidates(marked)

    def _score(
        self, query: str, variants: bool, names: bool, pages: bool, every_node: bool
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """``score_all`` at every node, or (not ``every_node``) at the query's candidates
        only: ``parts["rows"]`` says which nodes the vectors hold (None: every node)."""
        tokens, expansion, source, workflow = self.read_query(query)
        s, a = self.settings, self._arrays
        forms = self.query_variants(tokens, expansion) if variants else []
        nb = s.name_boost if names else boosts.NEUTRAL
        alone = named_alone(a.names, query, bool(tokens or expansion), nb > boosts.NEUTRAL)
        quoted = a.messages.match(query) if nb > boosts.NEUTRAL and s.message_evidence else None
        # the code raising a pasted message (retrievers.messages), or the class or module
        # holding it for private code inside, is a candidate with the message as its evidence
        held = None if quoted is None else quoted[0]
        raising = alone if held is None else held | (False if alone is None else alone)
        scored = None if every_node else self.candidates(tokens, expansion, forms, raising)
        if scored is not None and scored.size > self._every_node_share * len(self.nodes):
            scored = None  # most nodes: gathering them would cost more than it saves
        rows = scored.rows if scored is not None else None
        at = partial(_at, rows=rows)  # a per-node vector at the rows scored
        mask = at(self._mask) if self._mask is not None else None
        q = bm25_scores(self.bm25, tokens, scored)
        e = bm25_scores(self.bm25, expansion, scored)
        # variants reach toward the code's forms of a word: only code nodes take them
        v_all = variant_scores(self.bm25, forms, scored)
        v = np.where(at(a.code), v_all, 0.0).astype(boosts.SCORE_DTYPE)
        lexical = boosts.lexical_score(q, e, s.expansion_weight, v, s.variant_weight)
        if raising is not None:
            floor = at(raising) & (lexical <= 0)
            lexical = np.where(floor, boosts.NAMED_ALONE, lexical).astype(boosts.SCORE_DTYPE)
        if mask is not None:
            lexical = np.where(mask, lexical, 0.0)
        own_words = boosts.own_words_score(lexical, v, s.variant_weight)
        page = np.zeros(len(lexical), dtype=boosts.SCORE_DTYPE)
        if pages and self.page_weight > 0 and self.pages is not None:
            page = self.pages.bonus(tokens, lexical, rows).astype(boosts.SCORE_DTYPE)
            lexical = (lexical + self.page_weight * page).astype(boosts.SCORE_DTYPE)
        tags = at(a.workflows) if workflow is not None else lexical  # None: its shape is read
        wf = typed("workflow", boosts.workflow_factor(tags, workflow, s.workflow_boost))
        mentions = identifier_mentions(query)
        sym = typed("symbol", boosts.symbol_factor(a.leaf_index.at(rows), mentions, s.symbol_boost))
        named = a.names.mask(query) if nb > boosts.NEUTRAL else None
        if quoted is not None:
            raisers, rest = quoted
            named = a.names.mask(rest) | raisers | self._raisers_owners(query[len(rest) :], raisers)
        named = at(named) if named is not None and named.any() else None  # None: b_name is 1
        # b_name multiplies last, so the product of the others is s(c) without it: what the
        # confidence proxy composes, with the user's own words (v(q) widens the search, not
        # the claim; naming a symbol says which node is meant, not that it is in scope)
        if workflow is None and not (sym != boosts.NEUTRAL).any():
            unnamed = at(a.unboosted)  # the same product, made once
        else:
            by_name = {"workflow": wf, "symbol": sym}  # the others are the index's own
            unnamed = boosts.factor_product(
                *(by_name[f] if f in by_name else at(getattr(a, f)) for f in boosts.FACTORS[:-1])
            )
        top = float(boosts.compose(own_words, unnamed).max(initial=0.0))
        name = at(a.neutral) if named is None else typed("name", boosts.name_factor(named, nb))
        # nothing named: b_name is 1 everywhere, and x * 1 is x exactly (one product fewer)
        composed, final, sources = self._compose(
            lexical, unnamed if named is None else unnamed * name, scored
        )
        if named is not None:  # the named definition first (boosts.name_lift)
            lift = boosts.name_lift(final, composed, named)
            if lift > boosts.NEUTRAL:
                name = typed("name", boosts.name_factor(named, nb, lift))
                composed, final, sources = self._compose(lexical, unnamed * name, scored)
        lead = (  # the best doc page first (page_lead), when nothing is named
            lead_candidate(
                lexical,
                v_all,
                a.pages if rows is None else np.flatnonzero(a.page[rows]),
                mask,
                s.variant_weight,
                unnamed,
                final,
            )
            if s.page_lead and named is None and forms
            else None
        )
        if lead is not None and rows is not None:  # the lead's node, not its candidate index
            lead = (int(rows[lead[0]]), *lead[1:])
        parts = {
            "rows": rows,
            "lead": lead,
            "tokens": tokens,
            "expansion": expansion,
            "source": source,
            "variants": forms,
            "v": v,
            "page": page,
            "raisers": quoted[0] if quoted is not None else None,
            "top": top,
            "workflow": workflow,
            "q": q,
            "e": e,
            "lexical": lexical,
            "wf": wf,
            "sym": sym,
            "name": name,
            "composed": composed,
            "sources": sources,
        }
        return final, parts

    def _compose(
        self, lexical: np.ndarray, factors: np.ndarray, candidates: Candidates | None
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
        """``s(c)``, the final score after doc propagation, and who lent each final score."""
        composed = boosts.compose(lexical, factors).astype(boosts.SCORE_DTYPE)
        if self.propagation is None or not self.settings.doc_propagation:
            return composed, composed, None
        final, sources = self.propagation.apply(
            composed,
            self.settings.propagation_share,
            self._mask,
            factor=self._arrays.feedback,
            candidates=candidates,
        )
        return composed, final, sources

    def retrieve_context(
        self,
        query: Any,
        similarity_top_k: int | None = None,
        variants: bool = True,
        names: bool = True,
        pages: bool = True,
        lead: bool = True,
    ) -> RetrievedContext:
        """Rank nodes for ``query`` and explain every score (``score_all``'s switches;
        ``lead=False`` ranks without the page lead, as the answer-or-ask decision does)."""
        query_str = str(getattr(query, "query_str", query))  # a str or a QueryBundle
        k = self.similarity_top_k if similarity_top_k is None else int(similarity_top_k)
        k = max(1, min(k, MAX_TOP_K))
        every_node = not self._candidates_only
        final, parts = self._score(query_str, variants, names, pages, every_node)
        rows = parts["rows"]
        after = (  # who ranks after an equal score (DocPropagation.after_ties)
            self.propagation.after_ties(final, parts["sources"], self._arrays.module_doc, rows)
            if self.propagation is not None and parts["sources"] is not None
            else None
        )
        order = rank_order(
            final,
            max(k, TOP + 1) if lead and parts["lead"] else k,
            0 if self._one_file else self.settings.max_sections_per_file,
            self._arrays.doc_files,
            tiebreak=parts["composed"],
            last=after,
            rows=rows,
        )
        first = led(order, parts["lead"][0], self._arrays.page) if lead and parts["lead"] else None
        if first is not None:  # it ranks first on s_lead, and is explained as scored
            final, parts = with_lead(final, parts)
        order = (first or order)[:k]
        explained = Breakdowns()  # made when read: most callers never read them
        ctx = RetrievedContext(
            query=query_str,
            tokens=parts["tokens"],
            expansion=parts["expansion"],
            expansion_source=parts["source"],
            workflow=parts["workflow"],
            variants=[t for group in parts["variants"] for t in group],
            page_weight=self.page_weight if pages else 0.0,
            breakdown=explained,
        )
        ctx.top_score = parts["top"]
        ctx.page_lead = node_label(self.nodes[first[0]].metadata) if first else None
        if parts["raisers"] is not None:
            ctx.raisers = [
                str(self._arrays.symbols[int(i)]) for i in np.flatnonzero(parts["raisers"])
            ]
        terms = hit_terms(order, parts, final, self._arrays)  # O(k): the context keeps no vector
        for j, i in enumerate(order):
            node = self.nodes[int(i)]
            ctx.nodes.append(Hit(node, float(terms["final"][j])))
            explained.defer(node.node_id, partial(self._breakdown, j, terms))
        return ctx

    def _breakdown(self, j: int, terms: dict[str, np.ndarray]) -> ScoreBreakdown:
        return breakdown_at(j, terms, self.nodes)


def _at(vector: np.ndarray, rows: np.ndarray | None) -> np.ndarray:
    """A per-node ``vector`` at ``rows`` (None: every node, the vector itself)."""
    return vector if rows is None else vector[rows]


__all__ = ["LexicalScorer", "rank_order", "variant_scores"]  # variant_scores: variants
