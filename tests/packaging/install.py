"""What a new user does with this checkout (issue 36), and what they must not see.

The wheel is built once from a copy of the checkout's files (``pip wheel --no-deps``: no build tool beyond pip),
installed with plain ``pip install <wheel>`` into a fresh virtual environment (no extras, no ``-e``, no ``PYTHONPATH``)
and run from a folder that is not the checkout, against the fake upstream. ``python3.13`` is chosen where pyenv offers
it, else the interpreter running the suite.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import sys
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from pathlib import Path

from mcp import Client
from mcp.client.stdio import StdioServerParameters, stdio_client

from tests.fakes.upstream import FakeUpstream

REPO = Path(__file__).resolve().parents[2]
DOI = "10.1073/pnas.1414271111"  # recorded: semantic_scholar, crossref (tests/local, tests/e2e)
DOI_TITLE = "Developing functional musculoskeletal tissues"
QUERY = "lysyl oxidase collagen cross-linking"  # the README's search
# A paper whose PDF the fake upstream serves from a source (arXiv), so a child process fetches it through
# SCHOLAR_UPSTREAM_PROXY_BASE: the routes of tests/e2e/test_pdf_e2e.py.
ARXIV_ID = "arXiv:2312.07559"
ARXIV_TITLE = "PaperQA"
ARXIV_ROUTES = (("s2", "/graph/v1/paper/ARXIV:2312.07559", "upstream/semantic_scholar/paper_by_arxiv_doi.json"),
                ("arxiv", "/pdf/2312.07559", "pdfs/arxiv_2304.02623v1_beyond_summarization.pdf"))
STEP_TIMEOUT_S = 240  # one subprocess step (a build, an install, a command); every wait is bounded
# What a user must never see: Powertools' CloudWatch EMF lines and JSON log lines, tracebacks, Python warnings.
NOISE = ('"_aws"', "CloudWatchMetrics", '"level":', "Traceback (most recent call last)", "Warning:")
# Not in a fresh clone, so neither in a build nor in a bundle (the fallback copy when git is not there).
IGNORED = (".git", ".venv", ".tools", ".checkov", ".cache", ".aws-sam", ".bench", ".scholar-local", ".pytest_cache",
           "build", "dist", "*.egg-info", "__pycache__", "*.pyc")


def noise(text: str) -> str:
    """The first thing in ``text`` a user must not see, with its surroundings; "" when there is none."""
    found = [(text.find(marker), marker) for marker in NOISE if marker in text]
    if not found:
        return ""
    at, marker = min(found)
    excerpt = f"…{text[max(0, at - 300):at + 1200]}…"
    if marker.startswith("Traceback"):  # its last line (the exception) first: a truncated excerpt would lose it
        raised = next((line for line in text[at:].splitlines()[1:] if line and not line[0].isspace()), "")
        return f"{raised} in: {excerpt}"
    return f"{marker!r} in: {excerpt}"


def source_tree(dest: Path) -> Path:
    """A copy of what a fresh clone of this checkout holds (tracked and new files, nothing git ignores: no .venv,
    build/ or egg-info), so neither a build nor a bundle sees leftovers of this machine."""
    try:
        listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=REPO,
                                capture_output=True, check=True, timeout=60).stdout.decode()
    except (OSError, subprocess.SubprocessError):
        shutil.copytree(REPO, dest, ignore=shutil.ignore_patterns(*IGNORED), symlinks=True)
        return dest
    for name in filter(None, listed.split("\0")):
        source = REPO / name
        if source.is_file():  # a tracked file deleted in the work tree is listed, and absent
            target = dest / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
    return dest


def environ(settings: Mapping[str, str] = (), *, path: Path | None = None) -> dict[str, str]:
    """A user's environment: this one without anything that points at a checkout or changes what we test
    (``PYTHONPATH``, an activated venv, our settings, Powertools' switches), then ``settings``; ``path`` first on
    PATH."""
    dropped = {"PYTHONPATH", "PYTHONHOME", "PYTHONSAFEPATH", "VIRTUAL_ENV", "PYTHONWARNINGS"}
    env = {name: value for name, value in os.environ.items()
           if name not in dropped and not name.startswith(("SCHOLAR_", "POWERTOOLS_", "UV_"))}
    if path is not None:
        env["PATH"] = os.pathsep.join([str(path), env.get("PATH", "")])
    return {**env, **dict(settings)}


def machine_settings(fake: FakeUpstream, home: Path) -> dict[str, str]:
    """The settings of a machine whose sources are the fake upstream (as tests/local/conftest.py sets them)."""
    return {"SCHOLAR_HOME": str(home), "SCHOLAR_UPSTREAM_PROXY_BASE": fake.base_url, "SCHOLAR_PACE_SCALE": "0",
            "SCHOLAR_RETRY_BUDGET_S": "1", "SCHOLAR_INLINE_WAIT_S": "0",
            # a loaded machine (the suite's workers, other runs): search's deadlines twenty times as long, as the
            # suites' own servers have them (tests/fixtures/servers.py)
            "SCHOLAR_SEARCH_BUDGET_SCALE": "20"}


def interpreter() -> str:
    """The Python a new user installs with: pyenv's python3.13 when it is on PATH (the Lambda runtime's), else the
    interpreter running the suite (the base interpreter, not its venv)."""
    shim = shutil.which("python3.13")
    if shim is not None:
        # pyenv's shim resolves through .python-version: ask it from the checkout, where that file says 3.13.
        found = subprocess.run([shim, "-c", "import sys; print(sys.executable)"], cwd=REPO, capture_output=True,
                               text=True, timeout=60, check=False)
        if found.returncode == 0 and found.stdout.strip():
            return found.stdout.strip()
    return getattr(sys, "_base_executable", None) or sys.executable


def build_wheel_once(root: Path) -> Path:
    """The checkout's wheel in ``root/dist``, built by the first caller; the others (xdist workers) wait for it."""
    root.mkdir(parents=True, exist_ok=True)
    with (root / "wheel.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # held at most one build long (the build below is bounded)
        built = sorted((root / "dist").glob("*.whl"))
        if built:
            return built[0]
        tree = source_tree(root / "source")
        done = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(root / "dist"),
                               str(tree)], cwd=root, env=environ(), capture_output=True, text=True,
                              timeout=STEP_TIMEOUT_S, check=False)
        assert done.returncode == 0, f"pip wheel failed: {done.stderr[-3000:]}"
        return sorted((root / "dist").glob("*.whl"))[0]


def registry_env() -> dict[str, str]:
    """uv's registry settings taken from pip's: its index and its CA bundle.

    pip's extra indexes are left out: where they are partial local mirrors (file://, pip warning of every name they
    lack), uv, which takes a name from the first index that has it and locks for every Python at once, fails on
    them where pip merges them.
    """
    listed = subprocess.run([sys.executable, "-m", "pip", "config", "list"], capture_output=True, text=True,
                            timeout=60, check=False).stdout
    config = {}
    for line in listed.splitlines():
        key, _, value = line.partition("=")
        config[key.rsplit(".", 1)[-1]] = value.strip().strip("'\"")
    index = os.environ.get("PIP_INDEX_URL") or config.get("index-url") or "https://pypi.org/simple"
    env = {"UV_INDEX_URL": index, "PIP_INDEX_URL": index}
    cert = os.environ.get("PIP_CERT") or config.get("cert")
    if cert and Path(cert).is_file():
        env["SSL_CERT_FILE"] = cert
    return env


class StdioSession:
    """A client of a server over stdio, and whatever the server wrote to stdout that was not JSON-RPC."""

    def __init__(self, client: Client, unparsed: list[Exception]) -> None:
        self.client = client
        self.unparsed = unparsed


@asynccontextmanager
async def stdio_session(params: StdioServerParameters, errlog: Path) -> AsyncIterator[StdioSession]:
    """The MCP SDK's stdio client on ``params``, the server's stderr kept in ``errlog``.

    The SDK parses every stdout line as JSON-RPC and hands a line that is not to the message handler as an
    exception: those are collected in ``unparsed``.
    """
    unparsed: list[Exception] = []

    async def handler(message: object) -> None:
        if isinstance(message, Exception):
            unparsed.append(message)

    with errlog.open("w", encoding="utf-8") as err:
        async with Client(stdio_client(params, errlog=err), message_handler=handler) as client:
            yield StdioSession(client, unparsed)
