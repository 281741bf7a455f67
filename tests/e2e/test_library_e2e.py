"""The library end to end: the local server (template.yaml in moto), the SDK client, two callers by x-api-key.

Semantic Scholar answers come from the recorded responses the fake upstream serves (PROVENANCE-papers.md).
"""

from __future__ import annotations

import os
from typing import Any

import anyio
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from scholar.core.errors import NOT_FOUND
from tests.fixtures.servers import backend_of_server

pytestmark = pytest.mark.e2e

PNAS_DOI = "10.1073/pnas.1414271111"
PNAS_S2_ID = "db3720c812a462ef955d5654b65ca9189d4b8372"
ALICE, BOB = "library-alice-key", "library-bob-key"


async def _calls(url: str, key: str, calls: list[tuple[str, dict[str, Any]]]) -> list[Any]:
    async with (httpx2.AsyncClient(headers={"x-api-key": key}, trust_env=False, timeout=30) as http,
                Client(streamable_http_client(url, http_client=http)) as client):
        return [await client.call_tool(tool, args) for tool, args in calls]


def as_caller(server: Any, key: str, *calls: tuple[str, dict[str, Any]]) -> list[Any]:
    """Each call's result, made by the caller the x-api-key names, through one SDK client session."""
    return anyio.run(_calls, server.url, key, list(calls))


def ok(result: Any) -> dict[str, Any]:
    assert not result.is_error, result.structured_content
    return result.structured_content


def test_the_stack_has_a_library_table_and_the_functions_are_told_its_name(local_server):
    if backend_of_server(local_server) == "local":
        pytest.skip("a fact of template.yaml: the local backend keeps the library in its SQLite file")
    assert os.environ["SCHOLAR_LIBRARY_TABLE"] == local_server.stack.outputs["LibraryTableName"]


def test_the_library_tools_are_listed_to_an_sdk_client(local_server):
    async def main() -> set[str]:
        async with Client(local_server.url) as client:
            return {t.name for t in (await client.list_tools()).tools}

    assert {"library_add", "library_get", "library_list", "library_update", "library_remove",
            "library_collections"} <= anyio.run(main)


def test_two_callers_each_keep_their_own_library(local_server, fake):
    added, listed = as_caller(
        local_server, ALICE,
        ("library_add", {"identifier": PNAS_DOI, "collection": "tissue", "tags": ["hypoxia"]}),
        ("library_list", {"collection": "tissue"}),
    )
    item = ok(added)["item"]
    assert ok(added)["created"] is True and len(item["paper"]["authors"]) == 5
    assert [e["item_id"] for e in ok(listed)["items"]] == [item["item_id"]]

    bob_get, bob_list, bob_update, bob_remove = as_caller(
        local_server, BOB,
        ("library_get", {"ids": [item["item_id"], PNAS_DOI]}),
        ("library_list", {}),
        ("library_update", {"id": item["item_id"], "notes": "not yours"}),
        ("library_remove", {"ids": [item["item_id"]]}),
    )
    assert [e["status"] for e in ok(bob_get)["items"]] == ["not_found", "not_found"]
    assert ok(bob_list)["items"] == [] and ok(bob_list)["library_items"] == 0
    assert bob_update.is_error and bob_update.structured_content["error"]["code"] == NOT_FOUND
    assert ok(bob_remove)["removed"] == 0

    again, got, collections = as_caller(
        local_server, ALICE,
        ("library_add", {"identifier": PNAS_S2_ID}),
        ("library_get", {"ids": [PNAS_S2_ID]}),
        ("library_collections", {}),
    )
    assert ok(again)["created"] is False
    record = ok(got)["items"][0]["item"]
    assert record["item_id"] == item["item_id"] and "notes" not in record
    assert {c["name"]: c["items"] for c in ok(collections)["collections"]} == {"tissue": 1}
