"""Shared fixtures: settings isolation, environment changes, moto-backed AWS, respx-backed upstreams, and the
factories of the two servers the slower suites run: the fake upstream and the local server in front of it.

Settings and boto3 clients are cached per process (scholar.core.config.get_settings, scholar.store.aws.client);
every fixture that changes the environment clears both, after the change and after restoring it.

A suite declares the servers it needs in its conftest or module, with the scope it needs::

    fake_upstream = fake_upstream_fixture(scope="package")
    fake = fake_fixture()  # per test: faults, extra routes and the request log cleared before and after
    local_server = local_server_fixture(scope="package", contact_email="e2e@example.org", retry_budget_s="1")

Every port is chosen by the OS and every temporary path lies under pytest's own base (one per xdist worker), so
the suite may run in several processes at once.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, Literal

import boto3
import botocore.loaders
import botocore.session
import moto
import pytest
import respx

from scholar.core.catalogue import ALL_PROFILE
from scholar.core.config import get_settings
from scholar.local import dispatch, moto_dynamodb
from scholar.runtime.context import LocalContext
from scholar.sources import http
from scholar.store import aws as aws_clients
from scholar.web import fetch
from tests.aws_tables import create_artifact_bucket, create_cache_table, create_library_table, create_task_table
from tests.fakes.upstream import FakeUpstream
from tests.fakes.web import web_access
from tests.fixtures_dir import fixtures_dir

UPSTREAM_BASE = "http://upstream.test"
REGION = "us-east-1"
CACHE_TABLE = "scholar-test-cache"
TASK_TABLE = "scholar-test-tasks"
ARTIFACT_BUCKET = "scholar-test-artifacts"
LIBRARY_TABLE = "scholar-test-library"
REPO = Path(__file__).resolve().parents[1]

Scope = Literal["session", "package", "module", "function"]


def _refresh() -> None:
    get_settings.cache_clear()
    aws_clients.reset_clients()


class Env:
    """Set or remove environment variables for one test; settings and clients are re-read after each change."""

    def __init__(self) -> None:
        self._patch = pytest.MonkeyPatch()

    def set(self, **values: str | None) -> None:
        """Set each variable (``None`` removes it), then forget cached settings and clients."""
        for name, value in values.items():
            if value is None:
                self._patch.delenv(name, raising=False)
            else:
                self._patch.setenv(name, str(value))
        _refresh()

    __call__ = set

    def delete(self, *names: str) -> None:
        """Remove the variables (absent ones are fine)."""
        self.set(**dict.fromkeys(names))

    def undo(self) -> None:
        self._patch.undo()
        _refresh()


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
    helper.set(SCHOLAR_PACE_SCALE="0", SCHOLAR_SEARCH_BUDGET_SCALE="20")
    yield
    helper.undo()


@cache
def _test_session() -> boto3.session.Session:
    # One session for the fixtures' own clients: it keeps botocore's loaded service models between tests.
    return boto3.session.Session(
        aws_access_key_id="testing", aws_secret_access_key="testing", aws_session_token="testing", region_name=REGION
    )


@dataclass(frozen=True)
class AwsResources:
    """The moto resources of one test: names and boto3 clients."""

    region: str
    cache_table: str
    task_table: str
    bucket: str
    dynamodb: Any
    s3: Any

    def client(self, service: str) -> Any:
        """Another boto3 client inside the same moto mock (e.g. ``stepfunctions``)."""
        return _test_session().client(service)


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
        dynamodb = _test_session().client("dynamodb")
        s3 = _test_session().client("s3")
        create_cache_table(dynamodb, CACHE_TABLE)
        create_task_table(dynamodb, TASK_TABLE)
        create_artifact_bucket(s3, ARTIFACT_BUCKET)
        env.set(
            SCHOLAR_CACHE_TABLE=CACHE_TABLE,
            SCHOLAR_TASK_TABLE=TASK_TABLE,
            SCHOLAR_ARTIFACT_BUCKET=ARTIFACT_BUCKET,
        )
        yield AwsResources(REGION, CACHE_TABLE, TASK_TABLE, ARTIFACT_BUCKET, dynamodb, s3)
        _refresh()


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
    env.set(SCHOLAR_UPSTREAM_PROXY_BASE=UPSTREAM_BASE)
    # The process loop keeps one client per source, with the User-Agent of its creation: start from none.
    http.set_transport_factory(None)
    with respx.mock(base_url=UPSTREAM_BASE, assert_all_called=False) as router:
        yield router
    http.set_transport_factory(None)


def read_fixture(relpath: str) -> bytes:
    """The bytes of a recorded response, e.g. ``upstream/semantic_scholar/paper_not_found_404.json``."""
    return (fixtures_dir() / relpath).read_bytes()


@pytest.fixture
def fixture_file() -> Callable[[str], bytes]:
    """``fixture_file(relpath) -> bytes`` under the recorded fixtures folder (skips the test without it)."""
    return read_fixture


@pytest.fixture
def lambda_context() -> LocalContext:
    """A Lambda context for calling ``functions.<family>.app.lambda_handler`` in-process."""
    return LocalContext()


# -- the fake upstream and the local server: one factory each ---------------------------------------------------


def fake_upstream_fixture(*, scope: Scope = "module", name: str = "fake_upstream") -> Any:
    """A fixture that serves the recorded upstream responses (``tests.fakes.upstream``) for one ``scope``.

    Args:
        scope: how long one fake lives; the request log and faults carry over between its tests unless a
            ``fake_fixture`` view clears them.
        name: the fixture's name.
    """

    @pytest.fixture(scope=scope, name=name)
    def _fake_upstream() -> Iterator[FakeUpstream]:
        with FakeUpstream(fixtures_dir()) as fake:
            yield fake

    return _fake_upstream


def fake_fixture(
    *, upstream: str = "fake_upstream", settings: Mapping[str, str | None] | None = None, name: str = "fake"
) -> Any:
    """A per-test view of a fake upstream: its faults, extra routes and request log cleared before and after.

    Args:
        upstream: the fake upstream fixture to view.
        settings: when given, the test's own process calls the fake too: every source points at it
            (``SCHOLAR_UPSTREAM_PROXY_BASE``) with these settings as well (``None`` removes one), and the
            upstream clients are rebuilt before and after (each keeps the settings of its creation).
        name: the fixture's name.
    """

    @pytest.fixture(name=name)
    def _fake(request: pytest.FixtureRequest, env: Env) -> Iterator[FakeUpstream]:
        fake: FakeUpstream = request.getfixturevalue(upstream)
        fake.reset()
        if settings is not None:
            env.set(SCHOLAR_UPSTREAM_PROXY_BASE=fake.base_url, **settings)
            http.set_transport_factory(None)
        yield fake
        fake.reset()
        if settings is not None:
            http.set_transport_factory(None)

    return _fake


def local_server_fixture(
    *,
    contact_email: str | None = None,
    retry_budget_s: str | None = None,
    retry_wait_s: str | None = "1",
    scope: Scope = "package",
    name: str = "local_server",
    upstream: str | None = "fake_upstream",
    extra_env: Mapping[str, str] | None = None,
    web: bool = False,
    handlers: Mapping[str, str] | None = None,
    requires: Sequence[str] = (),
    serve_http: bool = True,
    profile: str | None = ALL_PROFILE,
) -> Any:
    """A fixture that runs the local stack (moto + template.yaml), in front of a fake upstream, pacing off.

    One LocalStack may run per process, so a scope must close its server before the next opens one: suites
    hold it at package or module scope, and pytest tears a scope down before it sets up the next.

    Args:
        contact_email: ``SCHOLAR_CONTACT_EMAIL`` (the User-Agent's contact); None keeps the default, as do
            the two below.
        retry_budget_s: ``SCHOLAR_RETRY_BUDGET_S``: seconds a call may spend retrying 429/5xx ("0": none).
        retry_wait_s: ``SCHOLAR_RETRY_WAIT_S``, the retry machine's first wait.
        scope: how long one server lives.
        name: the fixture's name.
        upstream: the fake upstream fixture every source points at; None for a stack no upstream is asked of
            (handlers replaced, or a page that calls none).
        extra_env: more settings for the stack's functions (they win over the ones above).
        web: for the server's life, web hosts reach the fake upstream (``tests.fakes.web``) and the fake's own
            host passes the SSRF guard (``SCHOLAR_TEST_ALLOW_HOSTS``).
        handlers: logical id (``PipelineFunction``) → the fixture whose value handles that function's invocations.
        requires: fixtures to set up first (e.g. a patch the handlers must see).
        serve_http: serve the gateway on uvicorn (a ``LocalServer``, with ``.url`` and ``.stack``); False runs
            only the ``LocalStack`` (invocations and state machines, no HTTP).
        profile: ``SCHOLAR_PROFILE``: the suites call every tool, so their servers list them all; a test of the
            default listing asks for it on the URL (``?profile=default``), or passes None here.
    """

    @pytest.fixture(scope=scope, name=name)
    def _local_server(request: pytest.FixtureRequest) -> Iterator[Any]:
        from scholar.local.server import LocalServer  # noqa: PLC0415  # starts moto: only where a suite needs it
        from scholar.local.stack import LocalStack  # noqa: PLC0415  # same

        for fixture in requires:
            request.getfixturevalue(fixture)
        fake: FakeUpstream | None = request.getfixturevalue(upstream) if upstream else None
        given = {
            "SCHOLAR_UPSTREAM_PROXY_BASE": fake.base_url if fake else None,
            "SCHOLAR_PACE_SCALE": "0",
            "SCHOLAR_SEARCH_BUDGET_SCALE": "20",  # a loaded machine: research search's deadlines twenty times as long
            "SCHOLAR_RETRY_BUDGET_S": retry_budget_s,
            "SCHOLAR_RETRY_WAIT_S": retry_wait_s,
            "SCHOLAR_CONTACT_EMAIL": contact_email,
            "SCHOLAR_TEST_ALLOW_HOSTS": fake.base_url.removeprefix("http://") if fake and web else None,
            "SCHOLAR_PROFILE": profile,
        }
        env = {key: value for key, value in given.items() if value is not None} | dict(extra_env or {})
        overrides = {logical: request.getfixturevalue(fixture) for logical, fixture in (handlers or {}).items()}
        kind = LocalServer if serve_http else LocalStack
        server = kind(template=REPO / "template.yaml", extra_env=env, handlers_override=overrides or None)
        if web and fake:
            fetch.set_web_access(web_access(fake))
        try:
            server.start()
            aws_clients.reset_clients()  # clients built before the stack pointed elsewhere
            yield server
        finally:
            server.close()
            aws_clients.reset_clients()
            if web:
                fetch.set_web_access(None)

    return _local_server
