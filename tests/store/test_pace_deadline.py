"""A paced call that could not go out before the gateway's deadline is refused at once (and queued where it may)."""

from __future__ import annotations

import time

import pytest

from scholar.core import aio
from scholar.core.errors import RateLimitedError
from scholar.runtime import family
from scholar.sources.http import interval_for
from scholar.sources.registry import SOURCES
from scholar.store import limiter
from tests.papers.test_get_paper import PNAS_DOI, S2_PNAS, TRIVIAL_MACHINE, invoke_papers


def test_s2_is_paced_at_its_published_one_request_per_second_with_or_without_a_key(env):
    env(SCHOLAR_PACE_SCALE="1", SCHOLAR_S2_API_KEY=None)
    assert interval_for("s2") == 1.0
    env(SCHOLAR_S2_API_KEY="k")
    assert interval_for("s2") == SOURCES["s2"].keyed_interval_s == 1.0


def test_a_slot_beyond_the_deadline_is_refused_at_once_with_the_wait_as_retry_after(env, monkeypatch):
    env(SCHOLAR_CACHE_TABLE=None)
    source = "test-deadline-refused"
    limiter._local_next[source] = time.time() + 60  # sixty seconds of callers ahead of us
    slept: list[float] = []

    async def fake_sleep(seconds: float) -> None:
        slept.append(seconds)

    monkeypatch.setattr(limiter.asyncio, "sleep", fake_sleep)  # "at once" read from the code, not the clock

    async def call() -> None:
        with limiter.answer_within(5):
            await limiter.pace(source, 1.0)

    with pytest.raises(RateLimitedError) as caught:
        aio.run(call())
    assert slept == []  # refused, not slept on
    assert caught.value.reason == "paced_past_deadline"
    assert caught.value.retry_after_s > 55


def test_without_a_deadline_the_same_slot_is_waited_for(env, monkeypatch):
    env(SCHOLAR_CACHE_TABLE=None)
    source = "test-deadline-none"
    limiter._local_next[source] = time.time() + 60
    slept: list[float] = []

    async def fake_sleep(seconds: float) -> None:
        slept.append(seconds)

    monkeypatch.setattr(limiter.asyncio, "sleep", fake_sleep)
    aio.run(limiter.pace(source, 1.0))
    assert slept and slept[0] > 55


def test_an_s2_call_behind_a_long_queue_answers_with_a_task_before_the_gateway_deadline(aws, env, upstream,
                                                                                         lambda_context):
    # Given S2's shared pace is booked far beyond the inline deadline by other callers
    sfn = aws.client("stepfunctions")
    machine = sfn.create_state_machine(
        name="scholar-retry", definition=TRIVIAL_MACHINE, roleArn="arn:aws:iam::123456789012:role/scholar-retry"
    )["stateMachineArn"]
    env(SCHOLAR_RETRY_STATE_MACHINE_ARN=machine, SCHOLAR_PACE_SCALE="1")
    route = upstream.get(S2_PNAS).respond(200, json={"paperId": "x"})
    aws.dynamodb.put_item(TableName=aws.cache_table, Item={
        "pk": {"S": "pace#s2"}, "next_at": {"N": repr(time.time() + 10 * family.INLINE_DEADLINE_S)}})
    # When a caller asks get_paper
    started = time.monotonic()
    outcome = invoke_papers("get_paper", {"identifier": PNAS_DOI}, lambda_context)
    # Then it gets a queued task at once, and S2 was not asked
    assert time.monotonic() - started < family.INLINE_DEADLINE_S
    assert outcome["ok"] is True and outcome["result"]["queued"] is True
    assert route.call_count == 0


def test_a_refused_slot_is_not_reserved_so_the_next_caller_without_a_deadline_takes_it(env):
    env(SCHOLAR_CACHE_TABLE=None)
    source = "test-deadline-free"
    limiter._local_next[source] = time.time() + 3  # the next slot is three seconds away

    async def within_one_second() -> None:
        with limiter.answer_within(1):
            await limiter.pace(source, 3.0)

    booked = limiter._local_next[source]
    with pytest.raises(RateLimitedError):
        aio.run(within_one_second())
    # The same slot: the refusal kept none (compared as stored, not as a wait that shrinks while a loaded machine runs)
    assert limiter._local_next[source] == booked


def test_the_shared_pace_item_refuses_a_slot_past_the_deadline_without_moving(aws):
    source = "test-deadline-shared"
    next_at = time.time() + 30
    item = {"pk": {"S": f"pace#{source}"}, "next_at": {"N": repr(next_at)}}
    aws.dynamodb.put_item(TableName=aws.cache_table, Item=item)

    async def within_five_seconds() -> None:
        with limiter.answer_within(5):
            await limiter.pace(source, 1.0)

    with pytest.raises(RateLimitedError) as caught:
        aio.run(within_five_seconds())
    assert caught.value.reason == limiter.PACED_PAST_DEADLINE and caught.value.retry_after_s > 25
    item = aws.dynamodb.get_item(TableName=aws.cache_table, Key={"pk": {"S": f"pace#{source}"}})["Item"]
    assert float(item["next_at"]["N"]) == pytest.approx(next_at)


def test_under_a_deadline_a_slot_is_refused_when_the_source_could_not_answer_before_it(env):
    env(SCHOLAR_CACHE_TABLE=None)
    source = "test-deadline-margin"
    limiter._local_next[source] = time.time() + 1  # free in one second, but the source takes two to answer

    async def call() -> None:
        with limiter.answer_within(2):
            await limiter.pace(source, 1.0, margin_s=2.0)

    with pytest.raises(RateLimitedError):
        aio.run(call())
