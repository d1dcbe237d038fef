"""The project registry: the named things users refer to, and finding them in a query.

The index answers "what does the package know how to do?"; the registry answers
"which project thing is this about?" (see docs/answers.md, "Project registry
and memory"). :class:`ProjectRegistry` holds entries (survey lines, datasets,
environments) from ``[tool.codecite.registry]`` or the JSON/TOML file named by
``registry_file``, and resolves mentions in a query, tolerant of case, spacing,
punctuation and aliases ("line 22", "l22", "L-22" -> ``L22``).
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
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

WORDS = re.compile(r"[A-Za-z]+|\d+")  # the words of a mention: letter runs and digit runs
_SPLIT = re.compile(r"^([a-z]+)[\s_\-.]*(\d+)$")


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
    return "".join(w.lower() for w in WORDS.findall(text))


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
                parts = WORDS.findall(alias.lower())
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
        spans = [(m.group(), m.start(), m.end()) for m in WORDS.finditer(query)]
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
