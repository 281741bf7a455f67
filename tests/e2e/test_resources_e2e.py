"""Resources, prompts and completions through the local server with the SDK's client, for two callers, both eras.

Two x-api-key values are two principals (as two API keys are when deployed). Alice's library item is a resource
for her and does not exist for Bob: his read of its URI is answered exactly as a URI that never existed (-32602,
the URI in ``data``), and her collections, tags and item ids complete for her only.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
import httpx2
import pytest
from mcp import Client, types
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

from tests.e2e.polling import call_ok, outcome
from tests.fixtures_dir import fixtures_dir
from tests.pdf.test_pipeline_machine import PNAS_PDF_PATH

pytestmark = pytest.mark.e2e

PNAS_DOI = "10.1073/pnas.1414271111"
ALICE, BOB = "resources-alice-key", "resources-bob-key"


def key(who: str, mode: str) -> str:
    """A caller of its own per protocol era: each era's test starts from an empty library."""
    return f"{who}-{mode}"
ERAS = ["legacy", "2026-07-28"]
NEVER = "scholar://library/lib_00000000000000000000"


def as_caller(server: Any, key: str, mode: str, body: Callable[[Client], Awaitable[Any]]) -> Any:
    """``body(client)`` run with an SDK client of the caller the x-api-key names, in protocol ``mode``."""

    async def main() -> Any:
        async with (httpx2.AsyncClient(headers={"x-api-key": key}, trust_env=False, timeout=30) as http,
                    Client(streamable_http_client(server.url, http_client=http), mode=mode) as client):
            return await body(client)

    return anyio.run(main)


async def refusal(call: Awaitable[Any]) -> MCPError:
    with pytest.raises(MCPError) as caught:
        await call
    return caught.value


def library_uris(listing: types.ListResourcesResult) -> set[str]:
    return {r.uri for r in listing.resources if r.uri.startswith("scholar://library/")}


@pytest.mark.parametrize("mode", ERAS)
def test_a_library_item_is_a_resource_of_its_owner_and_of_nobody_else(local_server, fake, mode):
    async def alice(client: Client) -> tuple[Any, ...]:
        added = await call_ok(client, "library_add", {"identifier": PNAS_DOI, "collection": f"alice-{mode}",
                                                      "tags": ["hypoxia"]})
        uri = f"scholar://library/{added['item']['item_id']}"
        listing = await client.list_resources(cache_mode="bypass")
        read = await client.read_resource(uri)
        return added["item"], uri, listing, read

    item, uri, listing, read = as_caller(local_server, key(ALICE, mode), mode, alice)
    assert uri in library_uris(listing)
    entry = next(r for r in listing.resources if r.uri == uri)
    assert (entry.name, entry.mime_type) == (item["item_id"], "application/json")
    assert entry.title and entry.title.startswith("Developing functional musculoskeletal tissues")
    (content,) = read.contents
    record = json.loads(content.text)
    assert (content.uri, content.mime_type) == (uri, "application/json")
    assert (record["item_id"], record["collection"], record["tags"]) == (item["item_id"], f"alice-{mode}",
                                                                         ["hypoxia"])
    assert "pdf_uri" not in record  # nothing kept yet
    if mode != "legacy":
        assert (read.cache_scope, listing.cache_scope) == ("private", "private") and read.ttl_ms > 0

    async def bob(client: Client) -> tuple[Any, ...]:
        listing = await client.list_resources(cache_mode="bypass")
        theirs = await refusal(client.read_resource(uri))
        never = await refusal(client.read_resource(NEVER))
        return listing, theirs, never

    bob_listing, theirs, never = as_caller(local_server, key(BOB, mode), mode, bob)
    assert uri not in library_uris(bob_listing)
    assert (theirs.code, never.code) == (types.INVALID_PARAMS, types.INVALID_PARAMS)
    assert (theirs.data["uri"], never.data["uri"]) == (uri, NEVER)
    # Indistinguishable: the same words and facts, the URI aside.
    assert theirs.message.replace(uri, "<uri>") == never.message.replace(NEVER, "<uri>")
    assert {**theirs.data, "uri": None} == {**never.data, "uri": None}


@pytest.mark.parametrize("mode", ERAS)
def test_completions_offer_each_caller_only_their_own_collections_tags_and_items(local_server, fake, mode):
    async def alice(client: Client) -> tuple[Any, ...]:
        added = await call_ok(client, "library_add", {"identifier": PNAS_DOI, "collection": f"alice-{mode}",
                                                      "tags": ["hypoxia-e2e"]})
        related = types.PromptReference(name="related_work_section")
        item_template = types.ResourceTemplateReference(uri="scholar://library/{item_id}")
        collections = await client.complete(related, {"name": "collection", "value": "alice"})
        tags = await client.complete(related, {"name": "tag", "value": "hypoxia-e"})
        items = await client.complete(item_template, {"name": "item_id", "value": added["item"]["item_id"][:8]})
        return added["item"]["item_id"], collections, tags, items

    item_id, collections, tags, items = as_caller(local_server, key(ALICE, mode), mode, alice)
    assert f"alice-{mode}" in collections.completion.values
    assert tags.completion.values == ["hypoxia-e2e"]
    assert item_id in items.completion.values

    async def bob(client: Client) -> tuple[Any, ...]:
        related = types.PromptReference(name="related_work_section")
        return (await client.complete(related, {"name": "collection", "value": "alice"}),
                await client.complete(related, {"name": "tag", "value": "hypoxia-e"}),
                await client.complete(types.ResourceTemplateReference(uri="scholar://library/{item_id}"),
                                      {"name": "item_id", "value": item_id}))

    for answer in as_caller(local_server, key(BOB, mode), mode, bob):
        assert (answer.completion.values, answer.completion.total) == ([], 0)


@pytest.mark.parametrize("mode", ERAS)
def test_prompts_list_and_render_with_completions_from_the_catalogue(local_server, mode):
    async def body(client: Client) -> tuple[Any, ...]:
        prompts = await client.list_prompts()
        templates = await client.list_resource_templates()
        rendered = await client.get_prompt("related_work_section", {"collection": "thesis", "format": "ris"})
        formats = await client.complete(types.PromptReference(name="related_work_section"),
                                        {"name": "format", "value": ""})
        missing = await refusal(client.get_prompt("explain_paper", {}))
        unknown = await refusal(client.get_prompt("no_such_prompt", {}))
        wrong = await refusal(client.complete(types.PromptReference(name="explain_paper"),
                                              {"name": "not_an_argument", "value": ""}))
        return prompts, templates, rendered, formats, missing, unknown, wrong

    prompts, templates, rendered, formats, missing, unknown, wrong = as_caller(local_server, ALICE, mode, body)
    names = [p.name for p in prompts.prompts]
    assert names == sorted(names) and {"literature_review", "related_work_section", "compare_papers",
                                       "explain_paper", "standards_for_requirement"} <= set(names)
    assert [t.uri_template for t in templates.resource_templates] == [
        "scholar://library/{item_id}", "scholar://library/{item_id}/markdown", "scholar://library/{item_id}/pdf",
        "scholar://paper/{id}/markdown"]
    text = rendered.messages[0].content.text
    assert 'library_list {"collection": "thesis", "limit": 100}' in text
    assert '"citation_format": "ris"' in text
    assert formats.completion.values == ["bibtex", "csl-json", "ris"]
    assert [e.code for e in (missing, unknown, wrong)] == [types.INVALID_PARAMS] * 3
    assert missing.data == {"argument": "identifier"}


def test_a_kept_paper_is_readable_as_pdf_markdown_and_by_fetch(local_server, web):
    web.add_route("GET", "web", PNAS_PDF_PATH, body=fixtures_dir() / "pdfs/arxiv_2305.03393v1_page9_only.pdf",
                  content_type="application/pdf")

    async def body(client: Client) -> tuple[Any, ...]:
        # Answered at once when another test of this server fetched the PDF first (test_answer_uris_e2e does).
        kept = await outcome(client, await call_ok(client, "download_paper", {"identifier": PNAS_DOI,
                                                                              "collection": "kept"}))
        item = f"scholar://library/{kept['item_id']}"
        record = json.loads((await client.read_resource(item)).contents[0].text)
        pdf = await client.read_resource(record["pdf_uri"])
        markdown = await client.read_resource(record["markdown_uri"])
        paper = await client.read_resource(f"scholar://paper/{PNAS_DOI.replace('/', '%2F')}/markdown")
        fetched = await call_ok(client, "fetch", {"id": PNAS_DOI})
        return kept, pdf, markdown, paper, fetched

    kept, pdf, markdown, paper, fetched = as_caller(local_server, ALICE, "2026-07-28", body)
    assert kept["collection"] == "kept" and kept["metadata"]["title"].startswith("Developing functional"), kept
    (blob,) = pdf.contents
    assert blob.mime_type == "application/pdf" and base64.b64decode(blob.blob).startswith(b"%PDF-")
    assert markdown.contents[0].mime_type == "text/markdown" and "<!-- page 1 -->" in markdown.contents[0].text
    assert paper.contents[0].text == markdown.contents[0].text
    assert fetched["metadata"]["text_source"] == "full_text"
    assert fetched["text"] in markdown.contents[0].text and fetched["url"] == f"https://doi.org/{PNAS_DOI}"
    assert fetched["metadata"]["markdown_uri"].startswith("scholar://paper/")
