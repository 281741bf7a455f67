"""The backend an entry point on this machine runs on: the local store, or the embedded AWS stand-in.

``SCHOLAR_BACKEND=local`` (the default for the command line, stdio, ``scholar serve`` and ``make serve``) opens and
enters ``scholar.local.machine.local_backend`` (SQLite + files under ``SCHOLAR_HOME``; no boto3, no moto, no
Powertools); ``SCHOLAR_BACKEND=aws`` starts today's embedded stand-in (moto with template.yaml deployed,
``LocalStack``), which runs the functions as Lambda does, configured through the environment.
Both are imported only when chosen: the local one must not pay for boto3, the stand-in needs the repository's
template.yaml.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from scholar.core.backend import Backend, using
from scholar.core.config import BACKEND_ENV, get_environ, set_environment
from scholar.core.errors import InvalidArgumentError

__all__ = ["AWS", "BACKENDS", "LOCAL", "backend_name", "entry_backend", "opened_backend"]

AWS = "aws"
LOCAL = "local"
BACKENDS = (AWS, LOCAL)
# The stand-in runs the Lambda handlers, whose Powertools metrics print EMF lines on stdout: on one machine there is
# no CloudWatch to read them, so they are off unless asked for.
QUIET_ENV = {"POWERTOOLS_METRICS_DISABLED": "true"}


def backend_name() -> str:
    """The chosen backend: ``SCHOLAR_BACKEND``, else ``local`` (the settings' default, ``aws``, is Lambda's).

    Raises:
        InvalidArgumentError: ``SCHOLAR_BACKEND`` names neither backend.
    """
    name = (get_environ(BACKEND_ENV) or LOCAL).strip().lower()
    if name not in BACKENDS:
        raise InvalidArgumentError(f"SCHOLAR_BACKEND={name!r} is not a backend; use one of {', '.join(BACKENDS)}",
                                   field="SCHOLAR_BACKEND")
    return name


@contextmanager
def opened_backend(*, template: Path | None = None) -> Iterator[Backend | None]:
    """Open the chosen backend for the life of the block without entering it: yields the local backend's ``Backend``
    for its owner to enter (``using``) around each piece of work, or None for the stand-in, whose backend is the
    process environment it exports.

    Args:
        template: the SAM template of the AWS stand-in (default: the repository's); unused by the local backend.
    """
    if backend_name() == LOCAL:
        from scholar.local.machine import open_machine  # noqa: PLC0415  # the chosen backend only

        machine = open_machine()
        try:
            yield machine.context
        finally:
            machine.close()
        return
    saved = {name_: get_environ(name_) for name_ in QUIET_ENV}
    set_environment({k: saved[k] or v for k, v in QUIET_ENV.items()})
    try:
        with _stand_in(template):
            yield None
    finally:
        set_environment(saved)


@contextmanager
def entry_backend(*, template: Path | None = None) -> Iterator[str]:
    """Open the chosen backend and enter it for the life of the block; yields its name.

    Args:
        template: the SAM template of the AWS stand-in (default: the repository's); unused by the local backend.
    """
    with opened_backend(template=template) as backend:
        if backend is None:
            yield AWS
            return
        with using(backend):
            yield LOCAL


@contextmanager
def _stand_in(template: Path | None) -> Iterator[None]:
    from scholar.local.http_app import default_template  # noqa: PLC0415  # only the stand-in needs it
    from scholar.local.stack import LocalStack, running  # noqa: PLC0415  # boto3 + moto: only when chosen

    if running():  # one stand-in per process (moto's state is global): a test's or a server's is this one's
        yield
        return
    with LocalStack(template=template or default_template()):
        yield
