"""The owner's named API keys (scholar.store.owner_keys) on both backends: hashed, one per name, revocable."""

from __future__ import annotations

import pytest

from scholar.core.errors import INVALID_ARGUMENT, NOT_FOUND, ScholarError
from scholar.store.owner_keys import OwnerKeyStore

pytestmark = pytest.mark.usefixtures("auth_table")


def test_a_key_made_for_a_name_is_known_by_its_value_and_only_its_hash_is_stored(aws):
    store = OwnerKeyStore()
    value = store.add("lab-alice")
    assert store.name_for(value) == "lab-alice"
    assert store.name_for(value + "x") is None
    assert store.names() == ["lab-alice"]
    table = store._required()
    rows = [aws.dynamodb.get_item(TableName=table, Key={"pk": {"S": "keys"}, "sk": {"S": "name#lab-alice"}})["Item"]]
    assert value not in str(rows)


def test_a_name_is_taken_once_and_a_bad_name_is_refused_naming_the_field(aws):
    store = OwnerKeyStore()
    store.add("bob")
    for name in ("bob", "Bad Name", ""):
        with pytest.raises(ScholarError) as caught:
            store.add(name)
        assert (caught.value.code, caught.value.field) == (INVALID_ARGUMENT, "name")
    assert store.names() == ["bob"]


def test_a_removed_key_is_refused_and_removing_an_unknown_name_is_not_found(aws):
    store = OwnerKeyStore()
    value = store.add("carol")
    store.remove("carol")
    assert store.name_for(value) is None and store.names() == []
    with pytest.raises(ScholarError) as caught:
        store.remove("carol")
    assert caught.value.code == NOT_FOUND
