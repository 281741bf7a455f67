"""The UsageTable in moto: records written in one batch and read back by source and time window."""

from __future__ import annotations

import time

from scholar.services.health.history import close_hours, last_call_at, windows
from scholar.services.health.records import record_of, rows_of
from scholar.store.usage import RETENTION_S, UsageStore, forget_markers, hour_of
from tests.health.conftest import USAGE_TABLE
from tests.health.synthetic import synthetic_call, synthetic_history

NOW = time.time()
# Half past, two hours ago (finished hours close a while after their end):
# synthetic calls a few minutes apart never straddle an hour boundary.
MID_HOUR = NOW // 3600 * 3600 - 5400


def put(store: UsageStore, records) -> None:
    store.put(row for record in records for row in rows_of(record))


def test_a_record_is_stored_under_its_source_and_hour_with_a_30_day_expiry(usage, aws):
    record = synthetic_call("s2", NOW - 10)
    put(usage, [record])
    items = aws.dynamodb.scan(TableName=USAGE_TABLE)["Items"]
    keys = sorted(item["pk"]["S"] for item in items)
    assert keys == ["hours#s2", f"s2#{hour_of(NOW - 10)}"]
    row = next(i for i in items if i["pk"]["S"].startswith("s2#"))
    assert row["sk"]["S"] == f"{int((NOW - 10) * 1000):013d}#{record.request}"
    assert int(row["expires_at"]["N"]) == int(NOW - 10) + RETENTION_S


def test_records_read_back_are_the_ones_written_in_the_window(usage):
    inside = [synthetic_call("crossref", NOW - 300 * i) for i in range(1, 5)]
    outside = [synthetic_call("crossref", NOW - 9000), synthetic_call("openalex", NOW - 60)]
    put(usage, inside + outside)
    back = [record_of(row) for row in usage.rows("crossref", NOW - 3600, NOW)]
    assert sorted(r.request for r in back) == sorted(r.request for r in inside)
    assert back[0].sources[0] == inside[0].sources[0]
    assert usage.active_hours("crossref", NOW - 20000, NOW) == sorted({hour_of(r.at) for r in inside + outside[:1]})


def test_a_call_that_asked_three_sources_is_one_batch_write_of_three_rows_and_their_markers(usage, aws, monkeypatch):
    from scholar.services.health.records import SourceStats, UsageRecord

    record = UsageRecord(
        at=NOW,
        request="abc",
        tool="batch_resolve",
        family="papers",
        duration_ms=40,
        outcome="ok",
        principal="p",
        sources=[SourceStats(source=s, requests=1) for s in ("s2", "openalex", "crossref")],
    )
    calls = []
    real = usage.client.batch_write_item
    monkeypatch.setattr(usage.client, "batch_write_item", lambda **kw: calls.append(kw) or real(**kw))
    put(usage, [record])
    (batch,) = calls
    assert len(batch["RequestItems"][USAGE_TABLE]) == 6


def test_expired_items_are_not_read(usage, aws):
    put(usage, [synthetic_call("s2", NOW - 60)])
    for item in aws.dynamodb.scan(TableName=USAGE_TABLE)["Items"]:
        item["expires_at"] = {"N": str(int(NOW) - 1)}
        aws.dynamodb.put_item(TableName=USAGE_TABLE, Item=item)
    assert usage.rows("s2", NOW - 3600, NOW) == []
    assert usage.active_hours("s2", NOW - 3600, NOW) == []


def test_finished_hours_are_rolled_up_once_and_read_from_the_rollup(usage, aws):
    history = synthetic_history("openalex", NOW, hours=6, per_hour=3, start_s=NOW - MID_HOUR)
    put(usage, history)
    before = windows("openalex", usage, NOW)
    assert close_hours("openalex", usage, NOW) == 6
    assert close_hours("openalex", usage, NOW) == 0
    # Rows of rolled-up hours are no longer needed to read the week: delete them and read again.
    for item in aws.dynamodb.scan(TableName=USAGE_TABLE)["Items"]:
        if item["pk"]["S"].startswith("openalex#"):
            aws.dynamodb.delete_item(TableName=USAGE_TABLE, Key={"pk": item["pk"], "sk": item["sk"]})
    after = windows("openalex", usage, NOW)
    assert after.week == before.week and after.week.calls == 18
    assert after.history.calls == 18


def test_the_current_hour_is_not_rolled_up(usage):
    put(usage, [synthetic_call("s2", NOW - 30)])
    assert close_hours("s2", usage, NOW) == 0


def test_last_call_at_can_ignore_the_probe_s_own_calls(usage):
    put(usage, [synthetic_call("nist", NOW - 100, tool="probe", family="probe")])
    assert last_call_at("nist", usage, NOW - 3600, NOW) is not None
    assert last_call_at("nist", usage, NOW - 3600, NOW, real_only=True) is None


def test_without_a_table_nothing_is_written_or_read(env):
    env.set(SCHOLAR_USAGE_TABLE=None)
    store = UsageStore()
    store.put(rows_of(synthetic_call("s2", NOW)))
    assert store.rows("s2", NOW - 60, NOW + 60) == []


def test_a_warm_function_writes_an_hour_s_marker_once(usage, aws):
    hour_start_at = NOW - NOW % 3600
    put(usage, [synthetic_call("w3c", hour_start_at + 1)])
    put(usage, [synthetic_call("w3c", hour_start_at + 2)])
    markers = aws.dynamodb.query(TableName=USAGE_TABLE, KeyConditionExpression="pk = :pk",
                                 ExpressionAttributeValues={":pk": {"S": "hours#w3c"}})["Items"]
    assert len(markers) == 1
    # A marker the table lost (a test, a restore) is written again after the process forgets what it wrote.
    aws.dynamodb.delete_item(TableName=USAGE_TABLE, Key={"pk": markers[0]["pk"], "sk": markers[0]["sk"]})
    forget_markers()
    put(usage, [synthetic_call("w3c", hour_start_at + 3)])
    assert len(usage.rows("w3c", hour_start_at, hour_start_at + 3600)) == 3
