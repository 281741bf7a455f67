"""Cleaning a LaTeXML render into Markdown (the recorded arxiv.org/html page of 2501.11120v1)."""

from __future__ import annotations

import pytest

from scholar.families.arxiv.markdown import html_to_markdown
from tests.arxiv.helpers import html_render


@pytest.fixture(scope="module")
def markdown() -> str:
    return html_to_markdown(html_render().decode())


def test_the_title_and_section_headings_are_kept_as_markdown_headings(markdown):
    assert markdown.startswith("# Tell me about yourself: LLMs are aware of their learned behaviors\n")
    assert "\n## Abstract\n" in markdown
    assert "\n## 1 Introduction\n" in markdown
    assert "\n### 3.1 Finetuning on multiple-choice responses (economic decisions)\n" in markdown
    assert "\n#### 3.1.1 Design\n" in markdown


def test_navigation_table_of_contents_and_footer_are_stripped(markdown):
    assert "ltx_" not in markdown
    assert "Generated on" not in markdown and "LaTeXML" not in markdown
    assert markdown.count("Finetuning on multiple-choice responses (economic decisions)") == 1  # no TOC copy
    assert "Refer to caption" not in markdown


def test_math_is_kept_as_latex_from_alttext(markdown):
    assert r"$D=\{d^{n}\}_{n=1}^{N}$" in markdown
    assert r"$z\in Z$" in markdown


def test_literal_dollar_signs_are_escaped_so_they_do_not_read_as_math(markdown):
    assert r"(A) \$50 guaranteed" in markdown


def test_tables_become_markdown_tables(markdown):
    assert "| Economic decisions (Section 3.1) | “A” or “B” |" in markdown
    assert "| --- | --- | --- | --- |" in markdown


def test_code_listings_are_fenced_with_their_spaces(markdown):
    assert "```\ndef message_probability_me(message: str) -> float:\n" in markdown


def test_citations_footnotes_and_references_are_kept_as_text(markdown):
    assert "(Anthropic, 2024; OpenAI, 2024)" in markdown
    assert "(Footnote: We replicate some of our experiments" in markdown
    assert "\n## References\n" in markdown
    assert "- AI@Meta (2024) AI@Meta. Llama 3 model card." in markdown


def test_the_cleaned_body_is_several_times_smaller_than_the_page(markdown):
    assert len(html_render().decode()) / len(markdown) > 3


def test_display_equations_keep_latex_and_their_number():
    # SYNTHETIC: the shape LaTeXML gives a numbered equation (no recorded render holds one).
    page = (
        '<html><body><article class="ltx_document"><div class="ltx_para"><p class="ltx_p">Energy:</p>'
        '<table class="ltx_equation ltx_eqn_table" id="S1.E1"><tbody><tr class="ltx_equation ltx_eqn_row">'
        '<td class="ltx_eqn_cell"><math alttext="E=mc^{2}" display="block"><mi>E</mi></math></td>'
        '<td class="ltx_eqn_cell ltx_eqn_eqno"><span class="ltx_tag ltx_tag_equation">(1)</span></td>'
        "</tr></tbody></table></div></article></body></html>"
    )
    assert html_to_markdown(page) == "Energy:\n\n$$E=mc^{2}$$ (1)\n"


def test_an_empty_page_cleans_to_nothing():
    assert html_to_markdown("") == ""
    assert html_to_markdown("<html><body><nav>menu</nav></body></html>") == ""
