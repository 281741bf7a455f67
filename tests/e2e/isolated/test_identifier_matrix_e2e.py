"""Every identifier form our tools hand out × every tool that takes an identifier, through the local server (#25).

Rows come from the catalogue: every tool with an identifier argument (``IDENTIFIER_FIELDS``), so a new tool cannot
escape the matrix: this test fails until ``TAKES`` says which forms it takes. A cell holds when

- the tool takes the form's kind: it answers (a result, or a queued task that ends completed or finds no PDF), or
  says the data a source lacks is missing (``unavailable``, ``data_not_in_sources``); never ``not_found`` of the
  paper, never ``invalid_argument``;
- it does not: ``invalid_argument`` whose message names the tool that takes this form (``use <tool>``).

Papers and their recordings: the PNAS paper (S2 record, OpenAlex work W2109415576; S2 answers one record under
each of its ids, so the recorded record is served under the paths of its S2 id, CorpusId, PMID and PMCID, and
OpenAlex's under its W id), a preprint only arXiv holds (2503.05378, in the recorded arXiv feed), the INSPIRE record
1842768, a book by ISBN (the recorded Open Library edition), a patent (recorded OPS answers, fake EPO keys), a
standard's identifier, an item of the caller's library and a stored PDF (a recorded PDF put in the artifact store).
Every task is polled to its end, so the PDF pipeline's resolve step is part of each queued cell.

The standards catalogue is built first, for IETF (the body of the standard's form): a cold catalogue would start a
sync of every body, whose recorded ISO and IEC indexes (13 MB of YAML) take ~20 s of CPU, for a task the matrix need
not wait for; the cold path is tests/standards' (test_handlers) and tests/reliability's.

Two backends: the whole matrix on the local backend (``scholar serve``'s: SQLite, executions on threads), and a
sample on the AWS stand-in (moto + template.yaml: Lambda invokes, Step Functions, S3, DynamoDB), ``AWS_SAMPLE``:
rows that together take every form, each against every form.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import anyio
import pytest
from mcp import Client

from scholar.core.config import get_settings
from scholar.core.id_forms import TAKEN_BY
from scholar.core.ids import PAPER_KINDS, IdKind, parse_paper_id
from scholar.families import all_tools
from scholar.families.standards.jobs import handle_sync_event
from tests.e2e.polling import finished
from tests.fakes.upstream import FakeUpstream
from tests.fixtures.env import Env
from tests.fixtures.servers import StackOptions, fake_upstream_fixture, local_server_fixture
from tests.fixtures_dir import fixtures_dir
from tests.pdf.test_pipeline_machine import PNAS_PDF_PATH
from tests.store.content import put_pdf

pytestmark = pytest.mark.e2e

fake_upstream = fake_upstream_fixture(scope="module")
local_server = local_server_fixture(StackOptions(contact_email="matrix-e2e@example.org", retry_budget_s="0", web=True),
                                    scope="module", backends=("local", "aws"))

PNAS_S2 = "db3720c812a462ef955d5654b65ca9189d4b8372"
PNAS_DOI = "10.1073/pnas.1414271111"
PNAS_TITLE = "Developing functional musculoskeletal tissues"
ARXIV_ONLY = "2503.05378"
ISBN = "9780060273224"
# Every form a tool hands out; the library item and the stored PDF are made by the test first.
FORMS: dict[str, str] = {
    "S2 id": PNAS_S2,
    "CorpusId": "CorpusId:10888161",
    "DOI": PNAS_DOI,
    "DOI URL": f"https://doi.org/{PNAS_DOI}",
    "PMID": "PMID:25349395",
    "PMCID": "PMCID:PMC4234579",
    "arXiv": f"arXiv:{ARXIV_ONLY}",
    "arXiv versioned": f"arXiv:{ARXIV_ONLY}v2",
    "OpenAlex": "W2109415576",
    "OpenAlex URL": "https://openalex.org/W2109415576",
    "INSPIRE": "INSPIRE:1842768",
    "library item": "lib_",
    "stored PDF": "pdfs/",
    "ISBN": f"ISBN:{ISBN}",
    "patent": "EP2400812A1",
    "standard": "RFC 9000",
}
IDENTIFIER_FIELDS = ("identifier", "identifiers", "paper_id", "paper_ids", "seed_ids", "positive_ids", "source_id",
                     "ids", "id", "isbn", "patent_number", "file_path", "raw", "url")
PAPER = set(PAPER_KINDS)
MINE = PAPER | {"library_item"}
# Tool → the kinds it takes (everything else must be refused, naming the tool that takes it).
TAKES: dict[str, set[IdKind]] = {
    "get_paper": MINE, "generate_citations": MINE | {"isbn"}, "batch_resolve": PAPER | {"isbn", "patent"},
    "enrich_paper": PAPER, "get_citations": PAPER, "get_references": PAPER, "get_citation_graph": PAPER,
    "find_bridge_papers": PAPER, "recommend_papers": PAPER, "get_citing_patents": PAPER,
    "get_author": {"standard"},  # an author's name may look like a standard's identifier ("Din Xu"): searched
    "get_book": {"isbn"}, "get_book_excerpt": {"isbn"}, "get_patent": {"patent"}, "fetch_patent_pdf": {"patent"},
    "get_standard": {"standard"}, "resolve_standard_identifier": {"standard"},
    "arxiv_get_papers": {"arxiv"}, "arxiv_read_paper": {"arxiv"},
    "fetch_paper_pdf": MINE, "fetch_and_convert": MINE, "download_paper": MINE, "read_paper": MINE | {"artifact"},
    "convert_pdf_to_markdown": {"artifact"},
    "fetch_pdf_by_url": set(),  # a URL only: the URL forms are taken as the web pages they are
    "library_add": MINE, "library_get": MINE, "library_update": MINE, "library_remove": MINE, "fetch": MINE,
}
URL_TOOLS = {"fetch_pdf_by_url"}  # tools that take any http(s) URL as a URL
# The rows run on the AWS stand-in: every form is taken by one of them (papers and library items: get_paper; a stored
# PDF, and the PDF pipeline's executions: read_paper; ISBN and patent: batch_resolve; standard: get_standard), and
# library_remove writes the library table last.
AWS_SAMPLE = {"get_paper", "read_paper", "batch_resolve", "get_standard", "library_remove"}
EXTRA_ARGS: dict[str, dict[str, Any]] = {
    "enrich_paper": {"fields": ["topics"]}, "find_bridge_papers": {"target_id": "10.1371/journal.pone.0033693"},
    "library_update": {"add_tags": ["matrix"]}, "read_paper": {"pages": "1"},
}
LISTS = {"identifiers", "paper_ids", "seed_ids", "positive_ids", "ids"}
# Answers that are not about the paper being unknown: no PDF anywhere (a patent's: no page images), no content render,
# a source's data missing.
NO_DATA = {"no_oa_pdf", "download_failed", "pdf_not_available", "content_unavailable", "data_not_in_sources"}


def _field(tool: str) -> str:
    props = all_tools()[tool].input_schema().get("properties", {})
    return next(f for f in IDENTIFIER_FIELDS if f in props)


def _args(tool: str, raw: str) -> dict[str, Any]:
    field = _field(tool)
    return {field: [raw] if field in LISTS else raw, **EXTRA_ARGS.get(tool, {})}


def _serve(fake: FakeUpstream) -> None:
    """Explicit routes: recorded bodies under the other paths their services answer them by, and SYNTHETIC pages
    in S2's and OpenAlex's recorded shapes where nothing was recorded for this paper (its citation, reference and
    recommendation lists, empty; OpenAlex's id filter page holding the recorded work)."""
    up = fixtures_dir() / "upstream"
    pnas = up / "semantic_scholar/paper_by_doi_many_fields_pnas.json"
    for form in (PNAS_S2, "CorpusId:10888161", "PMID:25349395", "PMCID:PMC4234579", f"DOI:{PNAS_DOI}"):
        fake.add_route("GET", "s2", f"/graph/v1/paper/{form}", body=pnas, content_type="application/json")
        for relation in ("citations", "references"):
            fake.add_route("GET", "s2", f"/graph/v1/paper/{form}/{relation}", content_type="application/json",
                           body=json.dumps({"offset": 0, "data": []}).encode())
    fake.add_route("GET", "s2", f"/recommendations/v1/papers/forpaper/{PNAS_S2}", content_type="application/json",
                   body=json.dumps({"recommendedPapers": []}).encode())
    work = up / "openalex/work_by_doi_pnas.json"
    fake.add_route("GET", "openalex", "/works/W2109415576", body=work, content_type="application/json")
    page = {"meta": {"count": 1}, "results": [json.loads(work.read_text())]}
    fake.add_route("GET", "openalex", "/works", content_type="application/json", body=json.dumps(page).encode())
    fake.add_route("GET", "arxiv_api", "/api/query", body=up / "arxiv/query_testing_start0_max10.xml",
                   content_type="application/atom+xml")
    fake.add_route("GET", "openlibrary", f"/isbn/{ISBN}.json", body=up / "openlibrary/books_OL22951843M.json")
    fake.add_route("GET", "web", PNAS_PDF_PATH, content_type="application/pdf",
                   body=fixtures_dir() / "pdfs/arxiv_2304.02623v1_beyond_summarization.pdf")


def _stored_pdf() -> str:
    return put_pdf((fixtures_dir() / "pdfs" / "arxiv_2305.03393v1_page9_only.pdf").read_bytes())


def _build_standards_catalogue() -> None:
    """The scheduled sync's work for IETF alone, on the server's stores (this process runs the server)."""
    report = handle_sync_event({"bodies": ["IETF"]})
    assert report["published"], report


@pytest.fixture
def epo(env: Env) -> Iterator[None]:
    env.set(SCHOLAR_EPO_CONSUMER_KEY="matrix-key", SCHOLAR_EPO_CONSUMER_SECRET="matrix-secret")
    yield


def _rows(backend: str = "local") -> list[str]:
    found = [name for name, spec in all_tools().items()
             if set(spec.input_schema().get("properties", {})) & set(IDENTIFIER_FIELDS) and name not in (
                 "get_task_result", "get_job_result") and (backend == "local" or name in AWS_SAMPLE)]
    return sorted(found, key=lambda t: (t == "library_remove", t))  # removal last: the others read the library


def _refused(answer: dict[str, Any]) -> str | None:
    """The refusal's message when ``answer`` refuses the form (the call, or its one item), else None."""
    if "error" in answer:
        err = answer["error"]
        return err["message"] if err["code"] == "invalid_argument" else None
    entries = answer.get("items") or answer.get("results") or answer.get("errors") or []
    entry = entries[0] if entries else {}
    if entry.get("status") == "invalid_id" or entry.get("code") == "invalid_id":
        return entry.get("error") or entry.get("message") or ""
    return None


def _trouble(tool: str, kind: IdKind, answer: dict[str, Any]) -> str | None:
    """Why a taken form's answer breaks the promise (None when it keeps it).

    A paper must never be ``not_found`` (a source holds each of them); a book, patent or standard the recordings
    lack may be (the matrix is about forms; their tools' own suites test their answers), and so may a paper that
    is not in the caller's library, for the library tools.
    """
    if "error" in answer:
        err = answer["error"]
        strict = kind in PAPER_KINDS and not tool.startswith("library_")
        if err["code"] == "invalid_argument" or (strict and err["code"] == "not_found"
                                                 and err.get("reason") not in NO_DATA):
            return f"{err['code']}: {err['message']}"
        return None
    entries = answer.get("items") or answer.get("results") or []
    entry = entries[0] if entries else {}
    if entry.get("status") in ("invalid_id",) or (entry.get("status") == "not_found" and tool == "batch_resolve"):
        return f"item {entry.get('status')}: {entry.get('error') or entry.get('message')}"
    if tool == "generate_citations" and answer.get("count") != 1:
        return f"no citation: {answer.get('errors')}"
    return None


def test_every_tool_takes_every_form_it_can_and_refuses_the_others_naming_the_tool_for_them(
    local_server: Any, fake_upstream: FakeUpstream, epo: None
) -> None:
    assert set(_rows()) == set(TAKES), "a tool takes identifiers: say in TAKES which forms"
    backend = get_settings().backend
    _serve(fake_upstream)
    _build_standards_catalogue()
    forms = {**FORMS, "stored PDF": _stored_pdf()}
    tools = set(all_tools())

    async def main() -> tuple[dict[tuple[str, str], Any], dict[tuple[str, str], Any]]:
        answers: dict[tuple[str, str], Any] = {}
        tasks: dict[tuple[str, str], Any] = {}
        async with Client(local_server.url) as client:
            kept = await client.call_tool("library_add", {"identifier": PNAS_DOI})
            assert not kept.is_error, kept.structured_content
            forms["library item"] = kept.structured_content["item"]["item_id"]
            for tool in _rows(backend):
                for name, raw in forms.items():
                    result = await client.call_tool(tool, _args(tool, raw))
                    answers[(tool, name)] = result.structured_content
            for cell, answer in answers.items():
                if answer.get("queued"):
                    tasks[cell] = await finished(client, answer["task_id"], within_s=120)
        return answers, tasks

    answers, tasks = anyio.run(main)
    taken = {kind for row in _rows(backend) for kind in TAKES[row]}
    assert {parse_paper_id(raw).kind for raw in forms.values()} <= taken, "a form no row of this backend takes"
    broken: list[str] = []
    for (tool, name), answer in answers.items():
        raw = forms[name]
        kind = parse_paper_id(raw).kind
        takes = kind in TAKES[tool] or (tool in URL_TOOLS and raw.startswith("https://"))
        refusal = _refused(answer)
        if takes:
            trouble = _trouble(tool, kind, answer)
            task = tasks.get((tool, name))
            if task is not None and task["status"] != "completed":
                error = task.get("error") or {}
                answered = NO_DATA | ({"http_error"} if tool in URL_TOOLS else set())  # the URL's own answer
                if error.get("code") in ("not_found", "invalid_argument") and error.get("reason") not in answered:
                    trouble = f"task {task['status']}: {error.get('code')} {error.get('message')}"
            if trouble:
                broken.append(f"{tool} × {name} ({raw}): {trouble}")
        else:
            named = re.search(r"\buse (\w+)", refusal or "")
            if refusal is None or not named or named.group(1) not in tools:
                broken.append(f"{tool} × {name} ({raw}): not refused naming a tool: {json.dumps(answer)[:300]}")
    assert not broken, "\n".join(broken)
    # The answers are about the paper asked for, by whichever form.
    for name in ("S2 id", "CorpusId", "DOI", "PMID", "PMCID", "OpenAlex", "OpenAlex URL", "library item"):
        assert answers[("get_paper", name)]["title"].startswith(PNAS_TITLE), name
    assert answers[("get_paper", "arXiv versioned")]["externalIds"] == {"ArXiv": ARXIV_ONLY}
    if backend == "local":  # rows the AWS sample leaves out
        assert "primaryClass = {cs.SE}" in answers[("generate_citations", "arXiv")]["content"]
        assert answers[("get_references", "arXiv")]["error"]["reason"] == "data_not_in_sources"
    assert {k for k, v in TAKEN_BY.items() if v not in tools} == set()
