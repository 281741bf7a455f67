"""The wire form of every tool result (scholar.runtime.results): optional nulls omitted, one hard size cap."""

from __future__ import annotations

from jsonschema import Draft202012Validator
from pydantic import BaseModel, Field

from functions.arxiv.app import lambda_handler as arxiv_handler
from scholar.core.errors import TOO_LARGE
from scholar.families import get_tool
from scholar.runtime import results
from scholar.runtime.results import dump_result, enforce_cap, response_bytes
from tests.arxiv.helpers import feed


class Inner(BaseModel):
    note: str | None = None
    required_but_nullable: str | None


class Outer(BaseModel):
    name: str
    maybe: int | None = Field(default=None, alias="maybeAlias")
    inner: Inner
    items: list[Inner] = []
    by_key: dict[str, Inner] = {}


def test_optional_fields_without_a_value_are_omitted_at_every_depth():
    model = Outer(name="x", inner=Inner(required_but_nullable=None), items=[Inner(note="a", required_but_nullable="b")],
                  by_key={"k": Inner(required_but_nullable=None)})
    assert dump_result(model) == {
        "name": "x",
        "inner": {"required_but_nullable": None},
        "items": [{"note": "a", "required_but_nullable": "b"}],
        "by_key": {"k": {"required_but_nullable": None}},
    }


def test_a_required_field_that_may_be_null_stays_so_the_output_schema_still_validates():
    data = dump_result(Outer(name="x", inner=Inner(required_but_nullable=None)))
    Draft202012Validator(Outer.model_json_schema(by_alias=True)).validate(data)


def test_the_response_size_counts_structured_content_and_its_escaped_text_copy():
    result = {"text": 'a "quoted" word'}
    assert response_bytes(result) > 2 * len('{"text":"a \\"quoted\\" word"}')


def test_a_result_over_the_hard_cap_is_too_large_for_any_tool(monkeypatch, lambda_context):
    monkeypatch.setattr(results, "MAX_RESPONSE_BYTES", 1_000)
    event = {"tool": "arxiv_list_categories", "arguments": {}, "principal": "p", "request_id": "r"}
    outcome = arxiv_handler(event, lambda_context)
    assert outcome["ok"] is False
    assert outcome["error"]["code"] == TOO_LARGE
    assert outcome["error"]["details"]["cap_bytes"] == 1_000


def test_a_result_under_the_cap_passes_unchanged():
    assert enforce_cap("t", {"a": 1}) == {"a": 1}


def test_a_tool_result_omits_absent_optional_fields_and_still_matches_its_output_schema(upstream, lambda_context):
    upstream.get("/arxiv_api/api/query").respond(200, content=feed("id_list_1605.08386.xml"))
    event = {"tool": "arxiv_get_papers", "arguments": {"paper_ids": "1605.08386"}, "principal": "p", "request_id": "r"}
    outcome = arxiv_handler(event, lambda_context)
    result = outcome["result"]
    assert "not_found" not in result
    Draft202012Validator(get_tool("arxiv_get_papers").output_schema()).validate(result)
