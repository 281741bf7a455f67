"""The landing page of the local server (`make serve`) in headless Chromium: tools, snippets, no console errors.

A screenshot is kept in .cache/artifacts/landing.png.
"""

from __future__ import annotations

from typing import Any

import pytest

from scholar.core.config import get_settings
from scholar.gateway.mcp.tools import visible_tools
from tests.fixtures.servers import StackOptions, local_server_fixture
from tests.people.browser import screenshot, visit

# The page asks no upstream.
local_server = local_server_fixture(StackOptions(upstream=None, retry_wait_s=None), scope="module")


@pytest.fixture(scope="module")
def root_url(local_server: Any) -> str:
    return local_server.url.removesuffix("/mcp") + "/"


def test_the_page_shows_every_tool_and_the_snippets_in_the_browser_with_no_console_messages(root_url):
    page = visit(root_url)

    for spec in visible_tools(get_settings(), None):
        assert f'id="tool-{spec.name}"' in page.dom
    for client in ("Claude Code", "Claude Desktop", "Cursor", "VS Code", "MCP Inspector"):
        assert f'data-client="{client}"' in page.dom
    assert f"claude mcp add --transport http scholar {root_url}mcp" in page.dom
    assert page.console == []
    assert screenshot(root_url, "landing.png").stat().st_size > 10_000


def test_the_console_check_sees_a_page_error(tmp_path):
    broken = tmp_path / "broken.html"
    broken.write_text('<!doctype html><p>x</p><script>console.error("boom")</script>')

    assert any("boom" in line for line in visit(broken.as_uri()).console)
