"""The fault matrix: every upstream source × seven faults, end to end through the local stack (issue #16).

Each cell starts cold (nothing cached), makes the source fail in one way on every request, and calls a tool
that uses it through the local HTTP server. An honest answer is a typed error with the right ``retryable``,
a queued task, or, where the source only enriches the answer, a partial result naming it; never an empty
success, never ``not_found`` for a failure, never ``internal``, never an HTTP 5xx. Then the fault clears and
the same call, *without* emptying the cache, must return the real answer: nothing bad was kept.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

from scholar.core.errors import RATE_LIMITED, TIMEOUT, UNAVAILABLE, UPSTREAM_ERROR
from scholar.families.standards import service
from scholar.families.standards.catalogue_db import Catalogue, build_catalogue
from scholar.families.standards.linking import link
from scholar.web import fetch
from tests.e2e.test_arxiv_e2e import _synthetic_feed as synthetic_feed
from tests.e2e.test_research_e2e import serve_missing_recordings
from tests.fakes.upstream import FakeUpstream
from tests.fakes.web import web_access
from tests.fixtures.env import Env
from tests.fixtures_dir import fixtures_dir
from tests.reliability.harness import Answer, call, forget_cached_answers, wait_for_task
from tests.reliability.served.conftest import HTTP_TIMEOUT_S
from tests.standards.records_from_fixtures import all_records
from tests.standards.test_fulltext import ETSI_PDF, NIST_PDF, SYNTHETIC_W3C_SPEC, W3C_PAGE, FixedHolder

pytestmark = pytest.mark.e2e

HTML_PAGE = b"<!DOCTYPE html><html><body><h1>We'll be back shortly</h1><p>Maintenance.</p></body></html>"
TRUNCATED_JSON = b'{"data": [{"paperId": "649def34f8be52c8b66281af98ae884c09aef38b", "title": "Construction of'
TRUNCATED_ATOM = (b'<?xml version="1.0" encoding="UTF-8"?>\n<feed xmlns="http://www.w3.org/2005/Atom">'
                  b"<entry><id>http://arxiv.org/abs/1605.08386v1</id><title>Heat-bath random walks")
TRUNCATED_OPS = (b'<?xml version="1.0" encoding="UTF-8"?>\n<ops:world-patent-data xmlns="http://www.epo.org/exchange" '
                 b'xmlns:ops="http://ops.epo.org"><ops:biblio-search total-result-count="10000"')
ARXIV_PDF = "pdfs/arxiv_2304.02623v1_beyond_summarization.pdf"
TEMPORARY = (RATE_LIMITED, UPSTREAM_ERROR, TIMEOUT, UNAVAILABLE)
SHORT_PDF_BUDGET = (("SCHOLAR_PDF_TIMEOUT_S", str(HTTP_TIMEOUT_S)),)


@dataclass(frozen=True)
class Probe:
    """A tool call that depends on ``source``, and how to recognise its real answer."""

    source: str
    tool: str
    arguments: dict[str, Any]
    answered: Callable[[dict[str, Any]], bool]
    truncated: bytes = TRUNCATED_JSON
    truncated_type: str = "application/json"
    # The source only enriches the answer: its failure may give a partial result that names it.
    enrichment: bool = False
    path_prefix: str = "/"
    # Explicit routes the call needs besides the recorded ones (added again after every reset).
    routes: tuple[tuple[str, str, str], ...] = ()
    # Routes with bodies no single recording holds (added again after every reset), e.g. a search's envelopes.
    setup: Callable[[FakeUpstream], None] | None = None
    # Settings the tool needs for the cell (e.g. EPO OPS credentials, or the tool is not listed).
    env: tuple[tuple[str, str], ...] = ()
    # Settings for the faulted call only (a short download budget, so a stalled download fails within the
    # cell); the call after the fault clears runs with the normal settings, so it never races a short budget.
    fault_env: tuple[tuple[str, str], ...] = ()
    # The tool always answers with a task (the PDF pipeline): its final state is what the client gets.
    task: bool = False
    # The source only supplies the full text: its failure gives the record with ``full_text_error``.
    text_error: bool = False


PROBES = (
    Probe("s2", "get_paper", {"identifier": "10.1073/pnas.1414271111"},
          lambda r: r.get("externalIds", {}).get("DOI") == "10.1073/pnas.1414271111"),
    Probe("s2", "search_papers", {"query": "turing", "limit": 5},
          lambda r: len(r.get("data", [])) == 5 and r.get("next_offset") == 5),
    Probe("arxiv_api", "arxiv_get_papers", {"paper_ids": "1605.08386"},
          lambda r: [p["id"] for p in r.get("papers", [])] == ["1605.08386v1"],
          truncated=TRUNCATED_ATOM, truncated_type="application/atom+xml"),
    Probe("arxiv_api", "arxiv_search", {"query": "testing"},
          lambda r: len(r.get("papers", [])) == 10, truncated=TRUNCATED_ATOM, truncated_type="application/atom+xml"),
    Probe("openlibrary", "get_book", {"identifier": "OL15832982W"},
          lambda r: r.get("openlibrary_work_id") == "OL15832982W"),
    # Open Library holds no edition for the one ISBN Google Books was recorded for: serve the recorded Gatsby
    # edition under that ISBN, so the Google Books enrichment (Ready Player One's recorded volume) runs.
    Probe("google_books", "get_book", {"identifier": "9780099560432"},
          lambda r: "google_books" in r.get("sources", []), enrichment=True,
          routes=(("openlibrary", "/isbn/9780099560432.json", "openlibrary/books_OL23109860M.json"),)),
    Probe("openlibrary", "search_books", {"title": "the lord of the rings", "author": "tolkien"},
          lambda r: len(r.get("books", r.get("results", []))) > 0),
    # S2 holds no record of the DOI (as in tests/e2e), so the citation is Crossref's alone.
    Probe("crossref", "generate_citations", {"paper_ids": ["10.1371/journal.pone.0033693"], "enrich": False},
          lambda r: "doi = {10.1371/journal.pone.0033693}" in r.get("content", ""),
          setup=lambda fake: fake.add_route("POST", "s2", "/graph/v1/paper/batch", body=b"[null]",
                                            content_type="application/json")),
)

# SYNTHETIC: RFC plain text in the RFC Editor's layout (no RFC text file is among the recordings).
SYNTHETIC_RFC_TEXT = ("Network Working Group                                          S. Crocker\n"
                      "Request for Comments: 3                                             UCLA\n"
                      "                                                               April 1969\n\n"
                      "                      DOCUMENTATION CONVENTIONS\n\n" + "   The Network Working Group seems to "
                      "consist of Steve Carr of Utah, Jeff Rulifson and Bill Duvall at SRI.\n" * 40)
HTML_PAPER = "2501.11120v1"  # the recorded arxiv.org/html render
EPO_CREDENTIALS = (("SCHOLAR_EPO_CONSUMER_KEY", "matrix-key"), ("SCHOLAR_EPO_CONSUMER_SECRET", "matrix-secret"))
SEARCH = {"query": "copper thin film oxide tensile", "limit": 5, "expand": False}


def _search_answered(source: str) -> Callable[[dict[str, Any]], bool]:
    return lambda r: source in r.get("sources_answered", []) and bool(r.get("results"))


def _serve_html_paper(fake: FakeUpstream) -> None:
    fake.add_route("GET", "arxiv_api", "/api/query", query={"id_list": HTML_PAPER, "start": "0", "max_results": "1"},
                   body=synthetic_feed(HTML_PAPER, "Tell me about yourself"), content_type="application/atom+xml")


def _serve_html_paper_from_ar5iv(fake: FakeUpstream) -> None:
    _serve_html_paper(fake)
    fake.add_route("GET", "arxiv", f"/html/{HTML_PAPER}", status=404, body=b"", content_type="text/plain")
    fake.add_route("GET", "ar5iv", "/html/2501.11120",
                   body=fixtures_dir() / "upstream/arxiv_html/html_2501.11120v1.html")


def _truncated_pdf() -> bytes:
    """The first 4 KB of the recorded arXiv PDF: it starts with %PDF- but does not parse."""
    return (fixtures_dir() / ARXIV_PDF).read_bytes()[:4096]


PROBES += (
    # enrich_paper asks OpenAlex only (Unpaywall only when oa_status is wanted and OpenAlex has no work).
    Probe("openalex", "enrich_paper", {"identifier": "10.1073/pnas.1414271111", "fields": ["topics"]},
          lambda r: "openalex" in r.get("sources", []) and bool(r.get("topics"))),
    # OpenAlex has no work for this DOI (the fake's 404), so oa_status comes from the recorded Unpaywall record.
    Probe("unpaywall", "enrich_paper", {"identifier": "10.1038/nature12373", "fields": ["oa_status"]},
          lambda r: r.get("sources") == ["unpaywall"] and bool(r.get("oa_status"))),
    # The federated search: one failing source gives a partial page naming it (the others answer).
    Probe("europepmc", "search", SEARCH, _search_answered("europepmc"), enrichment=True,
          setup=serve_missing_recordings),
    Probe("inspire", "search", SEARCH, _search_answered("inspire"), enrichment=True,
          setup=serve_missing_recordings),
    Probe("arxiv", "arxiv_read_paper", {"paper_id": HTML_PAPER, "max_characters": 2000},
          lambda r: r.get("source") == "arxiv_html" and bool(r.get("content")), path_prefix="/html/",
          truncated=b"<!DOCTYPE html><html><head><title>Tell me about", truncated_type="text/html",
          setup=_serve_html_paper),
    # No arxiv.org render: the recorded render is served as ar5iv's (the same LaTeXML HTML).
    Probe("ar5iv", "arxiv_read_paper", {"paper_id": HTML_PAPER, "max_characters": 2000},
          lambda r: r.get("source") == "ar5iv" and bool(r.get("content")),
          truncated=b"<!DOCTYPE html><html><head><title>Tell me about", truncated_type="text/html",
          setup=_serve_html_paper_from_ar5iv),
    # The PDF pipeline: the task of a faulted download ends failed with a retryable code.
    Probe("arxiv", "fetch_paper_pdf", {"identifier": "arXiv:2312.07559"},
          lambda r: r.get("pdf_source") == "arxiv" and bool(r.get("pdf_path")), path_prefix="/pdf/", task=True,
          truncated_type="application/pdf", fault_env=SHORT_PDF_BUDGET,
          routes=(("s2", "/graph/v1/paper/ARXIV:2312.07559", "semantic_scholar/paper_by_arxiv_doi.json"),
                  ("arxiv", "/pdf/2312.07559", ARXIV_PDF))),
    # A DOI whose only PDF location is Unpaywall's (S2 and OpenAlex hold no record): the pipeline's resolution.
    Probe("unpaywall", "fetch_paper_pdf", {"identifier": "10.1038/nature12373"},
          lambda r: r.get("pdf_source") == "unpaywall" and bool(r.get("pdf_path")), task=True,
          routes=(("web", "/dash.harvard.edu/bitstream/1/12285462/1/Nanometer-Scale Thermometry.pdf", ARXIV_PDF),)),
    # Standards full text (W3C pages are read on demand, inline), from the catalogue built from the recordings.
    Probe("w3c_www", "get_standard", {"identifier": "W3C webrtc", "fetch_full_text": True},
          lambda r: str(r.get("full_text", "")).startswith("# WebRTC"), path_prefix="/TR/", text_error=True,
          truncated=SYNTHETIC_W3C_SPEC.encode()[:1500], truncated_type="text/html; charset=utf-8",
          setup=lambda fake: fake.add_route("GET", "w3c_www", W3C_PAGE.removeprefix("/w3c_www"),
                                            body=SYNTHETIC_W3C_SPEC.encode(),
                                            content_type="text/html; charset=utf-8")),
    Probe("rfc_editor", "get_standard", {"identifier": "RFC 3", "fetch_full_text": True},
          lambda r: str(r.get("full_text", "")).startswith(SYNTHETIC_RFC_TEXT[:40]), path_prefix="/rfc/",
          text_error=True, truncated=SYNTHETIC_RFC_TEXT.encode()[:300], truncated_type="text/plain",
          setup=lambda fake: fake.add_route("GET", "rfc_editor", "/rfc/rfc3.txt", body=SYNTHETIC_RFC_TEXT.encode(),
                                            content_type="text/plain")),
    # NIST and ETSI PDFs are converted as tasks; a recorded arXiv PDF stands in for the document (as in
    # tests/standards/test_fulltext.py).
    Probe("nvlpubs", "get_standard", {"identifier": "NIST SP 800-53A Rev. 5", "fetch_full_text": True},
          lambda r: bool(r.get("full_text")), path_prefix="/nistpubs/", text_error=True, task=True,
          truncated_type="application/pdf", fault_env=SHORT_PDF_BUDGET,
          routes=(("nvlpubs", NIST_PDF.removeprefix("/nvlpubs"), ARXIV_PDF),)),
    Probe("etsi", "get_standard", {"identifier": "ETSI EN 303 645", "fetch_full_text": True},
          lambda r: bool(r.get("full_text")), path_prefix="/deliver/", text_error=True, task=True,
          truncated_type="application/pdf", fault_env=SHORT_PDF_BUDGET,
          routes=(("etsi", ETSI_PDF.removeprefix("/etsi"), ARXIV_PDF),)),
    Probe("epo_ops", "search_patents", {"applicant": "Siemens", "limit": 3},
          lambda r: len(r.get("references", [])) == 3, truncated=TRUNCATED_OPS, truncated_type="application/xml",
          env=EPO_CREDENTIALS),
)

FAULTS: dict[str, Callable[[Probe], dict[str, Any]]] = {
    "429": lambda p: {"status": 429, "headers": {"Retry-After": "1"}},
    "500": lambda p: {"status": 500},
    "503": lambda p: {"status": 503, "headers": {"Retry-After": "1"}},
    "timeout": lambda p: {"status": None, "delay_s": HTTP_TIMEOUT_S + 0.5},
    "html_200": lambda p: {"status": 200, "body": HTML_PAGE, "content_type": "text/html; charset=utf-8"},
    "truncated": lambda p: {"status": 200, "body": _truncated_pdf() if p.truncated_type == "application/pdf"
                            else p.truncated, "content_type": p.truncated_type},
    "dropped": lambda p: {"drop": True},
}

# Cells no code can make honest, and why; asserted to still fail, so the day one passes it leaves this list.
UNDETECTABLE: dict[tuple[str, str, str], str] = {
    # An HTML page cut short whose Content-Length matches what was sent parses as a shorter page: W3C specs
    # end in no fixed way (Bikeshed omits </body></html> on purpose: speced/bikeshed#2376), so its first part
    # is taken as the text. A body cut by a dropped connection is caught (the "dropped" cell, httpx's check).
    ("w3c_www", "get_standard", "truncated"): "a cut HTML page with a matching Content-Length looks whole",
    # Plain text has no end marker at all.
    ("rfc_editor", "get_standard", "truncated"): "cut plain text with a matching Content-Length looks whole",
}

CELLS = [(probe, fault) for probe in PROBES for fault in FAULTS]
# What each faulted call answered, for docs/reliability.md (printed at the end with -s).
OUTCOMES: dict[tuple[str, str, str], str] = {}


@pytest.fixture(scope="module", autouse=True)
def _web_to_fake(fake_upstream):
    """PDF locations on hosts that are not our sources reach the fake upstream (as in tests/e2e/test_pdf_e2e)."""
    fetch.set_web_access(web_access(fake_upstream))
    yield
    fetch.set_web_access(None)


@pytest.fixture(scope="module", autouse=True)
def _standards_catalogue(tmp_path_factory):
    """The standards tools read the catalogue built from the recordings (the sync is tested in tests/standards)."""
    path = tmp_path_factory.mktemp("matrix-standards") / "catalogue.sqlite"
    build_catalogue(link(all_records(fixtures_dir() / "upstream")), path, {"version": "matrix"})
    catalogue = Catalogue(path)
    service.set_holder(FixedHolder(catalogue))
    yield
    service.set_holder(None)
    catalogue.close()


@pytest.fixture(scope="module", autouse=True)
def _report_outcomes():
    yield
    rows = sorted({(s, t) for s, t, _ in OUTCOMES})
    print("\n| source | tool | " + " | ".join(FAULTS) + " |")
    print("|---|---|" + "---|" * len(FAULTS))
    for source, tool in rows:
        cells = [OUTCOMES.get((source, tool, f), "") for f in FAULTS]
        print(f"| {source} | {tool} | " + " | ".join(cells) + " |")


def outcome(answer: Answer) -> str:
    """A short label of what the client got: the error code (+ retryable), queued, partial, or ok."""
    if answer.is_error:
        return f"{answer.error.get('code')}{'' if answer.error.get('retryable') else ' (final)'}"
    if answer.structured.get("queued"):
        return "queued"
    if answer.structured.get("full_text_error"):
        return f"full_text_error: {answer.structured['full_text_error'].split(':', 1)[0]}"
    if answer.structured.get("partial"):
        return "partial"
    return "ok"


def _id(cell: tuple[Probe, str]) -> str:
    probe, fault = cell
    return f"{probe.source}-{probe.tool}-{fault}"


def problem_with_faulted(answer: Answer, probe: Probe, fault: str) -> str | None:
    """Why ``answer`` is not an honest report of the fault (None: it is)."""
    if answer.http_status >= 500 or answer.rpc_error:
        return f"HTTP {answer.http_status} / JSON-RPC error {answer.rpc_error}"
    if answer.is_error:
        error = answer.error
        if error.get("code") not in TEMPORARY:
            return f"a temporary failure reported as {error.get('code')!r}"
        if error.get("retryable") is not True:
            return f"{error.get('code')} with retryable={error.get('retryable')}"
        return None
    if answer.structured.get("queued") is True:
        return None
    if probe.text_error and answer.structured.get("full_text_error"):
        said = answer.structured["full_text_error"]
        kept = answer.structured.get("full_text")
        return None if not kept and not said.startswith("not_found") else f"full text {kept!r:.80} / {said!r:.120}"
    if probe.enrichment and answer.structured.get("partial") is True:
        named = [f.get("source") for f in answer.structured.get("failed_sources", [])]
        return None if probe.source in named else f"partial without naming {probe.source}: {named}"
    return f"a success while {probe.source} failed: {str(answer.structured)[:200]}"


def problem_with_clean(answer: Answer, probe: Probe) -> str | None:
    if answer.is_error or answer.http_status != 200:
        return f"after the fault cleared: {answer!r}"
    if answer.structured.get("queued") or answer.structured.get("partial"):
        return f"after the fault cleared, still not the real answer: {str(answer.structured)[-600:]}"
    return None if probe.answered(answer.structured) else f"not the real answer: {str(answer.structured)[:200]}"


def _serve(fake: FakeUpstream, probe: Probe) -> None:
    for source, path, fixture in probe.routes:
        fake.add_route("GET", source, path, body=fixtures_dir() / fixture_path(fixture))
    if probe.setup is not None:
        probe.setup(fake)


def fixture_path(fixture: str) -> str:
    """A recorded file under upstream/ (``"arxiv/…"``), or one under another folder (``"pdfs/…"``)."""
    return fixture if fixture.startswith("pdfs/") else f"upstream/{fixture}"


def finished(url: str, answer: Answer, caller: str) -> Answer | dict[str, Any]:
    """A task tool's answer once its task has finished (its get_task_result answer); any other answer as is."""
    if answer.is_error or answer.structured.get("queued") is not True:
        return answer
    return wait_for_task(url, answer.structured["task_id"], caller=caller)


def problem_with_failed_task(done: dict[str, Any]) -> str | None:
    """Why a task tool's finished task is not an honest report of the fault (None: it is)."""
    error = done.get("error") or {}
    if done.get("status") != "failed":
        return f"the task ended {done.get('status')!r} while its source failed: {str(done)[:300]}"
    if error.get("code") not in TEMPORARY or error.get("retryable") is not True:
        return f"the task failed as {error.get('code')!r} with retryable={error.get('retryable')}"
    return None


def run_task_cell(url: str, fake: FakeUpstream, probe: Probe, fault: str, env: Env) -> str | None:
    """A task tool: the faulted call's task fails with a temporary code; after the fault, a new task delivers."""
    caller = f"matrix-{probe.source}-{probe.tool}-{fault}"  # its own tasks: an earlier cell's are not reused
    env.set(**dict(probe.fault_env))
    fake.inject(probe.source, probe.path_prefix, times=None, **FAULTS[fault](probe))
    faulted = finished(url, call(url, probe.tool, probe.arguments, caller=caller), caller)
    fake.reset()
    env.delete(*dict(probe.fault_env))
    _serve(fake, probe)
    if isinstance(faulted, Answer):
        OUTCOMES[(probe.source, probe.tool, fault)] = outcome(faulted)
        if (why := problem_with_faulted(faulted, probe, fault)) is not None:
            return f"faulted: {why}"
    elif probe.text_error and faulted.get("status") == "completed":
        # A document's conversion task: the record, with full_text_error saying why there is no text.
        result = faulted.get("result") or {}
        said = str(result.get("full_text_error") or "")
        OUTCOMES[(probe.source, probe.tool, fault)] = f"task completed, full_text_error: {said.split(':', 1)[0]}"
        if result.get("full_text") or not said or said.startswith("not_found"):
            return f"faulted: the task completed with {str(result)[:300]}"
    else:
        error = faulted.get("error") or {}
        OUTCOMES[(probe.source, probe.tool, fault)] = (
            f"task {faulted.get('status')}: {error.get('code')}{'' if error.get('retryable') else ' (final)'}")
        if (why := problem_with_failed_task(faulted)) is not None:
            return f"faulted: {why}"
    clean = finished(url, call(url, probe.tool, probe.arguments, caller=caller), caller)
    if isinstance(clean, Answer):
        return problem_with_clean(clean, probe)
    if clean.get("status") != "completed" or not probe.answered(clean.get("result") or {}):
        return f"after the fault cleared, the task did not deliver the real answer: {str(clean)[:300]}"
    return None


def run_cell(url: str, fake: FakeUpstream, probe: Probe, fault: str, env: Env) -> str | None:
    forget_cached_answers()
    _serve(fake, probe)
    if probe.task:
        return run_task_cell(url, fake, probe, fault, env)
    fake.inject(probe.source, probe.path_prefix, times=None, **FAULTS[fault](probe))
    faulted = call(url, probe.tool, probe.arguments)
    OUTCOMES[(probe.source, probe.tool, fault)] = outcome(faulted)
    fake.reset()
    _serve(fake, probe)
    if (why := problem_with_faulted(faulted, probe, fault)) is not None:
        return f"faulted: {why}"
    if faulted.structured.get("queued") is True:
        # The queued task retries once the fault is gone: it must deliver the real answer (and finish before
        # the next cell, whose cold start it would otherwise race).
        done = wait_for_task(url, faulted.structured["task_id"])
        if done.get("status") != "completed" or not probe.answered(done.get("result") or {}):
            return f"the queued task did not deliver the real answer: {str(done)[:300]}"
    clean = call(url, probe.tool, probe.arguments)  # the cache is kept: a bad answer kept would show here
    return problem_with_clean(clean, probe)


@pytest.mark.parametrize("cell", CELLS, ids=_id)
def test_a_failing_source_gives_an_honest_answer_and_nothing_bad_is_kept(local_server, fake, env, cell):
    probe, fault = cell
    if probe.env:
        env.set(**dict(probe.env))
    problem = run_cell(local_server.url, fake, probe, fault, env)
    if (probe.source, probe.tool, fault) in UNDETECTABLE:
        assert problem is not None, "now honest: remove it from UNDETECTABLE"
    else:
        assert problem is None, problem


# Registered sources without a cell, and why; a new source must get a cell or a reason here.
_STANDARDS = ("read only by the standards catalogue sync (no tool asks it on demand): its rows, each body x each "
              "fault, are tests/standards/test_sync_faults.py")
NOT_IN_MATRIX: dict[str, str] = {
    **dict.fromkeys(("ietf", "nist", "w3c", "relaton", "github_api"),
                    _STANDARDS),
    "covers": "no tool fetches it: cover URLs are built, not asked (only source_health's probe asks it)",
    "docling": "an optional conversion service without a public default (PDF conversion, tests/pdf)",
    "rerank": "an optional rerank service without a public default (tests/research)",
    **dict.fromkeys(("zotero", "zotero_storage", "zotero_local", "notion"),
                    "asked only by library_sync, whose faults (429 with Retry-After or Backoff, 412, 401/403, a failed "
                    "item in a batch, conflicts) are tests/connectors against stateful fakes of Zotero and Notion"),
}


def test_every_source_the_matrix_names_is_a_registered_source():
    from scholar.sources.registry import SOURCES

    assert {p.source for p in PROBES} <= set(SOURCES)


def test_every_registered_source_has_a_cell_or_a_reason_why_not():
    from scholar.sources.registry import SOURCES

    covered = {p.source for p in PROBES}
    assert set(SOURCES) - covered - set(NOT_IN_MATRIX) == set()
    assert covered.isdisjoint(NOT_IN_MATRIX)
    assert set(UNDETECTABLE) <= {(p.source, p.tool, f) for p, f in CELLS}
