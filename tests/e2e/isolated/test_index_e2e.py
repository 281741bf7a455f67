"""The library's search, export and import end to end through the local server, with two callers.

Items are written with LibraryStore into the stack's own table (as library_add and download_paper's finish
step save them); the rest goes through MCP: tools/call over HTTP, the caller named by its x-api-key header.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

import httpx
import pytest
import rispy

from scholar.core.errors import NOT_FOUND
from scholar.services.fulltext.artifacts import put_markdown
from scholar.store.library.table import LibraryStore
from tests.fixtures.servers import read_link
from tests.library.corpus import items
from tests.library.test_index import BODY_WORD, converted_markdown
from tests.papers.test_generate_citations import parse_bibtex

pytestmark = pytest.mark.e2e
ALICE, BOB = "alice-key", "bob-key"


def principal(key: str) -> str:
    return "key:" + hashlib.sha256(key.encode()).hexdigest()[:24]  # what the local server makes of x-api-key


@pytest.fixture(scope="module")
def server(local_server: Any) -> Any:
    """The module's local server (tests/e2e/isolated), with Alice's library of 40 items, one converted."""
    corpus = items(40)
    put_markdown("md/e2e-converted.md", converted_markdown())
    corpus[4] = corpus[4].model_copy(update={"md_path": "md/e2e-converted.md", "collection": "thesis"})
    LibraryStore(principal(ALICE)).put_many(corpus)
    return local_server


def call(server: Any, tool: str, key: str, **arguments: Any) -> tuple[bool, dict[str, Any]]:
    """(is_error, structuredContent) of one tools/call by the caller holding ``key``."""
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": tool, "arguments": arguments}}
    headers = {"accept": "application/json, text/event-stream", "content-type": "application/json",
               "mcp-protocol-version": "2025-11-25", "x-api-key": key}
    with httpx.Client(trust_env=False, timeout=60) as http:
        response = http.post(server.url, json=body, headers=headers)
    assert response.status_code == 200, response.text
    result = response.json()["result"]
    return bool(result.get("isError")), result["structuredContent"]


def test_a_word_from_a_converted_paper_finds_it_for_its_owner_only(server):
    _, mine = call(server, "library_search", ALICE, query=BODY_WORD)
    _, theirs = call(server, "library_search", BOB, query=BODY_WORD)

    assert [h["matched_fields"] for h in mine["hits"]] == [["body"]]
    assert mine["hits"][0]["collection"] == "thesis"
    assert theirs["total"] == 0


def test_a_collection_exports_as_ris_and_bibtex_that_parse(server):
    _, ris = call(server, "library_export", ALICE, format="ris", collection="thesis")
    _, bib = call(server, "library_export", ALICE, format="bibtex")

    assert len(rispy.loads(ris["content"])) == ris["count"] == 1
    assert len(parse_bibtex(bib["content"]).entries) == bib["count"] == 40


def test_a_snapshot_moves_to_another_caller_by_text_but_not_by_reference(server):
    _, stored = call(server, "library_export", ALICE, format="jsonl")
    assert stored["reference"] and stored["url"]  # 40 rich records: over the inline budget
    refused, answer = call(server, "library_import", BOB, reference=stored["reference"])
    assert (refused, answer["error"]["code"]) == (True, NOT_FOUND)

    text = read_link(stored["url"]).decode()  # the presigned link (S3), or the file (local backend)
    small = "\n".join([json.dumps({**json.loads(text.splitlines()[0]), "count": 10}), *text.splitlines()[1:11]])
    _, imported = call(server, "library_import", BOB, jsonl=small, collection="from-alice")
    _, found = call(server, "library_search", BOB, query=json.loads(text.splitlines()[1])["paper"]["title"])

    assert (imported["added"], imported["collection"]) == (10, "from-alice")
    assert found["hits"][0]["collection"] == "from-alice"
