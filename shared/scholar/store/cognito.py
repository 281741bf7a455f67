"""The stack's Cognito app client, looked up by name (the template cannot hand its id to the auth function:
the client's callback URL names the API, which names the auth function: a cycle)."""

from __future__ import annotations

from functools import cache

from pydantic import SecretStr

from scholar.core import redaction
from scholar.core.errors import UnavailableError
from scholar.store import aws
from scholar.store.boundary import boto_errors


@cache
def app_client(user_pool: str, name: str) -> tuple[str, SecretStr | None]:
    """``(client id, client secret)`` of the user pool's app client called ``name`` (read once per environment).

    Raises:
        UnavailableError: no such client, or Cognito could not be read.
    """
    cognito = aws.client("cognito-idp")
    with boto_errors("reading the Cognito app client"):
        for page in cognito.get_paginator("list_user_pool_clients").paginate(UserPoolId=user_pool):
            for summary in page.get("UserPoolClients", []):
                if summary.get("ClientName") == name:
                    client = cognito.describe_user_pool_client(UserPoolId=user_pool, ClientId=summary["ClientId"])
                    secret = client["UserPoolClient"].get("ClientSecret")
                    if secret:
                        redaction.remember(SecretStr(secret))
                    return summary["ClientId"], SecretStr(secret) if secret else None
    raise UnavailableError(f"the Cognito user pool has no app client named {name!r}", reason="oauth_not_configured")
