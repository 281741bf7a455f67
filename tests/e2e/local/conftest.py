"""The package's modules again, on the local backend (``scholar serve``'s: SQLite and files, executions on threads).

Each module here imports the tests of one tests/e2e module (their code stays there) and runs them against this
folder's own package server, on the local backend with the package's settings; tests/e2e's server runs the AWS
stand-in. This folder sorts after ``isolated/`` and before the package's modules, so its server has closed before
the package's starts (one stack at a time per process). ``isolated/`` runs every module on both backends itself.

Two modules run on the AWS stand-in only: ``test_conformance_e2e`` (the MCP conformance suite, ~45 s) and
``test_inspector_cli`` (the MCP Inspector CLI, ~25 s) check the gateway's protocol through external clients, and the
gateway is the same app on both backends; what differs (stores, queued tasks, their executions) is what the
modules here call.
"""

from __future__ import annotations

from dataclasses import replace

from tests.e2e.conftest import OPTIONS
from tests.fixtures.servers import local_server_fixture

# The package's modules that run on the AWS stand-in only (tests/unit/test_e2e_backends.py holds the rest to a module
# here each).
STAND_IN_ONLY = ("test_conformance_e2e.py", "test_inspector_cli.py")

local_server = local_server_fixture(replace(OPTIONS, backend="local"), scope="package")
