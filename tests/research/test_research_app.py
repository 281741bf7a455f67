"""The research function's entry point: a dispatched ``search`` event answers the result model's shape."""

from __future__ import annotations

from functions.research.app import lambda_handler
from scholar.core.errors import INVALID_ARGUMENT
from scholar.families import get_tool
from tests.research.helpers import route_all


def _event(arguments: dict) -> dict:
    return {"tool": "search", "arguments": arguments, "principal": "alice", "request_id": "req-research"}


def test_a_search_event_answers_ranked_results_through_the_lambda_handler(upstream, aws, lambda_context):
    route_all(upstream)
    answer = lambda_handler(_event({"query": "cancer", "limit": 3, "expand": False}), lambda_context)
    assert answer["ok"], answer
    result = get_tool("search").output_model.model_validate(answer["result"])
    assert len(result.results) == 3 and result.next_cursor


def test_an_over_long_question_is_an_invalid_argument_naming_query(aws, lambda_context):
    answer = lambda_handler(_event({"query": "x" * 2000}), lambda_context)
    assert answer["error"]["code"] == INVALID_ARGUMENT
    assert "query" in answer["error"]["message"]


def test_an_unknown_intent_or_sort_is_an_invalid_argument_naming_it(aws, lambda_context):
    for field, value in (("intent", "everything"), ("sort", "random")):
        answer = lambda_handler(_event({"query": "graphs", field: value}), lambda_context)
        assert answer["error"]["code"] == INVALID_ARGUMENT
        assert field in answer["error"]["message"]
