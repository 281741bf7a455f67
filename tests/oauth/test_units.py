"""The pieces below the endpoints: scopes per tool, the family-status cache, cache lifetimes, the key registry."""

from __future__ import annotations

import anyio
import boto3
import httpx
import moto
import pytest

from scholar.families import get_tool
from scholar.gateway.auth.cimd import DEFAULT_CACHE_S, MAX_CACHE_S, cache_seconds
from scholar.gateway.bearer import revocation, scopes


@pytest.mark.parametrize(("tool", "scope"), [
    ("search_papers", scopes.READ), ("library_list", scopes.READ), ("library_add", scopes.WRITE),
    ("library_remove", scopes.WRITE), ("library_import", scopes.WRITE), ("download_paper", scopes.WRITE),
    ("fetch_pdf_by_url", scopes.WRITE),
])
def test_tools_that_change_anything_need_the_write_scope(tool, scope):
    assert scopes.needed(get_tool(tool)) == scope


def test_read_is_implied_by_any_grant():
    assert scopes.granted(scopes.WRITE) == {scopes.READ, scopes.WRITE}
    assert scopes.granted("") == {scopes.READ}


class CountingStore:
    def __init__(self, status: str | None) -> None:
        self.status = status
        self.reads = 0

    def family_status(self, fid: str) -> str | None:
        self.reads += 1
        return self.status


def test_a_familys_status_is_read_at_most_once_per_check_interval(env):
    env.set(SCHOLAR_OAUTH_REVOCATION_CHECK_S="60")
    revocation.forget()
    store = CountingStore("active")
    try:
        answers = [anyio.run(revocation.family_active, "f1", store) for _ in range(5)]
        assert answers == [True] * 5 and store.reads == 1
        store.status = "revoked"
        env.set(SCHOLAR_OAUTH_REVOCATION_CHECK_S="0")
        assert anyio.run(revocation.family_active, "f1", store) is False and store.reads == 2
    finally:
        revocation.forget()


def test_an_unknown_family_is_not_active():
    revocation.forget()
    try:
        assert anyio.run(revocation.family_active, "missing", CountingStore(None)) is False
    finally:
        revocation.forget()


@pytest.mark.parametrize(("headers", "seconds"), [
    ({"cache-control": "max-age=120"}, 120), ({"cache-control": "public, s-maxage=90"}, 90),
    ({"cache-control": "no-store"}, 0), ({"cache-control": "no-cache, max-age=600"}, 0),
    ({"cache-control": f"max-age={10 * MAX_CACHE_S}"}, MAX_CACHE_S), ({}, DEFAULT_CACHE_S),
    ({"expires": "Thu, 01 Jan 1970 00:00:00 GMT"}, 0),
])
def test_a_metadata_document_is_kept_as_long_as_its_cache_headers_allow(headers, seconds):
    assert cache_seconds(httpx.Headers(headers), now=1_800_000_000) == seconds


def test_the_gateway_knows_the_usage_plans_keys_by_value_and_nothing_else(env):
    from scholar.core.backend import ENVIRONMENT, using
    from scholar.store import api_keys, aws

    env.set(AWS_ACCESS_KEY_ID="testing", AWS_SECRET_ACCESS_KEY="testing", AWS_DEFAULT_REGION="us-east-1",
            SCHOLAR_BACKEND="aws")  # whatever an earlier test of this worker left: API Gateway is the AWS backend's
    env.delete("AWS_ENDPOINT_URL")
    aws.reset_clients()
    api_keys.forget()
    try:
        # The environment's backend, whatever backend an earlier test of this worker left current.
        with using(ENVIRONMENT), moto.mock_aws():
            client = boto3.client("apigateway", region_name="us-east-1")
            plan = client.create_usage_plan(name="plan")["id"]
            member = client.create_api_key(name="alice", enabled=True, value="alice-key-0123456789abcdef")
            client.create_api_key(name="stranger", enabled=True, value="stranger-key-0123456789abcdef")
            client.create_usage_plan_key(usagePlanId=plan, keyId=member["id"], keyType="API_KEY")
            assert api_keys.key_id_for(plan, "alice-key-0123456789abcdef") == member["id"]
            assert api_keys.key_id_for(plan, "stranger-key-0123456789abcdef") is None  # not in this stack's plan
    finally:
        api_keys.forget()
        aws.reset_clients()
