"""Secrets held in SSM are scrubbed by value from upstream text, like secrets set in the environment."""

from __future__ import annotations

from collections.abc import Iterator
from urllib.parse import quote

import pytest

from scholar.core import aio, redaction
from scholar.core.errors import UpstreamError
from scholar.sources import openalex, s2
from scholar.store import secrets

# Synthetic bodies: upstreams echo a rejected key in their error text (the recorded 4xx bodies hold none).
OPENALEX_KEY = "oa-SSM-held-key-7f3a9c1e5b"
S2_KEY = "s2 SSM/key+with=odd&chars"


@pytest.fixture
def ssm_secrets(aws, env) -> Iterator[None]:
    ssm = aws.client("ssm")
    ssm.put_parameter(Name="/scholar/openalex", Value=OPENALEX_KEY, Type="SecureString")
    ssm.put_parameter(Name="/scholar/s2", Value=S2_KEY, Type="SecureString")
    env.set(SCHOLAR_OPENALEX_API_KEY_PARAM="/scholar/openalex", SCHOLAR_S2_API_KEY_PARAM="/scholar/s2",
            SCHOLAR_OPENALEX_API_KEY=None, SCHOLAR_S2_API_KEY=None, SCHOLAR_RETRY_BUDGET_S="0")
    secrets._cache.clear()
    redaction.forget_all()
    yield
    secrets._cache.clear()
    redaction.forget_all()


def test_an_ssm_key_echoed_in_an_upstream_error_body_is_scrubbed(ssm_secrets, upstream) -> None:
    upstream.get("/openalex/works/W1").respond(403, text=f'{{"error": "Invalid API key {OPENALEX_KEY}"}}')
    with pytest.raises(UpstreamError) as caught:
        aio.run(openalex.get_work("W1"))
    text = str(caught.value.to_envelope())
    assert OPENALEX_KEY not in text
    assert "***" in text


def test_an_ssm_key_echoed_percent_encoded_is_scrubbed(ssm_secrets, upstream) -> None:
    upstream.get("/s2/graph/v1/author/1").respond(
        400, text=f"bad header x-api-key: {quote(S2_KEY, safe='')} ({S2_KEY})"
    )
    with pytest.raises(UpstreamError) as caught:
        aio.run(s2.get_author("1", ["name"]))
    text = str(caught.value.to_envelope())
    assert S2_KEY not in text
    assert quote(S2_KEY, safe="") not in text


def test_a_loaded_secret_is_known_to_the_scrubber_from_then_on(ssm_secrets) -> None:
    assert OPENALEX_KEY not in redaction.known_secrets()
    secrets.get_secret_parameter("/scholar/openalex")
    assert OPENALEX_KEY in redaction.known_secrets()
