"""Conversation memory: the turns of a session, the user's choices, the workflow history.

:class:`Session` keeps recent turns in memory, or as JSON on disk when given a
path (opt-in). Memory never replaces explicit confirmation: the workflow
history records what was *asked*, and nothing here runs anything (see
docs/answers.md, "Project registry and memory").

The JSON on disk keeps the key ``line`` for a turn's registry entry (and in
``choices`` and the workflow history), as sessions written before have it.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from codecite.errors import ConfigError

MAX_TURNS = 50
ENTRY_KEY = "line"  # the on-disk key of a turn's registry entry name


@dataclass(frozen=True)
class Turn:
    """One exchange as remembered: what was asked, how it was read, what it cited.

    ``entry`` is the name of the registry entry the turn was about, if any.
    """

    query: str
    standalone: str
    intent: str
    path: str
    workflow: str | None = None
    entry: str | None = None
    symbols: tuple[str, ...] = ()
    citations: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data[ENTRY_KEY] = data.pop("entry")
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Turn:
        fields = {k: v for k, v in data.items() if k != ENTRY_KEY}
        return cls(
            **{
                **fields,
                "entry": data.get(ENTRY_KEY),
                "symbols": tuple(data.get("symbols", ())),
                "citations": tuple(data.get("citations", ())),
            }
        )


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
    rewrites: dict[str, Any] = field(default_factory=dict, repr=False)  # per question, unsaved

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
        return cls(
            path=p,
            turns=[Turn.from_json(t) for t in data.get("turns", [])],
            choices=dict(data.get("choices", {})),
            workflow_history=list(data.get("workflow_history", [])),
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "turns": [t.to_json() for t in self.turns],
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
        if turn.entry:
            self.choices[ENTRY_KEY] = turn.entry
        if turn.intent == "workflow":
            self.workflow_history.append(
                {
                    "query": turn.standalone,
                    "workflow": turn.workflow,
                    ENTRY_KEY: turn.entry,
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
    def last_entry(self) -> str | None:
        """The registry entry of the latest turn that had one."""
        return next((t.entry for t in reversed(self.turns) if t.entry), None)
