"""Follow-up rewriting: a question that leans on the last turn, made standalone.

:func:`rewrite_followup` turns "now do it on line 3", "what about its
parameters?" or "show me an example of that" into a query that retrieval can
answer on its own, from the session's last request, its cited symbols and the
project registry (see docs/answers.md, "Follow-up rewriting").
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass

from codecite.answers.registry import WORDS, ProjectRegistry
from codecite.answers.session import Session, Turn
from codecite.retrievers.tokenizer import is_compound
from codecite.vocabulary import LEAD_IN_WORDS

logger = logging.getLogger(__name__)
MAX_FOLLOWUP_WORDS = 8  # a longer query with "it" usually means its own subject


@dataclass(frozen=True)
class Rewrite:
    """A follow-up made standalone; ``rule`` names the rewrite used (None: unchanged).

    Example:
        >>> rewrite_followup("what about its parameters?", None).standalone
        'what about its parameters?'
    """

    original: str
    standalone: str
    rule: str | None = None


_LEADING = re.compile(rf"^\s*(?:(?:{'|'.join(LEAD_IN_WORDS)})\b[\s,]*)+", re.I)
_ACTION_REF = re.compile(r"\b(?:it|that|this|same|again|the same)\b", re.I)
_OTHER = re.compile(r"\bthe other(?: one)?\b", re.I)
_ITS = re.compile(r"\bits\s+(\w+(?:\s+\w+)?)", re.I)
_ITS_MEMBER = re.compile(  # "its invoke method": a member of the symbol, by its name
    r"\bits\s+([A-Za-z_]\w*)\s+(?:method|attribute|property|classmethod|function)\b", re.I
)
_PRONOUN = re.compile(r"\b(?:it|that|this|them|that one|this one)\b", re.I)


def _swap_entry(last: Turn, new_name: str, registry: ProjectRegistry) -> str:
    """The last request with its registry mention replaced by ``new_name`` (or appended)."""
    base = last.standalone
    old = registry.mentions(base)
    if old:
        m = old[0]
        return f"{base[: m.start]}{new_name}{base[m.end :]}"
    return f"{base.rstrip(' ?.!')} on {new_name}"


def _is_followup(query: str) -> bool:
    return bool(
        _LEADING.match(query)
        or _ACTION_REF.search(query)
        or _OTHER.search(query)
        or re.match(r"^\s*(?:what|how) about\b", query, re.I)
    )


def _rewrite_entry(query: str, session: Session, registry: ProjectRegistry) -> str | None:
    """ "now do it on line 3" -> the last request on the newly named registry entry."""
    last = session.last
    found = registry.mentions(query)
    if last is None or not found or not _is_followup(query):
        return None
    leftover = _LEADING.sub("", query[: found[0].start] + query[found[0].end :])
    content = [w for w in WORDS.findall(leftover.lower()) if w not in _FILLER]
    if content:  # "now plot the strike on line 3" is a new request, not a repeat
        return None
    return _swap_entry(last, found[0].entry.name, registry)


_FILLER = frozenset(
    {
        "now",
        "do",
        "it",
        "on",
        "for",
        "with",
        "the",
        "same",
        "again",
        "please",
        "what",
        "about",
        "how",
        "and",
        "that",
        "this",
        "to",
        "then",
        "also",
        "run",
        "apply",
        "one",
        "too",
        "as",
        "well",
        "instead",
    }
)


def _rewrite_repeat(query: str, session: Session) -> str | None:
    """ "do it again", "same again" -> the last request, unchanged (its registry entry included)."""
    last = session.last
    words = WORDS.findall(query.lower())
    if last is None or not words or not {"again", "same"} & set(words):
        return None
    return last.standalone if all(w in _FILLER for w in words) else None


def _written_name(leaf: str, text: str) -> tuple[int, int] | None:
    """Where ``text`` writes ``leaf`` as a name: a compound (``load_survey``), dotted,
    in backticks or called. The same letters as a plain word are English: "run" of
    ``Agent.run`` in "run the static shift correction" is no name to swap."""
    for m in re.finditer(rf"[\w.]*\b{re.escape(leaf)}\b", text):
        before, after = text[m.start() - 1 : m.start()], text[m.end() : m.end() + 1]
        if is_compound(leaf) or "." in m.group() or before == "`" or after in ("(", "`"):
            return m.span()
    return None


def _rewrite_other(query: str, session: Session) -> str | None:
    last = session.last
    if last is None or not _OTHER.search(query) or len(last.symbols) < 2:
        return None
    first, other = last.symbols[0], last.symbols[1]
    span = _written_name(first.rsplit(".", 1)[-1], last.standalone)
    if span is not None:
        return last.standalone[: span[0]] + other + last.standalone[span[1] :]
    return f"{last.standalone.rstrip(' ?.!')} with {other}"


def _rewrite_pronoun(query: str, session: Session) -> str | None:
    symbol = session.last_symbol
    short = len(WORDS.findall(query)) <= MAX_FOLLOWUP_WORDS or _LEADING.match(query)
    if symbol is None or not short or not (_ITS.search(query) or _PRONOUN.search(query)):
        return None
    text = _LEADING.sub("", query)
    if _ITS_MEMBER.search(text):  # "what about its invoke method?" -> "what is f.invoke?"
        text = _ITS_MEMBER.sub(lambda m: f"{symbol}.{m.group(1)}", text)
        return re.sub(r"^\s*(?:what|how) about\b", "what is", text, flags=re.I)
    if _ITS.search(text):  # "what about its parameters?" -> "what are the parameters of f?"
        text = _ITS.sub(lambda m: f"the {m.group(1)} of {symbol}", text)
        return re.sub(r"^\s*(?:what|how) about\b", "what are", text, flags=re.I)
    return _PRONOUN.sub(symbol, text, count=1)


_BARE_WORDS = frozenset(
    "show me give an a the some please more example examples usage code sample snippet "
    "signature parameters arguments args docs documentation source how to use another".split()
)


def _rewrite_bare(query: str, session: Session) -> str | None:
    """A request with no object of its own ("show me an example", "parameters?") is about
    the last answer's lead symbol: "show me an example of f"."""
    symbol = session.last_symbol
    words = [w.lower() for w in WORDS.findall(query)]
    if symbol is None or not words or len(words) > 5 or not set(words) <= _BARE_WORDS:
        return None
    request = " ".join(w for w in query.rstrip(" ?.!").split() if w.lower() != "please")
    return f"{request} of {symbol}"


def _rewrite_topic(query: str, session: Session) -> str | None:
    """A bare follow-up with nothing to anchor it ("and the example?") keeps the topic."""
    last = session.last
    if last is None or not _LEADING.match(query):
        return None
    return f"{_LEADING.sub('', query).rstrip(' ?.!')} ({last.standalone.rstrip(' ?.!')})"


def rewrite_followup(
    query: str, session: Session | None, registry: ProjectRegistry | None = None
) -> Rewrite:
    """Make a follow-up standalone using the session's last query, symbol and registry entry.

    The rules, first match wins: a new registry mention with nothing else new
    repeats the last request on it ("now do it on line 3", rule ``line``); "do
    it again" repeats the last request as it was; "the other one" swaps in the
    second symbol of the last answer; "its X" / "it" / "that" name the last
    answer's lead symbol, and so does a request with no object of its own ("show
    me an example"); a bare "and ..." keeps the last topic. A query that
    stands on its own is returned unchanged.
    """
    if session is None or session.last is None:
        return Rewrite(query, query)
    registry = registry or ProjectRegistry()
    rules = (
        # the rule names are output (metadata["rewrite"]): "line" stays the entry rule's name
        ("line", lambda: _rewrite_entry(query, session, registry)),
        ("repeat", lambda: _rewrite_repeat(query, session)),
        ("other", lambda: _rewrite_other(query, session)),
        ("pronoun", lambda: _rewrite_pronoun(query, session)),
        ("bare", lambda: _rewrite_bare(query, session)),
        ("topic", lambda: _rewrite_topic(query, session)),
    )
    for name, rule in rules:
        out = rule()
        if out:
            logger.debug("rewrote %r -> %r (%s)", query, out, name)
            return Rewrite(query, " ".join(out.split()), name)
    return Rewrite(query, query)
