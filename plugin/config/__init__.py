"""Configuration: the settings model of ``[tool.codecite]`` and how it is loaded.

- ``model``: the settings model, its defaults and records (``CodeciteSettings``,
  ``CodeciteConfig``, ``EmbeddingSettings``, ``WorkflowRule``); the retrieval
  constants are ``codecite.retrievers.settings.RetrievalSettings``;
- ``fields``: the constrained types of the table (string lists, repository paths);
- ``messages``: a refused value as one ``ConfigError`` naming the file, key and fix;
- ``files``: reading settings and metadata files of the repository, safely;
- ``packages``: what zero configuration finds (packages, folders, README files);
- ``loading``: finding the settings, ``validate_settings`` and ``load_config``.

Every key is described in docs/configuration.md.
"""

from codecite.retrievers.settings import RetrievalSettings

from .loading import find_settings, load_config, validate_settings
from .model import CodeciteConfig, CodeciteSettings, EmbeddingSettings, WorkflowRule
from .packages import detect_packages, project_name

__all__ = [
    "CodeciteConfig",
    "CodeciteSettings",
    "EmbeddingSettings",
    "RetrievalSettings",
    "WorkflowRule",
    "detect_packages",
    "find_settings",
    "load_config",
    "project_name",
    "validate_settings",
]
