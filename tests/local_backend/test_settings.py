"""Choosing the backend (SCHOLAR_BACKEND, SCHOLAR_HOME) and keeping the local tables keyed as template.yaml's."""

from __future__ import annotations

from pathlib import Path

import pytest
from samtranslator.yaml_helper import yaml_parse

from scholar.core.config import BACKEND_ENV, HOME_ENV, default_home, get_settings, load_settings
from scholar.core.errors import UnavailableError
from scholar.store import aws
from scholar.store.local.backend import TABLES
from tests.fixtures.servers import REPO

# Resources field → template.yaml's logical id of the table.
LOGICAL_IDS = {"cache_table": "CacheTable", "task_table": "TaskTable", "library_table": "LibraryTable",
               "usage_table": "UsageTable", "auth_table": "AuthTable", "connections_table": "ConnectionsTable"}


def test_the_backend_is_aws_unless_told_and_a_wrong_one_is_refused_naming_the_variable():
    assert load_settings({}).backend == "aws"
    assert load_settings({BACKEND_ENV: "Local"}).backend == "local"
    with pytest.raises(ValueError, match=BACKEND_ENV):
        load_settings({BACKEND_ENV: "sqlite"})


def test_the_home_is_scholar_home_expanded_else_the_platforms_user_data_folder():
    assert load_settings({HOME_ENV: "~/research"}).home == Path("~/research").expanduser()
    assert load_settings({}).home is None
    assert default_home().name == "scholar"


def test_a_local_backend_chosen_but_not_open_is_a_typed_error_not_a_call_to_aws(env):
    env.set(**{BACKEND_ENV: "local"})
    get_settings.cache_clear()
    with pytest.raises(UnavailableError) as caught:
        aws.client("dynamodb")
    assert caught.value.reason == "local_backend" and "local_backend()" in (caught.value.hint or "")


@pytest.mark.parametrize("field", sorted(TABLES))
def test_each_local_table_is_keyed_as_its_template_table(field):
    template = yaml_parse((REPO / "template.yaml").read_text())
    properties = template["Resources"][LOGICAL_IDS[field]]["Properties"]
    keys = {k["KeyType"]: k["AttributeName"] for k in properties["KeySchema"]}
    schema = TABLES[field][1]
    assert (schema.hash, schema.range) == (keys["HASH"], keys.get("RANGE"))
    indexes = {
        index["IndexName"]: tuple({k["KeyType"]: k["AttributeName"] for k in index["KeySchema"]}.get(t)
                                  for t in ("HASH", "RANGE"))
        for index in properties.get("GlobalSecondaryIndexes", [])
    }
    assert dict(schema.indexes) == indexes
