"""The whole research workflow through the local server, as an agent runs it with mcp.Client (issue #12's "done").

Search, keep the paper in a collection (download_paper converts what it keeps), find it again by a word that only
its body holds, read it page by page from the stored Markdown, and export the collection. The paper is the PNAS
article whose Semantic Scholar, Unpaywall and OpenAlex answers are recorded; its publisher location serves a real
recorded PDF through tests.fakes.web.WebToFake (same process, still vetted by the SSRF guard). The
S2 search row is the recorded PNAS record in the recorded search envelope's shape (``synthetic_*``: no recorded
search returns this paper).
"""

from __future__ import annotations

import json
import re
import warnings
from typing import Any

import anyio
import bibtexparser
import pytest
from bibtexparser.bparser import BibTexParser
from mcp import Client

from scholar.core.catalogue import DEFAULT_PROFILE
from scholar.families.profiles import profile_tools
from scholar.services.pdftext.convert import convert_pdf
from tests.e2e.polling import call_ok, outcome
from tests.fakes.upstream import FakeUpstream
from tests.fixtures_dir import fixtures_dir
from tests.pdf.test_pipeline_machine import PNAS_PDF_PATH

pytestmark = pytest.mark.e2e

PNAS_DOI = "10.1073/pnas.1414271111"
PDF = fixtures_dir() / "pdfs/arxiv_2304.02623v1_beyond_summarization.pdf"
COLLECTION = "hypoxia-reading"


def _serve(fake: FakeUpstream) -> dict[str, Any]:
    record = json.loads((fixtures_dir() / "upstream/semantic_scholar/paper_by_doi_many_fields_pnas.json").read_text())
    synthetic_search = {"total": 1, "offset": 0, "data": [record]}
    fake.add_route("GET", "s2", "/graph/v1/paper/search", content_type="application/json",
                   body=json.dumps(synthetic_search).encode())
    # The same recorded record, asked for by the S2 id the search hit carries (recorded under its DOI's path).
    fake.add_route("GET", "s2", f"/graph/v1/paper/{record['paperId']}", content_type="application/json",
                   body=json.dumps(record).encode())
    fake.add_route("GET", "web", PNAS_PDF_PATH, body=PDF, content_type="application/pdf")
    return record


def _body_only_word(record: dict[str, Any]) -> str:
    """A long word of the PDF's later pages that the record's title, abstract and authors never use."""
    known = json.dumps(record).casefold()
    later = convert_pdf(PDF).markdown.split("<!-- page 3 -->", 1)[1]
    words = sorted({w for w in re.findall(r"\b[a-z]{10,}\b", later) if w not in known})
    assert words, "the recorded PDF has long words on its later pages"
    return words[0]


def test_an_agent_searches_keeps_finds_by_a_body_word_reads_page_by_page_and_exports(local_server, web) -> None:
    record = _serve(web)
    word = _body_only_word(record)

    async def main() -> dict[str, Any]:
        # The whole workflow inside the default listing: what every client sees first.
        async with Client(f"{local_server.url}?profile={DEFAULT_PROFILE}") as client:
            listed_tools = {tool.name for tool in (await client.list_tools()).tools}
            assert listed_tools == set(profile_tools(DEFAULT_PROFILE)), listed_tools
            found = await call_ok(client, "search", {"query": "hypoxia lysyl oxidase collagen cross-linking tissues",
                                                 "limit": 5, "expand": False})
            hit = next(h for h in found["results"] if (h["title"] or "").startswith("Developing functional"))
            doi = next(i for i in hit["ids"] if i.startswith("10."))
            kept = await outcome(client, await call_ok(client, "download_paper", {"identifier": hit["id"],
                                                                                  "collection": COLLECTION}),
                                 within_s=60)
            searched = await call_ok(client, "library_search", {"query": word, "collection": COLLECTION})
            first = await outcome(client, await call_ok(client, "read_paper", {"identifier": doi, "pages": "1-3",
                                                                               "max_chars": 5_000}), within_s=60)
            rest = await outcome(client, await call_ok(client, "read_paper",
                                                       {"identifier": doi, "pages": first["next_pages"]}), within_s=60)
            listed = await call_ok(client, "library_list", {"collection": COLLECTION})
            exported = await call_ok(client, "library_export", {"format": "bibtex", "collection": COLLECTION})
            return {"doi": doi, "first": first, "rest": rest, "kept": kept, "listed": listed,
                    "searched": searched, "exported": exported}

    got = anyio.run(main)
    assert got["doi"].casefold() == PNAS_DOI
    # Read page by page: the first slice stops at a page boundary, the second goes on from there.
    first, rest = got["first"], got["rest"]
    assert first["markdown"].startswith("<!-- page 1 -->") and first["next_pages"]
    assert len(first["markdown"]) <= 5_000
    next_page = int(re.match(r"\d+", first["next_pages"]).group())
    assert rest["markdown"].startswith(f"<!-- page {next_page} -->")
    # Both reads come from the Markdown download_paper made: the conversion was made once.
    assert first["cached"] is rest["cached"] is True and rest["md_path"] == first["md_path"] == got["kept"]["md_path"]
    # Kept in the collection, the version of record, one item.
    kept = got["kept"]
    assert (kept["collection"], kept["version"]) == (COLLECTION, "published")
    assert [item["item_id"] for item in got["listed"]["items"]] == [kept["item_id"]]
    # Found again by a word only its body holds.
    hits = got["searched"]["hits"]
    assert [h["item_id"] for h in hits] == [kept["item_id"]], (word, got["searched"])
    assert "body" in hits[0]["matched_fields"]
    # The collection exported as BibTeX that a real parser reads back.
    with warnings.catch_warnings():  # bibtexparser 1.4 calls pyparsing's deprecated names (third-party)
        warnings.simplefilter("ignore", DeprecationWarning)
        entries = bibtexparser.loads(got["exported"]["content"], parser=BibTexParser(common_strings=True)).entries
    assert [e.get("doi", "").casefold() for e in entries] == [PNAS_DOI]
    assert entries[0]["title"].startswith("Developing functional musculoskeletal tissues")
