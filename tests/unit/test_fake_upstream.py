"""The fake upstream replays the recorded responses over loopback HTTP, with faults, routes and a request log."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.fakes.routes import Route, content_type_for, normalise_path, parse_provenance
from tests.fakes.upstream import ROUTE_HEADER, FakeUpstream
from tests.fixtures.servers import fake_fixture, fake_upstream_fixture
from tests.fixtures_dir import fixtures_dir

S2_TITLE = "upstream/semantic_scholar/paper_by_doi_fields_title.json"
S2_PNAS = "upstream/semantic_scholar/paper_by_doi_many_fields_pnas.json"


fake_upstream = fake_upstream_fixture(scope="module")
fake = fake_fixture()


@pytest.fixture
def client(fake: FakeUpstream) -> Iterator[httpx.Client]:
    # trust_env=False: a proxy set in the environment must not see loopback traffic.
    with httpx.Client(base_url=fake.base_url, trust_env=False, timeout=5) as http:
        yield http


def fixture_bytes(name: str) -> bytes:
    return (fixtures_dir() / name).read_bytes()


def test_recorded_s2_paper_is_served_under_its_source_prefix(client: httpx.Client) -> None:
    response = client.get("/s2/graph/v1/paper/10.1093/mind/lix.236.433", params={"fields": "title"})

    assert response.status_code == 200
    assert response.headers["content-type"] == "application/json"
    assert response.headers[ROUTE_HEADER] == S2_TITLE
    assert response.content == fixture_bytes(S2_TITLE)


def test_other_fields_and_doi_case_still_find_the_recorded_paper(client: httpx.Client) -> None:
    # Our client's fields= list differs from the recorded one, and DOIs are case-insensitive.
    response = client.get("/s2/graph/v1/paper/doi:10.1073/PNAS.1414271111", params={"fields": "title,year"})

    assert response.status_code == 200
    assert response.headers[ROUTE_HEADER] == S2_PNAS


def test_success_recording_beats_an_error_recording_when_no_query_matches(client: httpx.Client) -> None:
    # The same path holds fields=title (200) and fields=unknown (400).
    response = client.get("/s2/graph/v1/paper/10.1093/mind/lix.236.433", params={"fields": "title,year"})

    assert response.headers[ROUTE_HEADER] == S2_TITLE


def test_paper_batch_post_is_matched_by_its_json_body_before_its_query(client: httpx.Client) -> None:
    ids = ["CorpusId:211530585", "CorpusId:470667", "10.2139/ssrn.2250500", "0f40b1f08821e22e859c6050916cec3667778613"]

    # The body equals the recording of the many-fields batch (other JSON spacing), the query that of the other.
    response = client.post("/s2/graph/v1/paper/batch", params={"fields": "authors"}, content=json.dumps({"ids": ids}))

    assert response.status_code == 200
    assert response.headers[ROUTE_HEADER] == "upstream/semantic_scholar/paper_batch_many_fields_with_unknown_id.json"
    assert response.json()[-1] is not None


def test_paper_batch_post_with_unrecorded_ids_gets_the_nearest_query(client: httpx.Client) -> None:
    response = client.post("/s2/graph/v1/paper/batch", params={"fields": "authors"}, json={"ids": ["CorpusId:1"]})

    assert response.headers[ROUTE_HEADER] == "upstream/semantic_scholar/paper_batch_authors.json"


def test_arxiv_export_query_is_matched_by_its_query_parameters(client: httpx.Client) -> None:
    recorded = {"search_query": "testing", "id_list": "", "sortBy": "relevance", "sortOrder": "descending"}

    page2 = client.get("/arxiv_api/api/query", params={**recorded, "start": "10", "max_results": "10"})
    by_id = client.get("/arxiv_api/api/query", params={"id_list": "1605.08386", "max_results": "1"})

    assert page2.headers[ROUTE_HEADER] == "upstream/arxiv/query_testing_start10_max10.xml"
    assert page2.headers["content-type"] == "application/atom+xml"
    assert by_id.headers[ROUTE_HEADER] == "upstream/arxiv/id_list_1605.08386.xml"


def test_recorded_404_keeps_its_status_and_body(client: httpx.Client) -> None:
    s2 = client.get("/s2/graph/v1/paper/0", params={"fields": "t,i,t,l,e"})
    crossref = client.get("/crossref/works/10.1371%2Fnotarealdoi")

    assert s2.status_code == 404
    assert s2.content == fixture_bytes("upstream/semantic_scholar/paper_not_found_404.json")
    assert crossref.status_code == 404
    assert crossref.headers["content-type"] == "text/plain; charset=utf-8"
    assert crossref.text == "Resource not found."


def test_injected_429_with_retry_after_is_served_n_times_then_the_recording(
    fake: FakeUpstream, client: httpx.Client
) -> None:
    fake.inject("s2", "/graph/v1/paper/", status=429, times=2)

    answers = [client.get("/s2/graph/v1/paper/10.1093/mind/lix.236.433?fields=title") for _ in range(3)]

    assert [a.status_code for a in answers] == [429, 429, 200]
    assert answers[0].headers["retry-after"] == "1"
    assert fake.count("s2") == 3


def test_fault_only_hits_its_source_and_path_prefix(fake: FakeUpstream, client: httpx.Client) -> None:
    fake.inject("s2", "/graph/v1/author/", status=503)

    paper = client.get("/s2/graph/v1/paper/0?fields=t")
    crossref = client.get("/crossref/works/10.1371/notarealdoi")
    author = client.get("/s2/graph/v1/author/0?fields=n")

    assert (paper.status_code, crossref.status_code, author.status_code) == (404, 404, 503)
    assert author.headers["retry-after"] == "1"


def test_injected_html_body_on_200_and_truncated_json_are_served_as_given(
    fake: FakeUpstream, client: httpx.Client
) -> None:
    fake.inject("openalex", "/works", status=200, body=b"<html>maintenance</html>", content_type="text/html")
    fake.inject("openalex", "/works", status=200, body=b'{"results": [')

    html = client.get("/openalex/works/W2741809807")
    truncated = client.get("/openalex/works/W2741809807")
    normal = client.get("/openalex/works/W2741809807")

    assert (html.headers["content-type"], html.text) == ("text/html", "<html>maintenance</html>")
    assert truncated.content == b'{"results": ['
    assert normal.json()["id"] == "https://openalex.org/W2741809807"


def test_delay_longer_than_the_client_timeout_times_the_client_out(fake: FakeUpstream) -> None:
    fake.inject("w3c", "/", status=None, delay_s=0.5)

    with (
        httpx.Client(base_url=fake.base_url, trust_env=False, timeout=0.05) as impatient,
        pytest.raises(httpx.ReadTimeout),
    ):
        impatient.get("/w3c/specifications/html5")


def test_unmatched_request_is_404_and_logged(fake: FakeUpstream, client: httpx.Client) -> None:
    response = client.get("/s2/graph/v1/nothing/here", params={"q": "x"})

    assert response.status_code == 404
    assert response.json() == {
        "fake_upstream": "no route",
        "method": "GET",
        "source": "s2",
        "path": "/graph/v1/nothing/here",
    }
    assert fake.requests[-1][:5] == ("GET", "s2", "/graph/v1/nothing/here", (("q", "x"),), b"")


def test_count_filters_by_source_and_path_prefix(fake: FakeUpstream, client: httpx.Client) -> None:
    client.get("/s2/graph/v1/paper/0")
    client.get("/s2/graph/v1/author/0")
    client.get("/unpaywall/v2/10.1038/nature12373")

    assert fake.count() == 3
    assert fake.count("s2") == 2
    assert fake.count("s2", "/graph/v1/paper") == 1
    assert fake.count(path_prefix="/v2/") == 1


def test_explicit_route_wins_over_the_exact_recording(fake: FakeUpstream, client: httpx.Client) -> None:
    other = fixtures_dir() / S2_PNAS
    fake.add_route("GET", "s2", "/graph/v1/paper/10.1093/mind/lix.236.433", body=other, headers={"X-Extra": "1"})

    response = client.get("/s2/graph/v1/paper/10.1093/mind/lix.236.433", params={"fields": "title"})

    assert response.content == other.read_bytes()
    assert response.headers["content-type"] == "application/json"
    assert (response.headers[ROUTE_HEADER], response.headers["x-extra"]) == ("explicit", "1")


def test_explicit_route_with_a_query_requires_that_query(fake: FakeUpstream, client: httpx.Client) -> None:
    fake.add_route("GET", "covers", "/b/isbn/1.json", query={"default": "false"}, status=302, body=b"")

    exact = client.get("/covers/b/isbn/1.json", params={"default": "false"})
    nearest = client.get("/covers/b/isbn/1.json", params={"default": "true"})

    assert (exact.status_code, nearest.status_code) == (302, 302)  # nearest: the only route of that path
    assert fake.count("covers") == 2


def test_reset_forgets_log_faults_and_explicit_routes(fake: FakeUpstream, client: httpx.Client) -> None:
    fake.add_route("GET", "s2", "/graph/v1/paper/0", body=b"{}")
    fake.inject("s2", times=None)
    client.get("/s2/graph/v1/paper/0")

    fake.reset()
    response = client.get("/s2/graph/v1/paper/0")

    assert response.status_code == 404
    assert response.headers[ROUTE_HEADER] == "upstream/semantic_scholar/paper_not_found_404.json"
    assert fake.count() == 1


def test_host_that_is_not_a_source_falls_back_to_the_fixture_folder(client: httpx.Client) -> None:
    # Recorded against http://host.docker.internal:8080 (an INSPIRE mirror).
    response = client.get("/inspire/api/literature/-1")

    assert response.status_code == 404
    assert response.headers[ROUTE_HEADER] == "upstream/inspire/literature_not_found_404.json"


def test_same_request_recorded_twice_prefers_the_file_matching_the_url(client: httpx.Client) -> None:
    name = "upstream/etsi/relaton/index-v1.zip"

    response = client.get("/relaton/relaton/relaton-data-etsi/main/index-v1.zip")

    assert response.headers["content-type"] == "application/zip"
    assert response.content == fixture_bytes(name)


def test_rows_without_a_request_are_listed_as_skipped(fake: FakeUpstream) -> None:
    skipped = {s.file: s.reason for s in fake.skipped}

    assert skipped["pdfs/arxiv_2501.10120v1_pasa.pdf"].startswith("no HTTP request")
    assert skipped["upstream/etsi/relaton/ETSI_EN_303_645_V2_1_1_2020-06.yaml"].startswith("no HTTP request")
    assert skipped["upstream/etsi/relaton/index-v1_excerpt_first300.yaml"].startswith("same request as")


def test_every_recorded_route_answers_its_own_recorded_request(fake: FakeUpstream, client: httpx.Client) -> None:
    for route in fake.routes.recorded:
        url = httpx.URL(f"{fake.base_url}/{route.source}{route.path}", params=route.query or ())

        response = client.request(route.method, url, content=route.request_body or b"")

        assert (response.status_code, response.headers[ROUTE_HEADER]) == (route.status, route.file), route.file
        assert response.content == route.read(), route.file


def test_provenance_rows_give_method_source_query_body_and_reconstructed_flag(tmp_path: Path) -> None:
    (tmp_path / "a.json").write_text("{}")
    (tmp_path / "b.xml").write_text("<x/>")
    text = (
        "| file | source repo | request | status | notes |\n|---|---|---|---|---|\n"
        '| `a.json` | r | `POST https://api.semanticscholar.org/graph/v1/paper/batch?fields=title body={"ids":[]}` '
        "| 200 | |\n"
        "| b.xml | r | GET https://ops.epo.org/3.2/rest-services/x?q=a%3Db | 200 | request reconstructed from demo |\n"
        "| c.yaml | r | (file in data repository; no HTTP request) | n/a | |\n"
    )

    routes, skipped = parse_provenance(text, tmp_path)

    assert [(r.method, r.source, r.path, r.query, r.request_body) for r in routes] == [
        ("POST", "s2", "/graph/v1/paper/batch", (("fields", "title"),), b'{"ids":[]}'),
        ("GET", "epo_ops", "/3.2/rest-services/x", (("q", "a=b"),), None),
    ]
    assert [r.reconstructed for r in routes] == [False, True]
    assert [s.file for s in skipped] == ["c.yaml"]


def test_paths_compare_decoded_without_trailing_slash_and_doi_case() -> None:
    assert normalise_path("/works/10.1038%2FNature12373/") == normalise_path("/works/10.1038/nature12373")
    assert normalise_path("/paper/DOI:10.1234/X") == normalise_path("/paper/doi:10.1234/x")
    assert normalise_path("/specifications/HTML5") != normalise_path("/specifications/html5")


def test_content_type_is_sniffed_before_the_extension() -> None:
    assert content_type_for("x.json", b"<!doctype html><html>") == "text/html; charset=utf-8"
    assert content_type_for("x.txt", b'{"a": 1}') == "application/json"
    assert content_type_for("x.yaml", b"---\nid: 1") == "text/plain; charset=utf-8"
    assert content_type_for("x.tiff", b"II*\x00") == "image/tiff"


def test_explicit_route_is_a_route_with_the_explicit_flag(fake: FakeUpstream) -> None:
    route = fake.add_route("get", "s2", "/x", body=b"[]")

    assert isinstance(route, Route)
    assert (route.method, route.explicit, route.content_type) == ("GET", True, "application/json")


def test_each_source_may_answer_after_its_own_latency_and_the_others_after_the_common_one(fake: FakeUpstream) -> None:
    fake.set_latency(0.05, per_source={"s2": 0.4, "crossref": 1.2})
    delays = {source: fake.respond("GET", f"/{source}/x", b"").delay_s for source in ("s2", "crossref", "openalex")}
    assert delays == {"s2": 0.4, "crossref": 1.2, "openalex": 0.05}
    fake.reset()
    assert fake.respond("GET", "/s2/x", b"").delay_s == 0.0
