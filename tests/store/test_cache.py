"""The CacheTable (scholar.store.cache): namespaces, TTL filtering, S3 spill, batch reads."""

import os
import time

import pytest

from scholar.store.cache import NAMESPACE_TTL, SPILL_BYTES, Cache, forget_memory


def raw_item(aws, pk: str) -> dict:
    return aws.dynamodb.get_item(TableName=aws.cache_table, Key={"pk": {"S": pk}})["Item"]


def test_a_value_put_is_read_back(aws):
    cache = Cache()
    value = {"title": "Développer", "year": 2014, "ids": [1, 2], "none": None}
    cache.put("record", "s2:abc", value)
    assert cache.get("record", "s2:abc") == value


def test_a_missing_key_reads_as_none(aws):
    assert Cache().get("record", "s2:missing") is None


def test_namespaces_do_not_share_keys(aws):
    cache = Cache()
    cache.put("record", "k", 1)
    assert cache.get("search", "k") is None


def test_the_item_is_stored_under_namespace_and_key(aws):
    Cache().put("alias", "doi:10.1/x", "s2:abc")
    assert raw_item(aws, "alias#doi:10.1/x")["pk"]["S"] == "alias#doi:10.1/x"


@pytest.mark.parametrize("namespace", [n for n, ttl in NAMESPACE_TTL.items() if ttl is not None])
def test_a_namespace_with_a_lifetime_sets_expires_at(aws, namespace):
    before = int(time.time())
    Cache().put(namespace, "k", True)
    expires = int(raw_item(aws, f"{namespace}#k")["expires_at"]["N"])
    assert before + NAMESPACE_TTL[namespace] <= expires <= int(time.time()) + NAMESPACE_TTL[namespace]


def test_aliases_never_expire(aws):
    Cache().put("alias", "k", "v")
    assert "expires_at" not in raw_item(aws, "alias#k")


def test_an_explicit_ttl_overrides_the_namespace_lifetime(aws):
    Cache().put("record", "k", 1, ttl_s=60)
    expires = int(raw_item(aws, "record#k")["expires_at"]["N"])
    assert expires <= int(time.time()) + 60


def test_an_expired_item_reads_as_none(aws):
    cache = Cache()
    cache.put("record", "old", {"x": 1})
    # DynamoDB deletes expired items lazily (moto never does): the item is still there, the read must skip it.
    aws.dynamodb.update_item(
        TableName=aws.cache_table,
        Key={"pk": {"S": "record#old"}},
        UpdateExpression="SET expires_at = :past",
        ExpressionAttributeValues={":past": {"N": str(int(time.time()) - 5)}},
    )
    forget_memory()  # read as another instance would: this one still holds its short-lived copy
    assert cache.get("record", "old") is None
    assert cache.get_many("record", ["old"]) == {}


def test_a_warm_instance_answers_a_repeated_read_from_memory_until_it_forgets(aws, monkeypatch):
    writer, reader = Cache(), Cache()
    writer.put("record", "hot", {"x": 1})
    calls = []
    original = reader.client.get_item
    monkeypatch.setattr(reader.client, "get_item", lambda **kw: calls.append(kw) or original(**kw))

    first, second = reader.get("record", "hot"), reader.get("record", "hot")
    first["x"] = 2  # a reader's copy is its own
    forget_memory()
    third = reader.get("record", "hot")

    assert second == {"x": 1} and third == {"x": 1}
    assert len(calls) == 1  # only the read after forgetting went to DynamoDB


def test_a_value_over_the_spill_size_goes_to_s3_and_reads_back(aws):
    cache = Cache()
    big = {"blob": os.urandom(SPILL_BYTES).hex()}  # random hex does not compress below the limit
    cache.put("result", "big", big)
    item = raw_item(aws, "result#big")
    assert "v" not in item
    key = item["s3_key"]["S"]
    assert key.startswith("cache/")
    assert aws.s3.head_object(Bucket=aws.bucket, Key=key)["ContentLength"] > SPILL_BYTES
    assert cache.get("result", "big") == big
    assert cache.get_many("result", ["big"]) == {"big": big}


def test_a_small_value_stays_inline(aws):
    Cache().put("result", "small", {"a": "b" * 1000})
    assert "v" in raw_item(aws, "result#small")


def test_get_many_reads_more_keys_than_one_batch(aws):
    cache = Cache()
    keys = [f"k{i:03d}" for i in range(150)]
    for i, key in enumerate(keys):
        if i % 3:  # a third are missing
            cache.put("record", key, {"i": i})
    found = cache.get_many("record", [*keys, "k001"])  # duplicates are fine
    assert found == {key: {"i": i} for i, key in enumerate(keys) if i % 3}


def test_get_many_with_no_keys_is_empty(aws):
    assert Cache().get_many("record", []) == {}


def test_delete_removes_a_value(aws):
    cache = Cache()
    cache.put("record", "k", 1)
    cache.delete("record", "k")
    assert cache.get("record", "k") is None


def test_an_unknown_namespace_is_refused(aws):
    cache = Cache()
    with pytest.raises(ValueError):
        cache.put("nonsense", "k", 1)
    with pytest.raises(ValueError):
        cache.get("nonsense", "k")
    with pytest.raises(ValueError):
        cache.get_many("nonsense", ["k"])


def test_without_a_table_get_is_none_and_put_is_a_no_op(env):
    env.delete("SCHOLAR_CACHE_TABLE")
    cache = Cache()
    cache.put("record", "k", 1)  # no AWS call is made: there is no moto here and no credentials needed
    assert cache.get("record", "k") is None
    assert cache.get_many("record", ["k"]) == {}
    cache.delete("record", "k")


def test_get_first_answers_from_memory_before_asking_the_table_for_an_earlier_entry(aws, monkeypatch):
    cache = Cache()
    cache.put("negative", "crossref:10.1/x", True)  # remembered in memory; the record was never stored
    calls = []
    original = cache.client.get_item
    monkeypatch.setattr(cache.client, "get_item", lambda **kw: calls.append(kw) or original(**kw))
    assert cache.get_first(("record", "crossref:10.1/x"), ("negative", "crossref:10.1/x")) == ("negative", True)
    assert calls == []


def test_get_first_reads_the_table_in_order_when_memory_knows_none(aws):
    cache = Cache()
    cache.put("negative", "k", True)
    cache.put("record", "k", {"x": 1})
    forget_memory()
    assert cache.get_first(("record", "k"), ("negative", "k")) == ("record", {"x": 1})
    assert cache.get_first(("record", "absent"), ("negative", "absent")) is None


def test_put_many_writes_more_values_than_one_batch_with_the_namespace_lifetime(aws):
    before = int(time.time())
    values = {f"doi:10.1/{i}": {"title": f"paper {i}"} for i in range(60)}
    Cache().put_many("recent", values)
    forget_memory()
    assert Cache().get_many("recent", values) == values
    expires = int(raw_item(aws, "recent#doi:10.1/0")["expires_at"]["N"])
    assert before + NAMESPACE_TTL["recent"] <= expires <= int(time.time()) + NAMESPACE_TTL["recent"]


def test_put_many_spills_a_value_over_the_spill_size_alone(aws):
    big = {"text": os.urandom(SPILL_BYTES).hex()}
    Cache().put_many("recent", {"big": big, "small": 1})
    forget_memory()
    assert Cache().get("recent", "big") == big and Cache().get("recent", "small") == 1
    assert "s3_key" in raw_item(aws, "recent#big")
