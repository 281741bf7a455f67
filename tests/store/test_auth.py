"""The AuthTable (scholar.store.auth, AuthMode=OAuth) on both backends: clients, single-use codes, refresh families.

On one machine OAuth keeps its clients, codes and refresh families in the same store as everything else; these are
the conditions the authorization server relies on (a code used once, a rotated refresh token whose reuse is seen).
"""

from __future__ import annotations

import time

import pytest

from scholar.core import aio
from scholar.store.auth import AuthStore, ClientRecord, CodeRecord, FamilyRecord, token_hash

pytestmark = pytest.mark.usefixtures("auth_table")
LATER = int(time.time()) + 86_400  # in the future however long the suite runs before this module


def code_record(expires_at: int = LATER) -> CodeRecord:
    return CodeRecord(client_id="c1", redirect_uri="http://127.0.0.1:9/cb", code_challenge="x" * 43, scope="mcp",
                      resource="http://127.0.0.1:3000/mcp", principal="oidc:alice", family="f1", expires_at=expires_at)


def test_a_registered_client_is_read_back_and_an_unknown_one_is_none():
    store = AuthStore()
    record = ClientRecord(client_id="c1", redirect_uris=["http://127.0.0.1:9/cb"], issued_at=1, expires_at=LATER)
    aio.run(store.put_client(record))
    assert aio.run(store.get_client("c1")) == record
    assert aio.run(store.get_client("c2")) is None


def test_a_code_is_redeemed_once_and_the_second_use_names_its_family():
    store = AuthStore()
    aio.run(store.put_code("the-code", code_record()))
    assert aio.run(store.redeem_code("the-code")) == (True, code_record())
    assert aio.run(store.redeem_code("the-code")) == (False, code_record())
    assert aio.run(store.redeem_code("never-issued")) == (False, None)


def test_an_expired_code_cannot_be_redeemed():
    store = AuthStore()
    aio.run(store.put_code("old-code", code_record(expires_at=int(time.time()) - 1)))
    assert aio.run(store.redeem_code("old-code")) == (False, None)


def test_a_refresh_token_rotates_once_its_reuse_is_seen_and_a_revoked_family_stays_revoked():
    store = AuthStore()
    family = FamilyRecord(fid="f1", client_id="c1", principal="oidc:alice", scope="mcp", resource="r",
                          current=token_hash("t0"), created_at=1, expires_at=LATER)
    aio.run(store.put_family(family))
    assert aio.run(store.rotate_refresh("f1", "t0", "t1", LATER)).outcome == "rotated"
    assert aio.run(store.rotate_refresh("f1", "t0", "t2", LATER)).outcome == "reused"
    assert aio.run(store.rotate_refresh("f1", "stranger", "t3", LATER)).outcome == "unknown"
    aio.run(store.revoke_family("f1"))
    assert store.family_status("f1") == "revoked"
    assert aio.run(store.rotate_refresh("f1", "t1", "t4", LATER)).outcome == "revoked"
