"""The parsers as LlamaIndex NodeParsers: nodes know their document (docstore upserts),
paths come from the repository, and a file of another type is skipped with a warning."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from llama_index.core import Document
from llama_index.core.embeddings import MockEmbedding
from llama_index.core.ingestion import DocstoreStrategy, IngestionPipeline
from llama_index.core.schema import NodeRelationship
from llama_index.core.storage.docstore import SimpleDocumentStore
from llama_index.core.vector_stores import SimpleVectorStore

from codecite.node_parsers import DocSectionNodeParser, PythonNodeParser, RecipeNodeParser

V1 = 'class Box:\n    """A box."""\n\n    def open(self):\n        """Open it."""\n'
V2 = V1 + '\n\ndef pack(box):\n    """Pack a box."""\n'


def test_a_changed_document_replaces_its_nodes_in_a_pipeline() -> None:
    store = SimpleVectorStore()
    pipeline = IngestionPipeline(
        transformations=[PythonNodeParser(), MockEmbedding(embed_dim=8)],
        docstore=SimpleDocumentStore(),
        vector_store=store,
        docstore_strategy=DocstoreStrategy.UPSERTS,
    )
    doc = {"id_": "pkg/box.py", "metadata": {"source_path": "pkg/box.py"}}
    first = pipeline.run(documents=[Document(text=V1, **doc)])
    second = pipeline.run(documents=[Document(text=V2, **doc)])
    assert {n.metadata["symbol"] for n in first} == {"pkg.box.Box", "pkg.box.Box.open"}
    assert len(second) == 3
    held = set(store.data.embedding_dict)
    assert held == {n.node_id for n in second}, "the old version's nodes were left behind"
    assert pipeline.run(documents=[Document(text=V2, **doc)]) == []  # unchanged: nothing to do


def test_nodes_know_their_document_and_a_method_its_class() -> None:
    doc = Document(text=V1, id_="d1", metadata={"source_path": "pkg/box.py"})
    nodes = PythonNodeParser().get_nodes_from_documents([doc])
    by_symbol = {n.metadata["symbol"]: n for n in nodes}
    method, cls = by_symbol["pkg.box.Box.open"], by_symbol["pkg.box.Box"]
    assert {n.ref_doc_id for n in nodes} == {"d1"}
    assert method.relationships[NodeRelationship.PARENT].node_id == cls.node_id
    assert [c.node_id for c in cls.relationships[NodeRelationship.CHILD]] == [method.node_id]
    sections = DocSectionNodeParser().get_nodes_from_documents(
        [Document(text="# A\n\none\n\n# B\n\ntwo\n", id_="d2", metadata={"source_path": "a.md"})]
    )
    assert [n.ref_doc_id for n in sections] == ["d2", "d2"]
    assert sections[1].relationships[NodeRelationship.PREVIOUS].node_id == sections[0].node_id


def test_module_names_come_from_the_repository_not_a_temp_path(tmp_path: Path) -> None:
    pkg = tmp_path / "checkout-1.0" / "pkg" / "sub"
    pkg.mkdir(parents=True)
    for init in (pkg.parent / "__init__.py", pkg / "__init__.py"):
        init.write_text("", encoding="utf-8")
    (pkg / "mod.py").write_text(V1, encoding="utf-8")
    doc = Document(text=V1, metadata={"file_path": str(pkg / "mod.py")})
    found = PythonNodeParser().get_nodes_from_documents([doc])
    assert {n.metadata["symbol"] for n in found} == {"pkg.sub.mod.Box", "pkg.sub.mod.Box.open"}
    assert {n.metadata["source_path"] for n in found} == {"pkg/sub/mod.py"}
    rooted = PythonNodeParser(root=str(tmp_path / "checkout-1.0")).get_nodes_from_documents([doc])
    assert {n.metadata["source_path"] for n in rooted} == {"pkg/sub/mod.py"}
    with pytest.raises(ValueError, match="is not under root"):
        PythonNodeParser(root=str(tmp_path / "elsewhere")).get_nodes_from_documents([doc])


def test_a_document_without_a_path_is_refused_naming_the_key() -> None:
    for parser in (PythonNodeParser(), DocSectionNodeParser(), RecipeNodeParser()):
        with pytest.raises(ValueError, match="source_path"):
            parser.get_nodes_from_documents([Document(text="x = 1\n")])


def test_a_file_of_another_type_is_skipped_with_a_warning(caplog) -> None:
    md = Document(text="# Title\n\nText.\n", metadata={"source_path": "docs/a.md"})
    py = Document(text=V1, metadata={"source_path": "pkg/box.py"})
    with caplog.at_level(logging.WARNING, logger="codecite.node_parsers.llama"):
        assert PythonNodeParser().get_nodes_from_documents([md]) == []
        assert DocSectionNodeParser().get_nodes_from_documents([py]) == []
        assert RecipeNodeParser().get_nodes_from_documents([py]) == []
    skipped = [r.getMessage() for r in caplog.records]
    assert skipped == [
        "CodecitePythonNodeParser skips 'docs/a.md': it reads .py, .pyi files",
        "CodeciteDocSectionNodeParser skips 'pkg/box.py': it reads .md, .markdown, .qmd, "
        ".rst, .txt files",
        "CodeciteRecipeNodeParser skips 'pkg/box.py': it reads .md, .markdown, .qmd files",
    ]
    mixed = PythonNodeParser().get_nodes_from_documents([md, py])
    assert {n.metadata["source_path"] for n in mixed} == {"pkg/box.py"}
