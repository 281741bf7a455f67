"""The MCP Inspector's CLI (2.12, Node ≥ 22) connects to OAuth mode by itself: discovery, registration, sign-in.

Its CLI runs the OAuth flow without a person when told it may "open" the authorization URL
(``MCP_AUTO_OPEN_ENABLED=true``, with ``BROWSER`` set to a command that does nothing): it prints the URL, and
this test plays the browser with the local stand-in's ``login_hint``; the redirect lands on the CLI's own
loopback callback listener. (The Inspector 0.15 that tests/e2e uses has no OAuth and no headers.)
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import threading

import httpx
import pytest

from tests.conformance.runner import NODE_BIN, free_port, node_packages

pytestmark = pytest.mark.e2e

INSPECTOR = "@modelcontextprotocol/inspector@2.12.0"
_AUTHORIZE = re.compile(r"(http://127\.0\.0\.1:\d+/oauth/authorize\?\S+)")


def test_the_inspector_cli_signs_in_by_itself_and_lists_tools(oauth_server, tmp_path):
    folder = node_packages(INSPECTOR)
    launcher = folder / "node_modules" / "@modelcontextprotocol" / "inspector" / "clients" / "launcher" / "build" / \
        "index.js"
    callback = f"http://127.0.0.1:{free_port()}/oauth/callback"
    env = {**os.environ, "HOME": str(tmp_path), "MCP_AUTO_OPEN_ENABLED": "true", "BROWSER": "/bin/true",
           "MCP_INSPECTOR_SECRET_STORE": "memory"}
    signed_in: list[int] = []

    def browser(stream) -> None:
        for line in stream:
            found = _AUTHORIZE.search(line)
            if found:
                with httpx.Client(timeout=30, trust_env=False, follow_redirects=True) as http:
                    signed_in.append(http.get(str(httpx.URL(found.group(1)).copy_add_param(
                        "login_hint", "inspector"))).status_code)

    result = tmp_path / "tools.json"
    with subprocess.Popen([str(NODE_BIN), str(launcher), "--cli", oauth_server.url, "--transport", "http",
                           "--method", "tools/list", "--callback-url", callback, "--output", str(result)],
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env,
                          cwd=tmp_path) as process:
        watcher = threading.Thread(target=browser, args=(process.stdout,), daemon=True)
        watcher.start()
        try:
            process.wait(timeout=240)
        finally:
            if process.poll() is None:
                process.kill()
        watcher.join(timeout=10)
    assert process.returncode == 0
    assert signed_in == [200]
    assert "library_add" in {tool["name"] for tool in json.loads(result.read_text())["tools"]}
