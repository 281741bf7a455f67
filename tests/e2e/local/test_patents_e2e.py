"""tests/e2e/test_patents_e2e.py on the local backend."""

from tests.e2e.test_patents_e2e import *  # noqa: F403  # its tests, run again here
