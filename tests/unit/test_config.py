"""Settings from the environment (scholar.core.config, DESIGN §6)."""

import pytest
from pydantic import SecretStr

from scholar.core import config
from scholar.core.config import OAuthSettings, Resources, Settings, get_settings, load_settings
from scholar.core.config_parts import SECRET_NAMES
from scholar.sources.registry import SOURCES, base_url

PROXY = "http://proxy.test:8080"


def test_a_source_url_setting_wins_over_the_proxy_base():
    settings = load_settings({"SCHOLAR_S2_URL": "http://mirror.test/s2/", "SCHOLAR_UPSTREAM_PROXY_BASE": PROXY})
    assert base_url("s2", settings) == "http://mirror.test/s2"


def test_the_proxy_base_serves_every_other_source_under_its_name():
    settings = load_settings({"SCHOLAR_S2_URL": "http://mirror.test", "SCHOLAR_UPSTREAM_PROXY_BASE": PROXY + "/"})
    assert base_url("openalex", settings) == f"{PROXY}/openalex"
    assert base_url("arxiv_api", settings) == f"{PROXY}/arxiv_api"


@pytest.mark.parametrize("name", [n for n, s in SOURCES.items() if s.default_base])
def test_without_overrides_each_source_uses_its_public_scheme_and_host(name):
    base = base_url(name, load_settings({}))
    assert base == SOURCES[name].default_base
    # Zotero desktop's local API is the one source on this machine's loopback (plain HTTP, no public host).
    assert base.startswith("https://") or base == "http://127.0.0.1:23119"
    assert base.count("/") == 2  # scheme + host only: the code appends the full public path


def test_the_public_defaults_match_the_design():
    settings = load_settings({})
    assert base_url("s2", settings) == "https://api.semanticscholar.org"
    assert base_url("openalex", settings) == "https://api.openalex.org"
    assert base_url("crossref", settings) == "https://api.crossref.org"
    assert base_url("arxiv_api", settings) == "https://export.arxiv.org"


def test_docling_has_no_public_default():
    with pytest.raises(KeyError):
        base_url("docling", load_settings({}))


def test_docling_resolves_through_its_own_url_or_the_proxy():
    assert base_url("docling", load_settings({"SCHOLAR_DOCLING_URL": "http://docling.test"})) == "http://docling.test"
    assert base_url("docling", load_settings({"SCHOLAR_UPSTREAM_PROXY_BASE": PROXY})) == f"{PROXY}/docling"


def test_an_unknown_source_is_a_key_error():
    with pytest.raises(KeyError):
        base_url("no_such_source", load_settings({}))


def test_secrets_are_secret_strings():
    env = {f"SCHOLAR_{name}": f"value-of-{name.lower()}" for name in SECRET_NAMES}
    secrets = load_settings(env).secrets
    for name in SECRET_NAMES:
        value = getattr(secrets, name.lower())
        assert isinstance(value, SecretStr)
        assert value.get_secret_value() == f"value-of-{name.lower()}"
        assert secrets.has(name.lower())


def test_secrets_never_appear_in_the_repr_or_str_of_settings():
    env = {f"SCHOLAR_{name}": f"hunter2-{i}" for i, name in enumerate(SECRET_NAMES)}
    settings = load_settings(env)
    for text in (repr(settings), str(settings), repr(settings.secrets), settings.model_dump_json()):
        assert "hunter2" not in text


def test_an_empty_secret_counts_as_missing():
    secrets = load_settings({"SCHOLAR_S2_API_KEY": ""}).secrets
    assert secrets.s2_api_key is None
    assert not secrets.has("s2_api_key")


@pytest.mark.parametrize(("raw", "expected"), [("1", True), ("true", True), ("YES", True), (" on ", True),
                                               ("0", False), ("false", False), ("no", False), ("", False)])
def test_read_only_parses_common_spellings(raw, expected):
    assert load_settings({"SCHOLAR_READ_ONLY": raw}).read_only is expected


def test_read_only_is_off_when_unset():
    assert load_settings({}).read_only is False


def test_toolsets_are_a_set_of_trimmed_names():
    settings = load_settings({"SCHOLAR_TOOLSETS": " papers, arxiv ,,tasks "})
    assert settings.toolsets == frozenset({"papers", "arxiv", "tasks"})


def test_no_toolsets_means_no_filter():
    assert load_settings({}).toolsets is None
    assert load_settings({"SCHOLAR_TOOLSETS": ""}).toolsets is None


def test_resources_and_local_server_settings_are_read():
    settings = load_settings(
        {
            "SCHOLAR_CACHE_TABLE": "c",
            "SCHOLAR_TASK_TABLE": "t",
            "SCHOLAR_ARTIFACT_BUCKET": "b",
            "SCHOLAR_HOST": "0.0.0.0",
            "SCHOLAR_PORT": "8123",
            "SCHOLAR_CONTACT_EMAIL": "ops@example.org",
        }
    )
    assert (settings.resources.cache_table, settings.resources.task_table) == ("c", "t")
    assert settings.resources.artifact_bucket == "b"
    assert (settings.host, settings.port) == ("0.0.0.0", 8123)
    assert settings.contact_email == "ops@example.org"


def test_defaults_without_any_environment():
    settings = load_settings({})
    assert (settings.host, settings.port) == ("127.0.0.1", 3000)
    assert settings.resources.cache_table is None
    assert settings.pace_scale == 1.0
    assert settings.contact_email is None


def test_get_settings_is_cached_until_cleared(env):
    env(SCHOLAR_CONTACT_EMAIL="first@example.org")
    first = get_settings()
    env(SCHOLAR_CONTACT_EMAIL="second@example.org")  # the env fixture clears the cache
    assert first.contact_email == "first@example.org"
    assert get_settings().contact_email == "second@example.org"
    assert get_settings() is get_settings()


def test_the_autouse_fixture_turns_pacing_off():
    assert get_settings().pace_scale == 0


def test_every_variable_the_loader_reads_sets_a_field_of_its_model():
    for table, model in ((config._SETTINGS, Settings), (config._RESOURCES, Resources), (config._OAUTH, OAuthSettings)):
        assert set(table) <= set(model.model_fields), model.__name__


def test_an_empty_environment_gives_the_models_own_defaults():
    assert load_settings({}).model_dump() == Settings(in_lambda=False).model_dump()
