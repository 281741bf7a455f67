"""The auth function and the gateway under API Gateway events in OAuth mode: URLs behind a stage, twice in a row.

No AWS is needed: metadata is pure, and the gateway's 401 comes before any token is read.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from functions.auth.app import lambda_handler as auth_handler
from functions.gateway.app import lambda_handler as gateway_handler
from tests.events import load_event

API = "https://abcdef1234.execute-api.us-east-1.amazonaws.com/v1"


def _metadata_event(path: str) -> dict[str, Any]:
    event = load_event("api_rest_v1_oauth_metadata")
    event["path"] = path
    event["requestContext"]["path"] = f"/v1{path}"
    return event


@pytest.fixture
def oauth_mode(env):
    env.set(SCHOLAR_AUTH_MODE="OAuth")
    env.delete("SCHOLAR_PUBLIC_URL")  # the package's local server sets it for itself
    return env


@pytest.mark.parametrize("path", ["/.well-known/oauth-authorization-server", "/.well-known/openid-configuration"])
def test_the_auth_function_serves_its_metadata_under_the_stage_twice_in_a_row(oauth_mode, lambda_context, path):
    for _ in range(2):
        response = auth_handler(_metadata_event(path), lambda_context)
        assert response["statusCode"] == 200
        metadata = json.loads(response["body"])
        assert metadata["issuer"] == API
        assert metadata["token_endpoint"] == f"{API}/oauth/token"
        assert metadata["authorization_endpoint"] == f"{API}/oauth/authorize"


def test_the_protected_resource_metadata_names_the_staged_mcp_url(oauth_mode, lambda_context):
    response = auth_handler(_metadata_event("/.well-known/oauth-protected-resource/mcp"), lambda_context)
    metadata = json.loads(response["body"])
    assert metadata["resource"] == f"{API}/mcp" and metadata["authorization_servers"] == [API]


def test_a_custom_domain_setting_wins_over_the_request_context(oauth_mode, lambda_context):
    oauth_mode.set(SCHOLAR_PUBLIC_URL="https://scholar.example.org")
    metadata = json.loads(auth_handler(_metadata_event("/.well-known/oauth-authorization-server"),
                                       lambda_context)["body"])
    assert metadata["issuer"] == "https://scholar.example.org"


def test_the_deployed_gateway_answers_401_pointing_at_the_staged_resource_metadata(oauth_mode, lambda_context):
    event = load_event("api_rest_v1_tools_list")
    event["requestContext"]["domainName"] = "abcdef1234.execute-api.us-east-1.amazonaws.com"
    event["requestContext"]["identity"]["apiKeyId"] = None
    for _ in range(2):
        response = gateway_handler(event, lambda_context)
        assert response["statusCode"] == 401
        headers = {k.lower(): v for k, v in response["headers"].items()}
        assert headers["www-authenticate"].startswith(
            f'Bearer resource_metadata="{API}/.well-known/oauth-protected-resource/mcp"')


def test_the_deployed_gateway_in_oauth_mode_ignores_api_gateways_key_id_and_checks_the_key_itself(
        oauth_mode, lambda_context, monkeypatch):
    from scholar.store import api_keys

    checked: list[str] = []

    def key_id_for(plan: str, presented: str) -> str | None:
        checked.append(presented)
        return None

    monkeypatch.setattr(api_keys, "key_id_for", key_id_for)
    oauth_mode.set(SCHOLAR_API_USAGE_PLAN_ID="plan-1")
    event = load_event("api_rest_v1_tools_list")  # API Gateway's identity says apiKeyId: not trusted in OAuth mode
    presented = next(v for k, v in event["headers"].items() if k.lower() == "x-api-key")
    response = gateway_handler(event, lambda_context)
    assert response["statusCode"] == 401
    assert checked == [presented]


def test_the_local_stand_in_refuses_to_exist_inside_lambda(env):
    from scholar.local.oidc import LocalOidcProvider

    env.set(LAMBDA_TASK_ROOT="/var/task")
    with pytest.raises(RuntimeError):
        LocalOidcProvider(issuer="http://127.0.0.1:1/local-oidc", client_id="c", client_secret="s",
                          redirect_uri="http://127.0.0.1:1/oauth/callback")


@pytest.mark.parametrize(("scope", "lambda_root", "local", "expected"), [
    ({}, None, True, True),
    ({"aws.event": {}}, None, True, False),  # behind API Gateway
    ({}, "/var/task", True, False),  # inside Lambda
    ({}, None, False, False),  # an app not built for make serve
])
def test_the_login_hint_shortcut_is_local_only(env, scope, lambda_root, local, expected):
    from starlette.requests import Request

    from scholar.gateway.auth.authorize import local_shortcuts

    if lambda_root:
        env.set(LAMBDA_TASK_ROOT=lambda_root)
    request = Request({"type": "http", "method": "GET", "path": "/", "headers": [], **scope})
    assert local_shortcuts(request, local) is expected
