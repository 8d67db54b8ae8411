"""Settings from the environment (fanout/settings.py). Every test passes its own mapping."""
from __future__ import annotations

from pathlib import Path

import pytest

from fanout.settings import Settings, SettingsError, sqlite_path


def settings(**env: str) -> Settings:
    return Settings.from_env(env)


# --- defaults ----------------------------------------------------------------------------


def test_data_dir_defaults_to_var_resolved_against_the_working_directory(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    data_dir = Settings.from_env({}).data_dir
    assert data_dir == (tmp_path / "var").resolve()
    assert data_dir.is_absolute()


def test_database_defaults_to_a_sqlite_file_in_the_data_dir():
    s = Settings.from_env({})
    assert s.database_url.startswith("sqlite:///")
    assert sqlite_path(s.database_url) == s.data_dir / "fanout.db"


def test_queue_defaults_to_another_sqlite_file_in_the_data_dir():
    s = Settings.from_env({})
    assert s.queue_url.startswith("sqlite:///")
    assert sqlite_path(s.queue_url) == s.data_dir / "queue.db"
    assert s.queue_url != s.database_url


def test_base_url_defaults_to_local_port_8000():
    assert Settings.from_env({}).base_url == "http://127.0.0.1:8000"


def test_connect_url_defaults_to_the_base_url():
    assert settings(FANOUT_BASE_URL="https://api.example.com").connect_url == "https://api.example.com"


def test_insecure_urls_defaults_to_off():
    assert Settings.from_env({}).insecure_urls is False


def test_secret_key_defaults_to_none():
    assert Settings.from_env({}).secret_key is None


def test_response_validation_defaults_to_off():
    assert Settings.from_env({}).validate_responses is False


@pytest.mark.parametrize(
    "name",
    ["FANOUT_DATA_DIR", "FANOUT_BASE_URL", "FANOUT_CONNECT_URL", "FANOUT_DATABASE_URL",
     "FANOUT_QUEUE_URL", "FANOUT_SECRET_KEY", "FANOUT_INSECURE_URLS"],
)
def test_empty_variable_means_the_default(name):
    assert Settings.from_env({name: ""}) == Settings.from_env({})


def test_variables_are_read_from_the_given_mapping_only(monkeypatch):
    monkeypatch.setenv("FANOUT_BASE_URL", "https://from-os-environ.example.com")
    assert Settings.from_env({}).base_url == "http://127.0.0.1:8000"


# --- values that are used as given ---------------------------------------------------


def test_data_dir_is_taken_from_the_environment_and_resolved(tmp_path):
    s = settings(FANOUT_DATA_DIR=str(tmp_path / "a" / ".." / "data"))
    assert s.data_dir == tmp_path / "data"
    assert sqlite_path(s.database_url) == tmp_path / "data" / "fanout.db"


def test_secret_key_is_taken_from_the_environment():
    assert settings(FANOUT_SECRET_KEY="k").secret_key == "k"


def test_trailing_slash_on_the_base_url_is_stripped():
    assert settings(FANOUT_BASE_URL="https://api.example.com/").base_url == "https://api.example.com"


def test_trailing_slash_on_a_base_url_with_a_path_is_stripped():
    assert settings(FANOUT_BASE_URL="https://example.com/fanout/").base_url == "https://example.com/fanout"


def test_connect_url_is_taken_from_the_environment_without_trailing_slash():
    s = settings(FANOUT_BASE_URL="https://api.example.com", FANOUT_CONNECT_URL="https://connect.example.com/")
    assert s.connect_url == "https://connect.example.com"


def test_connect_url_defaults_to_the_stripped_base_url():
    assert settings(FANOUT_BASE_URL="https://api.example.com/").connect_url == "https://api.example.com"


@pytest.mark.parametrize(
    "url",
    ["postgresql://fanout:pw@db.internal:5432/fanout", "postgres://fanout@localhost/fanout",
     "sqlite:////srv/fanout/fanout.db", "sqlite:///relative/fanout.db"],
)
def test_database_url_is_accepted(url):
    assert settings(FANOUT_DATABASE_URL=url).database_url == url


@pytest.mark.parametrize(
    "url", ["redis://localhost:6379/0", "redis://:pw@cache.internal:6379/1", "rediss://cache.example.com:6380/0",
            "sqlite:////srv/fanout/queue.db"],
)
def test_queue_url_is_accepted(url):
    assert settings(FANOUT_QUEUE_URL=url).queue_url == url


@pytest.mark.parametrize("value", ["1", "true", "yes", "on", "TRUE", "Yes", " on "])
def test_insecure_urls_flag_accepts_true_words(value):
    assert settings(FANOUT_INSECURE_URLS=value).insecure_urls is True


@pytest.mark.parametrize("value", ["0", "false", "no", "off", "FALSE", "Off", " no "])
def test_insecure_urls_flag_accepts_false_words(value):
    assert settings(FANOUT_INSECURE_URLS=value).insecure_urls is False


# --- bad values name the variable ------------------------------------------------------


@pytest.mark.parametrize(
    "value",
    ["not a URL", "api.example.com", "ftp://api.example.com", "https://", "https://api.example.com/?x=1",
     "https://api.example.com/#top", "http://[::1", "http://api.example.com:port", "http://api.example.com:99999"],
)
def test_bad_base_url_names_the_variable(value):
    with pytest.raises(SettingsError, match="FANOUT_BASE_URL"):
        settings(FANOUT_BASE_URL=value)


@pytest.mark.parametrize("value", ["connect.example.com", "ws://connect.example.com", "http://[::1"])
def test_bad_connect_url_names_the_variable(value):
    with pytest.raises(SettingsError, match="FANOUT_CONNECT_URL"):
        settings(FANOUT_CONNECT_URL=value)


@pytest.mark.parametrize(
    "value",
    ["mysql://fanout@localhost/fanout", "sqlite:///:memory:", "sqlite://", "sqlite:///", "sqlite:fanout.db",
     "postgresql://localhost", "postgresql://localhost/", "fanout.db", "postgresql://[::1/fanout"],
)
def test_bad_database_url_names_the_variable(value):
    with pytest.raises(SettingsError, match="FANOUT_DATABASE_URL"):
        settings(FANOUT_DATABASE_URL=value)


@pytest.mark.parametrize(
    "value", ["amqp://guest@localhost//", "sqlite:///", "sqlite://", "memory://", "queue.db", "redis://[::1"],
)
def test_bad_queue_url_names_the_variable(value):
    with pytest.raises(SettingsError, match="FANOUT_QUEUE_URL"):
        settings(FANOUT_QUEUE_URL=value)


@pytest.mark.parametrize("value", ["maybe", "2", "y", "enabled", "-1"])
def test_bad_insecure_urls_flag_names_the_variable(value):
    with pytest.raises(SettingsError, match="FANOUT_INSECURE_URLS"):
        settings(FANOUT_INSECURE_URLS=value)


def test_settings_error_is_a_value_error():
    assert issubclass(SettingsError, ValueError)


def test_bad_value_is_quoted_in_the_message():
    with pytest.raises(SettingsError, match="'mysql://x/y'"):
        settings(FANOUT_DATABASE_URL="mysql://x/y")


# --- with_base_url and sqlite_path -----------------------------------------------------


def test_with_base_url_replaces_both_urls_without_trailing_slash():
    s = Settings.from_env({}).with_base_url("http://127.0.0.1:9123/")
    assert (s.base_url, s.connect_url) == ("http://127.0.0.1:9123", "http://127.0.0.1:9123")


def test_with_base_url_takes_a_separate_connect_url():
    s = Settings.from_env({}).with_base_url("http://127.0.0.1:9123", "http://127.0.0.1:9124/")
    assert (s.base_url, s.connect_url) == ("http://127.0.0.1:9123", "http://127.0.0.1:9124")


def test_with_base_url_keeps_everything_else():
    before = settings(FANOUT_INSECURE_URLS="1", FANOUT_SECRET_KEY="k")
    after = before.with_base_url("http://127.0.0.1:9123")
    assert (after.data_dir, after.database_url, after.queue_url, after.secret_key, after.insecure_urls) == (
        before.data_dir, before.database_url, before.queue_url, before.secret_key, before.insecure_urls
    )


@pytest.mark.parametrize(
    "url, path",
    [("sqlite:////srv/fanout/fanout.db", Path("/srv/fanout/fanout.db")), ("sqlite:///var/fanout.db", Path("var/fanout.db"))],
)
def test_sqlite_path_is_the_file_behind_the_url(url, path):
    assert sqlite_path(url) == path


def test_settings_are_immutable():
    s = Settings.from_env({})
    with pytest.raises(AttributeError):
        s.base_url = "https://elsewhere.example.com"  # type: ignore[misc]


def test_a_queue_in_memory_is_refused_because_workers_would_not_share_it():
    with pytest.raises(SettingsError, match="FANOUT_QUEUE_URL"):
        Settings.from_env({"FANOUT_QUEUE_URL": "sqlite:///:memory:"})


def test_data_dir_expands_the_home_folder(monkeypatch, tmp_path):
    monkeypatch.setenv("HOME", str(tmp_path))
    assert Settings.from_env({"FANOUT_DATA_DIR": "~/fanout"}).data_dir == tmp_path / "fanout"


def test_publishing_settings_have_the_spec_defaults():
    settings = Settings.from_env({})
    assert settings.webhook_retry_schedule == (60, 300, 1800, 7200, 21600)
    assert settings.publish_lease == 300 and settings.sandbox_latency == 0.0
    assert settings.delivery_slots == 16


@pytest.mark.parametrize(
    "name, value",
    [("FANOUT_WEBHOOK_RETRY_SCHEDULE", "1,x"), ("FANOUT_WEBHOOK_RETRY_SCHEDULE", "-5"),
     ("FANOUT_PUBLISH_LEASE", "0"), ("FANOUT_PUBLISH_LEASE", "soon"),
     ("FANOUT_SANDBOX_LATENCY", "61"), ("FANOUT_SANDBOX_LATENCY", "slow"),
     ("FANOUT_DELIVERY_SLOTS", "0"), ("FANOUT_DELIVERY_SLOTS", "257"), ("FANOUT_DELIVERY_SLOTS", "many"),
     ("FANOUT_PUBLISH_LEASE", "\u00b2"), ("FANOUT_PUBLISH_LEASE", "9" * 5000)],
)
def test_bad_publishing_settings_name_their_variable(name, value):
    with pytest.raises(SettingsError, match=name):
        Settings.from_env({name: value})


def test_delivery_slots_can_be_set():
    assert Settings.from_env({"FANOUT_DELIVERY_SLOTS": "4"}).delivery_slots == 4


def test_the_events_log_keeps_30_days_unless_told_otherwise():
    assert Settings.from_env({}).event_retention_days == 30
    assert Settings.from_env({"FANOUT_EVENT_RETENTION_DAYS": "90"}).event_retention_days == 90


@pytest.mark.parametrize("value", ["0", "3651", "forever", "-1"])
def test_a_bad_event_retention_names_its_variable(value):
    with pytest.raises(SettingsError, match="FANOUT_EVENT_RETENTION_DAYS"):
        Settings.from_env({"FANOUT_EVENT_RETENTION_DAYS": value})


def test_the_retry_schedule_can_be_overridden():
    assert Settings.from_env({"FANOUT_WEBHOOK_RETRY_SCHEDULE": "5, 10"}).webhook_retry_schedule == (5, 10)


# --- health and metrics --------------------------------------------------------------------


def test_heartbeats_default_to_every_10_s_stale_after_three():
    s = settings()
    assert (s.heartbeat_interval, s.heartbeat_stale) == (10, 30)


def test_the_staleness_follows_the_interval_unless_set():
    assert settings(FANOUT_HEARTBEAT_INTERVAL="5").heartbeat_stale == 15
    assert settings(FANOUT_HEARTBEAT_INTERVAL="5", FANOUT_HEARTBEAT_STALE="60").heartbeat_stale == 60


def test_a_staleness_within_one_interval_is_refused():
    with pytest.raises(SettingsError, match="FANOUT_HEARTBEAT_STALE .* must be longer than FANOUT_HEARTBEAT_INTERVAL"):
        settings(FANOUT_HEARTBEAT_INTERVAL="10", FANOUT_HEARTBEAT_STALE="10")


@pytest.mark.parametrize(("name", "value"), [
    ("FANOUT_HEARTBEAT_INTERVAL", "0"), ("FANOUT_HEARTBEAT_INTERVAL", "3601"), ("FANOUT_HEARTBEAT_INTERVAL", "1.5"),
    ("FANOUT_HEARTBEAT_STALE", "-1"), ("FANOUT_HEARTBEAT_STALE", "soon"),
])
def test_bad_heartbeat_settings_name_their_variable(name, value):
    with pytest.raises(SettingsError, match=name):
        settings(**{name: value})


def test_the_metrics_token_is_unset_by_default_and_kept_as_given():
    assert settings().metrics_token is None
    assert settings(FANOUT_METRICS_TOKEN="Zx8-vK2_pQ9rT4wY7uB1").metrics_token == "Zx8-vK2_pQ9rT4wY7uB1"


@pytest.mark.parametrize("value", ["short-secret", "has a space in it, long", "tab\tinside-the-token!!", "é" * 20])
def test_a_weak_or_unsendable_metrics_token_is_refused_without_being_quoted(value):
    with pytest.raises(SettingsError, match="FANOUT_METRICS_TOKEN") as refused:
        settings(FANOUT_METRICS_TOKEN=value)
    assert value not in str(refused.value)


def test_a_platform_app_needs_both_its_client_id_and_secret():
    settings = Settings.from_env({"FANOUT_THREADS_CLIENT_ID": "123", "FANOUT_THREADS_CLIENT_SECRET": "s3cret"})
    assert settings.platform_apps["threads"].client_id == "123"
    assert set(settings.platform_apps) == {"threads"}


@pytest.mark.parametrize("given", ["FANOUT_X_CLIENT_ID", "FANOUT_X_CLIENT_SECRET"])
def test_half_a_platform_app_is_refused_naming_the_missing_half_and_never_the_secret(given):
    with pytest.raises(SettingsError) as refused:
        Settings.from_env({given: "s3cret-value"})
    missing = "FANOUT_X_CLIENT_SECRET" if given.endswith("ID") else "FANOUT_X_CLIENT_ID"
    assert missing in str(refused.value) and "s3cret-value" not in str(refused.value)


def test_platform_hosts_are_host_equals_base_url_pairs():
    settings = Settings.from_env({"FANOUT_PLATFORM_HOSTS": " Graph.Threads.net=http://127.0.0.1:9200/ , threads.net=http://127.0.0.1:9200"})
    assert settings.platform_hosts == {"graph.threads.net": "http://127.0.0.1:9200", "threads.net": "http://127.0.0.1:9200"}


@pytest.mark.parametrize("value", ["graph.threads.net", "graph.threads.net=127.0.0.1:9200",
                                   "graph.threads.net=ftp://127.0.0.1", "graph.threads.net=http://127.0.0.1/v1.0"])
def test_a_platform_host_that_is_not_a_base_url_is_refused(value):
    with pytest.raises(SettingsError, match="FANOUT_PLATFORM_HOSTS"):
        Settings.from_env({"FANOUT_PLATFORM_HOSTS": value})


def test_the_threads_container_window_defaults_to_300_seconds_and_can_be_set():
    assert Settings.from_env({}).of("threads").container_window == 300
    assert Settings.from_env({"FANOUT_THREADS_CONTAINER_WINDOW": "60"}).of("threads").container_window == 60
