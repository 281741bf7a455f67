"""The built-in converter on the real fixture PDFs (../shared/fixtures/pdfs) and on synthetic layouts."""

from __future__ import annotations

import re
from pathlib import Path

import pypdfium2 as pdfium
import pytest

from scholar.core.errors import UNAVAILABLE
from scholar.services.pdftext.convert import PDF_EXTRACTION_FAILED, PdfExtractionError, convert_pdf
from scholar.services.pdftext.lines import PageText, TextLine
from scholar.services.pdftext.markdown import render_markdown
from tests.fixtures_dir import fixtures_dir

PAPERS = (
    "arxiv_2202.00535v1_novelty_controlled_paraphrase.pdf",
    "arxiv_2304.02623v1_beyond_summarization.pdf",
    "arxiv_2305.03393v1_page9_only.pdf",
    "arxiv_2501.10120v1_pasa.pdf",
)
_cache: dict[str, str] = {}


def pdf_path(name: str) -> Path:
    return fixtures_dir() / "pdfs" / name


def markdown_of(name: str) -> str:
    if name not in _cache:
        _cache[name] = convert_pdf(pdf_path(name)).markdown
    return _cache[name]


def flat(markdown: str) -> str:
    """Markdown with page markers removed and whitespace collapsed, for sentence checks."""
    return re.sub(r"\s+", " ", re.sub(r"<!-- page \d+ -->", " ", markdown))


@pytest.mark.parametrize("name", PAPERS)
def test_every_page_gets_one_marker_in_order(name: str) -> None:
    doc = convert_pdf(pdf_path(name))
    document = pdfium.PdfDocument(pdf_path(name))
    pages = len(document)
    document.close()
    markers = [int(n) for n in re.findall(r"<!-- page (\d+) -->", doc.markdown)]
    assert doc.page_count == pages
    assert markers == list(range(1, pages + 1))
    assert doc.pages_without_text == []
    assert doc.converter == "builtin"


@pytest.mark.parametrize(
    ("name", "sentences"),
    [
        (
            PAPERS[0],
            [
                "Paraphrase generation is a fundamental and long-standing task in natural language processing.",
                "In this paper, we concentrate on two contributions to the task",
                "we propose Retrieval Augmented Prompt Tuning (RAPT) as a parameter-efficient method to adapt "
                "large pre-trained language models for paraphrase generation",
                "The task of paraphrase generation aims at rephrasing a given text while retaining its meaning.",
            ],
        ),
        (
            PAPERS[1],
            [
                "Large language models have introduced exciting new opportunities and challenges in designing and "
                "developing new AI-assisted writing support tools.",
                "Recent work has shown that leveraging this new technology can transform writing in many scenarios",
            ],
        ),
        (
            PAPERS[2],
            [
                "We have chosen the PubTabNet data set to perform HPO, since it includes a highly diverse set of "
                "tables.",
            ],
        ),
        (
            PAPERS[3],
            [
                "PaSa can autonomously make a series of decisions, including invoking search tools, reading papers, "
                "and selecting relevant references, to ultimately obtain comprehensive and accurate results for "
                "complex scholarly queries.",
                "As illustrated in Figure 1, PaSa consists of two LLM agents: the Crawler and the Selector.",
            ],
        ),
    ],
)
def test_real_sentences_come_out_whole_with_line_break_hyphens_removed(name: str, sentences: list[str]) -> None:
    text = flat(markdown_of(name))
    for sentence in sentences:
        assert sentence in text


@pytest.mark.parametrize(
    ("name", "before", "after"),
    [
        (PAPERS[0], "Paraphrase generation is a fundamental", "The task of paraphrase generation aims"),
        (PAPERS[1], "Large language models have introduced exciting", "The advent of large language models"),
        (PAPERS[3], "We introduce PaSa, an advanced Paper Search", "Academic paper search lies at the core"),
    ],
)
def test_the_abstract_precedes_the_introduction(name: str, before: str, after: str) -> None:
    text = flat(markdown_of(name))
    assert 0 <= text.index(before) < text.index(after)


def test_a_two_column_page_is_read_left_column_then_right_column() -> None:
    # Page 1 of 2202.00535: the left column ends with "...pre-trained models continuously" and the
    # right column starts with "become larger than before."; the right column's text comes after.
    page1 = flat(markdown_of(PAPERS[0]).split("<!-- page 2 -->")[0])
    left = page1.index("These approaches are particularly important today as pre-trained models continuously")
    right = page1.index("become larger than before.")
    right_later = page1.index("Overall, we make the following contributions:")
    assert left < right < right_later


def test_headings_come_from_font_size_weight_and_numbering() -> None:
    pasa = markdown_of(PAPERS[3])
    assert pasa.splitlines()[2] == "# PaSa: An LLM Agent for Comprehensive Academic Paper Search"
    assert "\n## 1 Introduction\n" in pasa
    assert "\n### 3.1 AutoScholarQuery\n" in pasa
    acm = markdown_of(PAPERS[1])
    assert "# Beyond Summarization: Designing AI Support for Real-World Expository Writing Tasks\n" in acm
    assert "\n## 1 INTRODUCTION\n" in acm
    assert "\n## ABSTRACT\n" in acm
    lncs = markdown_of(PAPERS[2])
    assert "\n### 5.1 Hyper Parameter Optimization\n" in lncs


def test_the_title_is_reported_on_the_result() -> None:
    doc = convert_pdf(pdf_path(PAPERS[0]))
    assert doc.title == (
        "Novelty Controlled Paraphrase Generation with Retrieval Augmented Conditional Prompt Tuning"
    )


def test_bytes_and_paths_convert_the_same() -> None:
    path = pdf_path(PAPERS[2])
    assert convert_pdf(path.read_bytes()) == convert_pdf(path)
    assert convert_pdf(str(path)) == convert_pdf(path)


def test_running_heads_and_page_numbers_are_dropped() -> None:
    acm = markdown_of(PAPERS[1])
    # acmart repeats "Shen, et al." / the short title in the header of pages 2-4.
    assert "Shen, et al." not in acm


def test_an_encrypted_pdf_is_a_typed_extraction_error() -> None:
    with pytest.raises(PdfExtractionError) as caught:
        convert_pdf(pdf_path("encrypted_user_password_2206.01062_page3.pdf"))
    err = caught.value
    assert err.code == UNAVAILABLE
    assert err.reason == PDF_EXTRACTION_FAILED
    assert err.retryable is False
    assert err.cause == "encrypted"
    assert err.message.startswith("encrypted")
    assert err.envelope_body()["details"] == {"cause": "encrypted"}


def test_bytes_that_are_not_a_pdf_are_an_invalid_pdf_error() -> None:
    with pytest.raises(PdfExtractionError) as caught:
        convert_pdf(b"<html><body>Access denied</body></html>")
    assert caught.value.cause == "invalid_pdf"
    assert caught.value.reason == PDF_EXTRACTION_FAILED


# --- synthetic layouts (no fixtures needed) -------------------------------------------------------


def line(text: str, x0: float, top: float, width: float, *, size: float = 10.0, **kw: bool) -> TextLine:
    return TextLine(text=text, x0=x0, y0=top - size, x1=x0 + width, y1=top, size=size, **kw)


def two_column_page() -> PageText:
    """Lines written in an interleaved stream order; geometry says left column, then right."""
    left = [f"left sentence number {i} goes on" for i in range(8)]
    right = [f"right sentence number {i} goes on" for i in range(8)]
    lines = []
    for i in range(8):
        lines.append(line(right[i], 320, 700 - 12 * i, 230))
        lines.append(line(left[i], 60, 700 - 12 * i, 230))
    return PageText(number=1, width=612, height=792, lines=lines)


def test_synthetic_two_column_stream_is_reordered_by_geometry() -> None:
    markdown, _ = render_markdown([two_column_page()])
    text = flat(markdown)
    assert text.index("left sentence number 7") < text.index("right sentence number 0")
    assert text.index("left sentence number 0") < text.index("left sentence number 7")


def test_line_break_hyphens_are_joined_but_compound_hyphens_stay() -> None:
    lines = [
        line("Speech recog", 60, 700, 480, hyphenated=True),
        line("nition is a state-of-the-", 60, 688, 480),
        line("art problem with GPT-", 60, 676, 480),
        line("4 and self-", 60, 664, 480),
        line("supervised models today.", 60, 652, 120),
    ]
    markdown, _ = render_markdown([PageText(number=1, width=612, height=792, lines=lines)])
    assert "Speech recognition is a state-of-the-art problem with GPT-4 and self-supervised models today." in markdown


def test_a_numbered_bold_line_becomes_a_heading_and_body_text_does_not() -> None:
    lines = [
        line("2 Related Work", 60, 700, 100, size=12.0, bold=True),
        *[line(f"Body text line {i} of the section continues here", 60, 680 - 12 * i, 480) for i in range(6)],
    ]
    markdown, _ = render_markdown([PageText(number=1, width=612, height=792, lines=lines)])
    assert "\n## 2 Related Work\n" in markdown
    assert "#" not in markdown.split("## 2 Related Work", 1)[1]


def test_rows_of_far_apart_cells_become_a_table() -> None:
    lines = [
        line("Some body text before the table with enough words to be a line.", 60, 720, 480),
        line("Name", 60, 700, 40),
        line("Value", 300, 700, 40),
        line("learning rate", 60, 688, 60),
        line("1e-6", 300, 688, 20),
        line("Table 4: The hyperparameters.", 60, 670, 150),
    ]
    markdown, _ = render_markdown([PageText(number=1, width=612, height=792, lines=lines)])
    assert "| Name | Value |\n| --- | --- |\n| learning rate | 1e-6 |" in markdown
    assert "\n\nTable 4: The hyperparameters.\n" in markdown
