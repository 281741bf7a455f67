"""The backend an entry point on this machine runs on: the local store, or the embedded AWS stand-in.

``SCHOLAR_BACKEND=local`` (the default for the command line, stdio, ``scholar serve`` and ``make serve``) enters
``scholar.local.machine.local_backend`` (SQLite + files under ``SCHOLAR_HOME``; no boto3, no moto);
``SCHOLAR_BACKEND=aws`` starts today's embedded stand-in (moto with template.yaml deployed, ``LocalStack``).
Both are imported only when chosen: the local one must not pay for boto3, the stand-in needs the repository's
template.yaml.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from scholar.core.config import BACKEND_ENV, get_environ, set_environment
from scholar.core.errors import InvalidArgumentError

__all__ = ["AWS", "BACKENDS", "LOCAL", "backend_name", "entry_backend"]

AWS = "aws"
LOCAL = "local"
BACKENDS = (AWS, LOCAL)
# On one machine there is no CloudWatch: Powertools' metrics (EMF lines on stdout) are off unless asked for.
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
def entry_backend(*, template: Path | None = None) -> Iterator[str]:
    """Enter the chosen backend for the life of the block; yields its name.

    Args:
        template: the SAM template of the AWS stand-in (default: the repository's); unused by the local backend.
    """
    name = backend_name()
    saved = {name_: get_environ(name_) for name_ in QUIET_ENV}
    set_environment({k: saved[k] or v for k, v in QUIET_ENV.items()})
    try:
        with _entered(name, template):
            yield name
    finally:
        set_environment(saved)


@contextmanager
def _entered(name: str, template: Path | None) -> Iterator[None]:
    if name == LOCAL:
        from scholar.local.machine import local_backend  # noqa: PLC0415  # the chosen backend only

        with local_backend():
            yield
        return
    from scholar.local.server import default_template  # noqa: PLC0415  # uvicorn: only the stand-in needs it
    from scholar.local.stack import LocalStack, running  # noqa: PLC0415  # boto3 + moto: only when chosen

    if running():  # one stand-in per process (moto's state is global): a test's or a server's is this one's
        yield
        return
    with LocalStack(template=template or default_template()):
        yield
