"""read_paper through the local server (gateway → research function → PDF pipeline on Step Functions), with mcp.Client.

A paper not converted yet is queued; get_task_result gives the pages once the pipeline has run, and the same
call afterwards answers at once from the stored artifacts with the same answer. A scan reads through OCR;
password-protected PDFs fail the task with the reason, never with empty pages. PDF hosts that are not our sources
reach the fake upstream through tests.fakes.web.WebToFake (the SSRF guard still vets them).
"""

from __future__ import annotations

import base64
import io
from typing import Any

import anyio
import pytest
from mcp import Client
from PIL import Image

from tests.e2e.polling import poll_task
from tests.fakes.upstream import FakeUpstream
from tests.fixtures_dir import fixtures_dir
from tests.people.installs import debian_binary
from tests.store.content import put_pdf

pytestmark = pytest.mark.e2e

DEADLINE_S = 60.0
# Presigned download URLs are signed anew on every answer; everything else must be the same.
FRESH_FIELDS = {"cached", "pdf_url", "pdf_url_expires_s"}


def _without_nulls(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_without_nulls(v) for v in value]
    return value


async def _call(client: Client, arguments: dict[str, Any]) -> Any:
    result = await client.call_tool("read_paper", arguments)
    assert not result.is_error, result.structured_content
    return result


def test_read_paper_is_queued_then_polled_then_the_same_answer_comes_from_storage(local_server: Any,
                                                                                   web: FakeUpstream) -> None:
    web.add_route("GET", "s2", "/graph/v1/paper/ARXIV:2312.07559",
                  body=fixtures_dir() / "upstream/semantic_scholar/paper_by_arxiv_doi.json")
    web.add_route("GET", "arxiv", "/pdf/2312.07559",
                  body=fixtures_dir() / "pdfs/arxiv_2304.02623v1_beyond_summarization.pdf")
    arguments = {"identifier": "arXiv:2312.07559", "pages": "2-3"}

    async def main() -> tuple[Any, Any, Any, Any]:
        async with Client(local_server.url) as client:
            queued = (await _call(client, arguments)).structured_content
            polled = await poll_task(client, queued["task_id"], within_s=DEADLINE_S)
            again = (await _call(client, arguments)).structured_content
            figure = await _call(client, {"identifier": "https://arxiv.org/abs/2312.07559", "figure": "Figure 1"})
            return queued, polled.structured_content, again, figure

    queued, polled, again, figure = anyio.run(main)
    assert queued["queued"] is True and queued["tool"] == "read_paper"
    assert polled["status"] == "completed", polled
    done = polled["result"]
    assert done["markdown"].startswith("<!-- page 2 -->") and "<!-- page 3 -->" in done["markdown"]
    assert "<!-- page 1 -->" not in done["markdown"] and "<!-- page 4 -->" not in done["markdown"]
    assert (done["pages_returned"], done["page_count"]) == ("2-3", 4)
    assert done["metadata"]["title"].startswith("PaperQA")
    assert again["cached"] is True
    # The same answer; the finished task keeps its optional fields as null where a direct answer omits them
    assert {k: v for k, v in again.items() if k not in FRESH_FIELDS} == _without_nulls(
        {k: v for k, v in done.items() if k not in FRESH_FIELDS}
    )
    assert web.count("arxiv", "/pdf/2312.07559") == 1  # the second call and the figure reuse the stored PDF
    # The figure: caption and facts as structuredContent, the picture as an MCP image block
    info = figure.structured_content["figure"]
    assert info["label"] == "Figure 1" and info["caption"].startswith("Figure 1: Dissecting an expository")
    images = [block for block in figure.content if block.type == "image"]
    assert len(images) == 1 and images[0].mime_type == "image/png"
    picture = Image.open(io.BytesIO(base64.b64decode(images[0].data)))
    assert picture.size == (info["width_px"], info["height_px"])


def test_a_scanned_paper_reads_as_text_through_ocr_and_says_which_pages_were_read_so(local_server: Any,
                                                                                       web: FakeUpstream) -> None:
    if debian_binary("tesseract", "tesseract-ocr") is None:
        pytest.skip("tesseract is not installed and `apt-get install -y tesseract-ocr` failed here")
    web.add_route("GET", "web", "/files.example.org/scan.pdf",
                  body=fixtures_dir() / "pdfs" / "scanned_image_only_two_column_page.pdf")

    async def main() -> Any:
        async with Client(local_server.url) as client:
            queued = (await _call(client, {"identifier": "https://files.example.org/scan.pdf"})).structured_content
            return (await poll_task(client, queued["task_id"], within_s=DEADLINE_S)).structured_content

    polled = anyio.run(main)
    assert polled["status"] == "completed", polled
    assert polled["result"]["ocr_pages"] == "1" and polled["result"]["pages_returned"] == "1"
    assert "The LinnSequencer is a state-of-the-art composition" in " ".join(polled["result"]["markdown"].split())


def test_a_pdf_without_readable_text_fails_the_read_with_the_reason(local_server: Any, web: FakeUpstream) -> None:
    name, cause = "encrypted_user_password_2206.01062_page3.pdf", "encrypted"
    web.add_route("GET", "web", f"/files.example.org/{cause}.pdf", body=fixtures_dir() / "pdfs" / name)

    async def main() -> Any:
        async with Client(local_server.url) as client:
            queued = (await _call(client, {"identifier": f"https://files.example.org/{cause}.pdf"})).structured_content
            return (await poll_task(client, queued["task_id"], within_s=DEADLINE_S)).structured_content

    polled = anyio.run(main)
    assert polled["status"] == "failed" and polled.get("result") is None
    assert polled["error"]["reason"] == "pdf_extraction_failed"
    assert polled["error"]["details"]["cause"] == cause


def _upload(name: str) -> str:
    return put_pdf((fixtures_dir() / "pdfs" / name).read_bytes())


def test_a_queued_figure_read_finishes_with_the_picture_and_a_missing_section_fails_not_found(
    local_server: Any,
) -> None:
    ref = _upload("arxiv_2501.10120v1_pasa.pdf")

    async def main() -> tuple[Any, Any]:
        async with Client(local_server.url) as client:
            figure = (await _call(client, {"identifier": ref, "figure": "Figure 3"})).structured_content
            section = (await _call(client, {"identifier": ref, "section": "Quantum gravity"})).structured_content
            return (await poll_task(client, figure["task_id"], within_s=DEADLINE_S)), \
                (await poll_task(client, section["task_id"], within_s=DEADLINE_S)).structured_content

    polled, section = anyio.run(main)
    figure = polled.structured_content
    assert figure["status"] == "completed", figure
    info = figure["result"]["figure"]
    assert (info["label"], info["page"], info["region"]) == ("Figure 3", 9, "figure")
    # The polled answer carries the picture as the same image block a direct call gets, not as JSON
    assert "extra_content" not in figure["result"]
    (image,) = [block for block in polled.content if block.type == "image"]
    assert image.mime_type == "image/png"
    assert Image.open(io.BytesIO(base64.b64decode(image.data))).size == (info["width_px"], info["height_px"])
    # The conversion is shared: the section task found the Markdown stored, and no such heading is in it
    assert section["status"] == "failed"
    assert (section["error"]["code"], section["error"]["reason"]) == ("not_found", "section_not_found")
