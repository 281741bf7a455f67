"""template.yaml for health: the UsageTable, who may write and read it, the hourly probe, dashboard and alarms."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from samtranslator.yaml_helper import yaml_parse

from tests.aws_tables import create_usage_table

TEMPLATE = Path(__file__).resolve().parents[2] / "template.yaml"
TOOL_FUNCTIONS = ("Papers", "Tasks", "Pdf", "Arxiv", "Books", "Standards", "Research", "Patents")


def resources() -> dict[str, Any]:
    return yaml_parse(TEMPLATE.read_text())["Resources"]


class _TableSpy:
    """Stands in for a DynamoDB client: keeps what create_table was asked for."""

    def __init__(self) -> None:
        self.created: dict[str, Any] = {}

    def create_table(self, **kwargs: Any) -> None:
        self.created = kwargs


def test_the_usage_table_is_keyed_by_source_hour_and_time_and_expires():
    props = resources()["UsageTable"]["Properties"]
    keys = [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}]
    assert props["KeySchema"] == keys
    assert props["TimeToLiveSpecification"] == {"AttributeName": "expires_at", "Enabled": True}
    spy = _TableSpy()
    create_usage_table(spy, "t")  # the tests' moto table must match the template's
    created = spy.created
    assert created["KeySchema"] == props["KeySchema"]
    assert created["AttributeDefinitions"] == props["AttributeDefinitions"]


def test_every_function_is_told_the_usage_table_and_the_salt():
    env = yaml_parse(TEMPLATE.read_text())["Globals"]["Function"]["Environment"]["Variables"]
    assert env["SCHOLAR_USAGE_TABLE"] == {"Ref": "UsageTable"}
    assert env["SCHOLAR_PRINCIPAL_SALT"] == {"Ref": "AWS::StackId"}


def test_every_function_that_runs_tools_may_batch_write_usage_and_nothing_more():
    policy = resources()["UsageWritePolicy"]["Properties"]
    assert policy["Roles"] == [{"Ref": f"{name}FunctionRole"} for name in TOOL_FUNCTIONS]
    (statement,) = policy["PolicyDocument"]["Statement"]
    assert statement["Action"] == "dynamodb:BatchWriteItem"
    assert statement["Resource"] == {"Fn::GetAtt": ["UsageTable", "Arn"]}


def test_the_research_function_reads_usage_and_the_gateway_may_invoke_it():
    res = resources()
    statements = {s["Sid"]: s for s in res["ResearchFunction"]["Properties"]["Policies"][0]["Statement"]}
    statement = statements["ReadUsageRecords"]
    assert (statement["Action"], statement["Resource"]) == ("dynamodb:Query", {"Fn::GetAtt": ["UsageTable", "Arn"]})
    invoke = res["GatewayFunction"]["Properties"]["Policies"][0]["Statement"][0]
    assert {"Fn::GetAtt": ["ResearchFunction", "Arn"]} in invoke["Resource"]


def test_the_probe_runs_hourly_one_at_a_time_with_the_probe_event():
    probe = resources()["ProbeFunction"]["Properties"]
    assert probe["CodeUri"] == "functions/probe/"
    assert probe["ReservedConcurrentExecutions"] == 1
    schedule = probe["Events"]["Hourly"]
    assert schedule["Type"] == "ScheduleV2"
    assert schedule["Properties"]["ScheduleExpression"] == {"Ref": "ProbeSchedule"}
    assert yaml_parse(TEMPLATE.read_text())["Parameters"]["ProbeSchedule"]["Default"] == "rate(1 hour)"
    event = json.loads(schedule["Properties"]["Input"])
    sample = json.loads((TEMPLATE.parent / "events" / "scheduler_probe.json").read_text())
    assert event.keys() == sample.keys() and event["action"] == "probe"


def test_source_and_pipeline_alarms_notify_the_optional_topic():
    res = resources()
    for name in ("SourceErrorRateAlarm", "RetryTaskFailuresAlarm", "PdfPipelineFailuresAlarm", "UsageWriteFailedAlarm"):
        actions = res[name]["Properties"]["AlarmActions"]
        assert actions == {"Fn::If": ["HasAlarmTopic", [{"Ref": "AlarmTopicArn"}], {"Ref": "AWS::NoValue"}]}, name
    (query,) = res["SourceErrorRateAlarm"]["Properties"]["Metrics"]
    assert "AVG(Failed)" in query["Expression"] and "GROUP BY source" in query["Expression"]
    machines = {
        m["MetricStat"]["Metric"]["Dimensions"][0]["Value"]["Ref"]
        for name in ("RetryTaskFailuresAlarm", "PdfPipelineFailuresAlarm")
        for m in res[name]["Properties"]["Metrics"]
        if "MetricStat" in m
    }
    assert machines == {"RetryTaskStateMachine", "PdfPipelineStateMachine"}


def test_the_dashboard_is_valid_json_showing_families_sources_and_pipelines():
    body = resources()["OperationsDashboard"]["Properties"]["DashboardBody"]["Fn::Sub"]
    widgets = json.loads(re.sub(r"\$\{[^}]+\}", "X", body))["widgets"]
    titles = " | ".join(w["properties"]["title"] for w in widgets)
    for words in ("Invocations per family", "Errors per family", "p95", "per source", "PDF pipeline", "tasks"):
        assert words in titles, words
    for family in ("Papers", "Arxiv", "Books", "Standards", "Pdf", "Tasks", "Research"):
        assert f"${{{family}Function}}" in body
