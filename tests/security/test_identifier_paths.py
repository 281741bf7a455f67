"""Identifiers are data, never path: every source module keeps an identifier in its own path segment.

Through the fake upstream (real loopback HTTP, our real client): a hostile identifier reaches exactly the
path the source module meant (the fake logs the percent-decoded path), or nothing is sent at all.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from scholar.core.catalogue import CallContext
from scholar.core.errors import INVALID_ARGUMENT, NOT_FOUND, ScholarError
from scholar.core.urlpath import UNSAFE_PATH, segment
from scholar.families.papers.handlers import HANDLERS as PAPER_HANDLERS
from scholar.families.papers.spec import TOOLS as PAPER_TOOLS
from scholar.sources import arxiv, crossref, http, openalex, openlibrary, relaton, s2, unpaywall, w3c
from tests.fakes.upstream import FakeUpstream
from tests.fixtures.waiting import run

# The identifiers of the report (issue #15), and the same moves with '?' and '#' that must stay inside.
TRAVERSAL = "10.1234/../../../../recommendations/v1/papers/forpaper/10.2139/ssrn.2250500"
ESCAPE_TO_ROOT = "10.1234/../../../../../../../etc/passwd"
QUERY_AND_FRAGMENT = "10.1234/a?fields=title#b"
HOSTILE = [TRAVERSAL, ESCAPE_TO_ROOT, QUERY_AND_FRAGMENT, "a%2F..%2F..%2Fb"]
SPECS = {spec.name: spec for spec in PAPER_TOOLS}
CTX = CallContext(principal="test", request_id="req-security")


def _sent(fake: FakeUpstream, call: Callable[[], Awaitable[Any]]) -> list[tuple[str, str]]:
    try:
        run(call())
    except ScholarError:
        pass  # the fake has no route for these: a 404 or a refusal; what matters is what was sent
    return [(r.source, r.path) for r in fake.requests]


@pytest.mark.parametrize("value", HOSTILE)
@pytest.mark.parametrize(
    ("source", "template", "call"),
    [
        ("s2", "/graph/v1/paper/{}", lambda v: s2.get_paper(v, ["title"])),
        ("s2", "/graph/v1/paper/{}/citations",
         lambda v: s2.get_citation_page(v, "citations", fields=["title"], offset=0, limit=10)),
        ("s2", "/graph/v1/author/{}", lambda v: s2.get_author(v, ["name"])),
        ("s2", "/graph/v1/author/{}/papers", lambda v: s2.get_author_papers(v, ["title"], offset=0, limit=10)),
        ("s2", "/recommendations/v1/papers/forpaper/{}", lambda v: s2.recommend_for_paper(v, ["title"], limit=5)),
        ("crossref", "/works/{}", crossref.get_work),
        ("unpaywall", "/v2/{}", unpaywall.get_doi),
        ("openalex", "/works/https://doi.org/{}", openalex.get_work_by_doi),
        ("openalex", "/works/{}", openalex.get_work),
        ("openlibrary", "/books/{}.json", openlibrary.get_edition),
        ("openlibrary", "/works/{}.json", openlibrary.get_work),
        ("openlibrary", "/works/{}/editions.json", openlibrary.list_editions),
        ("openlibrary", "/subjects/{}.json", openlibrary.subject),
    ],
)
def test_an_identifier_reaches_only_the_path_its_source_module_built(
    fake: FakeUpstream, source: str, template: str, call: Callable[[str], Awaitable[Any]], value: str
) -> None:
    sent = _sent(fake, lambda: call(value))
    assert sent == [(source, template.format(value))]


@pytest.mark.parametrize("value", ["..", ".", ""])
def test_a_value_that_is_a_dot_segment_is_refused_before_anything_is_sent(fake: FakeUpstream, value: str) -> None:
    with pytest.raises(ScholarError) as caught:
        run(s2.get_paper(value, ["title"]))
    assert caught.value.code == INVALID_ARGUMENT
    assert caught.value.reason == UNSAFE_PATH
    assert fake.requests == []


@pytest.mark.parametrize(
    "call",
    [
        lambda: relaton.fetch_document("ISO", "data/../../../../etc/passwd"),
        lambda: arxiv.fetch_pdf("../../../etc/passwd"),
        lambda: arxiv.fetch_render("../../x", "../../x"),
    ],
)
def test_multi_segment_values_refuse_dot_segments(fake: FakeUpstream, call: Callable[[], Awaitable[Any]]) -> None:
    with pytest.raises(ScholarError) as caught:
        run(call())
    assert caught.value.code == INVALID_ARGUMENT
    assert fake.requests == []


@pytest.mark.parametrize(
    "path",
    ["/graph/v1/paper/DOI:10.1234/../../../recommendations/v1/x", "/graph/v1/paper/a?b=c", "/graph/v1/paper/a#b",
     "/graph/v1/paper/a\x00b", "/graph/v1/paper/./x", "graph"],
)
def test_the_http_layer_refuses_a_path_the_client_would_change(fake: FakeUpstream, path: str) -> None:
    with pytest.raises(ScholarError) as caught:
        run(http.request("s2", "GET", path))
    assert caught.value.code == INVALID_ARGUMENT
    assert caught.value.reason == UNSAFE_PATH
    assert fake.requests == []


def test_an_encoded_segment_is_sent_as_built(fake: FakeUpstream) -> None:
    run(http.request("s2", "GET", f"/graph/v1/paper/{segment('DOI:10.1/a/../b?c#d')}"))
    assert [(r.source, r.path) for r in fake.requests] == [("s2", "/graph/v1/paper/DOI:10.1/a/../b?c#d")]


def _tool(name: str, arguments: dict[str, Any]) -> ScholarError:
    args = SPECS[name].input_model.model_validate(arguments)
    with pytest.raises(ScholarError) as caught:
        run(PAPER_HANDLERS[name](args, CTX))
    return caught.value


@pytest.mark.parametrize(
    ("tool", "identifier"),
    [
        ("get_paper", TRAVERSAL),
        ("get_paper", f"doi:{ESCAPE_TO_ROOT}"),
        ("get_paper", "10.1234/x/.."),
        ("get_paper", "10.1234%2F..%2F..%2Fx"),
        ("get_citations", "10.1234/./x"),
        ("get_paper", "https://doi.org/10.1234/../../../../../crossref/works/10.1371/journal.pone.0033693"),
    ],
)
def test_a_doi_with_dot_segments_is_an_invalid_argument_and_nothing_is_sent(
    fake: FakeUpstream, tool: str, identifier: str
) -> None:
    err = _tool(tool, {"identifier": identifier})
    assert err.code == INVALID_ARGUMENT
    assert err.details.get("field") == "identifier"
    assert fake.requests == []


def test_generate_citations_never_returns_another_papers_record_for_a_traversal(fake: FakeUpstream) -> None:
    url = "https://doi.org/10.1234/../../../../../crossref/works/10.1371/journal.pone.0033693"
    err = _tool("generate_citations", {"paper_ids": [url]})
    assert err.code in (INVALID_ARGUMENT, NOT_FOUND)  # "none of the ids resolved", with the id's own refusal
    assert fake.requests == []


@pytest.mark.parametrize("char", ["\u0000", "\u0001", "\u007f", "\u0085"])
@pytest.mark.parametrize("tool", ["get_paper", "get_citations"])
def test_a_control_character_in_an_identifier_is_an_invalid_argument(fake: FakeUpstream, tool: str, char: str) -> None:
    err = _tool(tool, {"identifier": f"10.1234/a{char}b"})
    assert err.code == INVALID_ARGUMENT
    assert err.details.get("field") == "identifier"
    assert fake.requests == []


def test_a_link_from_an_upstream_payload_sends_its_query_as_parameters(fake: FakeUpstream) -> None:
    _sent(fake, lambda: w3c.get_document("https://api.w3.org/specifications/webrtc/versions?embed=true&page=2"))
    assert [(r.source, r.path, r.query) for r in fake.requests] == [
        ("w3c", "/specifications/webrtc/versions", (("embed", "true"), ("page", "2")))
    ]
