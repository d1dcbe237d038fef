"""What counts as a secret: token formats, secret-like names, random-looking values.

The rules :func:`codecite.indexer.redaction.redact_secrets` applies (see
docs/reliability.md): provider token formats (:data:`TOKEN_RULES`), names that say
"secret" (:func:`secret_name`), and values random enough to be one
(:func:`looks_random`), with the thresholds that keep prose, paths and identifiers out.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass

MIN_SECRET_LENGTH = 16
MIN_PASSWORD_LENGTH = 8
MIN_URL_PASSWORD_LENGTH = 12  # docs write `scott:tiger^5HHH@`, `a%20secret@`
MIN_ENTROPY = 3.5  # bits per character; a random 16-character alphanumeric string has ~3.7
MIN_HEX_ENTROPY = 3.0  # hex has at most 4 bits per character
_ALNUM = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"


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

_KEY_OWNERS = ("api", "access", "auth", "private", "signing", "encryption", "master", "secret")


# lower-cased words one of which every name `secret_name` accepts holds ("key" only after
# an owner): where to look for an assignment
_KEYWORDS = ("secret", "token", "passw", "passph", "pwd", "credential", "key")
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


Span = tuple[int, int, str, int]  # start, end, rule, finding (one finding may span lines)


_NAME_PART = re.compile(
    r"[a-z0-9]*(?:secret|token|password|passwd|passphrase|apikey|"
    r"credential)s?|pwd"
)
