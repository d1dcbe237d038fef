"""The exceptions codecite raises, one small hierarchy.

::

    CodeciteError
     +-- ConfigError            a bad key or value in [tool.codecite] / codecite.toml
     |    +-- ForeignPathError  index_dir names something codecite did not make
     +-- IndexNotFoundError     no index where one was expected
     +-- IndexIntegrityError    a missing, truncated or edited index file
     |    +-- ManifestError     manifest.json unreadable or of a future format
     |    +-- UntrustedIndexError  the index was not built by this user on this machine
     +-- StaleIndexError        the index was built from other sources (strict mode)
     +-- IndexLockedError       another build holds the index lock
     +-- QueryError             an unusable query or retrieval argument
     +-- EmbeddingError         an embedding backend configured but not working
     |    +-- EmbeddingModelMismatchError  query model differs from the stored vectors
     +-- SuiteError             a malformed evaluation suite line
     +-- UsageError             a command-line argument a ``codecite`` command cannot use

Every message names the thing and the fix. Each class carries the ``exit_code``
the ``codecite`` command ends with when it stops on that error (the model is
click's ``ClickException.exit_code``): 2 when the user's input is the mistake
(a bad setting, a missing index, an unusable argument), 1 for every other
failure. ``codecite.cli.shared`` takes its ``EXIT_*`` codes from here.
"""

from __future__ import annotations


class CodeciteError(Exception):
    """Base class of every error codecite raises on purpose.

    Example:
        >>> from codecite.errors import CodeciteError, ConfigError
        >>> CodeciteError.exit_code, ConfigError.exit_code
        (1, 2)
    """

    exit_code: int = 1  # a failure: the command could not do its work


class ConfigError(CodeciteError, ValueError):
    """A configuration key or value is wrong; the message names key, file and fix."""

    exit_code = 2  # the user's mistake


class ForeignPathError(ConfigError):
    """``index_dir`` (or a file beside it) exists and was not made by codecite."""


class IndexNotFoundError(CodeciteError, FileNotFoundError):
    """No index exists at the expected place."""

    exit_code = 2  # the user's mistake


class IndexIntegrityError(CodeciteError):
    """An index file is missing, truncated or does not match the manifest."""


class ManifestError(IndexIntegrityError):
    """``manifest.json`` cannot be used (unreadable, or written by a newer codecite)."""


class UntrustedIndexError(IndexIntegrityError):
    """The manifest's keyed digest does not verify with this user's key."""


class StaleIndexError(CodeciteError):
    """The index was built from sources that have changed since."""


class IndexLockedError(CodeciteError):
    """Another process is building this index."""


class QueryError(CodeciteError, ValueError):
    """A query or retrieval argument cannot be used."""

    exit_code = 2  # the user's mistake


class EmbeddingError(CodeciteError):
    """An embedding backend was configured but does not work."""


class EmbeddingModelMismatchError(EmbeddingError):
    """The query would be embedded by another model than the stored vectors."""


class SuiteError(CodeciteError, ValueError):
    """An evaluation suite file has a malformed line."""

    exit_code = 2  # the user's mistake (a suite file they pass)


class UsageError(CodeciteError):
    """A command-line argument a ``codecite`` command cannot use; the message names the fix."""

    exit_code = 2
