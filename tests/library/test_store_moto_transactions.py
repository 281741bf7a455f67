"""scholar.local.moto_dynamodb: moto's transactions made all-or-nothing without copying tables."""

from __future__ import annotations

import pytest
from botocore.exceptions import ClientError


def _key(sk: str) -> dict:
    return {"pk": {"S": "alice"}, "sk": {"S": sk}}


def test_a_transaction_with_one_false_condition_applies_none_of_its_actions(aws, library_table):
    aws.dynamodb.put_item(TableName=library_table, Item={**_key("b"), "v": {"N": "1"}})
    actions = [
        {"Put": {"TableName": library_table, "Item": {**_key("a"), "v": {"N": "1"}}}},
        {"Update": {"TableName": library_table, "Key": _key("b"), "UpdateExpression": "SET v = :two",
                    "ConditionExpression": "v = :zero",
                    "ExpressionAttributeValues": {":two": {"N": "2"}, ":zero": {"N": "0"}}}},
    ]
    with pytest.raises(ClientError) as caught:
        aws.dynamodb.transact_write_items(TransactItems=actions)
    reasons = [r["Code"] for r in caught.value.response["CancellationReasons"]]
    assert reasons == ["None", "ConditionalCheckFailed"]
    assert "Item" not in aws.dynamodb.get_item(TableName=library_table, Key=_key("a"))
    assert aws.dynamodb.get_item(TableName=library_table, Key=_key("b"))["Item"]["v"] == {"N": "1"}


def test_a_transaction_whose_conditions_hold_applies_every_action(aws, library_table):
    aws.dynamodb.put_item(TableName=library_table, Item={**_key("b"), "v": {"N": "1"}})
    aws.dynamodb.transact_write_items(TransactItems=[
        {"Put": {"TableName": library_table, "Item": {**_key("a"), "v": {"N": "1"}},
                 "ConditionExpression": "attribute_not_exists(sk)"}},
        {"Delete": {"TableName": library_table, "Key": _key("b"), "ConditionExpression": "v = :one",
                    "ExpressionAttributeValues": {":one": {"N": "1"}}}},
    ])
    assert "Item" in aws.dynamodb.get_item(TableName=library_table, Key=_key("a"))
    assert "Item" not in aws.dynamodb.get_item(TableName=library_table, Key=_key("b"))


def test_two_actions_on_one_item_are_refused_as_dynamodb_does(aws, library_table):
    put = {"Put": {"TableName": library_table, "Item": {**_key("a"), "v": {"N": "1"}}}}
    with pytest.raises(ClientError):
        aws.dynamodb.transact_write_items(TransactItems=[put, put])
