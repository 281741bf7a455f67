"""template.yaml deployed into moto's CloudFormation (scholar.local.deploy): what the stack creates.

The template goes through SAM's own transform and CloudFormation's create_stack, as `sam deploy` would.
moto cannot create API Gateway resources from an OpenAPI body nor AWS::Scheduler::Schedule: those are
checked in the transformed template instead (what CloudFormation in AWS would receive).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import boto3
import moto
import pytest
from samtranslator.yaml_helper import yaml_parse

from scholar.local.deploy import DeployedStack, deploy_template

REPO = Path(__file__).resolve().parents[2]
TEMPLATE = REPO / "template.yaml"
REGION = "us-east-1"  # deploy_template creates its code bucket without a location constraint
STACK = "scholar-deploytest"


@dataclass(frozen=True)
class Deployed:
    stack: DeployedStack
    session: boto3.session.Session

    def client(self, service: str) -> Any:
        return self.session.client(service, region_name=REGION)

    def resources_of(self, kind: str) -> dict[str, dict[str, Any]]:
        return {name: r for name, r in self.stack.transformed["Resources"].items() if r["Type"] == kind}


@contextmanager
def deployment(stack_name: str, parameters: dict[str, str]) -> Iterator[Deployed]:
    """template.yaml deployed into a fresh in-process moto with ``parameters``."""
    with pytest.MonkeyPatch.context() as patch:
        for name, value in {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing",
                            "AWS_DEFAULT_REGION": REGION, "AWS_REGION": REGION}.items():
            patch.setenv(name, value)
        for name in ("AWS_ENDPOINT_URL", "AWS_PROFILE", "AWS_SESSION_TOKEN", "AWS_SECURITY_TOKEN"):
            patch.delenv(name, raising=False)
        # As the local stack runs it: state machines created through the API land where moto executes them.
        with moto.mock_aws(config={"stepfunctions": {"execute_state_machine": True}}):
            stack = deploy_template(TEMPLATE, stack_name=stack_name, region=REGION, parameters=parameters)
            yield Deployed(stack, boto3.session.Session(region_name=REGION))


@pytest.fixture(scope="module")
def deployed() -> Iterator[Deployed]:
    with deployment(STACK, {"S2ApiKeyParameter": "/scholar/s2-key"}) as stack:
        yield stack


def _sam_functions() -> list[str]:
    """The functions every deployment has (the auth function comes with AuthMode=OAuth: test_moto_deploy_oauth)."""
    resources = yaml_parse(TEMPLATE.read_text())["Resources"]
    return [name for name, r in resources.items() if r["Type"] == "AWS::Serverless::Function" and "Condition" not in r]


# What moto's CloudFormation must create itself; the rest (API Gateway, schedules, policies, alarms) is checked
# in the transformed template.
CREATED_BY_MOTO = {"AWS::DynamoDB::Table", "AWS::S3::Bucket", "AWS::Lambda::Function", "AWS::Lambda::LayerVersion",
                   "AWS::StepFunctions::StateMachine", "AWS::SQS::Queue", "AWS::IAM::Role", "AWS::Logs::LogGroup"}


def test_the_stack_completes_with_every_table_bucket_function_queue_and_state_machine(deployed):
    assert deployed.client("cloudformation").describe_stacks(StackName=STACK)["Stacks"][0]["StackStatus"] == \
        "CREATE_COMPLETE"
    kinds = {deployed.stack.transformed["Resources"][name]["Type"] for name in deployed.stack.skipped}
    assert not (kinds & CREATED_BY_MOTO), deployed.stack.skipped
    assert "AWS::Scheduler::Schedule" in kinds
    created = {r["Type"] for r in deployed.stack.transformed["Resources"].values()} - kinds
    assert created >= CREATED_BY_MOTO


def test_the_tables_have_their_keys_index_and_time_to_live(deployed):
    dynamodb = deployed.client("dynamodb")
    cache = dynamodb.describe_table(TableName=deployed.stack.physical_ids["CacheTable"])["Table"]
    tasks = dynamodb.describe_table(TableName=deployed.stack.physical_ids["TaskTable"])["Table"]

    assert cache["KeySchema"] == [{"AttributeName": "pk", "KeyType": "HASH"}]
    assert tasks["KeySchema"] == [{"AttributeName": "task_id", "KeyType": "HASH"}]
    assert [i["IndexName"] for i in tasks["GlobalSecondaryIndexes"]] == ["by_principal"]
    for table in (cache, tasks):
        ttl = dynamodb.describe_time_to_live(TableName=table["TableName"])["TimeToLiveDescription"]
        assert ttl == {"TimeToLiveStatus": "ENABLED", "AttributeName": "expires_at"}
    pitr = deployed.resources_of("AWS::DynamoDB::Table")["TaskTable"]["Properties"]
    assert pitr["PointInTimeRecoverySpecification"] == {"PointInTimeRecoveryEnabled": True}


def test_the_artifact_bucket_is_encrypted_private_and_expires_what_it_derives(deployed):
    s3 = deployed.client("s3")
    bucket = deployed.stack.physical_ids["ArtifactBucket"]

    rules = s3.get_bucket_encryption(Bucket=bucket)["ServerSideEncryptionConfiguration"]["Rules"]
    assert rules[0]["ApplyServerSideEncryptionByDefault"]["SSEAlgorithm"] == "AES256"
    # moto's CloudFormation leaves the public access block and lifecycle out: checked in the template it received.
    props = deployed.resources_of("AWS::S3::Bucket")["ArtifactBucket"]["Properties"]
    assert all(props["PublicAccessBlockConfiguration"].values())
    lifecycle = props["LifecycleConfiguration"]["Rules"]
    assert {r["Id"] for r in lifecycle} >= {"expire-task-results", "expire-pdfs", "expire-markdown"}


def test_every_function_exists_on_python_3_13_arm64_with_the_stacks_resources_in_its_environment(deployed):
    lambda_ = deployed.client("lambda")
    for logical in _sam_functions():
        config = lambda_.get_function(FunctionName=deployed.stack.physical_ids[logical])["Configuration"]
        assert config["Runtime"] == "python3.13", logical
        # moto's CloudFormation ignores Architectures: checked in the template it received.
        assert deployed.resources_of("AWS::Lambda::Function")[logical]["Properties"]["Architectures"] == ["arm64"]
        variables = config["Environment"]["Variables"]
        assert variables["SCHOLAR_TASK_TABLE"] == deployed.stack.physical_ids["TaskTable"], logical
        assert variables["SCHOLAR_ARTIFACT_BUCKET"] == deployed.stack.physical_ids["ArtifactBucket"], logical
        # moto's CloudFormation does not attach layers either: the template it received does.
        layers = deployed.resources_of("AWS::Lambda::Function")[logical]["Properties"]["Layers"]
        assert any(ref["Ref"].startswith("DepsLayer") for ref in layers), logical  # SAM suffixes a hash
        assert any(ref["Ref"].startswith("ScholarLayer") for ref in layers), logical
    names = " ".join(layer["LayerName"] for layer in lambda_.list_layers()["Layers"])
    assert all(layer in names for layer in ("DepsLayer", "McpLayer", "ScholarLayer")), names
    family = lambda_.get_function(FunctionName=f"{STACK}-papers")["Configuration"]
    assert family["Environment"]["Variables"]["SCHOLAR_S2_API_KEY_PARAM"] == "/scholar/s2-key"
    gateway = lambda_.get_function(FunctionName=deployed.stack.physical_ids["GatewayFunction"])["Configuration"]
    assert gateway["Environment"]["Variables"]["SCHOLAR_AUTH_MODE"] == "ApiKey"


def test_every_function_gets_its_concurrency_ceiling(deployed):
    functions = deployed.resources_of("AWS::Lambda::Function")
    for logical in _sam_functions():
        assert functions[logical]["Properties"]["ReservedConcurrentExecutions"], logical


def test_the_state_machines_exist_with_their_function_arns_substituted(deployed):
    sfn = deployed.client("stepfunctions")
    assert set(deployed.stack.state_machine_arns) == {"RetryTaskStateMachine", "PdfPipelineStateMachine",
                                                        "PatentPdfStateMachine"}
    for arn in deployed.stack.state_machine_arns.values():
        definition = sfn.describe_state_machine(stateMachineArn=arn)["definition"]
        assert "${" not in definition
        assert f"function:{STACK}-" in definition


def test_the_standards_sync_schedule_targets_its_function_with_a_dead_letter_queue(deployed):
    (schedule,) = [s for s in deployed.resources_of("AWS::Scheduler::Schedule").values()
                   if s["Properties"]["Target"]["Arn"] == {"Fn::GetAtt": ["StandardsSyncFunction", "Arn"]}]
    props = schedule["Properties"]
    assert props["ScheduleExpression"] == {"Ref": "StandardsSyncSchedule"}
    assert props["Target"]["Arn"] == {"Fn::GetAtt": ["StandardsSyncFunction", "Arn"]}
    assert props["Target"]["DeadLetterConfig"]["Arn"] == {"Fn::GetAtt": ["AsyncFailureQueue", "Arn"]}
    queue_url = deployed.client("sqs").get_queue_url(QueueName=deployed.stack.physical_ids["AsyncFailureQueue"]
                                                     .rsplit("/", 1)[-1])["QueueUrl"]
    assert queue_url


def test_the_api_serves_post_mcp_and_get_root_with_access_logs(deployed):
    (api,) = deployed.resources_of("AWS::ApiGateway::RestApi").values()
    paths = api["Properties"]["Body"]["paths"]
    # The OAuth routes are Fn::If [UseOAuth, …, NoValue]: CloudFormation drops them in this (ApiKey) deployment.
    assert set(paths) == {"/", "/mcp", "/.well-known/{proxy+}", "/oauth/{proxy+}", "/connect/zotero", "/connect/notion",
                          "/connect/proxy"}
    assert "post" in paths["/mcp"] and "get" in paths["/"]
    for path in ("/oauth/{proxy+}", "/connect/zotero", "/connect/notion", "/connect/proxy"):
        assert paths[path]["Fn::If"][0] == "UseOAuth"
    (stage,) = deployed.resources_of("AWS::ApiGateway::Stage").values()
    assert stage["Properties"]["AccessLogSetting"]["DestinationArn"] == {"Fn::GetAtt": ["ApiAccessLogGroup", "Arn"]}


def test_the_outputs_name_the_stacks_resources(deployed):
    outputs = deployed.stack.outputs
    assert outputs["CacheTableName"] == deployed.stack.physical_ids["CacheTable"]
    assert outputs["TaskTableName"] == deployed.stack.physical_ids["TaskTable"]
    assert outputs["ArtifactBucketName"] == deployed.stack.physical_ids["ArtifactBucket"]
    assert outputs["FunctionPrefix"] == f"{STACK}-"
    assert outputs["RetryTaskStateMachineArn"].endswith(f":stateMachine:{STACK}-retry-task")
    assert "McpUrl" in deployed.stack.transformed["Outputs"]  # refers to the API: an output in AWS only
