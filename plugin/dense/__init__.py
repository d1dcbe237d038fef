"""Dense retrieval, opt-in: choose a model, embed nodes at build time, fuse at query time.

See docs/dense.md.
"""
