"""fetch (ChatGPT's connector contract) in-process on moto, and the resource link of a long read_paper answer.

The paper records are Semantic Scholar's recorded answers (PROVENANCE-papers.md): the PNAS article's (which has
no abstract) and one record of a recorded batch answer (which has one). The PNAS paper's stored
conversion is a real recorded PDF with the Markdown the built-in converter makes of it, filed under the paper's
ids as the PDF pipeline files a paper it converted.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
from typing import Any

import pytest
from mcp import types

from scholar.core.catalogue import READ_ONLY_OPEN
from scholar.core.errors import INVALID_ARGUMENT, ScholarError
from scholar.families import get_tool
from scholar.families.research.fetch import handlers
from scholar.gateway.mcp.dispatch import success_result
from scholar.runtime.family import run_tool
from scholar.runtime.invocation import Invocation
from scholar.services.fulltext import artifacts
from scholar.services.fulltext.models import PaperSummary, StoredPdf
from tests.research.test_read_paper_tool import PASA, converted, pdf_bytes

PNAS_DOI = "10.1073/pnas.1414271111"
PNAS_S2_ID = "db3720c812a462ef955d5654b65ca9189d4b8372"
# A paper of the recorded S2 batch answer whose record has an abstract.
DID_DOI = "10.2139/ssrn.288970"
PNAS_TITLE = ("Developing functional musculoskeletal tissues through hypoxia and lysyl oxidase-induced collagen "
              "cross-linking")
JSON = {"Content-Type": "application/json"}
MARKER = re.compile(r"<!-- page (\d+) -->")


@pytest.fixture
def pnas(aws, upstream, fixture_file) -> None:
    record = fixture_file("upstream/semantic_scholar/paper_by_doi_many_fields_pnas.json")
    upstream.get(f"/s2/graph/v1/paper/DOI:{PNAS_DOI}").respond(200, content=record, headers=JSON)
    # A search hit's id is the S2 paper id: S2 answers it with the same paper's record.
    upstream.get(f"/s2/graph/v1/paper/{PNAS_S2_ID}").respond(200, content=record, headers=JSON)
    # get_paper also asks Crossref for extra fields; the recorded 404 stands for "nothing to add".
    upstream.get(f"/crossref/works/{PNAS_DOI}").respond(
        404, content=fixture_file("upstream/crossref/works_by_doi_not_found_404.txt"))


def converted_pnas() -> str:
    """A stored conversion filed under the PNAS paper's DOI and S2 id (the recorded PASA PDF stands for its PDF)."""
    data = pdf_bytes(PASA)
    sha = hashlib.sha256(data).hexdigest()
    artifacts.BlobStore().put(artifacts.pdf_key(sha), data, "application/pdf")
    markdown = converted(PASA)
    artifacts.put_markdown(artifacts.md_key(sha, "builtin"), markdown)
    pdf = StoredPdf(pdf_path=artifacts.pdf_key(sha), sha256=sha, size_bytes=len(data), pdf_source="publisher",
                    source_url=f"https://www.pnas.org/doi/pdf/{PNAS_DOI}")
    artifacts.remember_paper(f"doi:{PNAS_DOI}", PaperSummary(paper_id=PNAS_S2_ID, doi=PNAS_DOI, title=PNAS_TITLE),
                             pdf)
    return markdown


def call(tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return asyncio.run(run_tool("research", Invocation(tool=tool, arguments=arguments, principal="key-1")))


def test_fetch_is_a_read_only_tool_answered_at_once():
    spec = get_tool("fetch")

    assert spec is not None and spec.family == "research" and spec.annotations == READ_ONLY_OPEN
    assert not spec.may_queue and "write" not in spec.tags
    assert list(spec.input_schema()["properties"]) == ["id"]


@pytest.mark.parametrize("identifier", [PNAS_DOI, PNAS_S2_ID, f"https://doi.org/{PNAS_DOI}"])
def test_an_unconverted_paper_without_an_abstract_is_fetched_as_its_record_and_says_so(pnas, identifier):
    answer = call("fetch", {"id": identifier})

    assert (answer["id"], answer["title"], answer["text"]) == (identifier, PNAS_TITLE, PNAS_TITLE)
    assert answer["url"] == f"https://doi.org/{PNAS_DOI}"
    metadata = answer["metadata"]
    assert metadata["text_source"] == "title" and "No abstract" in metadata["note"] and "read_paper" in metadata["note"]
    assert PNAS_S2_ID in metadata["ids"] and PNAS_DOI in metadata["ids"]
    assert metadata["year"] == 2014 and len(metadata["authors"]) == 5
    assert metadata["pdf_url"].startswith("https://www.pnas.org/")


def test_an_unconverted_paper_is_fetched_as_its_title_and_abstract(aws, upstream, fixture_file):
    batch = json.loads(fixture_file("upstream/semantic_scholar/paper_batch_many_fields_with_unknown_id.json"))
    record = next(r for r in batch if r and r["externalIds"].get("DOI") == DID_DOI)
    upstream.get(f"/s2/graph/v1/paper/DOI:{DID_DOI}").respond(200, json=record)
    upstream.get(f"/crossref/works/{DID_DOI}").respond(
        404, content=fixture_file("upstream/crossref/works_by_doi_not_found_404.txt"))

    answer = call("fetch", {"id": DID_DOI})

    assert answer["text"] == f"{record['title']}\n\n{record['abstract']}"
    assert answer["metadata"]["text_source"] == "abstract" and "read_paper" in answer["metadata"]["note"]
    assert answer["url"] == f"https://doi.org/{DID_DOI}"


@pytest.mark.parametrize("identifier", [PNAS_DOI, PNAS_S2_ID])
def test_a_converted_paper_is_fetched_with_its_full_text_by_any_of_its_ids(pnas, identifier):
    markdown = converted_pnas()

    answer = call("fetch", {"id": identifier})

    metadata = answer["metadata"]
    assert metadata["text_source"] == "full_text" and answer["text"] == markdown
    assert (metadata["page_count"], metadata["pages_returned"]) == (15, "1-15")
    assert "next_pages" not in metadata and "note" not in metadata
    assert metadata["markdown_uri"].startswith("scholar://paper/") and answer["title"] == PNAS_TITLE


def test_a_long_paper_is_cut_at_a_page_boundary_and_says_how_to_read_on(pnas, monkeypatch):
    markdown = converted_pnas()
    monkeypatch.setattr(handlers, "FETCH_MAX_CHARS", 9_000)

    answer = call("fetch", {"id": PNAS_DOI})

    pages = [int(n) for n in MARKER.findall(answer["text"])]
    assert pages[0] == 1 and len(answer["text"]) <= 9_000 and markdown.startswith(answer["text"])
    assert answer["metadata"]["next_pages"] == f"{pages[-1] + 1}-15"
    assert "read_paper" in answer["metadata"]["note"]


@pytest.mark.parametrize("identifier", ["978-3-16-148410-0", "not-an-identifier"])
def test_an_id_that_names_no_paper_is_an_invalid_argument_naming_id(aws, identifier):
    with pytest.raises(ScholarError) as caught:
        call("fetch", {"id": identifier})

    assert caught.value.code == INVALID_ARGUMENT and caught.value.field == "id"


def test_a_read_that_leaves_pages_out_links_to_the_whole_markdown_resource(aws):
    converted_pnas()

    part = success_result(call("read_paper", {"identifier": PNAS_DOI, "pages": "1-2"}))
    whole = success_result(call("read_paper", {"identifier": PNAS_DOI, "pages": "1-15", "max_chars": 200_000}))

    links = [block for block in part.content if isinstance(block, types.ResourceLink)]
    assert [link.uri for link in links] == ["scholar://paper/10.1073%2Fpnas.1414271111/markdown"]
    assert links[0].mime_type == "text/markdown" and "extra_content" not in part.structured_content
    assert not any(isinstance(block, types.ResourceLink) for block in whole.content)
