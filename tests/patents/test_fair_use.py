"""OPS fair use: throttling headers pace the next requests; 403 fair use, black lights and quotas are typed."""

from __future__ import annotations

import pytest

from scholar.core.errors import RATE_LIMITED, UNAVAILABLE, ScholarError
from scholar.sources import epo_ops, epo_ops_fairuse
from scholar.sources.epo_ops_fairuse import interval_s, parse_throttling
from scholar.store.cache import forget_memory
from tests.patents.helpers import OPS, RECORDED_THROTTLING, XML, ops_fixture, run

BIBLIO = f"{OPS}/published-data/publication/docdb/EP.2400812.A1/biblio"
FAIR_USE_403 = "error_403_fair_use_rejected.xml"


async def biblio() -> bytes:
    response = await epo_ops.call("GET", epo_ops.publication("docdb", "EP.2400812.A1", "biblio"),
                                  service="retrieval", what="biblio")
    return response.content


def test_the_recorded_header_gives_each_service_its_light_and_rate():
    throttling = parse_throttling(RECORDED_THROTTLING)
    assert throttling.state == "idle"
    assert throttling.services["search"].colour == "green" and throttling.services["search"].per_minute == 30
    assert interval_s(throttling, "search") == pytest.approx(2.0)
    assert interval_s(throttling, "retrieval") == pytest.approx(0.3)


def test_yellow_red_and_a_busy_system_slow_a_service_down_and_black_stops_it():
    green = interval_s(parse_throttling("idle (search=green:30)"), "search")
    yellow = interval_s(parse_throttling("idle (search=yellow:30)"), "search")
    red_busy = interval_s(parse_throttling("busy (search=red:30)"), "search")
    assert green < yellow < red_busy
    assert interval_s(parse_throttling("overloaded (search=black:0)"), "search") == epo_ops_fairuse.BLACK_PAUSE_S
    assert parse_throttling(None) is None and parse_throttling("garbage") is None


def test_an_answer_with_a_black_light_is_kept_and_only_the_next_request_is_refused(ops):
    route = ops.get(BIBLIO).respond(200, content=ops_fixture("biblio_EP2400812A1_docdb.xml"), headers={
        **XML, "X-Throttling-Control": "overloaded (retrieval=black:0, search=green:30)"})

    assert run(biblio).startswith(b"<?xml")  # the answer that succeeded is not thrown away
    with pytest.raises(ScholarError) as caught:
        run(biblio)

    assert caught.value.code == RATE_LIMITED and caught.value.retry_after_s > 0
    assert route.call_count == 1  # refused before asking OPS again


def test_a_403_fair_use_rejection_over_the_hourly_quota_is_rate_limited_until_the_hour_ends(ops):
    ops.get(BIBLIO).respond(403, content=ops_fixture(FAIR_USE_403), headers={
        "Content-Type": "text/xml", "X-Rejection-Reason": "IndividualQuotaPerHour"})
    with pytest.raises(ScholarError) as caught:
        run(biblio)
    assert caught.value.code == RATE_LIMITED
    assert 0 < caught.value.retry_after_s <= 3600
    assert caught.value.reason == "fair_use" and caught.value.hint


def test_the_recorded_fair_use_body_alone_is_rate_limited(ops):
    ops.get(BIBLIO).respond(403, content=ops_fixture(FAIR_USE_403), headers={"Content-Type": "text/xml"})
    with pytest.raises(ScholarError) as caught:
        run(biblio)
    assert caught.value.code == RATE_LIMITED and caught.value.retry_after_s is not None


def test_the_weekly_quota_used_up_is_unavailable_saying_so(ops):
    ops.get(BIBLIO).respond(403, content=ops_fixture(FAIR_USE_403), headers={
        "Content-Type": "text/xml", "X-Rejection-Reason": "RegisteredQuotaPerWeek"})
    with pytest.raises(ScholarError) as caught:
        run(biblio)
    assert caught.value.code == UNAVAILABLE and caught.value.reason == "weekly_quota_exhausted"


def test_the_recorded_404_fault_is_not_found(ops):
    ops.get(BIBLIO).respond(404, content=ops_fixture("error_404_fault_entity_not_found.xml"), headers={
        **XML, "X-Throttling-Control": RECORDED_THROTTLING})
    with pytest.raises(ScholarError) as caught:
        run(biblio)
    assert caught.value.code == "not_found"


def test_observed_lights_are_shared_through_the_cache(aws, ops):
    ops.get(BIBLIO).respond(200, content=b"<x/>", headers={"X-Throttling-Control": "busy (retrieval=yellow:100)"})
    run(biblio)
    epo_ops_fairuse.forget()  # another instance: nothing in its memory, the same CacheTable
    forget_memory()
    known = epo_ops_fairuse.known()
    assert known is not None and known.services["retrieval"].colour == "yellow"


def test_pacing_waits_for_the_services_slot(ops, env, monkeypatch):
    env.set(SCHOLAR_PACE_SCALE="1")
    waits: list[tuple[str, float]] = []

    async def fake_pace(source: str, interval: float, *, margin_s: float = 0.0) -> None:
        waits.append((source, interval))

    monkeypatch.setattr(epo_ops_fairuse, "pace", fake_pace)
    monkeypatch.setattr("scholar.sources.http.pace", fake_pace)
    ops.get(BIBLIO).respond(200, content=b"<x/>", headers={"X-Throttling-Control": RECORDED_THROTTLING})
    run(biblio)
    run(biblio)
    assert ("epo_ops:retrieval", pytest.approx(0.3)) in waits
