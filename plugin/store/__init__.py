"""The index on disk: layout and checksums, the build lock, ownership and the swap,
the seal, typed node records, the reuse arrays and the symbol table.

Nothing here imports LlamaIndex or bm25s (tests/test_house.py checks it), so a build
that finds nothing changed, or a check of an index, stays cheap. See docs/reliability.md.
"""
