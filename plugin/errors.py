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

Every message names the thing and the fix.
"""

from __future__ import annotations


class CodeciteError(Exception):
    """Base class of every error codecite raises on purpose."""


class ConfigError(CodeciteError, ValueError):
    """A configuration key or value is wrong; the message names key, file and fix."""


class ForeignPathError(ConfigError):
    """``index_dir`` (or a file beside it) exists and was not made by codecite."""


class IndexNotFoundError(CodeciteError, FileNotFoundError):
    """No index exists at the expected place."""


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


class EmbeddingError(CodeciteError):
    """An embedding backend was configured but does not work."""


class EmbeddingModelMismatchError(EmbeddingError):
    """The query would be embedded by another model than the stored vectors."""


class SuiteError(CodeciteError, ValueError):
    """An evaluation suite file has a malformed line."""
