"""The arXiv tool declarations: handlers, schemas, bounds, and the Lambda entry point."""

from __future__ import annotations

import pytest
from jsonschema import Draft202012Validator
from pydantic import ValidationError

from functions.arxiv.app import lambda_handler
from scholar.core.errors import INVALID_ARGUMENT
from scholar.families import family_tools
from scholar.families.arxiv.handlers import HANDLERS
from scholar.families.arxiv.spec import TOOLS, GetPapersInput, ReadPaperInput, SearchInput
from tests.arxiv.helpers import feed


def test_every_tool_has_a_handler_and_every_handler_a_tool():
    assert {t.name for t in TOOLS} == set(HANDLERS)
    assert {t.family for t in TOOLS} == {"arxiv"}


def test_the_catalogue_discovers_the_arxiv_family():
    assert set(family_tools("arxiv")) == set(HANDLERS)


@pytest.mark.parametrize("tool", TOOLS, ids=lambda t: t.name)
def test_input_and_output_schemas_are_valid_json_schema(tool):
    Draft202012Validator.check_schema(tool.input_schema())
    Draft202012Validator.check_schema(tool.output_schema())
    assert tool.input_schema()["additionalProperties"] is False


def test_the_search_output_schema_names_the_seed_fields():
    props = next(t for t in TOOLS if t.name == "arxiv_search").output_model.model_json_schema()["properties"]
    assert {"papers", "effectiveQuery", "totalFound", "pageStart", "truncated", "shown", "cap", "notice"} <= set(props)


@pytest.mark.parametrize(
    "arguments",
    [
        {"query": "a\x00b"},
        {"query": "x" * 1001},
        {"query": ""},
        {"query": "x", "start": 10_001},
        {"query": "x", "max_results": 51},
        {"query": "x", "submitted_from": "2024/01/01"},
        {"query": "x", "sort_by": "citations"},
        {"query": "x", "unknown": 1},
    ],
)
def test_search_arguments_outside_the_schema_are_refused(arguments):
    with pytest.raises(ValidationError):
        SearchInput.model_validate(arguments)


def test_tabs_and_newlines_are_allowed_in_a_query():
    assert SearchInput(query="ti:a\tAND\nti:b").query == "ti:a\tAND\nti:b"


def test_read_paper_defaults_to_60000_characters_within_the_budget_and_null_means_the_most_not_all():
    assert ReadPaperInput(paper_id="2401.12345").max_characters == 60_000
    assert ReadPaperInput(paper_id="2401.12345", max_characters=None).max_characters == 75_000
    with pytest.raises(ValidationError):
        ReadPaperInput(paper_id="2401.12345", max_characters=0)
    with pytest.raises(ValidationError):
        ReadPaperInput(paper_id="2401.12345", max_characters=75_001)


def test_get_papers_takes_one_id_or_a_list():
    assert GetPapersInput(paper_ids="2401.12345").paper_ids == "2401.12345"
    assert GetPapersInput(paper_ids=["2401.12345", "hep-th/9901001"]).paper_ids == ["2401.12345", "hep-th/9901001"]


def test_the_lambda_entry_point_dispatches_a_tool_call(upstream, lambda_context):
    upstream.get("/arxiv_api/api/query").respond(200, content=feed("id_list_1605.08386.xml"))
    event = {"tool": "arxiv_get_papers", "arguments": {"paper_ids": "1605.08386"}, "principal": "p", "request_id": "r"}
    outcome = lambda_handler(event, lambda_context)
    assert outcome["ok"] is True
    assert outcome["result"]["papers"][0]["id"] == "1605.08386v1"
    assert "not_found" not in outcome["result"]  # absent, not null (seed 004)


def test_the_lambda_entry_point_reports_a_reason_in_the_error_envelope(lambda_context):
    event = {"tool": "arxiv_search", "arguments": {"query": "x", "category": "cs.XY"}, "principal": "p"}
    outcome = lambda_handler(event, lambda_context)
    assert outcome["ok"] is False
    assert outcome["error"]["code"] == INVALID_ARGUMENT
    assert outcome["error"]["reason"] == "unknown_category"
    assert "arxiv_list_categories" in outcome["error"]["recovery"]["hint"]
