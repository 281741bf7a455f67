"""read_paper's pure parts: page range lists, page splitting, headings and sections, figure labels.

The Markdown is the built-in converter's own output for the recorded PDFs (../shared/fixtures/pdfs), plus small
strings in the shape the converter writes (a ``<!-- page N -->`` marker before each page, ``#`` headings).
"""

from __future__ import annotations

from functools import cache

import pytest

from scholar.core.errors import INVALID_ARGUMENT, InvalidArgumentError
from scholar.services.fulltext.reading import compress, parse_pages
from scholar.services.pdftext import outline
from scholar.services.pdftext.convert import convert_pdf
from scholar.services.pdftext.labels import Label, parse_label
from tests.fixtures_dir import fixtures_dir


@cache
def beyond_summarization() -> str:
    return convert_pdf(fixtures_dir() / "pdfs" / "arxiv_2304.02623v1_beyond_summarization.pdf").markdown


@pytest.mark.parametrize(("spec", "ranges"), [
    ("1-10", [(1, 10)]),
    ("3,5,7-9", [(3, 3), (5, 5), (7, 9)]),
    ("12-", [(12, None)]),
    (" 2 - 4 ".replace(" - ", "-"), [(2, 4)]),
])
def test_page_range_lists_parse_to_ranges(spec: str, ranges: list[tuple[int, int | None]]) -> None:
    assert parse_pages(spec) == ranges


@pytest.mark.parametrize("spec", ["", "0", "4-2", "-3", "1--2", "x", "1,,2", ",".join(["1"] * 51)])
def test_a_bad_page_range_list_is_an_invalid_argument_naming_pages(spec: str) -> None:
    with pytest.raises(InvalidArgumentError) as caught:
        parse_pages(spec)
    assert caught.value.code == INVALID_ARGUMENT and caught.value.details["field"] == "pages"


def test_page_lists_compress_to_the_shortest_range_list() -> None:
    assert compress([5, 1, 2, 3, 8, 7, 3]) == "1-3,5,7-8"
    assert compress([]) is None


def test_the_converter_markdown_splits_into_its_pages_whole() -> None:
    markdown = beyond_summarization()
    pages = outline.pages(markdown)
    assert [p.number for p in pages] == [1, 2, 3, 4]
    assert "".join(markdown[p.start:p.end] for p in pages) == markdown
    assert all(markdown[p.start:p.end].startswith(f"<!-- page {p.number} -->") for p in pages)


def test_markdown_without_markers_is_one_page() -> None:
    text = "# Title\n\nText\n"
    assert outline.pages(text) == [outline.Page(1, 0, len(text))]


def test_headings_carry_their_level_and_page() -> None:
    found = [(h.level, h.text, h.page) for h in outline.headings(beyond_summarization())]
    assert found[0][0] == 1 and found[0][1].startswith("Beyond Summarization") and found[0][2] == 1
    assert (2, "2 CHARACTERIZING EXPOSITORY WRITING", 2) in found
    assert (2, "REFERENCES", 3) in found


def test_a_section_is_found_by_its_text_without_numbering_or_case_and_ends_at_the_next_peer() -> None:
    markdown = beyond_summarization()
    section = outline.find_section(markdown, "characterizing expository writing")
    assert section is not None and section.heading.text == "2 CHARACTERIZING EXPOSITORY WRITING"
    assert (section.first_page, section.last_page) == (2, 2)
    assert markdown[section.end:].lstrip().startswith("## 3 DESIGNING AI SUPPORTS")
    assert outline.find_section(markdown, "no such heading anywhere") is None


def test_a_section_whose_successor_opens_the_next_page_does_not_claim_that_page() -> None:
    markdown = "<!-- page 1 -->\n\n## 1 Intro\n\nText.\n\n<!-- page 2 -->\n\n## 2 Method\n\nMore.\n"
    section = outline.find_section(markdown, "Intro")
    assert section is not None and (section.first_page, section.last_page) == (1, 1)


@pytest.mark.parametrize(("text", "kind", "label"), [
    ("Figure 3", None, Label("figure", "3")),
    ("Fig. 3", None, Label("figure", "3")),
    ("fig 12b", None, Label("figure", "12B")),
    ("Table 2", None, Label("table", "2")),
    ("table II", None, Label("table", "II")),
    ("4", "table", Label("table", "4")),
    ("Figure S1", None, Label("figure", "S1")),
])
def test_figure_and_table_labels_normalise(text: str, kind: str | None, label: Label) -> None:
    assert parse_label(text, kind) == label  # type: ignore[arg-type]  # the Literal kinds, written as str


@pytest.mark.parametrize("text", ["Picture 3", "Figure", "Figure 3 and 4", "4"])
def test_text_that_names_no_label_is_not_one(text: str) -> None:
    assert parse_label(text) is None
