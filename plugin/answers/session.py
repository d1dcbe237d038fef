"""Project context and conversation memory: the registry, sessions, follow-up rewriting.

The index answers "what does the package know how to do?"; this module answers
"what is the current project context?" (reference design, section 2.11):

- :class:`ProjectRegistry` holds the named things users refer to (survey lines,
  datasets, environments) from ``[tool.codecite.registry]`` or the JSON/TOML
  file named by ``registry_file``, and resolves mentions in a query, tolerant
  of case, spacing, punctuation and aliases ("line 22", "l22", "L-22" -> ``L22``).
- :class:`Session` keeps recent turns, choices and workflow history, in memory
  or as JSON on disk (opt-in path).
- :func:`rewrite_followup` turns "now do it on line 3", "what about its
  parameters?" or "show me an example of that" into a standalone query.

Memory never replaces explicit confirmation: the workflow history records what
was *asked*, and nothing here runs anything.
"""

from __future__ import annotations

import json
import logging
import os
import re
import sys
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from codecite.config.model import CodeciteConfig
from codecite.errors import ConfigError
from codecite.retrievers.tokenizer import MAX_QUERY_CHARS
from codecite.safe_io import MAX_METADATA_BYTES, read_regular_file

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

logger = logging.getLogger(__name__)
MAX_TURNS = 50
MAX_FOLLOWUP_WORDS = 8  # a longer query with "it" usually means its own subject
_SPLIT = re.compile(r"^([a-z]+)[\s_\-.]*(\d+)$")
_WORDS = re.compile(r"[A-Za-z]+|\d+")


# -- registry ---------------------------------------------------------------------------


@dataclass(frozen=True)
class RegistryEntry:
    """A named thing of the project (a survey line, a dataset, an environment)."""

    name: str
    aliases: tuple[str, ...] = ()
    path: str | None = None
    defaults: Mapping[str, Any] = field(default_factory=dict)
    description: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "aliases": list(self.aliases),
            "path": self.path,
            "defaults": dict(self.defaults),
            "description": self.description,
        }

    def summary(self) -> str:
        parts = [self.name]
        if self.path:
            parts.append(f"path {self.path}")
        if self.defaults:
            parts.append(
                "defaults " + ", ".join(f"{k}={v!r}" for k, v in sorted(self.defaults.items()))
            )
        if self.description:
            parts.append(self.description)
        return "; ".join(parts)


@dataclass(frozen=True)
class Mention:
    """A registry entry found in a query, with the words that named it."""

    entry: RegistryEntry
    text: str
    start: int
    end: int


def _norm(text: str) -> str:
    """``"Line 22"``, ``"line-22"``, ``"LINE_22"`` -> ``"line22"``."""
    return "".join(w.lower() for w in _WORDS.findall(text))


def _entry(name: str, raw: Mapping[str, Any]) -> RegistryEntry:
    return RegistryEntry(
        name=str(name),
        aliases=tuple(str(a) for a in raw.get("aliases", ())),
        path=raw.get("path"),
        defaults=dict(raw.get("defaults") or {}),
        description=raw.get("description"),
    )


class ProjectRegistry:
    """Named project things and mention resolution.

    Example:
        >>> reg = ProjectRegistry([RegistryEntry("L22", aliases=("line 22",))])
        >>> reg.resolve("correct static shift on l-22").name
        'L22'
    """

    def __init__(self, entries: Iterable[RegistryEntry] = ()) -> None:
        self.entries = {e.name: e for e in entries}
        self._keys = self._build_keys()
        self._kind_words = self._build_kind_words()

    @classmethod
    def from_config(cls, config: CodeciteConfig) -> ProjectRegistry:
        """Entries of ``config.registry`` plus those of ``config.registry_file``."""
        raw: dict[str, Mapping[str, Any]] = {}
        if config.registry_file:
            raw.update(load_registry_file(config.root, config.registry_file))
        raw.update(config.registry)  # inline entries win over the file's
        return cls(_entry(name, value) for name, value in raw.items())

    def __len__(self) -> int:
        return len(self.entries)

    def _build_keys(self) -> dict[str, RegistryEntry]:
        keys: dict[str, RegistryEntry] = {}
        for entry in self.entries.values():
            for text in (entry.name, *entry.aliases):
                if _norm(text):
                    keys.setdefault(_norm(text), entry)
        return keys

    def _build_kind_words(self) -> set[str]:
        """Words that introduce a name in aliases ("line" of "line 22")."""
        words = set()
        for entry in self.entries.values():
            for alias in entry.aliases:
                parts = _WORDS.findall(alias.lower())
                if len(parts) == 2 and parts[0].isalpha() and parts[1].isdigit():
                    words.add(parts[0])
        return words

    def get(self, name: str) -> RegistryEntry | None:
        return self.entries.get(name) or self._keys.get(_norm(name))

    def mentions(self, query: str) -> list[Mention]:
        """Every entry named in ``query``, left to right, longest wording first.

        Only the first ``MAX_QUERY_CHARS`` characters are read, as the tokenizer does.
        """
        query = query[:MAX_QUERY_CHARS]
        spans = [(m.group(), m.start(), m.end()) for m in _WORDS.finditer(query)]
        found: list[Mention] = []
        i = 0
        while i < len(spans):
            hit = self._match_at(query, spans, i)
            if hit is None:
                i += 1
                continue
            found.append(hit[0])
            i += hit[1]
        return found

    def _match_at(
        self, query: str, spans: list[tuple[str, int, int]], i: int
    ) -> tuple[Mention, int] | None:
        for width in (4, 3, 2, 1):
            window = spans[i : i + width]
            if len(window) < width:
                continue
            key = "".join(w.lower() for w, _, _ in window)
            entry = self._keys.get(key) or self._by_kind_word(window)
            if entry is not None:
                start, end = window[0][1], window[-1][2]
                return Mention(entry, query[start:end], start, end), width
        return None

    def _by_kind_word(self, window: list[tuple[str, int, int]]) -> RegistryEntry | None:
        """``line 3`` -> ``L3`` when "line" introduces names elsewhere and starts with "l"."""
        if len(window) != 2:
            return None
        word, digits = window[0][0].lower(), window[1][0]
        if word not in self._kind_words or not digits.isdigit():
            return None
        for entry in self.entries.values():
            m = _SPLIT.match(entry.name.lower())
            if m and m.group(2) == digits and word.startswith(m.group(1)):
                return entry
        return None

    def resolve(self, query: str) -> RegistryEntry | None:
        """The first entry ``query`` names, or None."""
        found = self.mentions(query)
        return found[0].entry if found else None


def load_registry_file(root: Path, relpath: str) -> dict[str, Mapping[str, Any]]:
    """Read a registry file (JSON or TOML, entries at top level or under ``registry``)."""
    base = Path(root).resolve()
    path = (base / relpath).resolve()
    if not path.is_relative_to(base):
        raise ConfigError(
            f"registry_file '{relpath}' points outside the repository "
            f"'{base}'; use a path inside it"
        )
    if not path.exists():
        raise ConfigError(
            f"registry_file '{relpath}' does not exist under '{base}'; create it or remove the key"
        )
    try:
        text = read_regular_file(path, root=base, limit=MAX_METADATA_BYTES).decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:  # a FIFO, a device, too large, not UTF-8
        raise ConfigError(
            f"registry_file '{relpath}' cannot be read ({exc}); point it at a "
            "regular UTF-8 file inside the repository"
        ) from exc
    try:
        data = json.loads(text) if path.suffix == ".json" else tomllib.loads(text)
    except (json.JSONDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(
            f"registry_file '{relpath}' cannot be parsed ({exc}); fix its syntax"
        ) from exc
    table = data.get("registry", data) if isinstance(data, dict) else None
    if not isinstance(table, dict) or not all(isinstance(v, dict) for v in table.values()):
        raise ConfigError(
            f"registry_file '{relpath}' must map names to tables of "
            "aliases/path/defaults/description"
        )
    return table


# -- session -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Turn:
    """One exchange as remembered: what was asked, how it was read, what it cited."""

    query: str
    standalone: str
    intent: str
    path: str
    workflow: str | None = None
    line: str | None = None
    symbols: tuple[str, ...] = ()
    citations: tuple[str, ...] = ()


@dataclass
class Session:
    """Recent turns, user choices and workflow history; JSON on disk when ``path`` is set.

    Example:
        >>> s = Session()
        >>> s.record(Turn("q", "q", "question", "answer", symbols=("pkg.f",)))
        >>> s.last_symbol
        'pkg.f'
    """

    path: Path | None = None
    turns: list[Turn] = field(default_factory=list)
    choices: dict[str, Any] = field(default_factory=dict)
    workflow_history: list[dict[str, Any]] = field(default_factory=list)

    @classmethod
    def load(cls, path: str | Path) -> Session:
        """The session stored at ``path`` (a new, empty one if the file is absent)."""
        p = Path(path)
        if not p.is_file():
            return cls(path=p)
        try:
            data = json.loads(p.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as exc:
            raise ConfigError(
                f"session file '{p}' is not readable JSON ({exc}); delete it to start a new session"
            ) from exc
        turns = [
            Turn(
                **{
                    **t,
                    "symbols": tuple(t.get("symbols", ())),
                    "citations": tuple(t.get("citations", ())),
                }
            )
            for t in data.get("turns", [])
        ]
        return cls(
            path=p,
            turns=turns,
            choices=dict(data.get("choices", {})),
            workflow_history=list(data.get("workflow_history", [])),
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "turns": [asdict(t) for t in self.turns],
            "choices": self.choices,
            "workflow_history": self.workflow_history,
        }

    def save(self) -> None:
        if self.path is None:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_name(f"{self.path.name}.tmp-{os.getpid()}")
        tmp.write_text(json.dumps(self.to_json(), indent=1, sort_keys=True), encoding="utf-8")
        os.replace(tmp, self.path)

    def record(self, turn: Turn) -> None:
        """Remember a turn (and, for a workflow request, log it as *requested*, not run)."""
        self.turns = [*self.turns, turn][-MAX_TURNS:]
        if turn.line:
            self.choices["line"] = turn.line
        if turn.intent == "workflow":
            self.workflow_history.append(
                {
                    "query": turn.standalone,
                    "workflow": turn.workflow,
                    "line": turn.line,
                    "status": "reported, not run",
                }
            )
        self.save()

    @property
    def last(self) -> Turn | None:
        return self.turns[-1] if self.turns else None

    @property
    def last_symbol(self) -> str | None:
        return next((t.symbols[0] for t in reversed(self.turns) if t.symbols), None)

    @property
    def last_line(self) -> str | None:
        return next((t.line for t in reversed(self.turns) if t.line), None)


# -- follow-up rewriting ----------------------------------------------------------------------


@dataclass(frozen=True)
class Rewrite:
    """A follow-up made standalone; ``rule`` names the rewrite used (None: unchanged)."""

    original: str
    standalone: str
    rule: str | None = None


_LEADING = re.compile(r"^\s*(?:(?:and|so|ok|okay|now|then|also|but)\b[\s,]*)+", re.I)
_ACTION_REF = re.compile(r"\b(?:it|that|this|same|again|the same)\b", re.I)
_OTHER = re.compile(r"\bthe other(?: one)?\b", re.I)
_ITS = re.compile(r"\bits\s+(\w+(?:\s+\w+)?)", re.I)
_PRONOUN = re.compile(r"\b(?:it|that|this|them|that one|this one)\b", re.I)


def _swap_line(last: Turn, new_line: str, registry: ProjectRegistry) -> str:
    base = last.standalone
    old = registry.mentions(base)
    if old:
        m = old[0]
        return f"{base[: m.start]}{new_line}{base[m.end :]}"
    return f"{base.rstrip(' ?.!')} on {new_line}"


def _is_followup(query: str) -> bool:
    return bool(
        _LEADING.match(query)
        or _ACTION_REF.search(query)
        or _OTHER.search(query)
        or re.match(r"^\s*(?:what|how) about\b", query, re.I)
    )


def _rewrite_line(query: str, session: Session, registry: ProjectRegistry) -> str | None:
    last = session.last
    found = registry.mentions(query)
    if last is None or not found or not _is_followup(query):
        return None
    leftover = _LEADING.sub("", query[: found[0].start] + query[found[0].end :])
    content = [w for w in _WORDS.findall(leftover.lower()) if w not in _FILLER]
    if content:  # "now plot the strike on line 3" is a new request, not a repeat
        return None
    return _swap_line(last, found[0].entry.name, registry)


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
    """ "do it again", "same again" -> the last request, unchanged (its line included)."""
    last = session.last
    words = _WORDS.findall(query.lower())
    if last is None or not words or not {"again", "same"} & set(words):
        return None
    return last.standalone if all(w in _FILLER for w in words) else None


def _rewrite_other(query: str, session: Session) -> str | None:
    last = session.last
    if last is None or not _OTHER.search(query) or len(last.symbols) < 2:
        return None
    first, other = last.symbols[0], last.symbols[1]
    leaf = first.rsplit(".", 1)[-1]
    if re.search(rf"\b{re.escape(leaf)}\b", last.standalone):
        return re.sub(rf"\b{re.escape(leaf)}\b", other, last.standalone, count=1)
    return f"{last.standalone.rstrip(' ?.!')} with {other}"


def _rewrite_pronoun(query: str, session: Session) -> str | None:
    symbol = session.last_symbol
    short = len(_WORDS.findall(query)) <= MAX_FOLLOWUP_WORDS or _LEADING.match(query)
    if symbol is None or not short or not (_ITS.search(query) or _PRONOUN.search(query)):
        return None
    text = _LEADING.sub("", query)
    if _ITS.search(text):  # "what about its parameters?" -> "what are the parameters of f?"
        text = _ITS.sub(lambda m: f"the {m.group(1)} of {symbol}", text)
        return re.sub(r"^\s*(?:what|how) about\b", "what are", text, flags=re.I)
    return _PRONOUN.sub(symbol, text, count=1)


def _rewrite_topic(query: str, session: Session) -> str | None:
    """A bare follow-up with nothing to anchor it ("and the example?") keeps the topic."""
    last = session.last
    if last is None or not _LEADING.match(query):
        return None
    return f"{_LEADING.sub('', query).rstrip(' ?.!')} ({last.standalone.rstrip(' ?.!')})"


def rewrite_followup(
    query: str, session: Session | None, registry: ProjectRegistry | None = None
) -> Rewrite:
    """Make a follow-up standalone using the session's last query, symbol and line.

    The rules, first match wins: a new registry mention with nothing else new
    repeats the last request on it ("now do it on line 3"); "do it again"
    repeats the last request as it was; "the other one"
    swaps in the second symbol of the last answer; "its X" / "it" / "that"
    name the last answer's lead symbol; a bare "and ..." keeps the last topic.
    A query that stands on its own is returned unchanged.
    """
    if session is None or session.last is None:
        return Rewrite(query, query)
    registry = registry or ProjectRegistry()
    rules = (
        ("line", lambda: _rewrite_line(query, session, registry)),
        ("repeat", lambda: _rewrite_repeat(query, session)),
        ("other", lambda: _rewrite_other(query, session)),
        ("pronoun", lambda: _rewrite_pronoun(query, session)),
        ("topic", lambda: _rewrite_topic(query, session)),
    )
    for name, rule in rules:
        out = rule()
        if out:
            logger.debug("rewrote %r -> %r (%s)", query, out, name)
            return Rewrite(query, " ".join(out.split()), name)
    return Rewrite(query, query)
