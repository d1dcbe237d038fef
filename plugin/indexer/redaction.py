"""Secrets stay out of the index: credential values in a file become placeholders.

``codecite build`` runs :func:`redact_secrets` on the decoded text of every
file it parses, before any parser sees it, so node text, term counts, the
vocabulary, symbols, signatures and the embedding input (made from node text)
only ever hold the placeholder ``[REDACTED:<rule>]``. Only the value is
replaced, never a newline: a file keeps its line count and every citation
``path:start-end`` still points at the same lines. ``redact_secrets = false``
turns it off (docs/configuration.md).

Why a small rule set and not ``detect-secrets``: that library is several times
slower than a whole codecite build and reports the secret value, not its span
(docs/reliability.md, *Secrets in indexed files*, has the measured figures and the
benchmark that reproduces them). Every regex is linear (bounded repeats, no nested
repetition), and each token regex opens with a literal, so the engine's fast literal
search skips most text:

* **Tokens of a known form** (:data:`TOKEN_RULES`): AWS access key ids, GitHub,
  GitLab, Slack, Google, Stripe, OpenAI and Anthropic, Hugging Face and PyPI
  tokens, Slack webhooks, JSON web tokens.
* **Private-key blocks**: the lines between ``-----BEGIN ... PRIVATE KEY-----``
  and its ``END`` line (or, with no ``END``, as long as lines look like key
  material), each keeping its quotes, indentation and ``\\n`` escapes.
* **Assignments to a secret name**: a value assigned (``=``, ``:``, ``: T =``,
  a ``"name", "value"`` pair) to a name with a part ``secret``, ``token``,
  ``password``, ``passwd``, ``passphrase``, ``pwd``, ``credential(s)`` or
  ``apikey``, or an ``api``/``access``/``auth``/``private``/``signing``/
  ``encryption``/``master`` part before ``key`` (``AWS_SECRET_ACCESS_KEY``,
  ``clientSecret``, ``db.password``, ``"apiKey":``), in Python, TOML, INI,
  YAML, JSON and ``.env`` styles. The value must look random
  (:func:`looks_random`): at least 16 characters (8 for a password with
  three character classes), letters and digits, Shannon entropy at least
  ``min(3.5, 0.7 * log2(len))`` bits per character (3.0 for hex), and not a
  placeholder, path, URL, dotted name, ``ENV_NAME`` or ``word_list``. In
  Python files only string literals count (``token = get_token()`` is
  code); a name ending in ``_url``, ``_file``, ``_name``, ``_re``, ... names
  something else.
* **A password in a URL** (``scheme://user:PASSWORD@host``) and a
  ``Bearer`` token, when the value looks random.

Ordinary code is left alone: ``password = None``, ``password: str``,
``token = get_token()``, ``TOKEN_RE = re.compile(...)``, ``max_tokens = 4096``
and prose about "the secret key" hold no redactable value; codecite's own
sources and its test fixture redact nothing.

Example:
    >>> key = "AKIA" + "Q3EXAMPLE7ABCDEFGH"
    >>> redact_secrets(f"aws_access_key_id = {key}\\n", "settings.ini").text
    'aws_access_key_id = [REDACTED:aws-access-key-id]\\n'
"""

from __future__ import annotations

import bisect
import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from codecite.indexer.secret_rules import (
    _KEY_OWNERS,
    _KEYWORDS,
    MIN_PASSWORD_LENGTH,
    MIN_SECRET_LENGTH,
    MIN_URL_PASSWORD_LENGTH,
    TOKEN_RULES,
    Span,
    looks_random,
    secret_name,
)
from codecite.vocabulary import PYTHON_SUFFIXES

PLACEHOLDER = "[REDACTED:{rule}]"
PRIVATE_KEY = "private-key"
ASSIGNED_SECRET = "assigned-secret"
URL_PASSWORD = "url-password"
BEARER_TOKEN = "bearer-token"
MAX_KEY_LINES = 400  # a private-key block without an END line stops here at the latest


@dataclass(frozen=True)
class Redacted:
    """The text with placeholders, and which rule replaced how many values (no values)."""

    text: str
    rules: dict[str, int]

    @property
    def count(self) -> int:
        return sum(self.rules.values())


_BEGIN_KEY = re.compile(r"-----BEGIN[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----")
_END_KEY = re.compile(r"-----END[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----")
# key material on a line: base64 runs, not the letter after a backslash (``\n``) or a
# one-to-three-letter string prefix (``b"``); the 1-3 characters of a last line may stay
_KEY_RUN = re.compile(r"(?:(?<=\\n)|(?<=\\r)|(?<![\\A-Za-z0-9+/=]))[A-Za-z0-9+/=]{4,}")
# a line of key material: punctuation around one base64 run (`    "MIIE...\\n",`)
_KEY_LINE = re.compile(
    r"""[\s"'`,+;()\[\]]{0,40}(?:[rRbBuU]{1,2}(?=["']))?[\s"'`,+;()\[\]]{0,4}"""
    r"""[A-Za-z0-9+/=]{0,200}(?:\\[nr]){0,2}[\s"'`,+;()\[\]]{0,40}"""
)
_PLACED = re.compile(r"\[REDACTED:[a-z-]{1,40}\]")  # a placeholder of an earlier pass
_KEY_HEADER = re.compile(r"\s*[\"']?[A-Za-z-]{1,40}: ")

# `name` then `=`, `:`, `: Type =` or (after a quoted name) `,`, then a quoted or bare value
_ASSIGN = re.compile(
    r"""(?<![A-Za-z0-9_.-])(?P<name>[A-Za-z_][A-Za-z0-9_.-]{0,79})(?P<close>['"]?\]?)[ \t]{0,4}"""
    r"""(?P<sep>:[ \t]{0,4}[A-Za-z_][\w.\[\], |]{0,60}?[ \t]{0,4}=(?!=)|=(?!=)|:|,)[ \t]{0,4}"""
    r"""(?:(?:[A-Za-z_][\w.]{0,30}\()?(?:[rRbBuU]{1,2})?(?P<bs>\\?)(?P<q>['"`])"""
    r"""(?P<qv>[^'"`\s\\]{1,400})(?P=bs)(?P=q)|(?P<bv>[^\s'"`,;\\()\[\]{}]{1,400}))"""
)
# what follows a keyword inside a name that is assigned: the rest of the name, then a
# separator (`= `, `: `, `"] =`, `",`); matched at each keyword, never searched
_NEWLINE = re.compile("\n")
_NAME_TAIL = re.compile(r"""[A-Za-z0-9_.-]{0,80}['"]?\]?[ \t]{0,4}[:=,]""")
_URL_PASSWORD = re.compile(r"//[^\s/:@'\"]{1,128}:(?P<value>[^\s/:,@'\"]{1,256})@")
_BEARER = re.compile(r"(?i:bearer)[ \t]{1,4}(?P<value>[A-Za-z0-9._~+/-]{16,1000}=*)")


def redact_secrets(text: str, rel: str = "") -> Redacted:
    """Replace every credential value in ``text`` with a placeholder; lines stay as they are.

    ``rel`` is the repository-relative path: in a ``.py`` file only string
    literals are assigned values (a bare name is code).

    Example:
        >>> token = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
        >>> redact_secrets(f'TOKEN = "{token}"', "ci.py").text
        'TOKEN = "[REDACTED:github-token]"'
    """
    spans: list[Span] = []
    for rule in TOKEN_RULES:
        spans += rule.spans(text)
    spans += _private_key_spans(text)
    lowered = text.lower()
    spans += _assignment_spans(text, lowered, rel.lower().endswith(PYTHON_SUFFIXES))
    spans += [
        (m.start("value"), m.end("value"), URL_PASSWORD, m.start())
        for m in _URL_PASSWORD.finditer(text)
        if looks_random(m.group("value"), MIN_URL_PASSWORD_LENGTH)
    ]
    if "bearer" in lowered:
        spans += [
            (m.start("value"), m.end("value"), BEARER_TOKEN, m.start())
            for m in _BEARER.finditer(text)
            if looks_random(m.group("value"))
        ]
    if not spans:
        return Redacted(text, {})
    return _apply(text, spans)


def _apply(text: str, spans: list[Span]) -> Redacted:
    """Replace non-overlapping spans (the first, then the longest, wins an overlap)."""
    out, found, pos = [], set(), 0
    for start, end, rule, finding in sorted(spans, key=lambda s: (s[0], -s[1])):
        if start < pos:
            continue
        out += [text[pos:start], PLACEHOLDER.format(rule=rule)]
        found.add((rule, finding))  # a private-key block is one finding on many lines
        pos = end
    out.append(text[pos:])
    return Redacted("".join(out), dict(Counter(rule for rule, _ in found)))


def _private_key_spans(text: str) -> list[Span]:
    """Key material after each ``BEGIN ... PRIVATE KEY`` line; blocks never overlap."""
    spans: list[Span] = []
    block, begin = 0, _BEGIN_KEY.search(text)
    while begin is not None:
        pos, lines = begin.end(), 0
        while pos < len(text) and lines <= MAX_KEY_LINES:
            eol = text.find("\n", pos)
            eol = len(text) if eol < 0 else eol
            line = text[pos:eol]
            stop = _END_KEY.search(line) or _BEGIN_KEY.search(line)
            body = line[: stop.start()] if stop else line
            if (
                stop is None
                and lines
                and not _KEY_HEADER.match(line)
                and _KEY_LINE.fullmatch(line) is None
            ):
                break  # no END line: the block ended where key material stops
            if not _KEY_HEADER.match(body):
                spans += _key_runs(body, pos, block)
            if stop:
                pos += stop.start()
                break
            pos, lines = eol + 1, lines + 1
        block, begin = block + 1, _BEGIN_KEY.search(text, max(pos, begin.end()))
    return spans


def _key_runs(body: str, offset: int, block: int) -> list[Span]:
    """The base64 runs of one line of a key block, not those of an earlier placeholder."""
    done = [m.span() for m in _PLACED.finditer(body)] if "[REDACTED:" in body else []
    return [
        (offset + m.start(), offset + m.end(), PRIVATE_KEY, -1 - block)
        for m in _KEY_RUN.finditer(body)
        if not any(a <= m.start() < b for a, b in done)
    ]


def _assignment_spans(text: str, lowered: str, python: bool) -> list[Span]:
    spans = []
    for start in _candidate_lines(text, lowered):
        end = text.find("\n", start)
        line = text[start : len(text) if end < 0 else end]
        for m in _ASSIGN.finditer(line):
            value = m.group("qv") or m.group("bv")
            quoted = m.group("qv") is not None
            if (python and not quoted) or (
                m.group("sep") == "," and not (quoted and m.group("close"))
            ):
                continue
            kind = secret_name(m.group("name"))
            if kind and looks_random(
                value, MIN_PASSWORD_LENGTH if kind == "password" else MIN_SECRET_LENGTH
            ):
                group = "qv" if quoted else "bv"
                spans.append(
                    (
                        start + m.start(group),
                        start + m.end(group),
                        ASSIGNED_SECRET,
                        start + m.start(group),
                    )
                )
    return spans


def _candidate_lines(text: str, lowered: str) -> list[int]:
    """Start offsets of the lines where a keyword sits in a name followed by a separator."""
    starts: set[int] = set()
    breaks: list[int] | None = None  # newline offsets, found once a keyword is
    for word in _KEYWORDS:
        pos = lowered.find(word)
        while pos >= 0:
            if _NAME_TAIL.match(text, pos + len(word)) and (
                word != "key" or lowered[max(0, pos - 12) : pos].rstrip("_.-").endswith(_KEY_OWNERS)
            ):
                if breaks is None:
                    breaks = [m.start() for m in _NEWLINE.finditer(lowered)]
                k = bisect.bisect_left(breaks, pos)  # the line's start, without a rescan
                starts.add(breaks[k - 1] + 1 if k else 0)
            pos = lowered.find(word, pos + len(word))
    return sorted(starts)


@dataclass(frozen=True)
class RedactionSummary:
    """What a build redacted, per file (counts only): the manifest's ``redaction`` entry.

    Example:
        >>> s = RedactionSummary(True, {"settings.py": 2, "docs/setup.md": 1})
        >>> s.line()
        'redacted 3 secret(s) in: settings.py, docs/setup.md'
    """

    enabled: bool
    files: dict[str, int]

    @property
    def values(self) -> int:
        return sum(self.files.values())

    def to_json(self) -> dict[str, object]:
        return {"enabled": self.enabled, "values": self.values, "files": dict(self.files)}

    @classmethod
    def of_manifest(cls, manifest: Mapping[str, object]) -> RedactionSummary:
        """The summary of a manifest; an index built before redaction existed has none."""
        entry = manifest.get("redaction")
        if not isinstance(entry, dict):
            return cls(False, {})
        files = entry.get("files")
        return cls(
            bool(entry.get("enabled")),
            {str(k): int(v) for k, v in files.items()} if isinstance(files, dict) else {},
        )

    def line(self, limit: int = 20) -> str | None:
        """``redacted N secret(s) in: a.py, b.md`` (None when nothing was redacted)."""
        if not self.files:
            return None
        names = list(self.files)
        shown = ", ".join(names[:limit]) + (
            f", ... ({len(names)} files)" if len(names) > limit else ""
        )
        return f"redacted {self.values} secret(s) in: {shown}"

    @classmethod
    def of_index(cls, index_dir: Path) -> RedactionSummary:
        """The summary in the manifest of the index at ``index_dir``."""
        from codecite.store.files import read_manifest  # the store is not needed to redact

        return cls.of_manifest(read_manifest(index_dir))
