"""Secrets stay out of the index: credential values in a file become placeholders.

``codecite build`` runs :func:`redact_secrets` on the decoded text of every
file it parses, before any parser sees it, so node text, term counts, the
vocabulary, symbols, signatures and the embedding input (made from node text)
only ever hold the placeholder ``[REDACTED:<rule>]``. Only the value is
replaced, never a newline: a file keeps its line count and every citation
``path:start-end`` still points at the same lines. ``redact_secrets = false``
turns it off (docs/configuration.md).

Why a small rule set and not ``detect-secrets``: detect-secrets works offline
on an in-memory line, but it costs 4.4 s per MB with its filters (1.7 s per MB
for its plugins alone), more than a whole codecite build (0.4 to 1.6 s per
MB), and it reports the secret value, not its span. These rules cost 16 to
26 ms per MB, a few percent of a build (docs/reliability.md, *Secrets in
indexed files*, has the figures and how to measure them). Every regex is
linear (bounded repeats, no nested repetition), and each token regex opens
with a literal, so the engine's fast literal search skips most text:

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
import math
import re
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

PLACEHOLDER = "[REDACTED:{rule}]"
PRIVATE_KEY = "private-key"
ASSIGNED_SECRET = "assigned-secret"
URL_PASSWORD = "url-password"
BEARER_TOKEN = "bearer-token"
MIN_SECRET_LENGTH = 16
MIN_PASSWORD_LENGTH = 8
MIN_URL_PASSWORD_LENGTH = 12  # docs write `scott:tiger^5HHH@`, `a%20secret@`
MIN_ENTROPY = 3.5  # bits per character; a random 16-character alphanumeric string has ~3.7
MIN_HEX_ENTROPY = 3.0  # hex has at most 4 bits per character
MAX_KEY_LINES = 400  # a private-key block without an END line stops here at the latest
PYTHON_SUFFIXES = (".py", ".pyi")
_ALNUM = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
Span = tuple[int, int, str, int]  # start, end, rule, finding (one finding may span lines)


@dataclass(frozen=True)
class Redacted:
    """The text with placeholders, and which rule replaced how many values (no values)."""

    text: str
    rules: dict[str, int]

    @property
    def count(self) -> int:
        return sum(self.rules.values())


@dataclass(frozen=True)
class TokenRule:
    """A credential of a known form: ``pattern``, which opens with a literal so that the
    regex engine's fast literal search skips most text (a leading lookbehind or character
    class would disable it). The boundary is checked in Python: the match must not follow
    a character of ``joined``; with ``lead`` it must follow one of those characters, which
    the span takes in (``s`` or ``r`` before ``k_live_``)."""

    name: str
    pattern: re.Pattern[str]
    joined: str = _ALNUM
    check: Callable[[str], bool] | None = None
    lead: str = ""

    def spans(self, text: str) -> Iterator[Span]:
        for m in self.pattern.finditer(text):
            start = m.start()
            if self.lead:
                if start == 0 or text[start - 1] not in self.lead:
                    continue
                start -= 1
            if (start == 0 or text[start - 1] not in self.joined) and (
                self.check is None or self.check(m.group())
            ):
                yield start, m.end(), self.name, start


def _mixed(value: str) -> bool:
    """Letters and digits, as a random token has (``sk-learn-compatible`` has no digit)."""
    return (
        any(c.isdigit() for c in value)
        and any(c.isalpha() for c in value)
        and shannon_entropy(value) >= MIN_ENTROPY
    )


TOKEN_RULES: tuple[TokenRule, ...] = (
    TokenRule(
        "aws-access-key-id", re.compile(r"(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16,20}(?![A-Za-z0-9])")
    ),
    TokenRule(
        "github-token",
        re.compile(
            r"gh(?:[pousr]_[A-Za-z0-9]{36,251}|ithub_pat_[A-Za-z0-9_]{22,244})"
            r"(?![A-Za-z0-9_])"
        ),
        _ALNUM + "_",
    ),
    TokenRule(
        "gitlab-token",
        re.compile(r"gl(?:pat|dt|rt|ptt|soat)-[A-Za-z0-9_-]{20,64}(?![A-Za-z0-9_-])"),
        _ALNUM + "_-",
    ),
    TokenRule(
        "slack-token",
        re.compile(r"xox[abposre]-[A-Za-z0-9-]{10,250}(?![A-Za-z0-9-])"),
        check=_mixed,
    ),
    TokenRule(
        "slack-webhook",
        re.compile(r"hooks\.slack\.com/(?:services|workflows)/[A-Za-z0-9/_-]{20,200}"),
        "",
    ),
    TokenRule(
        "google-api-key", re.compile(r"AIza[0-9A-Za-z_-]{35}(?![A-Za-z0-9_-])"), _ALNUM + "_-"
    ),
    TokenRule(
        "stripe-key",
        re.compile(r"k_(?:live|test)_[0-9A-Za-z]{16,247}(?![A-Za-z0-9])"),
        _ALNUM + "_",
        lead="sr",
    ),
    TokenRule(
        "openai-anthropic-key",
        re.compile(
            r"sk-(?:proj-|svcacct-|admin-|ant-[a-z]{3,8}\d\d-)?"
            r"[A-Za-z0-9_-]{32,300}(?![A-Za-z0-9_-])"
        ),
        _ALNUM + "_-",
        _mixed,
    ),
    TokenRule(
        "huggingface-token",
        re.compile(r"hf_[A-Za-z0-9]{34,40}(?![A-Za-z0-9_])"),
        _ALNUM + "_",
        _mixed,
    ),
    TokenRule("pypi-token", re.compile(r"pypi-AgE[A-Za-z0-9_-]{50,1000}"), _ALNUM + "_-"),
    TokenRule(
        "json-web-token",
        re.compile(
            r"eyJ[A-Za-z0-9_-]{10,2000}\.eyJ[A-Za-z0-9_-]{10,4000}"
            r"\.[A-Za-z0-9_-]{10,1000}"
        ),
        _ALNUM + "_-",
    ),
)


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
_KEY_OWNERS = ("api", "access", "auth", "private", "signing", "encryption", "master", "secret")
# lower-cased words one of which every name `secret_name` accepts holds ("key" only after
# an owner): where to look for an assignment
_KEYWORDS = ("secret", "token", "passw", "passph", "pwd", "credential", "key")
# what follows a keyword inside a name that is assigned: the rest of the name, then a
# separator (`= `, `: `, `"] =`, `",`); matched at each keyword, never searched
_NAME_TAIL = re.compile(r"""[A-Za-z0-9_.-]{0,80}['"]?\]?[ \t]{0,4}[:=,]""")
_NAME_PART = re.compile(
    r"[a-z0-9]*(?:secret|token|password|passwd|passphrase|apikey|"
    r"credential)s?|pwd"
)
NOT_SECRET_ENDINGS = frozenset(
    {
        "url",
        "urls",
        "uri",
        "endpoint",
        "host",
        "file",
        "filename",
        "path",
        "dir",
        "name",
        "names",
        "type",
        "types",
        "kind",
        "env",
        "var",
        "len",
        "length",
        "size",
        "count",
        "limit",
        "header",
        "prefix",
        "suffix",
        "re",
        "regex",
        "pattern",
        "field",
        "param",
        "id",
        "ids",
        "mode",
        "format",
        "fmt",
        "label",
        "help",
        "doc",
        "class",
        "provider",
        "cache",
        "index",
        "idx",
    }
)
_CAMEL_BREAK = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_NAME_SPLIT = re.compile(r"[_.\-]+")
_PLACEHOLDER_HINTS = (
    "your",
    "changeme",
    "change_me",
    "placeholder",
    "redacted",
    "dummy",
    "xxxx",
    "****",
    "...",
    "<",
    ">",
    "${",
    "{{",
    "%(",
    "%s",
)
_SEPARATORS = re.compile(r"[_.\-]")
_PATH_PARTS = re.compile(r"[/_.\-~]")
# a part of a name-like value: a word, maybe numbered (`utf8`, `v2`, `SHA256`), or a number
_WORD_PART = re.compile(r"[A-Za-z][a-z]{0,40}[0-9]{0,4}|[A-Z]{1,40}[0-9]{0,4}|[0-9]{1,4}")
_PAIRED = re.compile(r"\([^)]{0,400}\)|\[[^\]]{0,400}\]|\{[^}]{0,400}\}")  # a pattern, a call
_HEX = frozenset("0123456789abcdefABCDEF")
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
    breaks = [i for i, ch in enumerate(lowered) if ch == "\n"] if "\n" in lowered else []
    for word in _KEYWORDS:
        pos = lowered.find(word)
        while pos >= 0:
            if _NAME_TAIL.match(text, pos + len(word)) and (
                word != "key" or lowered[max(0, pos - 12) : pos].rstrip("_.-").endswith(_KEY_OWNERS)
            ):
                k = bisect.bisect_left(breaks, pos)  # the line's start, without a rescan
                starts.add(breaks[k - 1] + 1 if k else 0)
            pos = lowered.find(word, pos + len(word))
    return sorted(starts)


def secret_name(name: str) -> str | None:
    """``"password"`` or ``"secret"`` when ``name`` names a credential, else None.

    Example:
        >>> secret_name("AWS_SECRET_ACCESS_KEY"), secret_name("clientSecret")
        ('secret', 'secret')
        >>> secret_name("db.password"), secret_name("tokenizer"), secret_name("token_url")
        ('password', None, None)
    """
    parts = [p for p in _NAME_SPLIT.split(_CAMEL_BREAK.sub("_", name).lower()) if p]
    if not parts or parts[-1] in NOT_SECRET_ENDINGS or "public" in parts:
        return None
    for i, part in enumerate(parts):
        if _NAME_PART.fullmatch(part):
            return "password" if part.startswith(("passw", "pwd", "passph")) else "secret"
        if part == "key" and i and parts[i - 1] in _KEY_OWNERS:
            return "secret"
    return None


def shannon_entropy(value: str) -> float:
    """Bits per character of ``value``'s character distribution: -sum p log2 p."""
    n = len(value)
    return -sum(c / n * math.log2(c / n) for c in Counter(value).values()) if n else 0.0


def _name_like(value: str) -> bool:
    """``word_list``, ``ENV_NAME``, ``kebab-case-v2`` or ``dotted.module.name``."""
    if "." in value and all(p.isidentifier() for p in value.split(".")):
        return True
    parts = _SEPARATORS.split(value)
    return len(parts) > 1 and all(_WORD_PART.fullmatch(p) for p in parts)


def _path_like(value: str) -> bool:
    """``/etc/app/secret.key``, ``~/.ssh/id_rsa``: a path made of words."""
    return value.startswith(("/", "./", "../", "~/")) and all(
        not p or _WORD_PART.fullmatch(p) for p in _PATH_PARTS.split(value)
    )


def _variable(value: str) -> bool:
    """``$TOKEN``, ``%TOKEN%``: a shell or Windows variable standing for the value."""
    name = (
        value[1:-1]
        if value.startswith("%") and value.endswith("%")
        else value[1:]
        if value.startswith("$")
        else ""
    )
    return bool(name) and (name.isidentifier() or _name_like(name))


def looks_random(value: str, min_length: int = MIN_SECRET_LENGTH) -> bool:
    """Whether an assigned value looks like a generated credential, not code or prose.

    At least ``min_length`` characters with letters and digits; below
    ``MIN_SECRET_LENGTH`` also three of lower case, upper case, digits and
    symbols. Entropy at least ``MIN_HEX_ENTROPY`` for hex, ``MIN_ENTROPY``
    otherwise (a shorter value needs only ``0.7 * log2(len)``, since n distinct
    characters hold at most ``log2(n)`` bits each). Placeholders
    (``<your-token>``, ``${TOKEN}``, ``changeme``), paths, URLs, dotted names,
    ``ENV_NAMES`` and ``word_lists`` are never random.

    Example:
        >>> looks_random("wJalrXUtnFEMI/K7MDENG/bPxRfiCY" + "EXAMPLEKEY")
        True
        >>> looks_random("get_token"), looks_random("/etc/app/secret.key")
        (False, False)
    """
    if (
        len(value) < min_length
        or not any(c.isdigit() for c in value)
        or not any(c.isalpha() for c in value)
    ):
        return False
    low = value.lower()
    if (
        any(h in low for h in _PLACEHOLDER_HINTS)
        or "://" in value
        or _name_like(value)
        or _path_like(value)
        or _PAIRED.search(value)
        or _variable(value)
    ):
        return False
    if len(value) < MIN_SECRET_LENGTH:
        classes = (
            any(c.islower() for c in value)
            + any(c.isupper() for c in value)
            + any(c.isdigit() for c in value)
            + any(not c.isalnum() for c in value)
        )
        if classes < 3:
            return False
    floor = MIN_HEX_ENTROPY if set(value) <= _HEX else MIN_ENTROPY
    return shannon_entropy(value) >= min(floor, 0.7 * math.log2(len(value)))


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
    def of_manifest(cls, manifest: dict[str, object]) -> RedactionSummary:
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
