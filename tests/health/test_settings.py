"""The health settings: the UsageTable, the principal salt and the build label."""

from scholar.core.config import load_settings


def test_the_usage_table_salt_and_build_are_read_from_the_environment():
    settings = load_settings(
        {"SCHOLAR_USAGE_TABLE": "stack-UsageTable-1", "SCHOLAR_PRINCIPAL_SALT": "arn:stack", "SCHOLAR_BUILD": "abc123"}
    )
    assert (settings.resources.usage_table, settings.principal_salt, settings.build) == (
        "stack-UsageTable-1", "arn:stack", "abc123")


def test_without_them_nothing_is_recorded_and_the_defaults_are_local():
    settings = load_settings({})
    assert (settings.resources.usage_table, settings.principal_salt, settings.build) == (None, "scholar-local", "dev")
