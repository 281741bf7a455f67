"""A researcher's own PDFs through the local server and the SDK client (issue 38): uploads, paths, isolation.

On both backends a PDF is uploaded the way upload_pdf says (the AWS stand-in: a boto3 presigned POST to its moto
server on 127.0.0.1; the local backend: ``PUT /uploads/<token>`` on ``scholar serve``), then read by its owner; a
second caller (another x-api-key) gets not_found for the same references. On the local backend a PDF is also read
and kept by its path inside ``SCHOLAR_PDF_FOLDERS`` (the shared fixtures' PDF folder, read in place).
"""

from __future__ import annotations

import base64
from typing import Any

import anyio
import httpx
import pytest

from scholar.core.errors import FORBIDDEN, INVALID_ARGUMENT, NOT_FOUND
from scholar.core.resource_uris import LIBRARY_PDF
from tests.e2e.polling import outcome
from tests.e2e.test_library_e2e import as_caller
from tests.fixtures.servers import StackOptions, backend_of_server, local_server_fixture
from tests.fixtures_dir import fixtures_dir

pytestmark = pytest.mark.e2e

PDFS = fixtures_dir() / "pdfs"
ONE_PAGE = "arxiv_2305.03393v1_page9_only.pdf"
ALICE, BOB = "own-pdfs-alice", "own-pdfs-bob"
local_server = local_server_fixture(
    StackOptions(
        contact_email="own-pdfs-e2e@example.org", retry_budget_s="1", extra_env={"SCHOLAR_PDF_FOLDERS": str(PDFS)}
    ),
    scope="module",
    backends=("aws", "local"),
)


@pytest.fixture(autouse=True)
def _fixtures_present() -> None:
    if not (PDFS / ONE_PAGE).is_file():
        pytest.skip(f"the shared fixtures are absent ({PDFS})")


def _read_through(server: Any, key: str, tool: str, args: dict[str, Any]) -> Any:
    """One call, and the task's result when it queued (both through the same caller)."""

    async def main() -> Any:
        from mcp import Client
        from mcp.client.streamable_http import streamable_http_client

        async with (
            httpx.AsyncClient(headers={"x-api-key": key}, trust_env=False, timeout=60) as http,
            Client(streamable_http_client(server.url, http_client=http)) as client,
        ):
            answer = await client.call_tool(tool, args)
            if answer.is_error:
                return answer
            return await outcome(client, answer.structured_content, within_s=60)

    return anyio.run(main)


def _kept_pdf(server: Any, key: str, item_id: str) -> bytes:
    """The library item's PDF as its resource reads (resources/read)."""

    async def main() -> bytes:
        from mcp import Client
        from mcp.client.streamable_http import streamable_http_client

        async with (
            httpx.AsyncClient(headers={"x-api-key": key}, trust_env=False, timeout=60) as http,
            Client(streamable_http_client(server.url, http_client=http)) as client,
        ):
            read = await client.read_resource(LIBRARY_PDF.uri(item_id=item_id))
            return base64.b64decode(read.contents[0].blob)

    return anyio.run(main)


def _send(link: dict[str, Any], data: bytes) -> httpx.Response:
    """Send the file as the link says: a form POST (fields, then the file) or a PUT of the body."""
    with httpx.Client(trust_env=False, timeout=30) as http:
        if link["method"] == "POST":
            return http.post(
                link["upload_url"], data=link["fields"], files={"file": ("paper.pdf", data, "application/pdf")}
            )
        return http.put(link["upload_url"], content=data, headers=link["headers"])


def _code(result: Any) -> str:
    assert result.is_error, result.structured_content
    return result.structured_content["error"]["code"]


def test_an_uploaded_pdf_is_read_by_its_owner_and_by_no_one_else(local_server):
    data = (PDFS / ONE_PAGE).read_bytes()
    (link,) = as_caller(local_server, ALICE, ("upload_pdf", {}))
    link = link.structured_content
    assert link["ref"].startswith("upload/") and link["max_bytes"] > len(data) and "read_paper" in link["then"]
    assert link["method"] == ("PUT" if backend_of_server(local_server) == "local" else "POST")

    sent = _send(link, data)
    assert sent.is_success, sent.text
    assert _send(link, data).status_code >= 400 or link["method"] == "POST"  # a local ticket works once
    read = _read_through(local_server, ALICE, "read_paper", {"identifier": link["ref"], "pages": "1"})
    assert read["pdf_path"].startswith("mine/") and "<!-- page 1 -->" in read["markdown"]
    converted = _read_through(local_server, ALICE, "convert_pdf_to_markdown", {"file_path": read["pdf_path"]})
    assert converted["md_path"].startswith("owned/") and converted["pdf_path"] == read["pdf_path"]

    for ref in (link["ref"], read["pdf_path"]):  # the same references name nothing for another caller
        assert _code(_read_through(local_server, BOB, "read_paper", {"identifier": ref})) == NOT_FOUND
    assert _code(_read_through(local_server, BOB, "library_add", {"identifier": read["pdf_path"]})) == NOT_FOUND


def test_a_pdf_is_read_and_kept_by_its_path_on_the_local_backend_only(local_server, web):
    path = str(PDFS / ONE_PAGE)
    if backend_of_server(local_server) == "aws":  # a deployment reads no server path: refused as any unknown form
        assert _code(_read_through(local_server, ALICE, "read_paper", {"identifier": path})) == INVALID_ARGUMENT
        return
    read = _read_through(local_server, ALICE, "read_paper", {"identifier": path, "pages": "1"})
    assert read["pdf_path"].startswith("mine/") and read["markdown"]
    refused = _read_through(local_server, ALICE, "read_paper", {"identifier": "/etc/hostname"})
    assert _code(refused) == FORBIDDEN and "SCHOLAR_PDF_FOLDERS" in refused.structured_content["error"]["message"]

    untitled = _read_through(
        local_server, ALICE, "library_add", {"identifier": f"file://{PDFS}/arxiv_2304.02623v1_beyond_summarization.pdf"}
    )
    item = untitled["item"]
    assert item["paper"]["title"].startswith("Beyond Summarization") and item["pdfs"][0]["pdf_path"].startswith("mine/")
    by_item = _read_through(local_server, ALICE, "read_paper", {"identifier": item["item_id"], "outline": True})
    assert by_item["pdf_path"] == item["pdfs"][0]["pdf_path"]
    assert _kept_pdf(local_server, ALICE, item["item_id"])[:5] == b"%PDF-"

    web.add_route(
        "GET",
        "s2",
        "/graph/v1/paper/ARXIV:2202.00535",
        body=fixtures_dir() / "upstream/semantic_scholar/paper_by_arxiv_doi.json",
    )
    kept = _read_through(
        local_server,
        ALICE,
        "download_paper",
        {"identifier": str(PDFS / "arxiv_2202.00535v1_novelty_controlled_paraphrase.pdf")},
    )
    assert kept["newly_kept"] is True and kept["pdf_source"] == "local" and kept["metadata"]["paper_id"]
