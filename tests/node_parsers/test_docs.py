"""Section parsing of Markdown and reStructuredText documentation."""

from __future__ import annotations

from itertools import pairwise

import pytest
from llama_index.core import Document
from llama_index.core.node_parser.interface import NodeParser

from codecite.node_parsers.docs import (
    DocSectionNodeParser,
    extract_refs,
    parse_doc,
    parse_markdown,
    parse_rst,
)
from codecite.node_parsers.schema import text_node

GUIDE_MD = (
    "\n".join(
        [
            "---",  # 1
            "title: Guide",  # 2
            "---",  # 3
            "Intro text before any heading.",  # 4
            "",  # 5
            "# Jinja Guide",  # 6
            "",  # 7
            "Welcome to `jinja2`.",  # 8
            "",  # 9
            "## Loading templates",  # 10
            "",  # 11
            "Use `Environment.get_template()` to load.",  # 12
            "",  # 13
            "```python",  # 14
            "# not a heading",  # 15
            "env = Environment()",  # 16
            "```",  # 17
            "",  # 18
            "### Loaders ###",  # 19
            "",  # 20
            "The `FileSystemLoader` reads files.",  # 21
            "",  # 22
            "Setext Title",  # 23
            "============",  # 24
            "",  # 25
            "Body of setext.",  # 26
            "",  # 27
            "Sub setext",  # 28
            "----------",  # 29
            "",  # 30
            "More body.",  # 31
            "<!--",  # 32
            "# commented heading",  # 33
            "-->",  # 34
        ]
    )
    + "\n"
)

API_RST = (
    "\n".join(
        [
            "==========",  # 1
            "Jinja API",  # 2
            "==========",  # 3
            "",  # 4
            "Intro :mod:`jinja2`.",  # 5
            "",  # 6
            "Loading",  # 7
            "=======",  # 8
            "",  # 9
            "Use :func:`~jinja2.loaders.FileSystemLoader` like this::",  # 10
            "",  # 11
            "    ========",  # 12
            "    not a title",  # 13
            "    ========",  # 14
            "",  # 15
            "Loaders",  # 16
            "-------",  # 17
            "",  # 18
            ".. code-block:: python",  # 19
            "",  # 20
            "    x = 1",  # 21
            "    =====",  # 22
            "",  # 23
            "----",  # 24
            "",  # 25
            "After transition.",  # 26
            "",  # 27
            "Advanced",  # 28
            "========   ",  # 29
            "",  # 30
            ".. autoclass:: jinja2.Environment",  # 31
            "   :members:",  # 32
        ]
    )
    + "\n"
)


def _spans(nodes):
    return [
        (n.metadata["heading_path"], n.metadata["start_line"], n.metadata["end_line"])
        for n in nodes
    ]


# -- Markdown ------------------------------------------------------------------


def test_markdown_sections_paths_and_exact_spans():
    nodes = parse_markdown(GUIDE_MD, "docs/guide.md")
    assert _spans(nodes) == [
        (["guide"], 4, 4),
        (["Jinja Guide"], 6, 8),
        (["Jinja Guide", "Loading templates"], 10, 17),
        (["Jinja Guide", "Loading templates", "Loaders"], 19, 21),
        (["Setext Title"], 23, 26),
        (["Setext Title", "Sub setext"], 28, 34),
    ]
    assert all(n.metadata["kind"] == "doc_section" for n in nodes)
    assert [n.metadata["heading"] for n in nodes][2:4] == ["Loading templates", "Loaders"]


def test_markdown_node_text_is_heading_path_then_body():
    loading = parse_markdown(GUIDE_MD, "docs/guide.md")[2]
    assert loading.text == (
        "Jinja Guide > Loading templates\n\n"
        "Use `Environment.get_template()` to load.\n\n"
        "```python\n# not a heading\nenv = Environment()\n```"
    )
    assert "source_path" in text_node(loading).excluded_embed_metadata_keys


def test_markdown_front_matter_is_not_a_section():
    nodes = parse_markdown(GUIDE_MD, "docs/guide.md")
    assert all("title: Guide" not in n.text for n in nodes)


def test_markdown_longer_fences_and_tilde_fences_hide_headings():
    text = "\n".join(
        [
            "# Top",  # 1
            "",  # 2
            "````markdown",  # 3
            "```",  # 4
            "# inside",  # 5
            "```",  # 6
            "````",  # 7
            "~~~",  # 8
            "## also inside",  # 9
            "~~~",  # 10
            "## Real",  # 11
            "body",  # 12
        ]
    )
    nodes = parse_markdown(text, "docs/fences.md")
    assert _spans(nodes) == [(["Top"], 1, 10), (["Top", "Real"], 11, 12)]


def test_markdown_thematic_break_and_list_are_not_setext_headings():
    text = "# Notes\n\nfirst para\n\n---\n\n- item\n---\n\nend\n"
    nodes = parse_markdown(text, "NOTES.md")
    assert _spans(nodes) == [(["Notes"], 1, 10)]


def test_markdown_empty_sections_dropped_but_titles_kept_in_paths():
    text = "# Guide\n\n## Install\n\n### From PyPI\n\npip install jinja2\n\n## Empty\n\n"
    nodes = parse_markdown(text, "docs/install.md")
    assert _spans(nodes) == [(["Guide", "Install", "From PyPI"], 5, 7)]


def test_preamble_uses_file_stem():
    nodes = parse_markdown("Just some text\nand more.\n\n# Usage\n\nRun it.\n", "README.md")
    assert _spans(nodes) == [(["README"], 1, 2), (["Usage"], 4, 6)]
    assert nodes[0].text == "README\n\nJust some text\nand more."


# -- reStructuredText ----------------------------------------------------------


def test_rst_overline_underline_levels_literal_blocks_and_transitions():
    nodes = parse_rst(API_RST, "docs/api.rst")
    assert _spans(nodes) == [
        (["Jinja API"], 1, 5),
        (["Jinja API", "Loading"], 7, 14),
        (["Jinja API", "Loading", "Loaders"], 16, 26),
        (["Jinja API", "Advanced"], 28, 32),
    ]
    assert "    ========\n    not a title" in nodes[1].text
    assert "----\n\nAfter transition." in nodes[2].text


def test_rst_overline_style_differs_from_underline_style_of_same_char():
    text = "\n".join(
        [
            "#####",
            "Part",
            "#####",
            "",
            "intro",
            "",  # 1-6
            "Chapter",
            "#######",
            "",
            "chapter text",
            "",  # 7-11
            "######",
            "Part 2",
            "######",
            "",
            "second part",  # 12-16
        ]
    )
    assert _spans(parse_rst(text, "docs/book.rst")) == [
        (["Part"], 1, 5),
        (["Part", "Chapter"], 7, 10),
        (["Part 2"], 12, 16),
    ]


@pytest.mark.parametrize("char", list("-~^\"'*+#:._`<>!$%&"))
def test_rst_any_punctuation_adornment(char):
    text = f"Top\n===\n\ntop body\n\nSub\n{char * 5}\n\nsub body\n"
    assert _spans(parse_rst(text, "docs/x.rst")) == [(["Top"], 1, 4), (["Top", "Sub"], 6, 9)]


def test_rst_short_underline_and_indented_title_are_not_titles():
    text = "Real\n====\n\nA long title\n===\n\n  indented\n  --------\n"
    nodes = parse_rst(text, "docs/x.rst")
    assert _spans(nodes) == [(["Real"], 1, 8)]


def test_rst_preamble_before_first_title():
    text = ".. _top:\n\nSome words.\n\nTitle\n-----\n\nBody.\n"
    assert _spans(parse_rst(text, "docs/index.rst")) == [(["index"], 1, 3), (["Title"], 5, 8)]


# -- glossaries -------------------------------------------------------------------


def test_myst_glossary_terms_are_sections_with_their_own_refs():
    text = "\n".join(
        [
            "# Glossary",
            "",
            "Words we use.",
            "",  # 1-4
            ":::{glossary}",  # 5
            "dict classes",  # 6
            "  Classes whose instances keep a `__dict__`.",
            "",  # 7-8
            "  See {func}`pkg.define`.",
            "",  # 9-10
            "slotted classes",  # 11
            "slots",  # 12
            "  Classes with `pkg.slots` only.",  # 13
            ":::",
            "",  # 14-15
            "# After",
            "",
            "More text.",  # 16-18
        ]
    )
    nodes = parse_markdown(text, "docs/glossary.md")
    assert _spans(nodes) == [
        (["Glossary"], 1, 5),
        (["Glossary", "dict classes"], 6, 9),
        (["Glossary", "slotted classes, slots"], 11, 14),
        (["After"], 16, 18),
    ]
    assert nodes[1].metadata["refs"] == ["__dict__", "pkg.define"]
    assert nodes[2].metadata["refs"] == ["pkg.slots"]


def test_rst_glossary_terms_are_sections_the_last_running_to_the_next_heading():
    text = "\n".join(
        [
            "Terms",
            "=====",
            "",  # 1-3
            ".. glossary::",
            "   :sorted:",
            "",  # 4-6
            "   loader",
            "      Finds templates, see :class:`pkg.Loader`.",
            "",  # 7-9
            "   environment",
            "      Holds the configuration.",
            "",  # 10-12
            "Text after the glossary, in the Terms section.",
            "",  # 13-14
            "Next",
            "====",
            "",
            "Body.",  # 15-18
        ]
    )
    nodes = parse_rst(text, "docs/terms.rst")
    assert _spans(nodes) == [
        (["Terms"], 1, 5),
        (["Terms", "loader"], 7, 8),
        (["Terms", "environment"], 10, 13),
        (["Next"], 15, 18),
    ]
    assert nodes[1].metadata["refs"] == ["pkg.Loader"]


def test_rst_glossary_shown_as_an_example_is_not_split():
    literal = (
        "Glossary\n========\n\nWrite one like this::\n\n   .. glossary::\n\n"
        "      term\n         Its definition.\n\nAfter the example.\n"
    )
    assert _spans(parse_rst(literal, "docs/a.rst")) == [(["Glossary"], 1, 11)]
    code = ".. code-block:: rst\n\n   .. glossary::\n\n      term\n         Def.\n"
    assert _spans(parse_rst(code, "docs/b.rst")) == [(["b"], 1, 6)]
    inside_note = ".. note::\n\n   .. glossary::\n\n      term\n         Def.\n"
    assert [n.metadata["heading_path"] for n in parse_rst(inside_note, "docs/c.rst")] == [
        ["c"],
        ["c", "term"],
    ]


def test_glossary_inside_a_code_fence_or_unclosed_is_not_split():
    fenced = "# Doc\n\n```text\n:::{glossary}\nterm\n  def\n:::\n```\n"
    assert _spans(parse_markdown(fenced, "docs/a.md")) == [(["Doc"], 1, 8)]
    unclosed = "# Doc\n\n:::{glossary}\nterm\n  def\n"
    assert _spans(parse_markdown(unclosed, "docs/b.md")) == [(["Doc"], 1, 5)]


# -- splitting -------------------------------------------------------------------


def _long_section():
    paragraphs = [f"Paragraph {i} " + "words about templates " * 9 for i in range(30)]
    code = "```python\n" + "\n\n".join(f"x_{i} = render({i})" for i in range(40)) + "\n```"
    body = "\n\n".join([*paragraphs[:15], code, *paragraphs[15:]])
    return "# Intro\n\nshort intro\n\n## Long\n\n" + body + "\n\n## After\n\nfine\n"


def test_long_section_split_on_paragraphs_within_budget_and_covering_section():
    text = _long_section()
    lines = text.splitlines()
    nodes = parse_markdown(text, "docs/long.md", max_chars=1000)
    long_nodes = [n for n in nodes if n.metadata["heading"] == "Long"]
    assert len(long_nodes) > 3
    assert all(len(n.text) <= 1000 for n in nodes)
    assert all(n.text.startswith("Intro > Long\n\n") for n in long_nodes)
    spans = [(n.metadata["start_line"], n.metadata["end_line"]) for n in long_nodes]
    assert spans[0][0] == 5 and spans[-1][1] == lines.index("## After") - 1
    assert all(a[1] < b[0] for a, b in pairwise(spans))
    covered = {i for a, b in spans for i in range(a, b + 1)}
    assert all(i in covered for i in range(5, spans[-1][1] + 1) if lines[i - 1].strip())
    fence_open = lines.index("```python") + 1
    fence_close = next(i + 1 for i, line in enumerate(lines) if line == "```")
    assert any(a <= fence_open and fence_close <= b for a, b in spans)
    for node in long_nodes:
        a, b = node.metadata["start_line"], node.metadata["end_line"]
        assert lines[b - 1] in node.text and (a == 5 or lines[a - 1] in node.text)


def test_single_long_paragraph_split_on_lines():
    body = "\n".join(f"line {i} " + "x" * 80 for i in range(100))
    nodes = parse_markdown("# Big\n" + body + "\n", "docs/big.md", max_chars=1000)
    assert len(nodes) > 5 and all(len(n.text) <= 1000 for n in nodes)
    assert nodes[0].metadata["start_line"] == 1 and nodes[-1].metadata["end_line"] == 101
    ends = [n.metadata["end_line"] for n in nodes]
    starts = [n.metadata["start_line"] for n in nodes]
    assert starts[1:] == [e + 1 for e in ends[:-1]]


def test_no_huge_node_from_a_100kb_line():
    text = "Minified\n========\n\n" + "a" * 100_000 + "\n"
    nodes = parse_rst(text, "docs/min.rst")
    assert all(len(n.text) <= 4000 for n in nodes)
    assert sum(n.text.count("a") for n in nodes) >= 100_000
    assert len({n.node_id for n in nodes}) == len(nodes)


# -- refs --------------------------------------------------------------------------


def test_refs_rst_roles_forms():
    text = (
        "See :func:`jinja2.compile`, :py:class:`~jinja2.Environment`, "
        ":meth:`.Template.render`, :attr:`Load <jinja2.Loader.cache>`, "
        ":mod:`jinja2.ext`, :exc:`TemplateNotFound`, :data:`pkg.DEFAULT`, "
        ":obj:`pkg.thing()`, :py:meth:`Env.get_template()`, and :ref:`intro` / :doc:`x`."
    )
    assert extract_refs(text) == (
        "jinja2.compile",
        "jinja2.Environment",
        "Template.render",
        "jinja2.Loader.cache",
        "jinja2.ext",
        "TemplateNotFound",
        "pkg.DEFAULT",
        "pkg.thing",
        "Env.get_template",
    )


def test_refs_autodoc_and_domain_directives():
    text = "\n".join(
        [
            ".. automodule:: jinja2.loaders",
            "   :members:",
            ".. autofunction:: jinja2.select_autoescape",
            ".. autoclass:: jinja2.Environment([options])",
            ".. automethod:: jinja2.Template.render",
            ".. autoattribute:: jinja2.Template.name",
            ".. autodata:: jinja2.DEFAULT",
            ".. autoexception:: jinja2.TemplateError",
            ".. py:function:: pkg.mod.f(x, y=1)",
            ".. py:class:: pkg.Base",
        ]
    )
    assert extract_refs(text) == (
        "jinja2.loaders",
        "jinja2.select_autoescape",
        "jinja2.Environment",
        "jinja2.Template.render",
        "jinja2.Template.name",
        "jinja2.DEFAULT",
        "jinja2.TemplateError",
        "pkg.mod.f",
        "pkg.Base",
    )


def test_refs_of_plain_python_directives_as_sphinx_reads_them():
    """``.. function::`` is ``py:function`` in Sphinx's default domain: pages written by
    hand (jinja2's, scrapy's, packaging's) document their API with the plain forms."""
    text = "\n".join(
        [
            ".. currentmodule:: pywt",
            ".. class:: Wavelet(name[, filter_bank=None])",
            "   .. attribute:: dec_lo",
            ".. function:: wavedec(data, wavelet, mode='symmetric')",
            ".. method:: Wavelet.wavefun(level=8)",
            ".. exception:: pywt.WaveletError",
            ".. note:: a note is no API",
            "",
            "```{function} mido.open_input(name=None)",
            "```",
        ]
    )
    assert extract_refs(text) == (
        "Wavelet",
        "dec_lo",
        "wavedec",
        "Wavelet.wavefun",
        "pywt.WaveletError",
        "mido.open_input",
    )


def test_refs_myst_roles_and_directives():
    text = (
        "Call {py:func}`pkg.load` or {class}`~pkg.Index`; {ref}`setup` is not API.\n\n"
        "```{autofunction} pkg.build\n```\n"
    )
    assert extract_refs(text) == ("pkg.load", "pkg.Index", "pkg.build")


def test_refs_inline_literals_keep_names_skip_code_and_prose():
    text = (
        "Use `Environment.get_template()` and ``Template.render`` with `autoescape`. "
        "Not `x + 1`, not `pip install jinja2`, not `'str'`, not `a()b`.\n\n"
        "```python\nval = `inside_code`\n```\n"
        "Again `autoescape`."
    )
    assert extract_refs(text) == ("Environment.get_template", "Template.render", "autoescape")


def test_refs_in_nodes_include_the_heading_and_are_per_section():
    nodes = parse_rst(API_RST, "docs/api.rst")
    assert [n.metadata["refs"] for n in nodes] == [
        ["jinja2"],
        ["jinja2.loaders.FileSystemLoader"],
        [],
        ["jinja2.Environment"],
    ]
    md = parse_markdown("# The `Environment` class\n\nCall `Environment.render()`.\n", "a.md")
    assert md[0].metadata["refs"] == ["Environment", "Environment.render"]


# -- ids, dispatch, LlamaIndex parser ------------------------------------------------


def test_ids_stable_across_parses_and_local_edits():
    first = parse_markdown(GUIDE_MD, "docs/guide.md")
    again = parse_markdown(GUIDE_MD, "docs/guide.md")
    assert [n.node_id for n in first] == [n.node_id for n in again]
    assert len({n.node_id for n in first}) == len(first)
    edited = parse_markdown(GUIDE_MD.replace("More body.", "More body, edited."), "docs/guide.md")
    assert [n.node_id for n in edited][:5] == [n.node_id for n in first][:5]
    other_path = parse_markdown(GUIDE_MD, "docs/other.md")
    assert first[1].node_id != other_path[1].node_id


@pytest.mark.parametrize(
    ("path", "heading"),
    [
        ("docs/a.md", "Hash"),
        ("docs/a.markdown", "Hash"),
        ("docs/a.rst", "Underlined"),
        ("docs/A.TXT", "Underlined"),
    ],
)
def test_parse_doc_dispatches_on_suffix(path, heading):
    text = "Underlined\n----------\n\nbody\n\n# Hash\n\nmore\n"
    assert parse_doc(text, path)[-1].metadata["heading"] == heading


def test_parse_doc_rejects_unknown_suffix():
    with pytest.raises(ValueError, match=r"docs/a\.adoc.*\.md"):
        parse_doc("= Title", "docs/a.adoc")


def test_doc_section_node_parser_in_llamaindex(tmp_path):
    parser = DocSectionNodeParser(max_chars=500)
    assert isinstance(parser, NodeParser)
    assert DocSectionNodeParser.class_name() == "CodeciteDocSectionNodeParser"
    docs = [
        Document(text=GUIDE_MD, metadata={"source_path": "docs/guide.md"}),
        Document(text=API_RST, metadata={"source_path": "docs/api.rst"}),
    ]
    nodes = parser.get_nodes_from_documents(docs)
    assert len(nodes) == 10
    assert {n.metadata["source_path"] for n in nodes} == {"docs/guide.md", "docs/api.rst"}
    assert all(len(n.text) <= 500 for n in nodes)
    direct = parse_doc(API_RST, "docs/api.rst")
    assert [n.node_id for n in nodes[6:]] == [n.node_id for n in direct]


def test_an_autosummary_table_refers_to_the_names_it_lists() -> None:
    """nilearn's and imbalanced-learn's API pages are autosummary tables: their names
    are the page's references (reST and MyST forms; options and prose are not names)."""
    rst = (
        "Classes\n-------\n\n.. autosummary::\n   :toctree: generated/\n   :template: class.rst\n\n"
        "   NiftiMasker\n   ~nilearn.maskers.MultiNiftiMasker\n\n"
        "After the table, ``fit`` is mentioned.\n"
    )
    assert extract_refs(rst) == ("NiftiMasker", "nilearn.maskers.MultiNiftiMasker", "fit")
    myst = "```{autosummary}\n:toctree: generated\npkg.a.load\npkg.b.Box\n```\n\nDone.\n"
    assert extract_refs(myst) == ("pkg.a.load", "pkg.b.Box")


def test_defined_names_are_qualified_by_the_current_module_and_their_class():
    from codecite.node_parsers.refs import defined_names

    text = "\n".join(
        [
            ".. currentmodule:: pywt",  # 1
            "",
            ".. class:: Wavelet(name)",  # 3
            "",
            "   .. attribute:: dec_lo",  # 5
            "   .. method:: wavefun(level=8)",  # 6
            "",
            ".. autosummary::",  # 8
            "",
            "   wavedec",  # 10
            "   pywt.waverec",  # 11
            "",
            ".. module:: pywt.data",  # 13
            ".. function:: ecg()",  # 14
            "",
            "    .. function:: inner()",  # 16: nested in the function above: its member
            "```",
            ".. function:: fenced()",  # 18: inside a Markdown fence: no directive
            "```",
        ]
    )
    assert defined_names(text) == [
        (3, "pywt.Wavelet"),
        (5, "pywt.Wavelet.dec_lo"),
        (6, "pywt.Wavelet.wavefun"),
        (10, "pywt.wavedec"),
        (11, "pywt.waverec"),
        (14, "pywt.data.ecg"),
        (16, "pywt.data.ecg.inner"),
    ]
