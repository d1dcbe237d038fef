"""How strongly the retrieved evidence answers a query: the signals of answer-or-ask.

The decision itself is ``codecite.answers.confidence`` (docs/answers.md, "Confidence:
answer or ask"); these are its measurements, which need only the lexical index, so
the build can score its calibration probes with them (``codecite.indexer.calibration``):

    coverage = sum_{t in q, t matched by a top-3 node} idf(t) / sum_{t in q} idf(t)

(the top 3 distinct pieces of evidence: a node ranked by doc propagation is
evidence through the section that lent it relevance, counted once)

where a query token absent from the corpus weighs like the rarest token
(idf of df = 1), or half that when the token is a word common in Python's own
prose (``data/common_words.txt``: in at least 5 of the standard library's 601
modules' comments and strings). Coverage is in [0, 1] at any corpus size.
Two checks see what coverage cannot:

- *unknown name*: the query names something (an acronym, a CamelCase or
  capitalised word inside a sentence, or a well-known tool, library or service
  in any case: "pandas", "nginx", ``data/tool_names.txt``) that occurs nowhere
  in the corpus;
- *vague*: fewer than two specific words remain once generic complaint
  words ("still", "doesn't work", "any ideas") and the words that frame a
  complaint ("nothing", "since", "take a look") are set aside.

And one sees what the others cannot, *exact names*: a query that writes one of
the corpus's own symbols exactly (``sqlparse.format``, ```split()```,
``add_column``, ``Locale`` alone; ``NameTable.written_exactly``) or pastes a
message its code raises (``retrievers.messages``) is about this corpus,
however few of its words the top nodes share ("PatsyError: model is missing
required outcome variables" is as in scope as a question gets). It overrules
coverage, the score floor and vagueness; an unknown name only when the symbol
is written as code or as a dotted path, or a message is pasted (a user's own
values inside it, "'FF0000'", "Debian", are no other tool).
"""

from __future__ import annotations

import builtins
import math
import re
from dataclasses import dataclass, field
from functools import cache
from importlib.resources import files
from typing import Any

import numpy as np

from codecite.retrievers.names import written_names
from codecite.retrievers.results import RetrievedContext
from codecite.retrievers.tokenizer import STOPWORDS, tokenize

DEFAULT_COVERAGE_FLOOR = 0.40  # the only floor of an index built without calibration
CALIBRATED_COVERAGE_FLOOR = 0.30  # beside the calibrated score floor
SCORE_FACTOR = 0.40  # of the median best score of the probe questions: the score floor
COMMON_ABSENT_SHARE = 0.5  # of the rarest token's idf, for a common word the corpus lacks
COVERAGE_DEPTH = 3
AS_CODE = ("path", "code")  # forms of an exact name that overrule an unknown name
MIN_SPECIFIC_TOKENS = 2
VAGUE_WORDS = frozenset(
    """
still doesn don didn isn wasn won work works working worked keep keeps kept idea ideas
anything something everything thing things stuff help problem problems issue issues
wrong broken now update updated updating again happen happens happening fail fails failing
failed slow fast weird strange happened suddenly anymore ever tried try trying
crash crashes crashing crashed broke fix fixes fixed fixing stopped hang hangs hanging hung
""".split()
)
# how a complaint is framed rather than what it is about ("nothing works since I updated, can
# you take a look?"): no more specific than the complaint words (docs/answers.md, "Vague")
FRAMING_WORDS = frozenset(
    """
nothing since take look looks looking upgrade upgraded upgrading sometimes always going
yesterday dont know hello instructions followed completely sense anyone someone
""".split()
)
GENERIC_NAMES = frozenset({"i", "python", "ok", "okay", "hi", "hello", "thanks", "please"})
# Python's own names (TypeError, DeprecationWarning, ...) belong to every Python corpus
BUILTIN_NAMES = frozenset(name.lower() for name in dir(builtins) if not name.startswith("_"))
# a name after a dot too (``models.CharField``): a path into another tool names it
_NAMED = re.compile(r"(?<!\w)([A-Za-z][A-Za-z0-9]*)(?![\w])")
MIN_NAMED_WORD = 5  # a plain word shorter than this is not read as a definition's name


def _idf(bm25: Any) -> tuple[np.ndarray, float]:
    indptr = np.asarray(bm25.scores["indptr"])
    n = int(bm25.scores["num_docs"])
    df = np.diff(indptr)
    return np.log(1 + (n - df + 0.5) / (df + 0.5)), math.log(1 + (n - 0.5) / 1.5)


def named_unknowns(query: str, vocab: dict[str, int]) -> list[str]:
    """Names in the query (acronyms, CamelCase, mid-sentence capitals) unknown to the corpus."""
    out = []
    known: dict[str, bool] = {}  # a long query repeats its words: tokenize each once
    for m in _NAMED.finditer(query):
        word = m.group(1)
        lowered = word.lower()
        if (
            lowered in GENERIC_NAMES
            or lowered in BUILTIN_NAMES
            or not (lowered in tool_names() or _looks_like_name(query, m.start(), word))
        ):
            continue
        if word not in known:
            tokens = tokenize(word)
            known[word] = not tokens or tokens[0] in vocab  # the whole name, not its parts
        if not known[word]:
            out.append(word)
    return out


def _looks_like_name(query: str, start: int, word: str) -> bool:
    inner_capital = any(c.isupper() for c in word[1:])
    if inner_capital or (word.isupper() and len(word) > 1):
        return True
    if not word[0].isupper():
        return False
    before = _last_non_space(query, start)
    return before is not None and before not in ".?!:;\"'`(["


def _last_non_space(text: str, end: int) -> str | None:
    """The last character of ``text[:end].rstrip()``, without copying ``text[:end]``
    (which made a query of many names quadratic)."""
    i = end - 1
    while i >= 0 and text[i].isspace():
        i -= 1
    return text[i] if i >= 0 else None


@cache
def tool_names() -> frozenset[str]:
    """Well-known tools, libraries and services (``data/tool_names.txt``): written in any
    case ("pandas", "nginx", "redis"), each is a name, as a capitalised word is."""
    text = files("codecite").joinpath("data/tool_names.txt").read_text(encoding="utf-8")
    return frozenset(
        word for line in text.splitlines() if not line.startswith("#") for word in line.split()
    )


@cache
def common_words() -> frozenset[str]:
    """Words common in the standard library's prose (``scripts/common_words.py`` made the list)."""
    text = files("codecite").joinpath("data/common_words.txt").read_text(encoding="utf-8")
    return frozenset(
        line.strip() for line in text.splitlines() if line.strip() and not line.startswith("#")
    )


def token_weights(bm25: Any, tokens: list[str]) -> dict[str, float]:
    """The weight of each query token in coverage: its idf in the corpus; for a token
    the corpus never uses, the idf of the rarest token, halved for a common word."""
    idf, max_idf = _idf(bm25)
    common = common_words()
    return {
        t: (
            float(idf[bm25.vocab_dict[t]])
            if t in bm25.vocab_dict
            else max_idf * (COMMON_ABSENT_SHARE if t in common else 1.0)
        )
        for t in tokens
    }


def coverage(retriever: Any, ctx: RetrievedContext, depth: int = COVERAGE_DEPTH) -> float:
    """Share of the query's idf mass matched by the top ``depth`` nodes.

    With word variants on, the evidence is the better of two top-``depth`` lists:
    the ranking shown and the ranking by the user's own words alone. Either way
    only the user's own words count as matched: variants widen the search, not
    the claim. Both are ranked without the name factor ``b_name``: a symbol the
    query names, lifted to the top, says which node is meant, not how much of
    the question the corpus covers; and without page evidence (``page_weight``),
    for the same reason.
    """
    bm25 = retriever.bm25
    weights = token_weights(bm25, ctx.tokens)
    total = sum(weights.values())
    if total <= 0 or not ctx.nodes:
        return 0.0
    lexical = ctx.mode == "lexical" and hasattr(retriever, "score_all")
    paged = lexical and getattr(retriever, "page_weight", 0.0) > 0
    led = getattr(ctx, "page_lead", None) is not None
    if lexical and (paged or led or any(b.name > 1.0 for b in ctx.breakdown.values())):
        # a named symbol ranked first says which node is meant, not that the corpus answers;
        # a page's score (or a page put first) says where to read, not how much of the
        # question one node covers
        ctx = retriever.retrieve_context(ctx.query, depth * 4, names=False, pages=False, lead=False)
    contexts = [ctx]
    if ctx.variants and lexical:
        contexts.append(
            retriever.retrieve_context(
                ctx.query, depth * 4, variants=False, names=False, pages=False, lead=False
            )
        )
    best = 0.0
    for evidence in contexts:
        rows = _row_indexes(retriever, evidence, depth)
        matched = 0.0
        for tok, w in weights.items():
            tid = bm25.vocab_dict.get(tok)
            if tid is None:
                continue
            lo, hi = int(bm25.scores["indptr"][tid]), int(bm25.scores["indptr"][tid + 1])
            if np.isin(np.asarray(bm25.scores["indices"][lo:hi]), rows).any():
                matched += w
        best = max(best, matched / total)
    return best


def _row_indexes(retriever: Any, ctx: RetrievedContext, depth: int) -> np.ndarray:
    arrays = getattr(retriever, "_arrays", None)  # shared by the retrievers of one index
    positions = arrays.positions() if arrays is not None else getattr(retriever, "_positions", None)
    if positions is None:
        positions = {n.node_id: i for i, n in enumerate(retriever.nodes)}
        retriever._positions = positions
    evidence: dict[str, set[str]] = {}
    for n in ctx.nodes:
        lent = ctx.breakdown.get(n.node.node_id)
        # a node ranked by doc propagation counts as the section that lent it relevance,
        # once however many symbols that section names; its own text adds to that evidence
        lender = lent.propagated_from if lent is not None and lent.propagated_from else None
        if lender is None and len(evidence) == depth:
            break
        if lender is not None and lender not in evidence and len(evidence) == depth:
            continue
        evidence.setdefault(lender or n.node.node_id, {lender or n.node.node_id}).add(
            n.node.node_id
        )
    rows = {positions[i] for ids in evidence.values() for i in ids if i in positions}
    return np.array(sorted(rows), dtype=np.int64)


def is_vague(tokens: list[str]) -> bool:
    """Fewer than ``MIN_SPECIFIC_TOKENS`` words left once complaint and framing words
    are set aside."""
    specific = [t for t in tokens if t not in VAGUE_WORDS and t not in FRAMING_WORDS]
    return len(specific) < MIN_SPECIFIC_TOKENS


@dataclass(frozen=True)
class Judgement:
    """The zero-config verdict: answer or not, the first signal that fell short
    (``unknown_name``, ``vague``, ``coverage``, ``score``; None when all held) and
    every signal measured, with its floor."""

    confident: bool
    fell_short: str | None
    features: dict[str, Any] = field(default_factory=dict)


def judge(
    retriever: Any, ctx: RetrievedContext, calibration: dict[str, Any] | None = None
) -> Judgement:
    """The four signals of answer-or-ask, in order, and the exact names that
    overrule them (module docstring; docs/answers.md).

    ``calibration``: the manifest's entry (``codecite.indexer.calibration``); with
    a score floor in it, coverage needs ``CALIBRATED_COVERAGE_FLOOR`` and the best
    lexical score that floor; without, coverage alone needs ``DEFAULT_COVERAGE_FLOOR``.
    """
    score_floor = (calibration or {}).get("score_floor")
    cov_floor = DEFAULT_COVERAGE_FLOOR if score_floor is None else CALIBRATED_COVERAGE_FLOOR
    f: dict[str, Any] = {"coverage_floor": cov_floor}
    written, f["pasted_message_of"] = exact_evidence(retriever, ctx.query)
    f["exact_names"] = [symbol for _, symbol in written]
    as_code = bool(f["pasted_message_of"]) or any(form in AS_CODE for form, _ in written)
    f["unknown_names"] = named_unknowns(ctx.query, retriever.bm25.vocab_dict)[:3]
    if f["unknown_names"] and not as_code:
        return Judgement(False, "unknown_name", f)
    exact = bool(written or f["pasted_message_of"])
    arrays = getattr(retriever, "_arrays", None)
    f["named_words"] = [s for _, s in named_words(arrays.names, ctx.query)] if arrays else []
    f["vague"] = is_vague(ctx.tokens) and not f["named_words"]  # a name is a feature named
    if f["vague"] and not exact:
        return Judgement(False, "vague", f)
    f["coverage"] = round(coverage(retriever, ctx), 4)
    if score_floor is not None:
        f["top_score"], f["score_floor"] = round(_lexical_top(retriever, ctx), 4), score_floor
    if exact:
        return Judgement(True, None, f)
    if f["coverage"] < cov_floor:
        return Judgement(False, "coverage", f)
    if score_floor is not None and f["top_score"] < score_floor and not f["named_words"]:
        return Judgement(False, "score", f)
    return Judgement(True, None, f)


def exact_evidence(retriever: Any, query: str) -> tuple[list[tuple[str, str]], list[str]]:
    """(the corpus symbols ``query`` writes exactly, as (form, symbol); the symbols
    raising the message it pastes): the *exact names* of the module docstring.
    Empty for a retriever without the index's name and message tables."""
    arrays = getattr(retriever, "_arrays", None)
    if arrays is None:
        return [], []
    written = arrays.names.written_exactly(query)
    pasted = arrays.messages.match(query)
    rows = [] if pasted is None else np.flatnonzero(pasted[0]).tolist()
    return written, list(dict.fromkeys(str(arrays.symbols[i]) for i in rows))[:3]


def named_words(names: Any, query: str) -> list[tuple[str, str]]:
    """Plain lowercase words a query writes that are a public definition's name and
    no word of Python's own prose (``selectinload``, ``sessionmaker``; not "load",
    "format" or "session"), as ("word", symbol). Such a word names a feature, so the
    question is not vague; it is no exact name (domain words are names too: a
    ``cluster`` function, an ``isotopes`` table), so coverage and score still decide."""
    found = []
    common = common_words()
    for word in written_names(query)[1]:
        if len(word) < MIN_NAMED_WORD or not (word.isalnum() and word.islower()):
            continue
        if word in common or word in STOPWORDS:
            continue
        public = [s for s in names.by_leaf.get(word, []) if names.info[s] == (True, True)]
        if public:
            found.append(("word", names.symbol(word) or public[0]))
    return found


def _lexical_top(retriever: Any, ctx: RetrievedContext) -> float:
    """The best lexical score for the query: a hybrid's fused score is on another scale."""
    if ctx.mode == "lexical":
        return float(ctx.top_score)
    return float(retriever.retrieve_context(ctx.query, 1).top_score)
