"""The embedded AWS stand-in: moto in this process, with template.yaml deployed into it.

``LocalStack`` starts moto's server on a free loopback port, points boto3 at it through the
standard AWS_* variables, deploys the template (tables, bucket, functions, state machine),
routes Lambda invocations to our handlers and exports the environment the template gives to
functions (SCHOLAR_CACHE_TABLE, ...). A setting the user gave (``SCHOLAR_READ_ONLY=true make serve``)
wins over the template's value for it; only the names of the stack's own resources are the stack's.
It is the one place besides scholar.core.config that writes
os.environ: our code reaches AWS through boto3's environment, exactly as it does in Lambda, and
everything it changes is put back by ``close()``.
"""

from __future__ import annotations

import json
import logging
import os
import time
import urllib.request
from collections.abc import Mapping
from pathlib import Path
from types import TracebackType
from typing import Any

import boto3
from moto.server import ThreadedMotoServer

from scholar.core.config import (
    ARTIFACT_BUCKET_ENV,
    AUTH_TABLE_ENV,
    CACHE_TABLE_ENV,
    CONNECTIONS_KEY_ENV,
    CONNECTIONS_TABLE_ENV,
    ENV_PREFIX,
    FUNCTION_PREFIX_ENV,
    LIBRARY_TABLE_ENV,
    OAUTH_SIGNING_KEY_ENV,
    PDF_STATE_MACHINE_ARN_ENV,
    RETRY_STATE_MACHINE_ARN_ENV,
    TASK_TABLE_ENV,
)
from scholar.local import moto_dynamodb
from scholar.local.deploy import DeployedStack, deploy_template
from scholar.local.invoke import Handler, InvokeRouter

logger = logging.getLogger(__name__)

__all__ = ["DEFAULT_STACK_NAME", "LOCAL_PARAMETERS", "LocalStack", "running"]

DEFAULT_STACK_NAME = "scholar-local"
REGION = "us-east-1"
# Locally there is no API Gateway in front (moto cannot create keys and usage plans), and a
# developer's own server shows the write tools; deployed stacks keep the template defaults.
LOCAL_PARAMETERS = {"AuthMode": "None", "ReadOnly": "false"}
# Variables that name what the stack created: always the stack's, whatever the environment held before.
STACK_RESOURCE_ENVS = frozenset({CACHE_TABLE_ENV, TASK_TABLE_ENV, ARTIFACT_BUCKET_ENV, FUNCTION_PREFIX_ENV,
                                 RETRY_STATE_MACHINE_ARN_ENV, PDF_STATE_MACHINE_ARN_ENV, LIBRARY_TABLE_ENV,
                                 AUTH_TABLE_ENV, OAUTH_SIGNING_KEY_ENV, CONNECTIONS_TABLE_ENV, CONNECTIONS_KEY_ENV})
MOTO_CONFIG = {"stepfunctions": {"execute_state_machine": True}, "lambda": {"use_docker": False}}
# Credentials and endpoint for boto3; a real profile or session token must not leak in.
_AWS_ENV_CLEARED = ("AWS_PROFILE", "AWS_SESSION_TOKEN", "AWS_SECURITY_TOKEN", "AWS_DEFAULT_PROFILE")
_ACTIVE: list[LocalStack] = []


class LocalStack:
    """moto with template.yaml deployed, as a context manager.

    Args:
        template: path to template.yaml (its folder is the repository root).
        extra_env: more variables to export after the template's (they win).
        handlers_override: logical id → callable(event, context) used instead of
            the function's handler in the package (tests).
        parameters: template parameter overrides on top of ``LOCAL_PARAMETERS``.
        stack_name: the stack name; family functions are ``<stack_name>-<family>``.

    Attributes (after start):
        env: the variables exported to this process (template Globals + extra_env).
        outputs: the stack outputs moto could produce.
        endpoint_url: the moto server's URL.
        startup_s: seconds from start to a deployed, routed stack.
    """

    def __init__(self, *, template: Path, extra_env: Mapping[str, str] | None = None,
                 handlers_override: Mapping[str, Handler] | None = None,
                 parameters: Mapping[str, str] | None = None, stack_name: str = DEFAULT_STACK_NAME) -> None:
        self.template = Path(template)
        self.stack_name = stack_name
        self.env: dict[str, str] = {}
        self.outputs: dict[str, str] = {}
        self.endpoint_url = ""
        self.startup_s = 0.0
        self.deployed: DeployedStack | None = None
        self._extra_env = dict(extra_env or {})
        self._parameters = {**LOCAL_PARAMETERS, **(parameters or {})}
        self._router = InvokeRouter({}, handlers_override)
        self._server: ThreadedMotoServer | None = None
        self._saved_env: dict[str, str | None] = {}
        self._saved_config: dict[str, Any] | None = None
        self._werkzeug_level: int | None = None

    def __enter__(self) -> LocalStack:
        self.start()
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    def configure(self, extra_env: Mapping[str, str], parameters: Mapping[str, str]) -> None:
        """Add variables and template parameters before ``start`` (the local server's OAuth mode)."""
        self._extra_env.update(extra_env)
        self._parameters.update(parameters)

    def function_name(self, family: str) -> str:
        """The physical name of a family function, as the gateway computes it."""
        return f"{self.stack_name}-{family}"

    def start(self) -> None:
        """Start moto, deploy the template, route invocations and export the environment.

        Raises:
            RuntimeError: another LocalStack is running in this process (moto's state is global).
        """
        if _ACTIVE:
            raise RuntimeError("a LocalStack is already running in this process; close it first")
        _ACTIVE.append(self)
        began = time.perf_counter()
        user_settings = _user_settings(os.environ)
        try:
            self._quiet_request_log()
            self._server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
            self._server.start()
            host, port = self._server.get_host_and_port()
            self.endpoint_url = f"http://{host}:{port}"
            self._export({
                "AWS_ENDPOINT_URL": self.endpoint_url,
                "AWS_DEFAULT_REGION": REGION,
                "AWS_REGION": REGION,
                "AWS_ACCESS_KEY_ID": "testing",
                "AWS_SECRET_ACCESS_KEY": "testing",
                "AWS_EC2_METADATA_DISABLED": "true",
                "MOTO_PORT": str(port),  # Step Functions' internal clients call this port
            }, cleared=_AWS_ENV_CLEARED)
            self._saved_config = self._moto_api("config")
            self._moto_api("config", MOTO_CONFIG)
            self._router.install()
            moto_dynamodb.install()  # the library's transactions race across request threads
            self.deployed = deploy_template(self.template, stack_name=self.stack_name, region=REGION,
                                            parameters=self._parameters)
            self._router.add_routes(self.deployed.routes)
            self.outputs = dict(self.deployed.outputs)
            self.env = {**self._function_env(), **user_settings, **self._extra_env}
            self._export(self.env)
            _forget_cached_configuration()
        except BaseException:
            self.close()
            raise
        self.startup_s = time.perf_counter() - began
        logger.info("local AWS stack %s ready at %s in %.2f s", self.stack_name, self.endpoint_url, self.startup_s)

    def close(self) -> None:
        """Stop routing, forget moto's state, stop the server and restore the environment; idempotent."""
        if self not in _ACTIVE:
            return
        self._router.uninstall()
        if self._server is not None:
            try:
                self._moto_api("reset", {})
                if self._saved_config is not None:
                    self._moto_api("config", self._saved_config)
            finally:
                self._server.stop()
                self._server = None
        for name, value in self._saved_env.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        self._saved_env.clear()
        if self._werkzeug_level is not None:
            logging.getLogger("werkzeug").setLevel(self._werkzeug_level)
            self._werkzeug_level = None
        _ACTIVE.remove(self)
        _forget_cached_configuration()

    def _quiet_request_log(self) -> None:
        """moto's server logs every request through werkzeug at INFO; keep warnings only."""
        werkzeug = logging.getLogger("werkzeug")
        self._werkzeug_level = werkzeug.level
        werkzeug.setLevel(logging.WARNING)

    def _function_env(self) -> dict[str, str]:
        """The environment moto resolved for the functions (Globals are the same for all)."""
        assert self.deployed is not None
        client = boto3.client("lambda", region_name=REGION)
        merged: dict[str, str] = {}
        for physical in self.deployed.routes:
            config = client.get_function_configuration(FunctionName=physical)
            merged.update(config.get("Environment", {}).get("Variables", {}))
        return merged

    def _export(self, values: Mapping[str, str], cleared: tuple[str, ...] = ()) -> None:
        for name in (*values, *cleared):
            self._saved_env.setdefault(name, os.environ.get(name))
        for name in cleared:
            os.environ.pop(name, None)
        os.environ.update(values)

    def _moto_api(self, path: str, body: Mapping[str, Any] | None = None) -> Any:
        """GET (no body) or POST moto's control API (``/moto-api/<path>``) on loopback."""
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(f"{self.endpoint_url}/moto-api/{path}", data=data,
                                         method="GET" if body is None else "POST")
        with urllib.request.urlopen(request, timeout=10) as response:  # loopback only
            text = response.read()
        return json.loads(text) if text else None


def running() -> bool:
    """Whether a LocalStack is running in this process (the entry points then use it rather than start one)."""
    return bool(_ACTIVE)


def _user_settings(environ: Mapping[str, str]) -> dict[str, str]:
    """The SCHOLAR_* settings the user set (non-empty), but for the names of the stack's own resources."""
    return {name: value for name, value in environ.items()
            if name.startswith(ENV_PREFIX) and value and name not in STACK_RESOURCE_ENVS}


def _forget_cached_configuration() -> None:
    """Make scholar read the new environment: cached settings and boto3 clients are dropped."""
    from scholar.core.config import get_settings  # noqa: PLC0415  # config imports the source registry; keep it lazy
    from scholar.store.aws import reset_clients  # noqa: PLC0415  # with config, lazily

    get_settings.cache_clear()
    reset_clients()
