"""Routing before retrieval: what the user wants (intent) and which workflow it concerns.

Deterministic and readable, because a route decides how an answer is framed
(code, explanation, a workflow that must never run on its own) and must be
predictable and testable. The rule, in order:

1. an intent phrase configured in ``[tool.codecite.intents]`` (file order, whole
   words, case-insensitive) wins;
2. then the default phrases of ``meta`` (questions about codecite itself), ``code``
   ("write a script", "give me code") and ``workflow`` ("run", "apply",
   "correct my data"), in that order;
3. a query that opens with a question word ("how", "what", "why", ...) or ends
   with "?" is a ``question`` even if it mentions a workflow verb ("how do I
   apply ...?" asks for an explanation; "apply ... to line 22" asks for an
   action); without configured workflows a workflow verb counts only where it
   opens the request ("run the server", not "I need them to run in order");
4. in a project that configures workflows, a request that opens with an action
   verb (``WORKFLOW_OPENERS``: "process line 22", "correct the static shift") or
   with a workflow's one-word keyword ("denoise the survey data") is a ``workflow``;
5. otherwise ``question``.

Before 2, a question for the assistant's catalogue ("what workflows are
supported?", "list the recipes") is ``meta``.

The workflow is inferred with the retriever's own rule
(``codecite.retrievers.expansion.infer_workflow``) over the configured workflows.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import Enum

from codecite.config.model import CodeciteConfig
from codecite.retrievers.expansion import infer_workflow
from codecite.vocabulary import LEAD_IN_WORDS

logger = logging.getLogger(__name__)


class Intent(str, Enum):
    """The four built-in intents (configured intents may add other names)."""

    CODE = "code"
    QUESTION = "question"
    WORKFLOW = "workflow"
    META = "meta"


DEFAULT_INTENT_PHRASES: dict[str, tuple[str, ...]] = {
    Intent.META.value: (
        "codecite",
        "this assistant",
        "this tool",
        "your index",
        "this index",
        "what is indexed",
        "what's indexed",
        "which files are indexed",
        "what can you do",
        "how do you work",
        "your sources",
        "what do you know",
    ),
    Intent.CODE.value: (
        "write a script",
        "write me a script",
        "give me code",
        "give me the code",
        "write code",
        "write some code",
        "write a function",
        "show me code",
        "show me the code",
        "generate code",
        "code snippet",
        "a snippet",
        "script that",
        "script to",
        "code to",
        "code for",
        "code example",
    ),
    Intent.WORKFLOW.value: (
        "run",
        "apply",
        "execute",
        "process my",
        "correct my data",
        "fix my data",
        "clean my data",
        "do it on",
        "do the same",
        "now do",
        "launch",
    ),
}
QUESTION_OPENERS = frozenset(
    {
        "how",
        "what",
        "what's",
        "whats",
        "why",
        "which",
        "where",
        "when",
        "who",
        "whose",
        "explain",
        "describe",
        "does",
        "do",
        "is",
        "are",
        "should",
        "tell",
    }
)
# In a project that configures workflows, a request opening with one of these verbs
# asks for an action on data ("process line 22", "correct the static shift"), as does
# one opening with a workflow's keyword ("denoise the survey"). Without workflows, or
# anywhere else in a query, they are only words ("correct way to log").
WORKFLOW_OPENERS = frozenset({"process", "correct", "perform", "compute"})
# "what workflows are supported?", "list the recipes": the catalogue of the assistant
CATALOGUE = re.compile(
    r"^(?:(?:what|which)\s+(?:workflows|recipes)\s+(?:are|do|can|does)\b"
    r"|(?:list|show|enumerate)\b.{0,20}\b(?:workflows|recipes)\b)"
)
_PRIORITY = (Intent.META.value, Intent.CODE.value, Intent.WORKFLOW.value)
# Lead-in words skipped before a question word. "also" is not among them: "also
# run X" opens with no question word, so it stays a request, as it always has.
QUESTION_LEAD_INS = frozenset(LEAD_IN_WORDS) - {"also"}
REQUEST_LEAD_INS = frozenset(LEAD_IN_WORDS) | {"please"}


@dataclass(frozen=True)
class Route:
    """How a query was read before retrieval.

    Example:
        >>> route_query("write a script that loads a survey").intent
        'code'
    """

    intent: str
    workflow: str | None = None
    matched: str | None = None  # the phrase that decided the intent, if any

    def to_json(self) -> dict[str, str | None]:
        return {"intent": self.intent, "workflow": self.workflow, "matched": self.matched}


def _phrase_pattern(phrase: str) -> str:
    """``phrase`` as whole words, and not part of a dotted name (``Agent.run`` is no
    request to run).

    The test on the character before the phrase is a lookbehind placed *after* the
    literal, over the literal itself (``run(?<!Xrun)`` tests the same character as
    ``(?<!X)run``), so that the pattern opens with the literal, which the regex
    engine scans for quickly, instead of testing a lookbehind at every position
    of a long query (docs/reliability.md, "Long queries").
    """
    literal = re.escape(phrase)
    return rf"{literal}(?<![\w.]{literal})(?!\w|\.\w)"


def _has_phrase(lowered: str, phrase: str) -> bool:
    return re.search(_phrase_pattern(phrase.lower()), lowered) is not None


def _first_match(lowered: str, phrases: Iterable[str]) -> str | None:
    return next((p for p in phrases if p and _has_phrase(lowered, p)), None)


def _opens_with_question(lowered: str) -> bool:
    words = re.findall(r"[\w']+", lowered)
    while words and words[0] in QUESTION_LEAD_INS:
        words = words[1:]
    return bool(words) and words[0] in QUESTION_OPENERS


def _leading(lowered: str, phrase: str) -> re.Match[str] | None:
    """``phrase`` opening the request (after lead-ins such as "please" or "now")."""
    lead = "|".join(sorted(map(re.escape, REQUEST_LEAD_INS)))
    return re.match(rf"\W*(?:(?:{lead})\W+)*{_phrase_pattern(phrase.lower())}", lowered)


def _first_word(lowered: str) -> str | None:
    words = re.findall(r"[\w']+", lowered)
    while words and words[0] in REQUEST_LEAD_INS:
        words = words[1:]
    return words[0] if words else None


def classify_intent(
    query: str,
    configured: Mapping[str, Iterable[str]] | None = None,
    workflow_words: Iterable[str] | None = None,
) -> tuple[str, str | None]:
    """``(intent, matched phrase)`` by the rule in the module docstring.

    ``workflow_words``: the configured workflows' keywords, None when the project
    configures no workflow; given, a request opening with a ``WORKFLOW_OPENERS``
    verb or a one-word keyword is a workflow request.
    """
    lowered = query.lower()
    for name, phrases in (configured or {}).items():
        hit = _first_match(lowered, phrases)
        if hit:
            return name, hit
    catalogue = CATALOGUE.search(lowered.strip())
    if catalogue:
        return Intent.META.value, catalogue.group(0)
    question = _opens_with_question(lowered) or lowered.rstrip().endswith("?")
    for name in _PRIORITY:
        hit = _first_match(lowered, DEFAULT_INTENT_PHRASES[name])
        # "run the server" asks for an action; "I need them to run in order" does not,
        # unless the project configures workflows to act on
        if (
            hit
            and name == Intent.WORKFLOW.value
            and (question or (workflow_words is None and not _leading(lowered, hit)))
        ):
            continue
        if hit:
            return name, hit
    first = _first_word(lowered) if workflow_words is not None and not question else None
    if first is not None and (first in WORKFLOW_OPENERS or first in set(workflow_words or ())):
        return Intent.WORKFLOW.value, first
    return Intent.QUESTION.value, None


def content_query(query: str, route: Route) -> str:
    """A code request without the phrase it opens with ("write a script that"), for
    retrieval.

    Request words carry the intent, not the topic; left in, words such as
    "write" or "script" match nothing in the corpus and dilute the evidence.
    A phrase elsewhere in the query is part of its topic ("I want my script to
    act as a client") and stays, and so does a workflow request's verb, which
    may name the API ("run git log" is ``run_process``). The query is kept whole
    when too little would remain.
    """
    if not route.matched or route.intent != Intent.CODE.value:
        return query  # a workflow's verb may name its API: "run" in "run git log" is run_process
    lead = _leading(query.lower(), route.matched)
    if lead is None:  # "I want my script to act as a client": the phrase is the topic
        return query
    rest = re.sub(r"^\s*(?:that|which|to|for)\b", "", query[lead.end() :], flags=re.I)
    rest = " ".join(rest.split())
    return rest if len(re.findall(r"\w+", rest)) >= 2 else query


def route_query(query: str, config: CodeciteConfig | None = None) -> Route:
    """Intent and workflow of ``query`` under ``config`` (defaults when None)."""
    intents = dict(config.intents) if config is not None else {}
    workflows = {r.name: r.keywords for r in config.workflows} if config is not None else {}
    # a keyword that reads as a word ("denoise"), not a symbol name ("estimate_ss_ama")
    words = [k for ks in workflows.values() for k in ks if k.isalpha()] if workflows else None
    intent, matched = classify_intent(query, intents, words)
    route = Route(intent=intent, workflow=infer_workflow(query, workflows), matched=matched)
    logger.debug("routed %r -> %s", query, route)
    return route
