"""End-to-end modules that run against a local server of their own, one per module.

The rest of tests/e2e shares one server for the package; a module here gets its own server in front of its own
fake upstream, so the artifacts and library rows another module leaves behind never answer its calls (a read
that must queue, a library that must start empty). One LocalStack may run per process: this folder sorts before
the package's own modules, so its servers have closed before the package's server starts. Every module runs on
both backends, the AWS stand-in and the local backend (``backends``: one server for each, one after the other).
"""

from __future__ import annotations

from tests.fixtures.servers import StackOptions, fake_upstream_fixture, local_server_fixture

fake_upstream = fake_upstream_fixture(scope="module")
local_server = local_server_fixture(StackOptions(contact_email="research-e2e@example.org", retry_budget_s="1"),
                                    scope="module", backends=("aws", "local"))
