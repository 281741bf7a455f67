"""template.yaml with AuthMode=OAuth deployed into moto: the auth function, its table, the signing key, the wiring.

Cognito (the default upstream provider) is not something moto's CloudFormation creates: its resources are checked
in the transformed template; the deployment here names an external OIDC issuer, as the local stack does.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.infra.test_moto_deploy import Deployed, deployment

STACK = "scholar-oauthtest"


@pytest.fixture(scope="module")
def deployed() -> Iterator[Deployed]:
    with deployment(STACK, {"AuthMode": "OAuth", "OidcIssuerUrl": "https://id.example.org", "OidcClientId": "scholar",
                            "OidcClientSecretParameter": "/scholar/oidc-secret"}) as stack:
        yield stack


def test_the_auth_function_gets_its_table_key_and_provider(deployed):
    lambda_ = deployed.client("lambda")
    config = lambda_.get_function(FunctionName=f"{STACK}-auth")["Configuration"]
    variables = config["Environment"]["Variables"]
    assert variables["SCHOLAR_AUTH_TABLE"] == deployed.stack.physical_ids["AuthTable"]
    assert variables["SCHOLAR_OIDC_ISSUER"] == "https://id.example.org"
    assert variables["SCHOLAR_OIDC_CLIENT_SECRET_PARAM"] == "/scholar/oidc-secret"
    assert "SCHOLAR_OIDC_COGNITO_USER_POOL" not in variables  # an external issuer: no Cognito pool
    key = deployed.client("kms").describe_key(KeyId=variables["SCHOLAR_OAUTH_SIGNING_KEY"])["KeyMetadata"]
    assert (key["KeySpec"], key["KeyUsage"]) == ("RSA_2048", "SIGN_VERIFY")


def test_the_gateway_verifies_with_the_same_key_and_reads_the_same_table(deployed):
    lambda_ = deployed.client("lambda")
    gateway = lambda_.get_function(FunctionName=deployed.stack.physical_ids["GatewayFunction"])["Configuration"]
    auth = lambda_.get_function(FunctionName=f"{STACK}-auth")["Configuration"]
    ours, theirs = gateway["Environment"]["Variables"], auth["Environment"]["Variables"]
    assert ours["SCHOLAR_AUTH_MODE"] == "OAuth"
    assert ours["SCHOLAR_OAUTH_SIGNING_KEY"] == theirs["SCHOLAR_OAUTH_SIGNING_KEY"]
    assert ours["SCHOLAR_AUTH_TABLE"] == theirs["SCHOLAR_AUTH_TABLE"]
    assert "SCHOLAR_SHARED_PRINCIPAL" not in ours  # OAuth callers are never one shared principal


def test_the_auth_table_has_pk_sk_and_time_to_live(deployed):
    dynamodb = deployed.client("dynamodb")
    table = dynamodb.describe_table(TableName=deployed.stack.physical_ids["AuthTable"])["Table"]
    assert [k["AttributeName"] for k in table["KeySchema"]] == ["pk", "sk"]
    ttl = dynamodb.describe_time_to_live(TableName=table["TableName"])["TimeToLiveDescription"]
    assert ttl == {"TimeToLiveStatus": "ENABLED", "AttributeName": "expires_at"}
    props = deployed.resources_of("AWS::DynamoDB::Table")["AuthTable"]["Properties"]
    assert props["PointInTimeRecoverySpecification"] == {"PointInTimeRecoveryEnabled": True}
    assert props["SSESpecification"] == {"SSEEnabled": True}


def test_the_auth_function_may_sign_only_with_its_key_and_use_only_its_table(deployed):
    role = deployed.resources_of("AWS::IAM::Role")["AuthFunctionRole"]["Properties"]
    statements = [s for policy in role["Policies"] for s in policy["PolicyDocument"]["Statement"]]
    actions = {a for s in statements if isinstance(s, dict) and "Action" in s
               for a in (s["Action"] if isinstance(s["Action"], list) else [s["Action"]])}
    assert {"kms:Sign", "kms:GetPublicKey", "dynamodb:GetItem", "dynamodb:PutItem"} <= actions
    assert not {a for a in actions if a.endswith("*")}
