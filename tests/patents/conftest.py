"""Fixtures of the patents tests: respx serving the recorded EPO OPS answers, with EPO credentials set."""

from __future__ import annotations

import pytest
import respx

from scholar.sources import epo_ops_auth, epo_ops_fairuse
from tests.fixtures.env import Env
from tests.patents.helpers import KEY, SECRET, TOKEN, ops_fixture


@pytest.fixture
def ops(upstream: respx.MockRouter, env: Env) -> respx.MockRouter:
    """The shared respx router with EPO credentials, no retry budget, and the recorded token answer."""
    env.set(SCHOLAR_EPO_CONSUMER_KEY=KEY, SCHOLAR_EPO_CONSUMER_SECRET=SECRET, SCHOLAR_RETRY_BUDGET_S="0",
            SCHOLAR_EPO_OPS_URL=None, SCHOLAR_S2_URL=None)
    epo_ops_fairuse.forget()
    epo_ops_auth.forget()
    upstream.post(TOKEN, name="token").respond(
        200, content=ops_fixture("auth_accesstoken_response.json"), headers={"Content-Type": "application/json"}
    )
    yield upstream
    epo_ops_fairuse.forget()
    epo_ops_auth.forget()
