"""Fixtures of the standards tests: the recorded upstream folder and a catalogue built from it."""

from __future__ import annotations

from pathlib import Path

import pytest

from scholar.families.standards.catalogue_db import Catalogue, build_catalogue
from scholar.families.standards.linking import link
from tests.fixtures_dir import fixtures_dir
from tests.standards.records_from_fixtures import all_records


@pytest.fixture(scope="session")
def upstream_dir() -> Path:
    return fixtures_dir() / "upstream"


@pytest.fixture(scope="session")
def fixture_catalogue(upstream_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Catalogue:
    path = tmp_path_factory.mktemp("standards") / "catalogue.sqlite"
    build_catalogue(link(all_records(upstream_dir)), path, {"version": "test"})
    catalogue = Catalogue(path)
    yield catalogue
    catalogue.close()


@pytest.fixture
def standards_aws(aws, upstream, upstream_dir, tmp_path, env):
    """moto (tables, bucket) + every standards upstream on respx + a fresh catalogue holder in tmp_path.

    Yields the mounted upstream routes; ``started`` collects the payloads the cold path would send to the
    sync function.
    """
    from scholar.families.standards import cold, retry, service
    from tests.standards.upstream_routes import mount

    env.set(SCHOLAR_RETRY_BUDGET_S="0")  # a recorded 5xx is final here: no retry waits in tests
    routes = mount(upstream, upstream_dir)
    routes.started = []
    cold.set_sync_starter(routes.started.append)
    retry.reset()  # on-demand retries are remembered per instance too: each test starts with none
    service.set_holder(service.CatalogueHolder(directory=tmp_path / "catalogue"))
    yield routes
    cold.set_sync_starter(None)
    retry.reset()
    service.set_holder(None)
