"""Deploy template.yaml into moto the way CloudFormation would deploy it into AWS.

The SAM template is transformed with samtranslator (code and definitions pointed at local
stand-ins), resource types moto's CloudFormation cannot create are left out (with what depends
on them), and the result goes through ``cloudformation.create_stack``. State machines are then
created again through the Step Functions API, because moto only executes state machines that
live in its executing backend (PLATFORM_NOTES, "Deploying template.yaml into moto").
"""

from __future__ import annotations

import copy
import io
import json
import logging
import re
import zipfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

import boto3
from moto.cloudformation.parsing import NULL_MODELS, get_model_map
from samtranslator.translator.transform import transform
from samtranslator.yaml_helper import yaml_parse

from scholar.entry import route
from scholar.local.invoke import FunctionRoute

logger = logging.getLogger(__name__)

__all__ = ["DeployedStack", "deploy_template"]

ACCOUNT_ID = "123456789012"  # moto's default account
CODE_BUCKET = "scholar-local-code"
CODE_KEY = "placeholder.zip"
# Managed policies SAM attaches by name (Tracing: Active → X-Ray, every function → basic execution).
MANAGED_POLICIES = {
    "AWSLambdaBasicExecutionRole": "arn:aws:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole",
    "AWSXrayWriteOnlyAccess": "arn:aws:iam::aws:policy/AWSXrayWriteOnlyAccess",
    "AWSLambdaRole": "arn:aws:iam::aws:policy/service-role/AWSLambdaRole",
}
# uvicorn stands in for API Gateway locally (and moto cannot deploy an API defined by an OpenAPI body).
REPLACED_LOCALLY = ("AWS::ApiGateway::", "AWS::ApiGatewayV2::")
# Resources that only *name* another in their settings (a function's environment, a role's policy): when that one
# cannot be created locally they are kept with a stand-in name, not dropped (the gateway names the usage plan).
NAMED_NOT_NEEDING = frozenset({"AWS::Lambda::Function", "AWS::IAM::Role"})
_SUB_NAME = re.compile(r"\$\{([A-Za-z0-9_]+)(?:\.[A-Za-z0-9_.]+)?\}")


@dataclass(frozen=True)
class DeployedStack:
    """What a deployment produced: physical ids, routes for invocations, outputs."""

    name: str
    physical_ids: dict[str, str]  # logical id → physical id
    routes: dict[str, FunctionRoute]  # physical function name → handler route
    outputs: dict[str, str]
    state_machine_arns: dict[str, str]  # logical id → ARN in moto's executing backend
    skipped: list[str]  # logical ids moto cannot create
    transformed: dict[str, Any] = field(default_factory=dict)  # the CloudFormation template, before pruning


class _PolicyLoader:
    """The managed-policy loader samtranslator asks for; no IAM calls needed."""

    def load(self) -> dict[str, str]:
        return MANAGED_POLICIES


def deploy_template(template_path: Path, *, stack_name: str, region: str,
                    parameters: Mapping[str, str]) -> DeployedStack:
    """Transform ``template_path`` and create it as a stack in the moto server boto3 points at.

    Args:
        template_path: the SAM template (its folder is the root for CodeUri/DefinitionUri).
        stack_name: the CloudFormation stack name (drives the family function names).
        region: the region boto3 and moto use.
        parameters: template parameter overrides.

    Returns:
        The deployed stack's ids, handler routes and outputs.

    Raises:
        RuntimeError: moto did not complete the stack.
    """
    root = template_path.parent
    sam = yaml_parse(template_path.read_text())
    routes_by_logical = _function_routes(sam)
    definitions = _inline_sources(sam, root)
    pseudo = {"AWS::Region": region, "AWS::AccountId": ACCOUNT_ID, "AWS::Partition": "aws",
              "AWS::StackName": stack_name}
    cfn = transform(sam, {**pseudo, **parameters}, _PolicyLoader())
    transformed = copy.deepcopy(cfn)
    skipped = _prune_unsupported(cfn)
    for resource in cfn["Resources"].values():
        if resource["Type"] == "AWS::KMS::Key" and isinstance(resource["Properties"].get("KeyPolicy"), dict):
            # moto's CloudFormation stores a policy object as it came and fails to read it back: give it text.
            resource["Properties"]["KeyPolicy"] = json.dumps(resource["Properties"]["KeyPolicy"])

    s3 = boto3.client("s3", region_name=region)
    s3.create_bucket(Bucket=CODE_BUCKET)
    s3.put_object(Bucket=CODE_BUCKET, Key=CODE_KEY, Body=_placeholder_zip())
    cloudformation = boto3.client("cloudformation", region_name=region)
    cloudformation.create_stack(
        StackName=stack_name,
        TemplateBody=json.dumps(cfn),
        Parameters=[{"ParameterKey": k, "ParameterValue": v} for k, v in parameters.items()],
        Capabilities=["CAPABILITY_IAM", "CAPABILITY_AUTO_EXPAND"],
    )
    stack = cloudformation.describe_stacks(StackName=stack_name)["Stacks"][0]
    if stack["StackStatus"] != "CREATE_COMPLETE":
        raise RuntimeError(f"moto left stack {stack_name} in {stack['StackStatus']}: {stack.get('StackStatusReason')}")
    physical = {
        r["LogicalResourceId"]: r["PhysicalResourceId"]
        for r in cloudformation.list_stack_resources(StackName=stack_name)["StackResourceSummaries"]
    }
    _apply_time_to_live(cfn["Resources"], physical, region)
    physical.update(_recreate_asymmetric_keys(cfn["Resources"], physical, region))
    # A function whose Condition is false has no physical resource, hence no route.
    routes = {physical[logical]: route for logical, route in routes_by_logical.items() if logical in physical}
    state_machines = {
        logical: _create_executable_state_machine(logical, cfn["Resources"], definition, physical, region)
        for logical, definition in definitions.items()
    }
    outputs = {o["OutputKey"]: o["OutputValue"] for o in stack.get("Outputs", [])}
    return DeployedStack(stack_name, physical, routes, outputs, state_machines, skipped, transformed)


def _function_routes(sam: dict[str, Any]) -> dict[str, FunctionRoute]:
    """Logical id → handler route: CodeUri ``functions/papers/`` → the handler its app.py re-exports, in the package
    (``scholar.entry.route``), so the stand-in runs the installed code without the checkout on the path."""
    routes = {}
    for logical, resource in sam["Resources"].items():
        if resource["Type"] != "AWS::Serverless::Function":
            continue
        module, attribute = route(PurePosixPath(resource["Properties"]["CodeUri"]).name)
        routes[logical] = FunctionRoute(logical, module, attribute)
    return routes


def _inline_sources(sam: dict[str, Any], root: Path) -> dict[str, dict[str, Any]]:
    """Point code at the placeholder zip and inline state machine definitions.

    Returns:
        State machine logical id → its definition as written (substitutions not applied).
    """
    code_uri = f"s3://{CODE_BUCKET}/{CODE_KEY}"
    definitions = {}
    for logical, resource in sam["Resources"].items():
        props = resource.get("Properties", {})
        if resource["Type"] == "AWS::Serverless::Function":
            props["CodeUri"] = code_uri
        elif resource["Type"] == "AWS::Serverless::LayerVersion":
            props["ContentUri"] = code_uri
        elif resource["Type"] == "AWS::Serverless::StateMachine":
            text = (root / props.pop("DefinitionUri")).read_text()
            props["Definition"] = json.loads(text)
            definitions[logical] = json.loads(text)  # the transform may rewrite its copy
    return definitions


def _prune_unsupported(cfn: dict[str, Any]) -> list[str]:
    """Drop resources moto cannot create, then whatever refers to them; returns the dropped ids.

    moto would skip unknown types itself, but with a UserWarning raised inside its server
    thread, which fails the stack under ``filterwarnings = error``.
    """
    resources = cfn["Resources"]
    model_map = get_model_map()
    dropped = {
        name for name, r in resources.items()
        if r["Type"].startswith(REPLACED_LOCALLY) or (r["Type"] not in model_map and r["Type"] not in NULL_MODELS)
    }
    grew = True
    while grew:
        for name, resource in resources.items():
            if name not in dropped and resource["Type"] in NAMED_NOT_NEEDING and _references(resource) & dropped:
                resources[name] = _stand_in_names(resource, dropped)
        dependants = {name for name, r in resources.items() if name not in dropped and _references(r) & dropped}
        dropped |= dependants
        grew = bool(dependants)
    for name in dropped:
        del resources[name]
    outputs = cfn.get("Outputs", {})
    for name in [n for n, o in outputs.items() if _references(o) & dropped]:
        del outputs[name]
    if dropped:
        logger.info("moto cannot create %s; left out locally", ", ".join(sorted(dropped)))
    return sorted(dropped)


def _stand_in_names(node: Any, dropped: set[str]) -> Any:
    """``node`` with every Ref / GetAtt / Sub of a dropped resource replaced by a ``local-stand-in:<id>`` string."""
    if isinstance(node, list):
        return [_stand_in_names(item, dropped) for item in node]
    if not isinstance(node, dict):
        return node
    if set(node) == {"Ref"} and node["Ref"] in dropped:
        return f"local-stand-in:{node['Ref']}"
    if set(node) == {"Fn::GetAtt"}:
        target = node["Fn::GetAtt"]
        logical = target[0] if isinstance(target, list) else target.split(".")[0]
        if logical in dropped:
            return f"local-stand-in:{logical}"
    if set(node) == {"Fn::Sub"} and isinstance(node["Fn::Sub"], str):
        text = _SUB_NAME.sub(lambda m: f"local-stand-in:{m.group(1)}" if m.group(1) in dropped else m.group(0),
                             node["Fn::Sub"])
        return {"Fn::Sub": text}
    return {key: _stand_in_names(value, dropped) for key, value in node.items()}


def _references(node: Any) -> set[str]:
    """Logical names a template fragment refers to (Ref, GetAtt, Sub, DependsOn)."""
    found: set[str] = set()
    if isinstance(node, list):
        for item in node:
            found |= _references(item)
    elif isinstance(node, dict):
        for key, value in node.items():
            if key == "Ref" and isinstance(value, str):
                found.add(value)
            elif key == "Fn::GetAtt":
                found.add(value[0] if isinstance(value, list) else value.split(".")[0])
            elif key == "Fn::Sub":
                text = value if isinstance(value, str) else value[0]
                found |= set(_SUB_NAME.findall(text))
                if isinstance(value, list):
                    found |= _references(value[1])
            elif key == "DependsOn":
                found |= {value} if isinstance(value, str) else set(value)
            else:
                found |= _references(value)
    return found


def _apply_time_to_live(resources: Mapping[str, Any], physical: Mapping[str, str], region: str) -> None:
    """Turn on the tables' TTL: moto's CloudFormation ignores TimeToLiveSpecification (TTL is never enforced)."""
    dynamodb = boto3.client("dynamodb", region_name=region)
    for logical, resource in resources.items():
        spec = resource.get("Properties", {}).get("TimeToLiveSpecification")
        if resource["Type"] == "AWS::DynamoDB::Table" and spec and logical in physical:
            dynamodb.update_time_to_live(TableName=physical[logical], TimeToLiveSpecification=spec)


def _recreate_asymmetric_keys(resources: Mapping[str, Any], physical: Mapping[str, str],
                              region: str) -> dict[str, str]:
    """Create the asymmetric KMS keys again through the KMS API and point the functions at them.

    moto's CloudFormation creates every ``AWS::KMS::Key`` as a symmetric key (it ignores ``KeySpec``), which
    cannot sign; KMS itself in moto signs for real. Returns logical id → the new key's id.
    """
    kms = boto3.client("kms", region_name=region)
    lambda_ = boto3.client("lambda", region_name=region)
    replaced: dict[str, str] = {}
    swaps: dict[str, str] = {}
    for logical, resource in resources.items():
        props = resource.get("Properties", {})
        spec = props.get("KeySpec", "SYMMETRIC_DEFAULT")
        if resource["Type"] != "AWS::KMS::Key" or spec == "SYMMETRIC_DEFAULT" or logical not in physical:
            continue
        old = kms.describe_key(KeyId=physical[logical])["KeyMetadata"]
        new = kms.create_key(KeySpec=spec, KeyUsage=props.get("KeyUsage", "SIGN_VERIFY"),
                             Description=str(props.get("Description", logical)))["KeyMetadata"]
        swaps |= {old["Arn"]: new["Arn"], old["KeyId"]: new["KeyId"]}
        replaced[logical] = new["KeyId"]
    if swaps:
        for function in lambda_.list_functions()["Functions"]:
            variables = function.get("Environment", {}).get("Variables", {})
            if any(value in swaps for value in variables.values()):
                lambda_.update_function_configuration(
                    FunctionName=function["FunctionName"],
                    Environment={"Variables": {k: swaps.get(v, v) for k, v in variables.items()}},
                )
    return replaced


def _create_executable_state_machine(logical: str, resources: Mapping[str, Any], definition: dict[str, Any],
                                     physical: Mapping[str, str], region: str) -> str:
    """Create the state machine again where moto executes it; returns its ARN."""
    props = resources[logical]["Properties"]
    name = physical[logical].rsplit(":", 1)[-1]  # CloudFormation's physical id is the ARN
    text = json.dumps(definition)
    for key, value in props.get("DefinitionSubstitutions", {}).items():
        text = text.replace("${" + key + "}", _resolve(value, resources, physical, region))
    role_arn = _resolve(props["RoleArn"], resources, physical, region)
    sfn = boto3.client("stepfunctions", region_name=region)
    created = sfn.create_state_machine(name=name, definition=text, roleArn=role_arn,
                                       type=props.get("StateMachineType", "STANDARD"))
    return created["stateMachineArn"]


def _resolve(value: Any, resources: Mapping[str, Any], physical: Mapping[str, str], region: str) -> str:
    """Resolve the few intrinsics used in DefinitionSubstitutions and RoleArn (Ref, GetAtt Arn)."""
    if isinstance(value, str):
        return value
    if "Ref" in value:
        return physical[value["Ref"]]
    logical, attribute = value["Fn::GetAtt"]
    kind = resources[logical]["Type"]
    if attribute != "Arn" or kind not in ("AWS::Lambda::Function", "AWS::IAM::Role"):
        raise NotImplementedError(f"the local stack cannot resolve Fn::GetAtt {logical}.{attribute} ({kind})")
    if kind == "AWS::IAM::Role":
        return boto3.client("iam", region_name=region).get_role(RoleName=physical[logical])["Role"]["Arn"]
    function = boto3.client("lambda", region_name=region).get_function(FunctionName=physical[logical])
    return function["Configuration"]["FunctionArn"]


def _placeholder_zip() -> bytes:
    """A valid zip for create_function/publish_layer_version; the code itself never runs."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("app.py", "def lambda_handler(event, context):\n    raise RuntimeError('routed locally')\n")
    return buffer.getvalue()
