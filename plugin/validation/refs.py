"""What a name in a script refers to, as far as the symbol table can tell (``Ref``).

The answers of :class:`codecite.validation.namespace.Namespace`: found (a module, class,
callable, value or instance), provably absent (an error), unknown (a warning) or
opaque (outside what is checked); see docs/validation.md.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum


class RefKind(str, Enum):
    """What a name in the script refers to, as far as the table can tell."""

    MODULE = "module"
    CLASS = "class"
    CALLABLE = "callable"
    VALUE = "value"
    INSTANCE = "instance"
    OPAQUE = "opaque"  # outside the checked packages, or not worth checking
    UNKNOWN = "unknown"  # in the package, but not provable either way: a warning
    ABSENT = "absent"  # provably missing: an error


@dataclass(frozen=True)
class Ref:
    """A resolved name: ``display`` as the script uses it, ``canonical`` where it is defined."""

    kind: RefKind
    display: str
    canonical: str | None = None
    reason: str = ""  # UNKNOWN: why; ABSENT: the message
    suggestions: tuple[str, ...] = ()
    via: str = ""  # CALLABLE members: "instance" or "class"
    probe: tuple[str, str] | None = None  # (module, name) an import check can try

    @property
    def found(self) -> bool:
        return self.kind not in (RefKind.OPAQUE, RefKind.UNKNOWN, RefKind.ABSENT)


OPAQUE = Ref(RefKind.OPAQUE, "")
