"""The conformance suites run against the local server in OAuth mode (the fixtures of tests/oauth)."""

from tests.oauth.conftest import documents, oauth_server, oauth_settings, oauth_upstream  # noqa: F401  # fixtures
