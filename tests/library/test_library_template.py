"""template.yaml for the library: the LibraryTable (keys, no TTL, kept on delete), its env and its IAM."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from samtranslator.yaml_helper import yaml_parse

from tests.aws_tables import create_library_table

TEMPLATE = Path(__file__).resolve().parents[2] / "template.yaml"
ITEM_ACTIONS = {"dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:UpdateItem"}
LIBRARY_ARN = {"Fn::GetAtt": ["LibraryTable", "Arn"]}


def _template() -> dict[str, Any]:
    return yaml_parse(TEMPLATE.read_text())


class _TableSpy:
    def __init__(self) -> None:
        self.created: dict[str, Any] = {}

    def create_table(self, **kwargs: Any) -> None:
        self.created = kwargs


def _statements(function: str) -> dict[str, dict[str, Any]]:
    policies = _template()["Resources"][function]["Properties"]["Policies"]
    return {s["Sid"]: s for p in policies if isinstance(p, dict) for s in p["Statement"]}


def test_the_library_table_is_keyed_by_caller_and_sort_key_and_never_expires():
    table = _template()["Resources"]["LibraryTable"]
    props = table["Properties"]
    assert props["KeySchema"] == [{"AttributeName": "pk", "KeyType": "HASH"},
                                  {"AttributeName": "sk", "KeyType": "RANGE"}]
    assert props["BillingMode"] == "PAY_PER_REQUEST"
    assert "TimeToLiveSpecification" not in props
    assert props["SSESpecification"] == {"SSEEnabled": True}
    assert props["PointInTimeRecoverySpecification"] == {"PointInTimeRecoveryEnabled": True}
    assert table["DeletionPolicy"] == table["UpdateReplacePolicy"] == "Retain"
    spy = _TableSpy()
    create_library_table(spy, "t")  # the tests' moto table must match the template's
    assert spy.created["KeySchema"] == props["KeySchema"]
    assert spy.created["AttributeDefinitions"] == props["AttributeDefinitions"]


def test_every_function_is_told_the_library_table():
    template = _template()
    assert template["Globals"]["Function"]["Environment"]["Variables"]["SCHOLAR_LIBRARY_TABLE"] == {
        "Ref": "LibraryTable"}
    assert template["Outputs"]["LibraryTableName"]["Value"] == {"Ref": "LibraryTable"}


def test_the_research_function_may_read_and_write_the_library_and_the_pipeline_may_keep_pdfs():
    research = _statements("ResearchFunction")["LibraryReadWrite"]
    assert research["Resource"] == LIBRARY_ARN
    assert set(research["Action"]) == ITEM_ACTIONS | {"dynamodb:BatchGetItem", "dynamodb:Query",
                                                      "dynamodb:DeleteItem"}
    pipeline = _statements("PipelineFunction")["LibraryKeepPdf"]
    assert pipeline["Resource"] == LIBRARY_ARN
    assert set(pipeline["Action"]) == ITEM_ACTIONS


def test_no_other_function_reaches_the_library():
    for name, resource in _template()["Resources"].items():
        if resource["Type"] != "AWS::Serverless::Function" or name in ("ResearchFunction", "PipelineFunction"):
            continue
        assert "LibraryTable" not in str(resource["Properties"].get("Policies", "")), name
