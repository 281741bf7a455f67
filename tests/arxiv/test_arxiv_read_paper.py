"""arxiv_read_paper: HTML render → ar5iv → PDF text, paging, reasons, and the body kept in S3."""

from __future__ import annotations

import pytest

from scholar.core.errors import INVALID_ARGUMENT, NOT_FOUND, UNAVAILABLE, UPSTREAM_ERROR, ScholarError
from scholar.families import get_tool, result_size_hint
from scholar.families.arxiv import reasons
from scholar.families.arxiv.spec import MAX_CHARACTERS, ReadPaperInput
from scholar.gateway.mcp.dispatch import success_result
from scholar.runtime.results import dump_result
from scholar.services.pdftext import convert as converter
from tests.arxiv.helpers import HTML_ID, call, feed, html_render, pdf, synthetic_feed

API = "/arxiv_api/api/query"
TITLE = "Tell me about yourself: LLMs are aware of their learned behaviors"
PDF_ID = "2304.02623v1"


def _read(paper_id: str, **kwargs) -> object:
    return call("arxiv_read_paper", ReadPaperInput(paper_id=paper_id, **kwargs))


def _failure(paper_id: str) -> ScholarError:
    with pytest.raises(ScholarError) as caught:
        _read(paper_id)
    return caught.value


@pytest.fixture
def html_paper(upstream):
    upstream.get(API).respond(200, content=synthetic_feed(HTML_ID, TITLE))
    render = upstream.get(f"/arxiv/html/{HTML_ID}")
    return render.respond(200, content=html_render(), headers={"content-type": "text/html"})


@pytest.fixture
def pdf_only_paper(upstream):
    """Neither arxiv.org/html nor ar5iv has a render; arXiv serves the real PDF of 2304.02623v1."""
    upstream.get(API).respond(200, content=synthetic_feed(PDF_ID, "Beyond Summarization"))
    upstream.get(f"/arxiv/html/{PDF_ID}").respond(404, text="No HTML for '2304.02623v1'")
    upstream.get("/ar5iv/html/2304.02623").respond(404)
    return upstream.get(f"/arxiv/pdf/{PDF_ID}")


def test_the_html_render_answers_first_as_cleaned_markdown(html_paper):
    result = _read("2501.11120")
    assert (result.paper_id, result.title, result.source) == (HTML_ID, TITLE, "arxiv_html")
    assert result.version_read == HTML_ID
    assert result.content.startswith(f"# {TITLE}\n\n## Abstract\n")
    assert result.total_characters == len(html_render().decode())
    assert result.body_characters < result.total_characters / 3
    assert result.pdf_url == f"https://arxiv.org/pdf/{HTML_ID}"
    assert result.abstract_url == f"https://arxiv.org/abs/{HTML_ID}"


def test_a_long_body_is_sliced_and_the_slices_join_up(html_paper):
    first = _read(HTML_ID, max_characters=75_000)
    assert first.truncated is True and len(first.content) == 75_000
    assert first.next_start == 75_000 and "start=75000" in first.notice
    slices = [first]
    while slices[-1].next_start is not None:
        slices.append(_read(HTML_ID, start=slices[-1].next_start, max_characters=75_000))
    last = slices[-1]
    assert last.truncated is False and last.notice is None
    assert sum(len(s.content) for s in slices) == first.body_characters


def test_the_longest_slice_as_sent_stays_under_the_tools_advertised_result_size(html_paper):
    # The most a slice holds, of a real math-heavy render: escaped as JSON text (what the client measures).
    result = _read(HTML_ID, max_characters=MAX_CHARACTERS)

    sent = success_result(dump_result(result)).content[0].text
    assert len(result.content) == MAX_CHARACTERS
    assert len(sent) <= result_size_hint(get_tool("arxiv_read_paper"))


def test_a_start_past_the_end_returns_empty_content_with_a_notice(html_paper):
    result = _read(HTML_ID, start=10_000_000)
    assert (result.content, result.truncated) == ("", False)
    assert "past the end" in result.notice


def test_ar5iv_answers_when_arxiv_has_no_html_render(upstream):
    upstream.get(API).respond(200, content=synthetic_feed(HTML_ID, TITLE))
    upstream.get(f"/arxiv/html/{HTML_ID}").respond(404)
    upstream.get("/ar5iv/html/2501.11120").respond(200, content=html_render())
    assert _read(HTML_ID).source == "ar5iv"


def test_ar5iv_text_says_it_is_the_latest_version_and_is_never_stored_under_the_asked_version(upstream, aws):
    # ar5iv is asked by base id and renders its latest version, which need not be the v1 asked for.
    upstream.get(API).respond(200, content=synthetic_feed(HTML_ID, TITLE))
    upstream.get(f"/arxiv/html/{HTML_ID}").respond(404)
    ar5iv = upstream.get("/ar5iv/html/2501.11120").respond(200, content=html_render())
    first = _read(HTML_ID)
    assert (first.paper_id, first.source, first.version_read) == (HTML_ID, "ar5iv", "latest")
    assert aws.s3.list_objects_v2(Bucket=aws.bucket, Prefix="arxiv/body/").get("KeyCount") == 0
    _read(HTML_ID)
    assert ar5iv.call_count == 2


def test_a_page_without_a_latexml_render_counts_as_no_render(upstream):
    upstream.get(API).respond(200, content=synthetic_feed(HTML_ID, TITLE))
    upstream.get(f"/arxiv/html/{HTML_ID}").respond(200, text="<html><body>Conversion to HTML had a fatal error")
    upstream.get("/ar5iv/html/2501.11120").respond(200, content=html_render())
    assert _read(HTML_ID).source == "ar5iv"


def test_the_pdf_text_layer_answers_when_no_html_render_exists(pdf_only_paper):
    pdf_only_paper.respond(200, content=pdf("arxiv_2304.02623v1_beyond_summarization.pdf"))
    result = _read(PDF_ID, max_characters=None)
    assert result.source == "pdf_text"
    assert result.content.startswith("<!-- page 1 -->\n\n# Beyond Summarization: Designing AI Support for Real-World")
    assert result.total_characters == result.body_characters == len(result.content)
    assert "\r" not in result.content


def test_arxivs_margin_stamp_is_stripped_from_pdf_text(upstream):
    upstream.get(API).respond(200, content=synthetic_feed("2202.00535v1", "Novelty Controlled Paraphrase Generation"))
    upstream.get("/arxiv/html/2202.00535v1").respond(404)
    upstream.get("/ar5iv/html/2202.00535").respond(404)
    upstream.get("/arxiv/pdf/2202.00535v1").respond(
        200, content=pdf("arxiv_2202.00535v1_novelty_controlled_paraphrase.pdf")
    )
    result = _read("2202.00535v1", max_characters=None)
    assert "# Novelty Controlled Paraphrase Generation" in result.content
    assert "arXiv:2202.00535v1 [cs.CL]" not in result.content
    assert "\n\n\n" not in result.content


def test_a_truncated_pdf_is_a_retryable_upstream_error_and_nothing_is_stored(pdf_only_paper, aws):
    whole = pdf("arxiv_2304.02623v1_beyond_summarization.pdf")
    pdf_only_paper.respond(200, content=whole[: len(whole) // 2])
    err = _failure(PDF_ID)
    assert (err.code, err.retryable) == (UPSTREAM_ERROR, True)
    assert aws.s3.list_objects_v2(Bucket=aws.bucket, Prefix="arxiv/body/").get("KeyCount") == 0


def test_an_image_only_pdf_is_pdf_extraction_failed_where_no_ocr_engine_is_installed(pdf_only_paper, monkeypatch):
    monkeypatch.setattr(converter, "ocr_engine", lambda: None)  # a Lambda's layer has no Tesseract
    pdf_only_paper.respond(200, content=pdf("scanned_image_only_two_column_page.pdf"))
    err = _failure(PDF_ID)
    assert (err.code, err.reason, err.retryable) == (UNAVAILABLE, reasons.PDF_EXTRACTION_FAILED, False)


def test_an_encrypted_pdf_is_pdf_extraction_failed(pdf_only_paper):
    pdf_only_paper.respond(200, content=pdf("encrypted_user_password_2206.01062_page3.pdf"))
    assert _failure(PDF_ID).reason == reasons.PDF_EXTRACTION_FAILED


def test_no_render_and_no_pdf_is_content_unavailable(pdf_only_paper):
    pdf_only_paper.respond(404)
    err = _failure(PDF_ID)
    assert (err.code, err.reason) == (NOT_FOUND, reasons.CONTENT_UNAVAILABLE)


def test_an_unknown_paper_is_no_match_without_fetching_a_body(upstream):
    upstream.get(API).respond(200, content=feed("id_list_0000.0000_no_results.xml"))
    html = upstream.get("/arxiv/html/0000.0000").respond(404)
    err = _failure("0000.0000")
    assert (err.code, err.reason) == (NOT_FOUND, reasons.NO_MATCH)
    assert html.call_count == 0


def test_a_malformed_id_is_an_invalid_request_naming_the_field(upstream):
    err = _failure("abc")
    assert (err.code, err.reason, err.field) == (INVALID_ARGUMENT, reasons.INVALID_REQUEST, "paper_id")


def test_later_slices_come_from_the_stored_body_without_fetching_again(html_paper, aws):
    first = _read(HTML_ID, max_characters=50_000)
    second = _read(HTML_ID, start=50_000, max_characters=50_000)
    assert html_paper.call_count == 1
    assert second.source == first.source and second.body_characters == first.body_characters
    stored = aws.s3.list_objects_v2(Bucket=aws.bucket, Prefix="arxiv/body/")["Contents"]
    assert [o["Key"] for o in stored] == [f"arxiv/body/md1/{HTML_ID}.json.z"]


def test_a_failing_render_service_falls_back_but_the_body_is_not_stored(upstream, aws, env):
    env(SCHOLAR_RETRY_BUDGET_S="0")
    upstream.get(API).respond(200, content=synthetic_feed(HTML_ID, TITLE))
    upstream.get(f"/arxiv/html/{HTML_ID}").respond(503)
    ar5iv = upstream.get("/ar5iv/html/2501.11120").respond(200, content=html_render())
    assert _read(HTML_ID).source == "ar5iv"
    assert _read(HTML_ID).source == "ar5iv"
    assert ar5iv.call_count == 2
    assert aws.s3.list_objects_v2(Bucket=aws.bucket, Prefix="arxiv/body/").get("KeyCount") == 0


def test_a_failing_render_service_with_no_pdf_is_reported_as_the_failure_not_as_no_content(upstream, env):
    env(SCHOLAR_RETRY_BUDGET_S="0")
    upstream.get(API).respond(200, content=synthetic_feed(PDF_ID, "Beyond Summarization"))
    upstream.get(f"/arxiv/html/{PDF_ID}").respond(503)
    upstream.get("/ar5iv/html/2304.02623").respond(404)
    upstream.get(f"/arxiv/pdf/{PDF_ID}").respond(404)
    err = _failure(PDF_ID)
    assert (err.code, err.status, err.retryable) == (UPSTREAM_ERROR, 503, True)
