"""Fixtures of the health tests: moto's UsageTable beside the shared tables, and synthetic histories."""

from __future__ import annotations

import pytest

from scholar.store.usage import UsageStore
from tests.aws_tables import create_usage_table
from tests.fixtures.aws import AwsResources
from tests.fixtures.env import Env

USAGE_TABLE = "scholar-test-usage"


@pytest.fixture
def usage(aws: AwsResources, env: Env) -> UsageStore:
    """The UsageTable in moto, configured as SCHOLAR_USAGE_TABLE; the store that reads and writes it."""
    create_usage_table(aws.dynamodb, USAGE_TABLE)
    env.set(SCHOLAR_USAGE_TABLE=USAGE_TABLE, SCHOLAR_PRINCIPAL_SALT="test-salt")
    return UsageStore()
