"""DynamoDB's expression subset the local backend reads (scholar.store.local.expressions), against items."""

from __future__ import annotations

import pytest

from scholar.store.local.expressions import condition, projection, update

ITEM = {"pk": {"S": "alice"}, "sk": {"S": "item#abc"}, "rev": {"N": "3"}, "tags": {"L": [{"S": "ml"}]},
        "status": {"S": "running"}, "year": {"N": "2021"}}


@pytest.mark.parametrize(("text", "values", "expected"), [
    ("attribute_exists(pk) AND rev = :r", {":r": {"N": "3"}}, True),
    ("attribute_not_exists(sk) OR rev = :r", {":r": {"N": "4"}}, False),
    ("begins_with(sk, :p)", {":p": {"S": "item#"}}, True),
    ("contains(tags, :t)", {":t": {"S": "ml"}}, True),
    ("year BETWEEN :a AND :b", {":a": {"N": "2020"}, ":b": {"N": "2022"}}, True),
    ("#s IN (:a, :b)", {":a": {"S": "pending"}, ":b": {"S": "running"}}, True),
    ("NOT (rev < :r)", {":r": {"N": "10"}}, False),
    ("rev = :r", {":r": {"S": "3"}}, False),  # a string is never equal to a number
    ("missing <> :r", {":r": {"N": "1"}}, True),
])
def test_a_condition_holds_as_dynamodb_evaluates_it(text, values, expected):
    assert condition(text, {"#s": "status"}, values)(ITEM) is expected


def test_an_update_sets_adds_and_keeps_what_exists():
    new = update("SET #n = :name, created = if_not_exists(created, :now), rev = rev + :one ADD hits :one",
                 {"#n": "name"}, {":name": {"S": "x"}, ":now": {"S": "t0"}, ":one": {"N": "1"}}, ITEM)
    assert (new["name"], new["created"], new["rev"], new["hits"]) == ({"S": "x"}, {"S": "t0"}, {"N": "4"}, {"N": "1"})
    assert update("SET created = if_not_exists(created, :now)", None, {":now": {"S": "t1"}}, new)["created"] == \
        {"S": "t0"}
    assert "rev" in ITEM and ITEM["rev"] == {"N": "3"}  # the item read is left as it was


def test_a_projection_keeps_the_attributes_named():
    assert projection("#s, year", {"#s": "status"})(ITEM) == {"status": {"S": "running"}, "year": {"N": "2021"}}


@pytest.mark.parametrize("text", ["size(tags) > :n", "rev = = :n", "SET"])
def test_what_is_outside_the_subset_is_refused_not_passed(text):
    with pytest.raises((ValueError, KeyError)):
        condition(text, None, {":n": {"N": "1"}})(ITEM)
