"""Where everything is, and the metadata documents that say so (RFC 8414, RFC 9728).

One base URL (``scholar.gateway.bearer.urls.public_base``) gives the issuer (the base itself), the resource (the MCP
URL) and every endpoint under ``/oauth/``. The authorization server metadata is served at both well-known names
(``oauth-authorization-server`` and ``openid-configuration``) under the base, because behind an API Gateway
stage the issuer has a path and ``<base>/.well-known/openid-configuration`` is the one discovery form that
lands inside the stage; the path-inserted forms at the domain root need a custom domain (docs/deploy.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from scholar.gateway.bearer import scopes, urls

OAUTH_PREFIX = "/oauth"
AUTHORIZE_PATH = f"{OAUTH_PREFIX}/authorize"
CALLBACK_PATH = f"{OAUTH_PREFIX}/callback"
CONSENT_PATH = f"{OAUTH_PREFIX}/consent"
TOKEN_PATH = f"{OAUTH_PREFIX}/token"
REGISTER_PATH = f"{OAUTH_PREFIX}/register"
REVOKE_PATH = f"{OAUTH_PREFIX}/revoke"
JWKS_PATH = f"{OAUTH_PREFIX}/jwks"
AUTH_METHODS = ["none", "client_secret_post", "client_secret_basic"]


@dataclass(frozen=True)
class Endpoints:
    """The deployment's OAuth URLs, from its base URL."""

    base: str

    @property
    def issuer(self) -> str:
        return self.base

    @property
    def resource(self) -> str:
        return urls.resource_url(self.base)

    def url(self, path: str) -> str:
        return f"{self.base}{path}"


def authorization_server_metadata(endpoints: Endpoints) -> dict[str, Any]:
    """RFC 8414 metadata (with MCP's client ID metadata documents and RFC 9207 ``iss``)."""
    return {
        "issuer": endpoints.issuer,
        "authorization_endpoint": endpoints.url(AUTHORIZE_PATH),
        "token_endpoint": endpoints.url(TOKEN_PATH),
        "registration_endpoint": endpoints.url(REGISTER_PATH),
        "revocation_endpoint": endpoints.url(REVOKE_PATH),
        "jwks_uri": endpoints.url(JWKS_PATH),
        "scopes_supported": list(scopes.SUPPORTED),
        "response_types_supported": ["code"],
        "response_modes_supported": ["query"],
        "grant_types_supported": ["authorization_code", "refresh_token"],
        "token_endpoint_auth_methods_supported": AUTH_METHODS,
        "revocation_endpoint_auth_methods_supported": AUTH_METHODS,
        "code_challenge_methods_supported": ["S256"],
        "client_id_metadata_document_supported": True,
        "authorization_response_iss_parameter_supported": True,
        "service_documentation": endpoints.url("/"),
    }


def protected_resource_metadata(endpoints: Endpoints) -> dict[str, Any]:
    """RFC 9728 metadata of the MCP URL."""
    return {
        "resource": endpoints.resource,
        "authorization_servers": [endpoints.issuer],
        "scopes_supported": list(scopes.SUPPORTED),
        "bearer_methods_supported": ["header"],
        "resource_name": "Scholar MCP",
        "resource_documentation": endpoints.url("/"),
    }
