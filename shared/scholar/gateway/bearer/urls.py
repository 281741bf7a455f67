"""The URLs a deployment is known by: issuer, MCP resource, metadata; the same in the gateway and the AS.

The base is ``SCHOLAR_PUBLIC_URL`` when set (a custom domain); deployed without it, it is built from API
Gateway's request context (its own domain name and the stage or base-path prefix, which a client cannot
forge, unlike a Host header); locally it is the server's own ``http://<SCHOLAR_HOST>:<SCHOLAR_PORT>``. The
issuer is the base itself; behind a stage it has a path (``https://<api>/<stage>``), which clients discover at
``<base>/.well-known/openid-configuration`` (MCP 2025-11-25, "Authorization Server Metadata Discovery").
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from scholar.core.config import get_settings

MCP_PATH = "/mcp"
PROTECTED_RESOURCE_PATH = "/.well-known/oauth-protected-resource"
AUTHORIZATION_SERVER_PATH = "/.well-known/oauth-authorization-server"
OPENID_CONFIGURATION_PATH = "/.well-known/openid-configuration"
_PREFIX_RE = re.compile(r"^(/[A-Za-z0-9._~-]+)*$")
_DOMAIN_RE = re.compile(r"^[A-Za-z0-9.-]{1,253}$")


def base_path(event: Mapping[str, Any], path: str) -> str:
    """The stage or custom-domain base path in front of our own paths (REST v1 and HTTP v2 events)."""
    context = event.get("requestContext") or {}
    full = context.get("path") or event.get("rawPath") or ""
    if full and full.rstrip("/").endswith(path.rstrip("/")):
        prefix = full.rstrip("/")[: len(full.rstrip("/")) - len(path.rstrip("/"))]
    else:
        stage = context.get("stage") or ""
        prefix = f"/{stage}" if stage and stage != "$default" else ""
    return prefix if _PREFIX_RE.match(prefix) else ""


def public_base(scope: Mapping[str, Any]) -> str:
    """``scheme://host[/prefix]`` of this deployment as the request reached it (no trailing slash)."""
    settings = get_settings()
    if settings.oauth.public_url:
        return settings.oauth.public_url
    event = scope.get("aws.event")
    if isinstance(event, dict):
        domain = str((event.get("requestContext") or {}).get("domainName") or "")
        if _DOMAIN_RE.match(domain):
            return f"https://{domain}{base_path(event, str(scope.get('path', '/')))}"
    return f"http://{settings.host}:{settings.port}"


def resource_url(base: str) -> str:
    """The MCP URL, which is the resource (RFC 8707 audience) of every access token."""
    return f"{base}{MCP_PATH}"


def resource_metadata_url(base: str) -> str:
    """Where the protected-resource metadata of the MCP URL is served (RFC 9728, under our own prefix)."""
    return f"{base}{PROTECTED_RESOURCE_PATH}{MCP_PATH}"
