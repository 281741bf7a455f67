"""The hosted connect page for Notion: a one-time link for the target it was issued for, the database and token
checked before the link is spent, the token sealed for that principal and then used by a hosted library_sync;
never echoed, logged or listed. (Zotero's page: test_connect_page.py, unchanged.)"""

from __future__ import annotations

import json
import logging
from urllib.parse import parse_qs, urlsplit

import pytest
from pydantic import SecretStr

from scholar.core.errors import FORBIDDEN, INVALID_ARGUMENT
from scholar.gateway.auth.connect import FORMS, notion_database
from scholar.store.connections import ConnectionStore
from scholar.store.library.table import LibraryStore
from tests.connectors.conftest import PUBLIC
from tests.connectors.items import epmc_items
from tests.connectors.test_connect_page import KEY
from tests.connectors.test_sync_tools import call
from tests.fakes.notion import DATABASE_ID, TOKEN
from tests.fakes.zotero import PUBLIC_LIBRARY

NOTION = "/connect/notion"
ZOTERO = "/connect/zotero"
HEX = DATABASE_ID.replace("-", "")
LINK = f"https://www.notion.so/acme/Reading-list-{HEX}?v=0123456789abcdef0123456789abcdef&pvs=4"
HOSTED = {"LAMBDA_TASK_ROOT": "/var/task", "POWERTOOLS_TRACE_DISABLED": "1"}


def _link(lambda_context, principal: str, target: str) -> str:
    url = call(lambda_context, "library_connections", {"connect": target}, principal=principal)["connect_url"]
    assert url.startswith(f"{PUBLIC}/connect/{target}?t=")
    return parse_qs(urlsplit(url).query)["t"][0]


def test_a_notion_link_connects_its_own_callers_database_once_and_a_hosted_sync_uses_the_sealed_token(
        page, notion_fake, env, aws, lambda_context, caplog):
    caplog.set_level(logging.DEBUG)
    env.set(**HOSTED, SCHOLAR_NOTION_TOKEN="ntn_the0machines0own0token0nobody0may0use")
    LibraryStore("alice").put_many(epmc_items(2, "reading"))
    push = {"target": "notion", "collection": "reading"}
    missing = call(lambda_context, "library_sync", push)["error"]
    assert (missing["code"], missing["reason"]) == (FORBIDDEN, "connection_missing")
    assert "library_connections with connect: notion" in missing["recovery"]["hint"]

    token = _link(lambda_context, "alice", "notion")
    form = page.get(NOTION, params={"t": token})
    assert form.status_code == 200 and "frame-ancestors 'none'" in form.headers["content-security-policy"]
    assert "Connect your Notion database" in form.text and f'action="{NOTION}"' in form.text
    done = page.post(NOTION, data={"t": token, "library": LINK, "key": TOKEN})
    assert done.status_code == 200 and DATABASE_ID in done.text  # the id taken from the link, as Notion writes it
    library, sealed = ConnectionStore("alice").credentials("notion")
    assert (library, sealed.get_secret_value()) == (DATABASE_ID, TOKEN)
    assert ConnectionStore("bob").connection("notion") is None
    assert ConnectionStore("alice").connection("zotero") is None
    again = page.post(NOTION, data={"t": token, "library": LINK, "key": TOKEN})
    assert again.status_code == 400  # once

    pushed = call(lambda_context, "library_sync", push)
    assert (pushed["items"]["created"], pushed["library"]) == (2, DATABASE_ID)
    assert {s.headers["authorization"] for s in notion_fake.log} == {f"Bearer {TOKEN}"}
    sent = len(notion_fake.log)
    bobs = call(lambda_context, "library_sync", {"target": "notion", "direction": "pull"}, principal="bob")
    assert bobs["error"]["reason"] == "connection_missing" and len(notion_fake.log) == sent
    listed = call(lambda_context, "library_connections", {})
    assert [(c["target"], c["library"], c["has_key"]) for c in listed["connections"]] == [("notion", DATABASE_ID, True)]
    assert "connect_url" not in listed  # something is connected: a link only when asked (connect)
    stored = aws.dynamodb.scan(TableName="scholar-test-connections")["Items"]
    seen = form.text + done.text + again.text + caplog.text + json.dumps([missing, pushed, listed]) + repr(stored)
    assert TOKEN not in seen

    assert call(lambda_context, "library_connections", {"remove": "notion"})["removed"] is True
    revoked = call(lambda_context, "library_sync", push)["error"]
    assert (revoked["code"], revoked["reason"]) == (FORBIDDEN, "connection_revoked")


def test_a_link_connects_only_the_target_it_was_issued_for_and_stays_good_for_its_own(page, lambda_context):
    zotero, notion = _link(lambda_context, "alice", "zotero"), _link(lambda_context, "alice", "notion")
    assert page.post(NOTION, data={"t": zotero, "library": DATABASE_ID, "key": TOKEN}).status_code == 400
    assert page.post(ZOTERO, data={"t": notion, "library": PUBLIC_LIBRARY, "key": KEY}).status_code == 400
    store = ConnectionStore("alice")
    assert store.connections() == []
    assert page.post(ZOTERO, data={"t": zotero, "library": PUBLIC_LIBRARY, "key": KEY}).status_code == 200
    assert page.post(NOTION, data={"t": notion, "library": DATABASE_ID, "key": TOKEN}).status_code == 200
    assert {(c.target, c.library) for c in store.connections()} == {("zotero", PUBLIC_LIBRARY), ("notion", DATABASE_ID)}


@pytest.mark.parametrize(("library", "key"), [
    (HEX[:-1], TOKEN),  # 31 hex digits
    (HEX[:-1] + "g", TOKEN),  # not hex
    (f"https://notion.example/acme/Reading-list-{HEX}", TOKEN),  # not Notion's link
    (LINK.replace("https:", "http:"), TOKEN),
    (f"https://www.notion.so/acme?v={HEX}", TOKEN),  # only a view's id
    (f"https://www.notion.so/{'a' * 470}/Reading-list-{HEX}", TOKEN),  # over 500 characters
    (DATABASE_ID, "ntn_tooshort"),
    (DATABASE_ID, "xoxb_" + TOKEN[4:]),  # not a Notion token
    (DATABASE_ID, TOKEN + "!"),
    (DATABASE_ID, KEY),  # a Zotero key
    (DATABASE_ID, ""),
], ids=["short", "not-hex", "other-host", "http", "view-only", "too-long", "token-short", "token-prefix", "token-char",
        "zotero-key", "no-token"])
def test_a_malformed_database_or_token_is_refused_without_using_the_link(page, lambda_context, library, key):
    token = _link(lambda_context, "alice", "notion")
    typo = page.post(NOTION, data={"t": token, "library": library, "key": key})
    assert typo.status_code == 400 and "Not a Notion database and token" in typo.text
    assert not key or key not in typo.text
    assert ConnectionStore("alice").connection("notion") is None
    assert page.post(NOTION, data={"t": token, "library": DATABASE_ID, "key": TOKEN}).status_code == 200


@pytest.mark.parametrize("typed", [
    DATABASE_ID, HEX, HEX.upper(), f"  {LINK}  ", f"https://notion.so/{HEX}?v={'0' * 32}",
    f"https://www.notion.so/Reading-list-{HEX}/"])
def test_the_database_is_its_id_with_or_without_dashes_or_its_notion_link(typed):
    assert notion_database(typed) == DATABASE_ID


def test_both_kinds_of_integration_token_are_taken():
    for token in (TOKEN, "secret_" + "Ab1" * 14 + "x"):  # ntn_ (current), secret_ (older integrations)
        assert FORMS["notion"].key.fullmatch(token), token


def test_without_connect_the_link_is_zoteros_until_something_is_connected(page, lambda_context):
    assert "/connect/zotero?t=" in call(lambda_context, "library_connections", {})["connect_url"]
    ConnectionStore("alice").connect("notion", DATABASE_ID, SecretStr(TOKEN))
    assert "connect_url" not in call(lambda_context, "library_connections", {})
    assert "/connect/zotero?t=" in call(lambda_context, "library_connections", {"connect": "zotero"})["connect_url"]


def test_connect_where_there_is_no_connect_page_is_an_invalid_argument(connections_table, lambda_context):
    refused = call(lambda_context, "library_connections", {"connect": "notion"})["error"]  # no public URL
    assert (refused["code"], refused["details"]["field"], refused["reason"]) == (
        INVALID_ARGUMENT, "connect", "no_connect_page")
