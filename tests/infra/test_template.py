"""template.yaml: the linters pass, and the structural promises of DESIGN §1, §5, §12 hold."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from samtranslator.yaml_helper import yaml_parse

from scholar.core.catalogue import DEFAULT_PROFILE, PROFILES

REPO = Path(__file__).resolve().parents[2]
TEMPLATE = REPO / "template.yaml"
FAMILIES = {
    "PapersFunction": "papers",
    "TasksFunction": "tasks",
    "PdfFunction": "pdf",
    "ArxivFunction": "arxiv",
    "BooksFunction": "books",
    "StandardsFunction": "standards",
    "ResearchFunction": "research",
    "PatentsFunction": "patents",
}
CONTRACT_ENV = {
    "SCHOLAR_CACHE_TABLE",
    "SCHOLAR_TASK_TABLE",
    "SCHOLAR_ARTIFACT_BUCKET",
    "SCHOLAR_FUNCTION_PREFIX",
    "SCHOLAR_RETRY_STATE_MACHINE_ARN",
    "SCHOLAR_READ_ONLY",
    "SCHOLAR_CONTACT_EMAIL",
    "SCHOLAR_S2_API_KEY_PARAM",
    "POWERTOOLS_SERVICE_NAME",
    "POWERTOOLS_LOG_LEVEL",
}


def _template() -> dict[str, Any]:
    return yaml_parse(TEMPLATE.read_text())


def _resources(kind: str) -> dict[str, dict[str, Any]]:
    return {name: r for name, r in _template()["Resources"].items() if r["Type"] == kind}


def _tool(name: str) -> Path:
    """A binary of the tools environment (SAM CLI, cfn-lint); skips the test when it is not installed."""
    bin_dir = Path(os.environ.get("SCHOLAR_TOOLS_BIN", REPO / ".tools" / "bin"))
    path = bin_dir / name
    if not path.is_file():
        pytest.skip(f"{name} not found in {bin_dir} (run `make tools` or set SCHOLAR_TOOLS_BIN)")
    return path


def _run(*argv: str | Path) -> subprocess.CompletedProcess[str]:
    # No region or credentials are needed; telemetry off keeps the run offline and quiet.
    env = {**os.environ, "SAM_CLI_TELEMETRY": "0"}
    return subprocess.run([str(a) for a in argv], cwd=REPO, env=env, capture_output=True, text=True, timeout=120)


def test_sam_validate_with_lint_accepts_the_template() -> None:
    result = _run(_tool("sam"), "validate", "--lint", "--template", TEMPLATE)
    assert result.returncode == 0, result.stdout + result.stderr


def test_cfn_lint_reports_nothing() -> None:
    result = _run(_tool("cfn-lint"), TEMPLATE)
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_only_routes_are_post_mcp_and_the_public_landing_page() -> None:
    from scholar.gateway.auth.connect import FORMS
    from scholar.gateway.auth.connect_proxy import TARGET as PROXY
    from scholar.store.connections import connect_path

    apis = _resources("AWS::Serverless::Api")
    assert list(apis) == ["Api"]
    assert not _resources("AWS::Serverless::HttpApi")
    paths = apis["Api"]["Properties"]["DefinitionBody"]["paths"]
    # The connect page of each connector that has one: exactly its path, GET the form and POST it.
    connect = {connect_path(target): paths.pop(connect_path(target)) for target in (*FORMS, PROXY)}
    assert not [path for path in paths if path.startswith("/connect")]
    oauth = {path: paths.pop(path) for path in ("/.well-known/{proxy+}", "/oauth/{proxy+}")}
    assert {path: set(methods) for path, methods in paths.items()} == {"/mcp": {"post"}, "/": {"get"}}
    assert paths["/"]["get"]["security"] == []
    # AuthMode=OAuth only: the metadata, the authorization server and the connect pages, public by nature (a connect
    # page's credential is the one-time link in its query), proxied to AuthFunction.
    for path, item in (oauth | connect).items():
        condition, methods, absent = item["Fn::If"]
        assert condition == "UseOAuth" and absent == {"Ref": "AWS::NoValue"}, path
        for method in methods.values():
            assert method["security"] == []
            assert "${AuthFunction.Arn}" in method["x-amazon-apigateway-integration"]["uri"]["Fn::Sub"]
    assert {path: set(item["Fn::If"][1]) for path, item in connect.items()} == dict.fromkeys(connect, {"get", "post"})
    events = [
        (name, event["Properties"]["Path"], event["Properties"]["Method"])
        for name, fn in _resources("AWS::Serverless::Function").items()
        for event in fn["Properties"].get("Events", {}).values()
        if event["Type"] == "Api"
    ]
    assert events == [("GatewayFunction", "/mcp", "post"), ("GatewayFunction", "/", "get")]


def test_post_mcp_is_a_lambda_proxy_to_the_gateway_function() -> None:
    post = _resources("AWS::Serverless::Api")["Api"]["Properties"]["DefinitionBody"]["paths"]["/mcp"]["post"]
    integration = post["x-amazon-apigateway-integration"]
    assert integration["type"] == "aws_proxy"
    assert integration["httpMethod"] == "POST"
    # The published alias (AutoPublishAlias: live), so that SnapStart, which needs a version, can apply.
    assert "${GatewayFunctionAliaslive}" in integration["uri"]["Fn::Sub"]


def test_gateway_snapstart_is_an_option_off_by_default_on_the_published_alias() -> None:
    template = _template()
    gateway = template["Resources"]["GatewayFunction"]["Properties"]
    assert template["Parameters"]["GatewaySnapStart"]["Default"] == "None"
    assert gateway["AutoPublishAlias"] == "live" and gateway["AutoPublishAliasAllProperties"] is True
    assert gateway["SnapStart"]["ApplyOn"] == {"Fn::If": ["UseGatewaySnapStart", "PublishedVersions", "None"]}


def test_the_api_key_requirement_follows_auth_mode() -> None:
    template = _template()
    security = template["Resources"]["Api"]["Properties"]["DefinitionBody"]["paths"]["/mcp"]["post"]["security"]
    assert security == {"Fn::If": ["UseApiKey", [{"api_key": []}], []]}
    assert template["Parameters"]["AuthMode"]["Default"] == "ApiKey"
    # In OAuth mode /mcp has no API Gateway key requirement (API Gateway cannot make it optional beside a bearer
    # token); the keys stay, and the gateway checks them itself (scholar.gateway.mcp.access, scholar.store.api_keys).
    assert template["Parameters"]["AuthMode"]["AllowedValues"] == ["ApiKey", "OAuth", "None"]
    for name in ("ApiKey", "ApiUsagePlan", "ApiUsagePlanKey"):
        assert template["Resources"][name]["Condition"] == "UseApiKeys"
    assert template["Conditions"]["UseApiKeys"] == {"Fn::Or": [{"Condition": "UseApiKey"}, {"Condition": "UseOAuth"}]}


def test_the_profile_parameter_offers_the_catalogues_profiles_and_defaults_to_the_small_one() -> None:
    template = _template()
    parameter = template["Parameters"]["Profile"]
    assert parameter["AllowedValues"] == list(PROFILES) and parameter["Default"] == DEFAULT_PROFILE
    assert template["Globals"]["Function"]["Environment"]["Variables"]["SCHOLAR_PROFILE"] == {"Ref": "Profile"}


def test_both_tables_expire_items_on_expires_at() -> None:
    tables = _resources("AWS::DynamoDB::Table")
    assert set(tables) == {"CacheTable", "TaskTable", "UsageTable", "LibraryTable", "AuthTable", "ConnectionsTable"}
    # callers' libraries (tests/library/test_library_template.py) and their connector links never expire
    for name in ("LibraryTable", "ConnectionsTable"):
        user_data = tables.pop(name)
        assert "TimeToLiveSpecification" not in user_data["Properties"]
    for table in tables.values():
        props = table["Properties"]
        assert props["TimeToLiveSpecification"] == {"AttributeName": "expires_at", "Enabled": True}
        assert props["BillingMode"] == "PAY_PER_REQUEST"
    assert tables["CacheTable"]["Properties"]["KeySchema"] == [{"AttributeName": "pk", "KeyType": "HASH"}]
    assert tables["TaskTable"]["Properties"]["KeySchema"] == [{"AttributeName": "task_id", "KeyType": "HASH"}]
    assert [k["AttributeName"] for k in tables["AuthTable"]["Properties"]["KeySchema"]] == ["pk", "sk"]


def test_task_table_lists_tasks_by_principal_newest_first_capable() -> None:
    props = _resources("AWS::DynamoDB::Table")["TaskTable"]["Properties"]
    (index,) = props["GlobalSecondaryIndexes"]
    assert index["IndexName"] == "by_principal"
    assert index["KeySchema"] == [
        {"AttributeName": "principal", "KeyType": "HASH"},
        {"AttributeName": "created_at", "KeyType": "RANGE"},
    ]
    assert index["Projection"] == {"ProjectionType": "ALL"}
    types = {a["AttributeName"]: a["AttributeType"] for a in props["AttributeDefinitions"]}
    assert types == {"task_id": "S", "principal": "S", "created_at": "N"}
    assert props["PointInTimeRecoverySpecification"] == {"PointInTimeRecoveryEnabled": True}


def test_artifact_bucket_is_private_encrypted_and_tls_only() -> None:
    resources = _template()["Resources"]
    props = resources["ArtifactBucket"]["Properties"]
    assert props["PublicAccessBlockConfiguration"] == {
        "BlockPublicAcls": True,
        "BlockPublicPolicy": True,
        "IgnorePublicAcls": True,
        "RestrictPublicBuckets": True,
    }
    (sse,) = props["BucketEncryption"]["ServerSideEncryptionConfiguration"]
    assert sse["ServerSideEncryptionByDefault"]["SSEAlgorithm"] == "AES256"
    expiry = {r.get("Prefix"): r.get("ExpirationInDays") for r in props["LifecycleConfiguration"]["Rules"]}
    assert expiry["results/"] == expiry["exports/"] == 7
    assert expiry["pdfs/"] == expiry["md/"] == 90
    # Only the cache expires: what a caller keeps in a library is re-tagged retention=kept (scholar.store.blobs).
    filters = {r.get("Prefix"): r.get("TagFilters") for r in props["LifecycleConfiguration"]["Rules"]}
    assert filters["pdfs/"] == filters["md/"] == [{"Key": "retention", "Value": "cache"}]
    (deny,) = resources["ArtifactBucketPolicy"]["Properties"]["PolicyDocument"]["Statement"]
    assert deny["Effect"] == "Deny"
    assert deny["Condition"] == {"Bool": {"aws:SecureTransport": "false"}}


def test_every_function_has_its_own_log_group_with_retention() -> None:
    resources = _template()["Resources"]
    groups = []
    for fn in _resources("AWS::Serverless::Function").values():
        group = fn["Properties"]["LoggingConfig"]["LogGroup"]["Ref"]
        assert resources[group]["Type"] == "AWS::Logs::LogGroup"
        assert resources[group]["Properties"]["RetentionInDays"] == {"Ref": "LogRetentionDays"}
        groups.append(group)
    assert len(groups) == len(set(groups)) == len(_resources("AWS::Serverless::Function"))


def test_every_function_has_an_errors_alarm_and_a_throttles_alarm() -> None:
    alarms = {
        (a["Properties"]["Dimensions"][0]["Value"]["Ref"], a["Properties"]["MetricName"])
        for a in _resources("AWS::CloudWatch::Alarm").values()
        if a["Properties"].get("Namespace") == "AWS/Lambda"  # the others watch sources, tasks, pipelines
    }
    for name in _resources("AWS::Serverless::Function"):
        assert {(name, "Errors"), (name, "Throttles")} <= alarms


def test_functions_run_python_3_13_on_arm64_with_tracing() -> None:
    template = _template()
    globals_ = template["Globals"]["Function"]
    assert globals_["Runtime"] == "python3.13"
    assert globals_["Architectures"] == ["arm64"]
    assert globals_["Tracing"] == "Active"
    assert globals_["Handler"] == "app.lambda_handler"
    assert set(globals_["Environment"]["Variables"]) >= CONTRACT_ENV
    for fn in _resources("AWS::Serverless::Function").values():
        assert not {"Runtime", "Architectures", "Tracing"} & set(fn["Properties"])


def test_family_functions_have_names_the_gateway_can_compute() -> None:
    functions = _resources("AWS::Serverless::Function")
    for logical, family in FAMILIES.items():
        props = functions[logical]["Properties"]
        assert props["FunctionName"] == {"Fn::Sub": f"${{AWS::StackName}}-{family}"}
        assert props["CodeUri"] == f"functions/{family}/"
    assert "FunctionName" not in functions["GatewayFunction"]["Properties"]
    assert functions["GatewayFunction"]["Properties"]["CodeUri"] == "functions/gateway/"


def test_only_the_gateway_ships_the_mcp_layer() -> None:
    for name, fn in _resources("AWS::Serverless::Function").items():
        layers = [layer["Ref"] for layer in fn["Properties"]["Layers"]]
        expected = {"GatewayFunction": ["DepsLayer", "McpLayer", "ScholarLayer"],
                    "AuthFunction": ["DepsLayer", "AuthLayer", "ScholarLayer"]}.get(name, ["DepsLayer", "ScholarLayer"])
        assert layers == expected


def test_layers_are_built_for_arm64() -> None:
    for layer in _resources("AWS::Serverless::LayerVersion").values():
        assert layer["Metadata"]["BuildArchitecture"] == "arm64"
        assert layer["Properties"]["CompatibleArchitectures"] == ["arm64"]


def test_gateway_may_invoke_exactly_the_family_functions() -> None:
    gateway = _resources("AWS::Serverless::Function")["GatewayFunction"]["Properties"]
    (policy,) = gateway["Policies"]
    # OAuth-only statements are wrapped in Fn::If [UseOAuth, statement, NoValue].
    conditional = {s["Fn::If"][1]["Sid"]: s["Fn::If"] for s in policy["Statement"] if "Fn::If" in s}
    assert {sid: (c[0], c[2]) for sid, c in conditional.items()} == {
        "VerifyAccessTokens": ("UseOAuth", {"Ref": "AWS::NoValue"}),
        "ReadUsagePlanKeys": ("UseOAuth", {"Ref": "AWS::NoValue"})}
    assert conditional["VerifyAccessTokens"][1]["Action"] == ["kms:GetPublicKey", "dynamodb:GetItem"]
    assert conditional["ReadUsagePlanKeys"][1]["Action"] == "apigateway:GET"
    statements = {s["Sid"]: s for s in policy["Statement"] if "Fn::If" not in s}
    invoke = statements["InvokeFamilyFunctions"]
    assert invoke["Action"] == "lambda:InvokeFunction"
    assert invoke["Resource"] == [{"Fn::GetAtt": [logical, "Arn"]} for logical in FAMILIES]
    # MCP Tasks are read and cancelled by the gateway itself; the landing page reads source status.
    assert set(statements) == {"InvokeFamilyFunctions", "TasksReadCancel", "TaskResults", "StopAndWatchTaskExecutions",
                               "ReadUsageForLandingPage"}
    assert statements["TasksReadCancel"]["Resource"][0] == {"Fn::GetAtt": ["TaskTable", "Arn"]}


def test_every_family_in_the_catalogue_has_its_function() -> None:
    from scholar.families import families

    functions = _resources("AWS::Serverless::Function")
    named = {
        props["Properties"]["FunctionName"]["Fn::Sub"].split("}-", 1)[1]
        for props in functions.values()
        if isinstance(props["Properties"].get("FunctionName"), dict)
    }
    assert set(families()) <= named


def test_secret_parameters_grant_ssm_access_only_when_configured() -> None:
    template = _template()
    assert template["Parameters"]["S2ApiKeyParameter"]["Default"] == ""
    policy = template["Resources"]["PapersSecretsPolicy"]
    assert policy["Condition"] == "HasPapersSecret"
    (statement,) = policy["Properties"]["PolicyDocument"]["Statement"]
    assert statement["Action"] == "ssm:GetParameter"
    assert all("Fn::If" in resource for resource in statement["Resource"])


def test_retry_machine_is_standard_and_named_like_the_contract() -> None:
    machine = _resources("AWS::Serverless::StateMachine")["RetryTaskStateMachine"]["Properties"]
    assert machine["Type"] == "STANDARD"
    assert machine["Name"] == {"Fn::Sub": "${AWS::StackName}-retry-task"}
    assert machine["DefinitionSubstitutions"] == {"TasksFunctionArn": {"Fn::GetAtt": ["TasksFunction", "Arn"]}}
    definition = json.loads((REPO / machine["DefinitionUri"]).read_text())
    assert definition["StartAt"] == "Wait"
    assert "QueryLanguage" not in definition  # JSONPath: moto cannot execute JSONata


def test_outputs_include_the_mcp_url() -> None:
    outputs = _template()["Outputs"]
    assert outputs["McpUrl"]["Value"] == {
        "Fn::Sub": "https://${Api}.execute-api.${AWS::Region}.amazonaws.com/${StageName}/mcp"
    }
    assert {"CacheTableName", "TaskTableName", "ArtifactBucketName"} <= set(outputs)


def test_pdf_pipeline_is_standard_jsonpath_and_only_invokes_the_pipeline_function() -> None:
    functions = _resources("AWS::Serverless::Function")
    pipeline = functions["PipelineFunction"]["Properties"]
    assert pipeline["FunctionName"] == {"Fn::Sub": "${AWS::StackName}-pipeline"}
    assert pipeline["CodeUri"] == "functions/pipeline/"
    machine = _resources("AWS::Serverless::StateMachine")["PdfPipelineStateMachine"]["Properties"]
    assert machine["Type"] == "STANDARD"
    assert machine["Name"] == {"Fn::Sub": "${AWS::StackName}-pdf-pipeline"}
    assert machine["DefinitionSubstitutions"] == {"PipelineFunctionArn": {"Fn::GetAtt": ["PipelineFunction", "Arn"]}}
    (statement,) = machine["Policies"][0]["Statement"]
    assert statement["Resource"] == {"Fn::GetAtt": ["PipelineFunction", "Arn"]}
    definition = json.loads((REPO / machine["DefinitionUri"]).read_text())
    assert "QueryLanguage" not in definition
    tasks = {name: state for name, state in definition["States"].items() if state["Type"] == "Task"}
    assert set(tasks) == {"Resolve", "Download", "Convert", "Finish"}
    for state in tasks.values():
        assert state["Retry"] and state["Catch"]
    env = _template()["Globals"]["Function"]["Environment"]["Variables"]
    assert "${AWS::StackName}-pdf-pipeline" in env["SCHOLAR_PDF_STATE_MACHINE_ARN"]["Fn::Sub"]


def test_the_connect_pages_may_only_take_a_link_store_a_connection_and_seal_a_key() -> None:
    auth = _resources("AWS::Serverless::Function")["AuthFunction"]["Properties"]
    (policy,) = auth["Policies"]
    statements = {s["Sid"]: s for s in policy["Statement"] if "Sid" in s}
    connections = [s for s in statements.values() if s["Resource"] == {"Fn::GetAtt": ["ConnectionsTable", "Arn"]}]
    assert connections == [statements["ConnectPage"]]
    assert statements["ConnectPage"]["Action"] == ["dynamodb:PutItem", "dynamodb:DeleteItem"]  # never a read
    keys = [s for s in statements.values() if s["Resource"] == {"Fn::GetAtt": ["ConnectionsKey", "Arn"]}]
    assert keys == [statements["SealConnectorKeys"]]
    assert statements["SealConnectorKeys"]["Action"] == "kms:Encrypt"  # it can seal a key, never open one
    assert statements["SealConnectorKeys"]["Condition"] == {
        "StringEquals": {"kms:EncryptionContext:purpose": "scholar-connector"}}
