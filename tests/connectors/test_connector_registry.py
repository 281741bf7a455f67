"""The connector registry is what library_sync, its schema, library_connections and the docs read: one row per
target, and the abilities it declares refused before any request."""

from __future__ import annotations

import inspect

import pytest

from scholar.core.errors import INVALID_ARGUMENT
from scholar.families import get_tool
from scholar.gateway.auth.connect import FORMS
from scholar.services.connectors.base import Connector
from scholar.services.connectors.registry import REGISTRATIONS, TARGETS, Registration, connector
from tests.connectors.test_sync_tools import call
from tests.fixtures_dir import REPO

DOCS = REPO / "docs" / "connectors.md"


def _row(entry: Registration) -> str:
    abilities = entry.abilities
    needs = " and ".join(sorted(abilities.collection_for)) or "none"

    def yes(flag: bool) -> str:
        return "yes" if flag else "no"

    return (f"| `{entry.name}` | {entry.summary} | {yes(abilities.push)} | {yes(abilities.pull)} | {needs} | "
            f"{yes(abilities.local_only)} |")


def test_library_syncs_target_enum_and_library_connections_removals_are_the_registrys():
    sync = get_tool("library_sync").input_schema()["properties"]["target"]
    assert tuple(sync["enum"]) == TARGETS
    connections = get_tool("library_connections").input_schema()["properties"]
    pages = [r.name for r in REGISTRATIONS if r.abilities.connect_page]
    assert pages == ["zotero", "notion"]
    # ... and the library proxy (licensed full text), connected on its own page (scholar.gateway.auth.connect_proxy)
    assert connections["remove"]["enum"] == connections["connect"]["enum"] == [*pages, "proxy"]
    assert list(FORMS) == pages  # each has its page on the authorization server (scholar.gateway.auth.connect)


def test_every_target_is_built_from_its_entry_with_every_method_of_the_protocol():
    methods = {name for name, _ in inspect.getmembers(Connector, inspect.isfunction)}
    for entry in REGISTRATIONS:
        built = connector(entry.name)
        assert (built.name, built.abilities) == (entry.name, entry.abilities)
        assert all(callable(getattr(built, m)) for m in methods), entry.name


def test_docs_connectors_lists_every_target_with_its_abilities():
    text = DOCS.read_text()
    for entry in REGISTRATIONS:
        assert _row(entry) in text, _row(entry)


@pytest.mark.parametrize("entry", [r for r in REGISTRATIONS if not (r.abilities.push and r.abilities.pull)],
                         ids=lambda r: r.name)
def test_a_direction_a_target_lacks_is_refused_naming_the_direction(entry, library_table, lambda_context):
    lacking = "push" if not entry.abilities.push else "pull"
    refused = call(lambda_context, "library_sync", {"target": entry.name, "direction": lacking,
                                                    "collection": "reading"})["error"]
    assert (refused["code"], refused["details"]["field"]) == (INVALID_ARGUMENT, "direction")


@pytest.mark.parametrize("entry", [r for r in REGISTRATIONS if r.abilities.collection_for], ids=lambda r: r.name)
def test_a_missing_collection_is_refused_where_the_target_needs_one(entry, library_table, lambda_context):
    for direction in entry.abilities.collection_for:
        refused = call(lambda_context, "library_sync", {"target": entry.name, "direction": direction})["error"]
        assert (refused["code"], refused["details"]["field"]) == (INVALID_ARGUMENT, "collection")


@pytest.mark.parametrize("entry", [r for r in REGISTRATIONS if r.abilities.local_only], ids=lambda r: r.name)
def test_a_target_on_the_callers_own_computer_is_refused_by_a_hosted_server(entry, library_table, env, fake,
                                                                             lambda_context):
    env.set(LAMBDA_TASK_ROOT="/var/task", POWERTOOLS_TRACE_DISABLED="1")
    refused = call(lambda_context, "library_sync", {"target": entry.name, "direction": "pull"})["error"]
    assert (refused["code"], refused["reason"]) == (INVALID_ARGUMENT, "target_local_only")
    assert fake.log == []
