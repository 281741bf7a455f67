"""The fake Notion refuses what Notion refuses (its API reference's status codes), so a client that forgot a
header or asked for too much fails here as it would there."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.connectors.conftest import run
from tests.fakes.notion import DATABASE_ID, TOKEN, FakeNotion

HEADERS = {"Authorization": f"Bearer {TOKEN}", "Notion-Version": "2022-06-28"}


def _send(fake: FakeNotion, method: str, path: str, *, headers: dict[str, str] | None = None,
          **kwargs: Any) -> httpx.Response:
    async def send() -> httpx.Response:
        async with httpx.AsyncClient(transport=httpx.MockTransport(fake.handle),
                                     base_url="https://api.notion.com") as client:
            return await client.request(method, path, headers=HEADERS if headers is None else headers, **kwargs)
    return run(send())


@pytest.fixture
def notion() -> FakeNotion:
    return FakeNotion()


def test_a_missing_or_wrong_token_is_401_unauthorized(notion):
    for headers in ({"Notion-Version": "2022-06-28"}, HEADERS | {"Authorization": "Bearer ntn_wrong"}):
        answer = _send(notion, "GET", f"/v1/databases/{DATABASE_ID}", headers=headers)
        assert (answer.status_code, answer.json()["code"], answer.json()["object"]) == (401, "unauthorized", "error")


def test_a_missing_notion_version_is_400_missing_version(notion):
    answer = _send(notion, "GET", f"/v1/databases/{DATABASE_ID}", headers={"Authorization": f"Bearer {TOKEN}"})
    assert (answer.status_code, answer.json()["code"]) == (400, "missing_version")


def test_a_queued_throttle_is_429_rate_limited_with_retry_after(notion):
    notion.throttles.append("3")
    answer = _send(notion, "GET", f"/v1/databases/{DATABASE_ID}")
    assert (answer.status_code, answer.headers["Retry-After"], answer.json()["code"]) == (429, "3", "rate_limited")
    assert _send(notion, "GET", f"/v1/databases/{DATABASE_ID}").status_code == 200


def test_an_unknown_database_or_property_and_oversized_requests_are_refused(notion):
    assert _send(notion, "GET", f"/v1/databases/{'0' * 32}").json()["code"] == "object_not_found"
    unknown = _send(notion, "POST", "/v1/pages", json={"parent": {"database_id": DATABASE_ID}, "properties": {
        "Nope": {"rich_text": []}}})
    too_long = _send(notion, "POST", "/v1/pages", json={"parent": {"database_id": DATABASE_ID}, "properties": {
        "Name": {"title": [{"type": "text", "text": {"content": "x" * 2001}}]}}})
    too_many = _send(notion, "POST", f"/v1/databases/{DATABASE_ID}/query", json={"page_size": 101})
    for answer in (unknown, too_long, too_many):
        assert (answer.status_code, answer.json()["code"]) == (400, "validation_error")
    assert notion.pages == {}


def test_a_query_answers_properties_but_never_content_and_blocks_are_listed_apart_a_page_at_a_time(notion):
    page = notion.make_page({"Name": {"title": [{"type": "text", "text": {"content": "Kept"}}]}})
    notion.type_notes(page["id"], *(f"p{n}" for n in range(150)))
    (found,) = _send(notion, "POST", f"/v1/databases/{DATABASE_ID}/query", json={}).json()["results"]
    assert found["properties"]["Name"]["title"][0]["plain_text"] == "Kept"
    assert not {"children", "content", "blocks"} & set(found)
    first = _send(notion, "GET", f"/v1/blocks/{page['id']}/children").json()
    assert len(first["results"]) == 100 and first["has_more"] is True
    rest = _send(notion, "GET", f"/v1/blocks/{page['id']}/children", params={"start_cursor": first["next_cursor"]})
    assert len(rest.json()["results"]) == 50 and rest.json()["has_more"] is False


def test_last_edited_time_is_rounded_down_to_the_minute(notion):
    page = notion.make_page({"Name": {"title": [{"type": "text", "text": {"content": "Kept"}}]}})
    assert page["last_edited_time"].endswith(":00.000Z")
