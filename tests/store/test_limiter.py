"""The shared pace per upstream (scholar.store.limiter): one slot per interval across callers.

The limiter's clock is frozen here (``clock`` fixture), so waits are exact whatever the machine's load.
"""

import threading
import time
import types
import uuid

import pytest

from scholar.core import aio
from scholar.store import aws as aws_clients
from scholar.store import limiter

NOW = 1_800_000_000.0


@pytest.fixture
def clock(monkeypatch):
    """Freeze the limiter's clock at NOW; ``clock.now`` may be moved by a test."""
    fake = types.SimpleNamespace(now=NOW)
    monkeypatch.setattr(limiter, "time", types.SimpleNamespace(time=lambda: fake.now))
    return fake


def fresh_source() -> str:
    return f"test-{uuid.uuid4().hex[:8]}"


def pace_item(aws, source: str) -> dict:
    return aws.dynamodb.get_item(TableName=aws.cache_table, Key={"pk": {"S": f"pace#{source}"}}).get("Item", {})


def test_two_reservations_one_second_apart_wait_zero_then_one_second(aws, clock):
    source = fresh_source()
    assert limiter.reserve(source, 1.0) == 0
    assert limiter.reserve(source, 1.0) == pytest.approx(1.0)


def test_a_busy_source_pushes_next_at_by_one_interval_per_call(aws, clock):
    source = fresh_source()
    waits = [limiter.reserve(source, 2.0) for _ in range(4)]
    assert waits == pytest.approx([0, 2, 4, 6])
    assert float(pace_item(aws, source)["next_at"]["N"]) == pytest.approx(NOW + 8)


def test_the_pace_item_lives_in_the_cache_table_with_an_expiry(aws, clock):
    source = fresh_source()
    limiter.reserve(source, 1.0)
    assert float(pace_item(aws, source)["expires_at"]["N"]) > NOW


def test_once_the_next_slot_has_passed_the_source_is_idle_again(aws, clock):
    source = fresh_source()
    limiter.reserve(source, 1.0)
    clock.now += 60
    assert limiter.reserve(source, 1.0) == 0
    assert float(pace_item(aws, source)["next_at"]["N"]) == pytest.approx(clock.now + 1.0)


def test_waits_shrink_as_time_passes(aws, clock):
    source = fresh_source()
    limiter.reserve(source, 3.0)
    limiter.reserve(source, 3.0)  # next_at is now NOW + 6
    clock.now += 4
    assert limiter.reserve(source, 3.0) == pytest.approx(2.0)


def test_concurrent_callers_never_share_a_slot(aws, clock, monkeypatch):
    # moto applies an update without a lock; DynamoDB applies each single-item update atomically.
    # Serialise moto's updates to get DynamoDB's guarantee, and let the threads interleave between them.
    client = aws_clients.dynamodb()
    update = client.update_item
    lock = threading.Lock()

    def atomic_update_item(**kwargs):
        with lock:
            return update(**kwargs)

    monkeypatch.setattr(client, "update_item", atomic_update_item)
    source = fresh_source()
    interval = 10.0
    slots: list[float] = []
    slots_lock = threading.Lock()

    def worker():
        for _ in range(5):
            wait = limiter.reserve(source, interval)
            with slots_lock:
                slots.append(NOW + wait)

    threads = [threading.Thread(target=worker) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=20)
    ordered = sorted(slots)
    assert len(ordered) == 15
    assert ordered == pytest.approx([NOW + interval * i for i in range(15)])


def test_without_a_table_the_process_spaces_calls_itself(env, clock):
    env.delete("SCHOLAR_CACHE_TABLE")
    source = fresh_source()
    waits = [limiter.reserve(source, 1.0) for _ in range(3)]
    assert waits == pytest.approx([0, 1, 2])


def test_without_a_table_concurrent_callers_never_share_a_slot(env, clock):
    env.delete("SCHOLAR_CACHE_TABLE")
    source = fresh_source()
    slots: list[float] = []

    def worker():
        for _ in range(20):
            slots.append(NOW + limiter.reserve(source, 0.5))

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=10)
    assert sorted(slots) == pytest.approx([NOW + 0.5 * i for i in range(80)])


def test_pace_with_a_zero_interval_returns_at_once_and_reserves_nothing(aws, monkeypatch):
    source = fresh_source()
    slept: list[float] = []

    async def fake_sleep(seconds: float) -> None:
        slept.append(seconds)

    monkeypatch.setattr(limiter.asyncio, "sleep", fake_sleep)  # "at once" read from the code, not the clock
    aio.run(limiter.pace(source, 0))
    assert slept == []
    assert pace_item(aws, source) == {}


def test_pace_waits_for_the_reserved_slot(env):
    env.delete("SCHOLAR_CACHE_TABLE")
    source = fresh_source()
    started = time.monotonic()
    aio.run(limiter.pace(source, 0.2))
    aio.run(limiter.pace(source, 0.2))
    assert time.monotonic() - started >= 0.15
