"""download_paper through the local server (gateway → research function → Step Functions → pipeline), mcp.Client.

The paper is the PNAS article whose Semantic Scholar, Unpaywall and OpenAlex answers are recorded; its publisher
location serves a real PDF through tests.fakes.web.WebToFake (same process), and the library is
the real one (LibraryTable in the local stack).

A server of its own (isolated/): the test is about the queue, and download_paper answers at once, for any caller, a
paper whose PDF the server already fetched (its pipeline cache); on the package's server test_answer_uris_e2e and
test_resources_e2e download the same paper, so this test passed or failed by the order the modules ran in.
"""

from __future__ import annotations

from typing import Any

import anyio
import pytest
from mcp import Client

from tests.e2e.polling import call_ok, finished
from tests.fixtures_dir import fixtures_dir
from tests.pdf.test_pipeline_machine import PNAS_PDF_PATH

pytestmark = pytest.mark.e2e

DEADLINE_S = 30.0
PNAS_DOI = "10.1073/pnas.1414271111"


def test_download_paper_is_queued_polled_kept_in_the_collection_and_then_answered_at_once(local_server, web) -> None:
    web.add_route("GET", "web", PNAS_PDF_PATH, body=fixtures_dir() / "pdfs/arxiv_2305.03393v1_page9_only.pdf",
                  content_type="application/pdf")

    async def main() -> tuple[Any, dict[str, Any], dict[str, Any], dict[str, Any]]:
        async with Client(local_server.url) as client:
            listed = {t.name: t for t in (await client.list_tools()).tools}["download_paper"]
            queued = await call_ok(client, "download_paper", {"identifier": PNAS_DOI, "collection": "e2e-tissue"})
            done = await finished(client, queued["task_id"], within_s=DEADLINE_S)
            again = await call_ok(client, "download_paper", {"identifier": f"https://doi.org/{PNAS_DOI}"})
            return listed, queued, done, again

    listed, queued, done, again = anyio.run(main)
    assert listed.annotations.read_only_hint is False and listed.output_schema["anyOf"]
    assert queued["queued"] is True and queued["tool"] == "download_paper"
    assert done["status"] == "completed", done
    result = done["result"]
    assert (result["version"], result["pdf_source"], result["collection"]) == ("published", "s2_oa", "e2e-tissue")
    assert result["metadata"]["title"].startswith("Developing functional musculoskeletal tissues")
    assert [v["version"] for v in result["versions"]] == ["published"]
    assert (again["cached"], again["newly_kept"], again["item_id"]) == (True, False, result["item_id"])
