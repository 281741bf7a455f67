"""The suite's shared fixtures: settings isolation, environment changes, moto-backed AWS, respx-backed upstreams.

Only fixtures live here; the classes they yield, the factories of the fake upstream and the local server, and the
waiting helpers are in ``tests.fixtures`` (import them from there, never from this module).

Every temporary path lies under pytest's own base (one per xdist worker), so the suite may run in several
processes at once.
"""

from __future__ import annotations

import tempfile
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import botocore.loaders
import botocore.session
import moto
import pytest
import respx

from scholar.core import backend as backends
from scholar.local import dispatch, moto_dynamodb
from scholar.runtime.context import LocalContext
from scholar.sources import http
from tests.aws_tables import create_artifact_bucket, create_cache_table, create_library_table, create_task_table
from tests.fixtures.aws import (
    ARTIFACT_BUCKET,
    CACHE_TABLE,
    LIBRARY_TABLE,
    REGION,
    TASK_TABLE,
    AwsResources,
    boto_session,
)
from tests.fixtures.env import Env, refresh
from tests.fixtures_dir import read_fixture

UPSTREAM_BASE = "http://upstream.test"


@pytest.fixture
def env() -> Iterator[Env]:
    """Change the environment for one test: ``env(SCHOLAR_READ_ONLY="1")`` or ``env.delete("SCHOLAR_X")``."""
    helper = Env()
    yield helper
    helper.undo()


@pytest.fixture(scope="session", autouse=True)
def _shared_botocore_loader() -> Iterator[None]:
    """Share botocore's service-model loader between sessions (speed only).

    Every test builds new boto3 sessions (``reset_clients()``), and each new session would parse the same
    service JSON again (~0.1 s per client). The loader holds read-only model data, so one per data path is safe.
    """
    loaders: dict[Any, botocore.loaders.Loader] = {}

    def create_loader(search_path_string: Any = None) -> botocore.loaders.Loader:
        key = search_path_string
        if key not in loaders:
            loaders[key] = botocore.loaders.create_loader(search_path_string)
        return loaders[key]

    patch = pytest.MonkeyPatch()
    patch.setattr(botocore.session, "create_loader", create_loader)
    yield
    patch.undo()


@pytest.fixture(autouse=True)
def _backend_put_back(request: pytest.FixtureRequest) -> Iterator[None]:
    """The backend current when a test starts is current again when it ends (the module's or package's, else the
    environment's). A test that left another one current made every later test of its worker read that backend's
    settings (a stand-in's template says SCHOLAR_PROFILE=default: seen in CI as a deployment profile not applied).
    The test that leaked is named in a warning."""
    before = backends.current()
    yield
    if backends.current() is not before:
        warnings.warn(f"{request.node.nodeid} left another backend current; put back", stacklevel=1)
        backends._current.set(before)  # the context variable behind using(): no public setter outlives a block


@pytest.fixture(scope="session", autouse=True)
def _private_temp_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """``tempfile.gettempdir()`` is this session's own folder (one per xdist worker, under pytest's base).

    The library's index files and the standards catalogue copy live under ``gettempdir()`` while a function is
    warm, keyed by caller or version, not by process: two test processes at once (xdist workers, or another
    checkout's suite on the same machine) would otherwise read each other's files.
    """
    patch = pytest.MonkeyPatch()
    patch.setattr(tempfile, "tempdir", str(tmp_path_factory.mktemp("tmp")))
    yield
    patch.undo()


@pytest.fixture(autouse=True)
def _isolated_settings() -> Iterator[None]:
    """Fresh settings and boto3 clients around every test; pacing off and search budgets long unless a test says."""
    helper = Env()
    # Research search's deadlines are for the deployed server; a loaded test machine gets twenty times as long.
    helper.set(SCHOLAR_PACE_SCALE="0", SCHOLAR_SEARCH_BUDGET_SCALE="20", SCHOLAR_INLINE_WAIT_S="0")
    yield
    helper.undo()


@pytest.fixture
def aws(env: Env) -> Iterator[AwsResources]:
    """moto active with fake credentials, the CacheTable, TaskTable and ArtifactBucket created and configured."""
    env.set(
        AWS_ACCESS_KEY_ID="testing",
        AWS_SECRET_ACCESS_KEY="testing",
        AWS_SECURITY_TOKEN="testing",
        AWS_SESSION_TOKEN="testing",
        AWS_DEFAULT_REGION=REGION,
        AWS_REGION=REGION,
        AWS_PROFILE=None,
        # A local stack elsewhere may point boto3 at a server; moto's in-process mock must win here.
        AWS_ENDPOINT_URL=None,
    )
    # Explicit config: an in-process moto server (the local stack) may have switched execution on globally.
    # Note: starting this mock resets every in-process moto backend, including one a local stack serves.
    dispatch.install()  # SCHOLAR_LOCAL_DISPATCH (set by a test) runs functions/<family>/app.py in this process
    with moto.mock_aws(config={"stepfunctions": {"execute_state_machine": False}}):
        dynamodb = boto_session().client("dynamodb")
        s3 = boto_session().client("s3")
        create_cache_table(dynamodb, CACHE_TABLE)
        create_task_table(dynamodb, TASK_TABLE)
        create_artifact_bucket(s3, ARTIFACT_BUCKET)
        env.set(
            SCHOLAR_CACHE_TABLE=CACHE_TABLE,
            SCHOLAR_TASK_TABLE=TASK_TABLE,
            SCHOLAR_ARTIFACT_BUCKET=ARTIFACT_BUCKET,
        )
        yield AwsResources(REGION, CACHE_TABLE, TASK_TABLE, ARTIFACT_BUCKET, dynamodb, s3)
        refresh()


@pytest.fixture
def library_table(aws: AwsResources, env: Env) -> str:
    """The LibraryTable in moto (on top of ``aws``), configured as SCHOLAR_LIBRARY_TABLE; returns its name."""
    moto_dynamodb.install()  # DynamoDB's transactions are atomic across threads; moto's are not on their own
    create_library_table(aws.dynamodb, LIBRARY_TABLE)
    env.set(SCHOLAR_LIBRARY_TABLE=LIBRARY_TABLE)
    return LIBRARY_TABLE


@pytest.fixture
def upstream(env: Env) -> Iterator[respx.MockRouter]:
    """Every source under ``http://upstream.test/<name>`` (DESIGN §6), answered by a respx router.

    Register routes by full public path: ``upstream.get("/s2/graph/v1/paper/DOI:10.1073/pnas.1414271111")``.
    """
    # Suites written against one source's recordings read the citation graph from S2 alone; the merged graph's
    # tests (tests/papers/test_citation_graph_sources.py) widen it with SCHOLAR_CITATION_SOURCES.
    env.set(SCHOLAR_UPSTREAM_PROXY_BASE=UPSTREAM_BASE, SCHOLAR_CITATION_SOURCES="s2")
    # The process loop keeps one client per source, with the User-Agent of its creation: start from none.
    http.set_transport_factory(None)
    with respx.mock(base_url=UPSTREAM_BASE, assert_all_called=False) as router:
        yield router
    http.set_transport_factory(None)


@pytest.fixture
def fixture_file() -> Callable[[str], bytes]:
    """``fixture_file(relpath) -> bytes`` under the recorded fixtures folder (skips the test without it)."""
    return read_fixture


@pytest.fixture
def lambda_context() -> LocalContext:
    """A Lambda context for calling ``functions.<family>.app.lambda_handler`` in-process."""
    return LocalContext()
