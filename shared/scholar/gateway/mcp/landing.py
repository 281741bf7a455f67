"""The landing page: ``GET /`` tells a person in a browser what this server offers and how to connect.

Generated from the catalogue (the tools a ``tools/list`` on the same URL would show: same profile and
toolsets, same read-only mode) with what each profile holds, and connection snippets carrying this server's own
MCP URL, rebuilt from the request (Host, API Gateway stage or base path). The Host header is the client's to
choose: it is checked against a host-name pattern (else ``localhost`` is shown), Jinja2 escapes everything it
prints, and the per-URL page cache is bounded. No JavaScript: the Content-Security-Policy allows none. Jinja2 is
imported on the first page only (gateway cold start).
"""

from __future__ import annotations

import importlib
import json
import logging
import re
import time
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from scholar.core.catalogue import PROFILES, Selection
from scholar.core.config import Settings, get_settings
from scholar.core.reference import ToolReference, tool_reference
from scholar.families import families
from scholar.families.profiles import profile_tools, refusal, tool_names
from scholar.gateway.bearer.urls import base_path
from scholar.gateway.mcp.server import (
    INSTRUCTIONS,
    PROFILE_PARAM,
    SERVER_NAME,
    SERVER_VERSION,
    TOOLSETS_PARAM,
    requested_selection,
)
from scholar.gateway.mcp.tools import visible_tools

logger = logging.getLogger(__name__)

LANDING_PATH = "/"
TEMPLATES = Path(__file__).resolve().parent / "templates"
# Optional hook of the health package: ``source_status() -> iterable of {source, status, detail?}``.
HEALTH_HOOK_MODULE = "scholar.services.health.landing_view"
MAX_CACHED_PAGES = 32
HEALTH_TTL_S = 60.0  # a page that shows source status is rebuilt this often; one without it never
_HOST_RE = re.compile(r"^[A-Za-z0-9.-]{1,253}(:[0-9]{1,5})?$|^\[[0-9A-Fa-f:.]{2,45}\](:[0-9]{1,5})?$")
# The query parameters that choose the listing, carried into the MCP URL the page shows.
_SELECTION_RE = re.compile(rf"(?:{PROFILE_PARAM}|{TOOLSETS_PARAM})=[A-Za-z0-9_,%-]+")
CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'; " \
      "frame-ancestors 'none'"
AUTH_TEXT = {
    "ApiKey": "Every request to the MCP URL needs the API key of the deployment in an x-api-key header "
              "(ask its operator; each key is a separate caller with its own tasks and quota).",
    "OAuth": "Sign in with OAuth: clients that speak the MCP authorization spec (Claude.ai and Claude Desktop "
             "custom connectors, ChatGPT developer mode, Claude Code, the MCP Inspector) find the sign-in from this "
             "URL by themselves; you sign in, see what the client asks for, and allow it. Your library and tasks "
             "are yours alone. Header clients may still send the deployment's x-api-key instead.",
    "None": "This deployment accepts requests without credentials (private testing only).",
    "": "Local server: no credentials needed. An x-api-key header, when sent, only names the caller "
        "(two keys are two callers, each seeing its own tasks).",
}


@dataclass(frozen=True)
class Snippet:
    client: str
    where: str
    text: str


@dataclass(frozen=True)
class ProfileView:
    name: str
    summary: str
    tools: tuple[str, ...]  # those this deployment can serve (read-only mode and credentials applied)
    chars: int  # their descriptions and input schemas: what a client's model reads before its first question


@dataclass(frozen=True)
class SourceStatus:
    source: str
    status: str
    detail: str = ""


_pages: OrderedDict[tuple[Any, ...], tuple[float, bytes]] = OrderedDict()


async def respond(scope: Mapping[str, Any], send: Any) -> None:
    """Answer ``GET /`` (or ``HEAD /``) with the page for this URL, selection and mode.

    A URL naming a profile or toolset no catalogue defines is answered 400 with the refusal tools/list gives it,
    before anything is rendered or cached.
    """
    refused = refusal(requested_selection(dict(scope)))
    if refused is not None:
        status, page, kind, caching = 400, refused.message.encode(), b"text/plain; charset=utf-8", b"no-store"
    else:
        status, page, kind, caching = 200, landing_page(scope), b"text/html; charset=utf-8", b"public, max-age=300"
    headers = [
        (b"content-type", kind),
        (b"content-length", str(len(page)).encode()),
        (b"cache-control", caching),
        (b"content-security-policy", CSP.encode()),
        (b"x-content-type-options", b"nosniff"),
        (b"referrer-policy", b"no-referrer"),
    ]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": b"" if scope.get("method") == "HEAD" else page})


def landing_page(scope: Mapping[str, Any]) -> bytes:
    """The page's bytes, from the bounded per-deployment cache when it holds them."""
    settings = get_settings()
    selection = requested_selection(dict(scope))
    url = mcp_url(scope)
    key = (url, selection, settings.read_only, settings.auth_mode, tuple(sorted(settings.secrets.values)))
    now = time.monotonic()
    hit = _pages.get(key)
    if hit is not None and hit[0] > now:
        _pages.move_to_end(key)
        return hit[1]
    statuses = source_status()
    page = render_page(settings, selection, url, statuses).encode()
    _pages[key] = (now + HEALTH_TTL_S if statuses else float("inf"), page)
    while len(_pages) > MAX_CACHED_PAGES:
        _pages.popitem(last=False)
    return page


def mcp_url(scope: Mapping[str, Any]) -> str:
    """This server's MCP URL as the caller reached it (scheme, Host, API Gateway stage or base path)."""
    headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers") or []}
    host = headers.get("host", "")
    if not _HOST_RE.match(host):
        host = "localhost"
    scheme = headers.get("x-forwarded-proto", scope.get("scheme", "http"))
    scheme = scheme if scheme in ("http", "https") else "https"
    prefix = base_path(scope.get("aws.event") or {}, str(scope.get("path", "/")))
    query = scope.get("query_string", b"").decode("latin-1")
    kept = [part for part in query.split("&") if _SELECTION_RE.fullmatch(part)]
    suffix = "?" + "&".join(kept) if kept else ""
    return f"{scheme}://{host}{prefix}/mcp{suffix}"


def source_status() -> list[SourceStatus]:
    """Each source's status from the health package's hook; ``[]`` while that package is absent."""
    try:
        module = importlib.import_module(HEALTH_HOOK_MODULE)
    except ModuleNotFoundError as exc:
        if exc.name and HEALTH_HOOK_MODULE.startswith(exc.name):
            return []
        raise
    try:
        rows = list(module.source_status())
    except Exception:  # the page must answer even when the health records cannot be read
        logger.exception("the health hook failed; the landing page shows no source status")
        return [SourceStatus(source="(all)", status="unknown", detail="source status could not be read")]
    return [SourceStatus(source=str(r["source"]), status=str(r["status"]), detail=str(r.get("detail") or ""))
            for r in rows]


def profile_views(settings: Settings) -> list[ProfileView]:
    """Each profile with the tools this deployment can serve of it."""
    views = []
    for name, profile in PROFILES.items():
        specs = [spec for spec in visible_tools(settings, None) if spec.name in profile_tools(name)]
        views.append(ProfileView(name=name, summary=profile.summary, tools=tuple(s.name for s in specs),
                                 chars=sum(spec.listing_chars() for spec in specs)))
    return views


def render_page(settings: Settings, selection: Selection, url: str, statuses: list[SourceStatus]) -> str:
    """The HTML page (pure: no request, no cache)."""
    refs = [tool_reference(spec) for spec in visible_tools(settings, selection)]
    unlisted = sorted(spec.name for spec in visible_tools(settings, None) if spec.name not in tool_names(selection))
    groups: dict[str, list[ToolReference]] = {family: [] for family in families()}
    for ref in refs:
        groups.setdefault(ref.family, []).append(ref)
    return _environment().get_template("landing.html").render(
        name=SERVER_NAME, version=SERVER_VERSION, instructions=INSTRUCTIONS, url=url,
        auth=AUTH_TEXT.get(settings.auth_mode, AUTH_TEXT["ApiKey"]), auth_mode=settings.auth_mode,
        groups=[(family, tools) for family, tools in groups.items() if tools], tool_count=len(refs),
        read_only=settings.read_only, selection=selection.describe(),
        profiles=profile_views(settings), unlisted=unlisted,
        snippets=snippets(url, settings.auth_mode), statuses=statuses,
    )


def snippets(url: str, auth_mode: str) -> list[Snippet]:
    """Copy-ready connection snippets for common clients, with this URL and the header the auth needs."""
    if auth_mode == "OAuth":
        return oauth_snippets(url)
    header = {"ApiKey": ("x-api-key", "<your-api-key>")}
    name, value = header.get(auth_mode, ("", ""))
    headers = {name: value} if name else {}
    flag = f' --header "{name}: {value}"' if name else ""
    desktop_args = ["-y", "mcp-remote", url] + (["--header", f"{name}:{value}"] if name else [])
    vscode: dict[str, Any] = {"servers": {"scholar": {"type": "http", "url": url}}}
    if name:
        vscode["servers"]["scholar"]["headers"] = {name: "${input:scholar-key}"}
        vscode["inputs"] = [{"type": "promptString", "id": "scholar-key", "password": True,
                             "description": f"{name} value for Scholar MCP ({value})"}]
    return [
        Snippet("Claude Code", "a terminal", f"claude mcp add --transport http scholar {url}{flag}"),
        Snippet("Claude Desktop", "claude_desktop_config.json (through the mcp-remote bridge)",
                _json({"mcpServers": {"scholar": {"command": "npx", "args": desktop_args}}})),
        Snippet("Cursor", "~/.cursor/mcp.json", _json({"mcpServers": {"scholar": {"url": url, "headers": headers}
                                                                        if headers else {"url": url}}})),
        Snippet("VS Code", ".vscode/mcp.json", _json(vscode)),
        Snippet("MCP Inspector", "a terminal (CLI mode; drop --cli for the web UI)",
                f"npx -y @modelcontextprotocol/inspector --cli {url} --transport http{flag} --method tools/list"),
    ]


def oauth_snippets(url: str) -> list[Snippet]:
    """Snippets for an OAuth deployment: the URL alone; each client signs in through the browser."""
    return [
        Snippet("Claude.ai / Claude Desktop", "Settings → Connectors → Add custom connector",
                f"Remote MCP server URL: {url}\n(leave the OAuth client id and secret empty; sign in when asked)"),
        Snippet("ChatGPT", "Settings → Apps & Connectors → Advanced settings → Developer mode, then Create",
                f"MCP server URL: {url}\nAuthentication: OAuth"),
        Snippet("Claude Code", "a terminal, then /mcp in Claude Code to sign in",
                f"claude mcp add --transport http scholar {url}"),
        Snippet("Cursor", "~/.cursor/mcp.json", _json({"mcpServers": {"scholar": {"url": url}}})),
        Snippet("VS Code", ".vscode/mcp.json", _json({"servers": {"scholar": {"type": "http", "url": url}}})),
        Snippet("MCP Inspector", "a terminal (signs in through your browser; drop --cli for the web UI)",
                f"npx -y @modelcontextprotocol/inspector@2.12.0 --cli {url} --transport http --method tools/list"),
    ]


def _json(data: Any) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False)


@cache
def _environment() -> Any:
    import jinja2  # noqa: PLC0415  # deliberately lazy: only the landing page needs it

    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES), autoescape=True, trim_blocks=True, lstrip_blocks=True,
        undefined=jinja2.StrictUndefined,
    )
