"""get_paper (scholar.services.paper_lookup): S2 first, then OpenAlex and Crossref; cached records, aliases, negatives.

Upstream answers are the recorded fixtures under upstream/semantic_scholar, openalex and crossref.
"""

import json
import time

import pytest

from functions.papers.app import lambda_handler
from scholar.core import aio
from scholar.core.errors import (
    INTERNAL,
    INVALID_ARGUMENT,
    NOT_FOUND,
    RATE_LIMITED,
    UNAVAILABLE,
    InvalidArgumentError,
    NotFoundError,
    RateLimitedError,
)
from scholar.services import paper_lookup as lookup
from scholar.store.cache import Cache
from scholar.store.tasks import TaskItem, TaskStore

# Past S2, OpenAlex and Crossref, the lookup chain's other sources hold none of these papers.
pytestmark = pytest.mark.usefixtures("no_fallback_source")

PNAS_DOI = "10.1073/pnas.1414271111"
PNAS_S2_ID = "db3720c812a462ef955d5654b65ca9189d4b8372"
S2_PNAS = f"/s2/graph/v1/paper/DOI:{PNAS_DOI}"
SPRINGER_DOI = "10.1023/a:1007154515475"
S2_SPRINGER = f"/s2/graph/v1/paper/DOI:{SPRINGER_DOI}"
OPENALEX_SPRINGER = "/openalex/works/https://doi.org/10.1023%2Fa%3A1007154515475"
CROSSREF_SPRINGER = "/crossref/works/10.1023/a%3A1007154515475"
JSON = {"Content-Type": "application/json"}


def get_paper(identifier: str):
    return aio.run(lookup.get_paper(identifier))


@pytest.fixture
def s2_pnas(upstream, fixture_file):
    # get_paper auto-enriches from Crossref; the recorded Crossref 404 body stands for "no extra fields".
    upstream.get(f"/crossref/works/{PNAS_DOI}").respond(
        404, content=fixture_file("upstream/crossref/works_by_doi_not_found_404.txt")
    )
    return upstream.get(S2_PNAS).respond(
        200, content=fixture_file("upstream/semantic_scholar/paper_by_doi_many_fields_pnas.json"), headers=JSON
    )


@pytest.fixture
def springer_routes(upstream, fixture_file):
    """S2 has no record of the Springer DOI (recorded 404 body); OpenAlex and Crossref are set per test."""
    s2 = upstream.get(S2_SPRINGER).respond(
        404, content=fixture_file("upstream/semantic_scholar/paper_by_doi_not_found_404.json"), headers=JSON
    )
    openalex = upstream.get(OPENALEX_SPRINGER)
    crossref = upstream.get(CROSSREF_SPRINGER)
    return s2, openalex, crossref


def test_a_doi_resolves_through_semantic_scholar(aws, s2_pnas, fixture_file):
    recorded = json.loads(fixture_file("upstream/semantic_scholar/paper_by_doi_many_fields_pnas.json"))
    paper = get_paper(PNAS_DOI)
    assert paper.paperId == recorded["paperId"] == PNAS_S2_ID
    assert paper.title == recorded["title"]
    assert paper.year == recorded["year"]
    assert paper.citationCount == recorded["citationCount"]
    assert paper.externalIds["DOI"] == recorded["externalIds"]["DOI"]
    assert paper.externalIds["CorpusId"] == str(recorded["externalIds"]["CorpusId"])
    assert [a.name for a in paper.authors] == [a["name"] for a in recorded["authors"]]
    assert paper.openAccessPdf.url == recorded["openAccessPdf"]["url"]
    assert paper.journal.volume == recorded["journal"]["volume"]
    assert paper.sources == ["s2"]


def test_the_s2_request_asks_for_the_full_field_set(aws, s2_pnas):
    get_paper(PNAS_DOI)
    fields = s2_pnas.calls.last.request.url.params["fields"].split(",")
    assert {"title", "year", "externalIds", "authors", "abstract", "tldr"} <= set(fields)


def test_a_repeated_call_is_served_from_the_cache(aws, s2_pnas):
    first = get_paper(PNAS_DOI)
    second = get_paper(PNAS_DOI)
    assert second == first
    assert s2_pnas.call_count == 1


@pytest.mark.parametrize(
    "alias",
    [
        PNAS_S2_ID,
        f"doi:{PNAS_DOI.upper()}",
        f"https://doi.org/{PNAS_DOI}",
        "https://dx.doi.org/10.1073%2FPNAS.1414271111",
    ],
)
def test_another_identifier_of_a_cached_paper_hits_the_cache(aws, s2_pnas, alias):
    first = get_paper(PNAS_DOI)
    assert get_paper(alias) == first
    assert s2_pnas.call_count == 1


def test_without_semantic_scholar_the_paper_comes_from_openalex(aws, springer_routes, fixture_file):
    s2, openalex, crossref = springer_routes
    recorded = json.loads(fixture_file("upstream/openalex/work_by_doi_springer_1999.json"))
    openalex.respond(200, content=json.dumps(recorded).encode(), headers=JSON)
    paper = get_paper(SPRINGER_DOI)
    assert paper.sources == ["openalex"]
    assert paper.title == recorded["display_name"]
    assert paper.year == recorded["publication_year"]
    assert paper.externalIds["DOI"] == SPRINGER_DOI
    assert paper.citationCount == recorded["cited_by_count"]
    assert (s2.call_count, openalex.call_count, crossref.call_count) == (1, 1, 0)


def test_an_openalex_record_is_cached_too(aws, springer_routes, fixture_file):
    s2, openalex, _ = springer_routes
    openalex.respond(200, content=fixture_file("upstream/openalex/work_by_doi_springer_1999.json"), headers=JSON)
    first = get_paper(SPRINGER_DOI)
    assert get_paper(f"doi:{SPRINGER_DOI}") == first
    assert (s2.call_count, openalex.call_count) == (1, 1)


def test_without_s2_and_openalex_the_paper_comes_from_crossref(aws, upstream, fixture_file):
    doi = "10.1371/journal.pone.0033693"
    upstream.get(f"/s2/graph/v1/paper/DOI:{doi}").respond(
        404, content=fixture_file("upstream/semantic_scholar/paper_by_doi_not_found_404.json"), headers=JSON
    )
    upstream.get(f"/openalex/works/https://doi.org/{doi.replace('/', '%2F')}").respond(
        404,
        content=fixture_file("upstream/openalex/work_by_doi_not_found_404.html"),
        headers={"Content-Type": "text/html"},
    )
    recorded = json.loads(fixture_file("upstream/crossref/works_by_doi_plos.json"))["message"]
    upstream.get(f"/crossref/works/{doi}").respond(
        200, content=fixture_file("upstream/crossref/works_by_doi_plos.json"), headers=JSON
    )
    paper = get_paper(doi)
    assert paper.sources == ["crossref"]
    assert paper.title == recorded["title"][0]
    assert paper.externalIds == {"DOI": doi}


def test_no_source_holding_the_doi_is_not_found_and_remembered(aws, springer_routes, fixture_file):
    s2, openalex, crossref = springer_routes
    openalex.respond(
        404,
        content=fixture_file("upstream/openalex/work_by_doi_not_found_404.html"),
        headers={"Content-Type": "text/html"},
    )
    crossref.respond(404, content=fixture_file("upstream/crossref/works_by_doi_not_found_404.txt"))
    with pytest.raises(NotFoundError) as info:
        get_paper(SPRINGER_DOI)
    assert info.value.code == NOT_FOUND
    assert Cache().get("negative", f"doi:{SPRINGER_DOI}") is True
    # The negative entry answers the next call without asking anyone.
    with pytest.raises(NotFoundError):
        get_paper(SPRINGER_DOI)
    assert (s2.call_count, openalex.call_count, crossref.call_count) == (1, 1, 1)


def test_an_unknown_s2_id_is_not_found_without_fallbacks(aws, upstream, fixture_file):
    s2_id = "0" * 40
    route = upstream.get(f"/s2/graph/v1/paper/{s2_id}").respond(
        404, content=fixture_file("upstream/semantic_scholar/paper_not_found_404.json"), headers=JSON
    )
    with pytest.raises(NotFoundError):
        get_paper(s2_id)
    assert route.call_count == 1
    assert Cache().get("negative", f"s2:{s2_id}") is True


@pytest.mark.parametrize("identifier", ["ISBN:9780262033848", "9780262033848", "EP1234567A1", "https://example.org/x"])
def test_an_identifier_of_something_else_is_an_invalid_argument(identifier):
    with pytest.raises(InvalidArgumentError) as info:
        get_paper(identifier)
    assert info.value.code == INVALID_ARGUMENT
    assert info.value.field == "identifier"


def test_gibberish_is_an_invalid_argument_naming_the_identifier():
    with pytest.raises(InvalidArgumentError) as info:
        get_paper("not-an-identifier")
    assert info.value.field == "identifier"


def test_a_throttled_lookup_raises_rate_limited_and_caches_nothing(aws, env, upstream):
    env(SCHOLAR_RETRY_BUDGET_S="0")
    route = upstream.get(S2_PNAS).respond(429, headers={"Retry-After": "30"}, json={"message": "Too Many Requests"})
    with pytest.raises(RateLimitedError) as info:
        get_paper(PNAS_DOI)
    assert info.value.retry_after_s == 30
    assert route.call_count == 1
    assert aws.dynamodb.scan(TableName=aws.cache_table)["Count"] == 0


# Through the papers function (functions.papers.app): validation, dispatch, queuing when throttled.

TRIVIAL_MACHINE = json.dumps({"StartAt": "Done", "States": {"Done": {"Type": "Pass", "End": True}}})


def invoke_papers(tool: str, arguments: dict, context, principal: str = "alice") -> dict:
    event = {"tool": tool, "arguments": arguments, "principal": principal, "request_id": "req-1"}
    return lambda_handler(event, context)


def test_the_papers_function_answers_get_paper(aws, s2_pnas, lambda_context):
    outcome = invoke_papers("get_paper", {"identifier": PNAS_DOI}, lambda_context)
    assert outcome["ok"] is True
    assert outcome["result"]["paperId"] == PNAS_S2_ID
    assert outcome["result"]["sources"] == ["s2"]


@pytest.mark.parametrize(
    ("arguments", "field"),
    [({}, "identifier"), ({"identifier": ""}, "identifier"), ({"identifier": PNAS_DOI, "bogus": 1}, "bogus")],
)
def test_invalid_arguments_are_an_invalid_argument_naming_the_field(aws, upstream, lambda_context, arguments, field):
    outcome = invoke_papers("get_paper", arguments, lambda_context)
    assert outcome["ok"] is False
    assert outcome["error"]["code"] == INVALID_ARGUMENT
    assert outcome["error"]["details"]["field"] == field
    assert not upstream.calls


def test_a_search_window_past_a_thousand_is_an_invalid_argument_naming_offset(aws, upstream, lambda_context):
    outcome = invoke_papers("search_papers", {"query": "turing", "offset": 950, "limit": 100}, lambda_context)
    assert outcome["error"]["code"] == INVALID_ARGUMENT
    assert outcome["error"]["details"]["field"] == "offset"


def test_an_unknown_tool_is_an_invalid_argument(aws, lambda_context):
    outcome = invoke_papers("get_book", {"identifier": "x"}, lambda_context)
    assert outcome["ok"] is False
    assert outcome["error"]["code"] == INVALID_ARGUMENT


def test_a_malformed_invocation_is_an_internal_error_not_a_crash(lambda_context):
    outcome = lambda_handler({"arguments": {}}, lambda_context)
    assert outcome["ok"] is False
    assert outcome["error"]["code"] == INTERNAL


@pytest.fixture
def throttled_s2(env, upstream):
    env(SCHOLAR_RETRY_BUDGET_S="0")
    return upstream.get(S2_PNAS).respond(429, headers={"Retry-After": "30"}, json={"message": "Too Many Requests"})


def test_a_throttled_call_without_a_retry_machine_is_unavailable(aws, env, throttled_s2, lambda_context):
    env.delete("SCHOLAR_RETRY_STATE_MACHINE_ARN")
    outcome = invoke_papers("get_paper", {"identifier": PNAS_DOI}, lambda_context)
    assert outcome["ok"] is False
    assert outcome["error"]["code"] == UNAVAILABLE


def test_a_throttled_call_is_queued_as_a_task_of_its_caller(aws, env, throttled_s2, lambda_context):
    sfn = aws.client("stepfunctions")
    machine = sfn.create_state_machine(
        name="scholar-retry", definition=TRIVIAL_MACHINE, roleArn="arn:aws:iam::123456789012:role/scholar-retry"
    )["stateMachineArn"]
    env(SCHOLAR_RETRY_STATE_MACHINE_ARN=machine)
    outcome = invoke_papers("get_paper", {"identifier": PNAS_DOI}, lambda_context, principal="alice")
    assert outcome["ok"] is True
    queued = outcome["result"]
    assert queued["queued"] is True
    assert queued["tool"] == "get_paper"
    assert queued["poll_after_s"] >= 1
    item = aws.dynamodb.get_item(TableName=aws.task_table, Key={"task_id": {"S": queued["task_id"]}})["Item"]
    assert item["principal"]["S"] == "alice"
    assert item["status"]["S"] == "pending"
    assert item["tool"]["S"] == "get_paper"
    assert item["execution_arn"]["S"].startswith(machine.replace(":stateMachine:", ":execution:"))
    execution = sfn.describe_execution(executionArn=item["execution_arn"]["S"])
    payload = json.loads(execution["input"])
    assert payload["task_id"] == queued["task_id"]
    assert payload["arguments"] == {"identifier": PNAS_DOI}
    assert payload["principal"] == "alice"
    assert aws.dynamodb.scan(TableName=aws.cache_table)["Count"] == 0


def test_a_throttled_call_inside_its_retry_task_reports_rate_limited_and_marks_the_task_running(
    aws, throttled_s2, lambda_context
):
    store = TaskStore()
    store.create(TaskItem(task_id="retry-task-0001", principal="alice", tool="get_paper",
                          expires_at=int(time.time()) + 600))
    event = {"tool": "get_paper", "arguments": {"identifier": PNAS_DOI}, "principal": "alice",
             "request_id": "req-2", "task_id": "retry-task-0001"}
    outcome = lambda_handler(event, lambda_context)
    assert outcome["ok"] is False
    assert outcome["error"]["code"] == RATE_LIMITED
    assert outcome["error"]["retry_after_s"] == 30
    assert store.get("retry-task-0001", "alice").status == "running"
