"""A source is blamed only for what it sent: our own pace is never a source's 429, and a 404 is not_found.

Issue #31 item 9: arXiv's adapter re-worded every ``RateLimitedError`` from the HTTP layer as "arXiv is rate
limiting us (HTTP 429)", our pacer's refusal included, so a search within arXiv's pace listed arXiv as failed
with a 429 arXiv never sent.
"""

from __future__ import annotations

import time

import httpx
import pytest

from scholar.core import aio
from scholar.core.errors import NOT_FOUND, RATE_LIMITED, NotFoundError, RateLimitedError
from scholar.families.research.search.federated import search
from scholar.families.research.search.pages import ResultSets
from scholar.sources import arxiv
from scholar.store import limiter
from scholar.store.cache import Cache
from tests.arxiv.helpers import feed
from tests.fixtures.waiting import run
from tests.research.helpers import ARXIV_QUERY as ARXIV
from tests.research.helpers import args, route_all


def test_our_own_pacers_refusal_reaches_the_caller_as_ours_with_no_status(upstream, env):
    # Given arXiv's pace is booked a minute ahead (another search just asked it), under a five-second deadline
    env(SCHOLAR_CACHE_TABLE=None, SCHOLAR_PACE_SCALE="1")
    limiter._local_next[arxiv.API] = time.time() + 60
    route = upstream.get(ARXIV).respond(200, content=feed("id_list_1605.08386.xml"))

    async def within_five_seconds() -> arxiv.Feed:
        with limiter.answer_within(5):
            return await arxiv.query({"id_list": "1605.08386"})

    try:
        with pytest.raises(RateLimitedError) as caught:
            aio.run(within_five_seconds())
    finally:
        limiter._local_next.pop(arxiv.API, None)
    # Then the refusal is our pacer's: arXiv was not asked, so no HTTP status is claimed for it
    assert route.call_count == 0
    assert caught.value.reason == limiter.PACED_PAST_DEADLINE
    assert caught.value.status is None


def test_a_real_429_from_arxiv_still_names_its_status(upstream, env):
    env(SCHOLAR_RETRY_BUDGET_S="0")
    upstream.get(ARXIV).respond(429, text="Too Many Requests")
    with pytest.raises(RateLimitedError) as caught:
        aio.run(arxiv.query({"id_list": "1605.08386"}))
    assert (caught.value.code, caught.value.status) == (RATE_LIMITED, 429)


def test_an_arxiv_404_is_not_found_not_a_rejected_request(upstream):
    upstream.get(ARXIV).respond(404, text="Not Found")
    with pytest.raises(NotFoundError) as caught:
        aio.run(arxiv.query({"id_list": "2312.99999"}, field="paper_ids"))
    assert (caught.value.code, caught.value.status, caught.value.source) == (NOT_FOUND, 404, arxiv.API)


def test_a_search_within_arxivs_pace_names_arxiv_late_and_not_failed(upstream, aws, env):
    # Given every source answers, and arXiv's shared pace has no slot before this search's deadline
    env(SCHOLAR_PACE_SCALE="1")
    route_all(upstream)
    aws.dynamodb.put_item(TableName=aws.cache_table, Item={
        "pk": {"S": f"pace#{arxiv.API}"}, "next_at": {"N": repr(time.time() + 3600)}})
    # When a caller searches
    result = run(search(args(query="testing software", expand=False), "alice", sets=ResultSets(Cache())))
    # Then arXiv is late (our pace), not a failed source with a 429 it never sent
    assert arxiv.API in result.sources_late
    assert [f for f in result.failed_sources if f.source == arxiv.API and f.status == 429] == []
    assert all(f.status is None for f in result.failed_sources if f.source == arxiv.API)


def test_arxivs_own_rate_exceeded_body_keeps_its_200(upstream, env):
    env(SCHOLAR_RETRY_BUDGET_S="0")
    upstream.get(ARXIV).mock(return_value=httpx.Response(200, text="Rate exceeded."))
    with pytest.raises(RateLimitedError) as caught:
        aio.run(arxiv.query({"id_list": "1605.08386"}))
    assert caught.value.status == 200
