"""Every URI of ours that an answer hands out resolves through resources/read, for its caller (issue #31 item 6).

The trial: ``fetch`` of a library item answered ``markdown_uri: scholar://paper/lib_…/markdown``, which
resources/read refused (-32602) for the item's own owner. Here a kept paper is fetched, listed, read and got by
each of its names, and every ``scholar://`` URI anywhere in those answers (structured fields and content blocks,
resource links included) is read back.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from mcp import Client, types

from tests.e2e.polling import call_ok, outcome
from tests.e2e.test_resources_e2e import PNAS_DOI, as_caller
from tests.fixtures_dir import fixtures_dir
from tests.pdf.test_pipeline_machine import PNAS_PDF_PATH

pytestmark = pytest.mark.e2e

OWNER = "answer-uris-owner"
_OURS = re.compile(r"scholar://[^\s\"'<>)\]]+")


def uris_in(result: types.CallToolResult) -> set[str]:
    """Every URI of ours in an answer: its structured content, text blocks and resource links."""
    found = set(_OURS.findall(json.dumps(result.structured_content or {})))
    for block in result.content:
        if isinstance(block, types.TextContent):
            found |= set(_OURS.findall(block.text))
        elif isinstance(block, types.ResourceLink):
            found.add(str(block.uri))
    return found


def test_every_uri_an_answer_hands_out_is_readable_by_its_caller(local_server, web):
    web.add_route("GET", "web", PNAS_PDF_PATH, body=fixtures_dir() / "pdfs/arxiv_2305.03393v1_page9_only.pdf",
                  content_type="application/pdf")

    async def body(client: Client) -> tuple[dict[str, set[str]], dict[str, Any]]:
        first = await outcome(client, await call_ok(client, "download_paper",
                                                    {"identifier": PNAS_DOI, "collection": "uris"}))
        item_id = first["item_id"]
        calls = {
            "fetch by DOI": ("fetch", {"id": PNAS_DOI}),
            "fetch by item": ("fetch", {"id": item_id}),
            "library_get": ("library_get", {"ids": [item_id]}),
            "library_list": ("library_list", {"collection": "uris"}),
        }
        handed: dict[str, set[str]] = {}
        for name, (tool, args) in calls.items():
            result = await client.call_tool(tool, args)
            assert not result.is_error, (name, result.structured_content)
            handed[name] = uris_in(result)
        reads: dict[str, Any] = {}
        for uri in set().union(*handed.values()):
            try:
                reads[uri] = (await client.read_resource(uri)).contents[0].mime_type
            except Exception as exc:  # noqa: BLE001  # collected: the assertion names every dead URI at once
                reads[uri] = exc
        return handed, reads

    handed, reads = as_caller(local_server, OWNER, "2026-07-28", body)
    assert handed["fetch by item"], "fetch of a kept item names its Markdown"
    dead = {uri: str(outcome) for uri, outcome in reads.items() if isinstance(outcome, Exception)}
    assert dead == {}, dead
