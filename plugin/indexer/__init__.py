"""The build: walk the corpus, redact secrets, parse each file (``node_parsers``), reuse
what did not change, compute the corpus-wide tables and write the index (``store``).

``codecite.build`` is :func:`codecite.indexer.build.build_index`. The room is not named
``build`` because ``codecite.build`` is that public function. See docs/architecture.md.
"""
