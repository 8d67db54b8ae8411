"""A plain install serves the API: the wheel, installed into a fresh venv and run from a
folder outside the checkout, has everything it reads at run time (the spec, the
migrations). CI's `.ci/wheel-check` does the same with the dependencies from the index."""
import sysconfig
from pathlib import Path

import pytest
import requests

from fanout.spec import SPEC

from .conftest import EXTERNAL_DATABASE_URL, EXTERNAL_QUEUE_URL, bearer, free_port, loopback_guarded
from .plain_install import build_wheel, fanout_json, install, plain_env, run, serving, site_packages

ROOT = Path(__file__).resolve().parent.parent


def test_the_root_openapi_yaml_is_a_link_to_the_packages_spec():
    root = ROOT / "openapi.yaml"
    assert root.is_symlink() and root.resolve() == SPEC == ROOT / "fanout" / "openapi.yaml"


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """The bin folder of a fresh venv with this tree's wheel installed (not editable); its
    dependencies are this venv's."""
    folder = tmp_path_factory.mktemp("wheel")
    return install(build_wheel(folder), folder / "venv", deps_from=Path(sysconfig.get_path("purelib")))


@pytest.fixture
def elsewhere(tmp_path) -> Path:
    """A folder outside the checkout, where a user would run `fanout`."""
    folder = tmp_path / "elsewhere"
    folder.mkdir()
    return folder


@pytest.fixture
def user_env(rt) -> dict:
    """A user's shell (the stores of this run when they are PostgreSQL and Redis, emptied by `rt`)."""
    stores = {"FANOUT_DATABASE_URL": EXTERNAL_DATABASE_URL, "FANOUT_QUEUE_URL": EXTERNAL_QUEUE_URL} if EXTERNAL_DATABASE_URL else {}
    return loopback_guarded(plain_env(stores))


@pytest.mark.slow
def test_fanout_is_imported_from_the_installed_wheel(installed, elsewhere, user_env):
    where = run([installed / "python", "-c", "import fanout; print(fanout.__file__)"], cwd=elsewhere, env=user_env).stdout
    assert Path(where.strip()) == site_packages(installed.parent) / "fanout" / "__init__.py"


@pytest.mark.slow
def test_the_installed_wheel_serves_the_api_from_a_folder_outside_the_checkout(installed, elsewhere, user_env):
    with serving(installed, elsewhere, free_port(), user_env) as server:
        spec = requests.get(f"{server.url}/v1/openapi.json", timeout=10)
        assert spec.status_code == 200 and spec.json()["openapi"].startswith("3.0.")
        assert requests.get(f"{server.url}/docs", timeout=10).status_code == 200
        ws = fanout_json(installed, elsewhere, user_env, "workspace", "create", "Wheel")
        key = fanout_json(installed, elsewhere, user_env, "key", "create", ws["id"], "--mode", "sandbox")["key"]
        accounts = requests.get(f"{server.url}/v1/accounts", headers=bearer(key), timeout=10)
        assert (accounts.status_code, accounts.json()) == (200, {"data": []})
        # The dashboard's templates and files are in the wheel too.
        sign_in = requests.get(f"{server.url}/dashboard/sign-in", timeout=10)
        assert sign_in.status_code == 200 and "<h1>Sign in to the dashboard</h1>" in sign_in.text
        for name in ("dashboard.css", "dashboard.js"):
            assert requests.get(f"{server.url}/dashboard/static/{name}", timeout=10).status_code == 200, name
    assert server.exit_code == 0, server.log()
    if not EXTERNAL_DATABASE_URL:
        assert (elsewhere / "var" / "fanout.db").is_file()  # the wheel's migrations made it in ./var
