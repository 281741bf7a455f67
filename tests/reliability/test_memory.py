"""Nothing a caller sends grows a process-wide cache (issue #31 item 1).

A hostile trial sent 200 tools/list requests with fresh ~7 KB ``?toolsets=`` values (+12 MB) and 200 landing pages
(+18 MB): the selection memo was keyed by whatever the URL named. Now an unknown toolset is refused before anything
is selected, and the memo is keyed by known names only. The rows assert on the caches themselves, not on RSS.
"""

from __future__ import annotations

import json

from functions.gateway.app import lambda_handler
from scholar.families import families, profiles
from scholar.gateway.mcp import landing
from tests.events import load_event, with_body

REQUESTS = 200
VALUE_CHARS = 7_000
LIST = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}


def made_up_toolsets(i: int) -> str:
    """A fresh toolsets value of ~7 KB: a known family and a name no catalogue defines."""
    return f"arxiv,{i:04d}" + "x" * VALUE_CHARS


def at(event: dict, toolsets: str) -> dict:
    event["queryStringParameters"] = {"toolsets": toolsets}
    event["multiValueQueryStringParameters"] = {"toolsets": [toolsets]}
    return event


def test_200_tools_lists_with_made_up_toolsets_are_refused_and_leave_the_selection_memo_as_it_was(lambda_context):
    size = profiles._selected.cache_info().currsize

    for i in range(REQUESTS):
        event = at(with_body(load_event("api_rest_v1_tools_list"), LIST), made_up_toolsets(i))
        answer = json.loads(lambda_handler(event, lambda_context)["body"])
        assert answer["error"]["data"]["toolsets"] == list(families())

    assert profiles._selected.cache_info().currsize == size


def test_200_landing_pages_with_made_up_toolsets_are_refused_and_cache_nothing(lambda_context):
    size = profiles._selected.cache_info().currsize
    pages = dict(landing._pages)

    for i in range(REQUESTS):
        assert lambda_handler(at(load_event("api_rest_v1_landing"), made_up_toolsets(i)), lambda_context)[
            "statusCode"] == 400

    assert profiles._selected.cache_info().currsize == size
    assert landing._pages == pages
