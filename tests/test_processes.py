"""Behaviour across real server processes: revocation, secrets at rest, the announcement."""
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlsplit

import requests

from fanout.models import MODELS, Account, db

from .conftest import EXTERNAL_DATABASE_URL, bearer, free_port, stop_server, wait_for


def test_a_key_revoked_with_the_cli_is_refused_by_a_running_server(server, cli):
    ws = cli.json("workspace", "create", "Acme")
    key = cli.json("key", "create", ws["id"], "--mode", "sandbox")
    assert requests.get(f"{server.url}/v1/accounts", headers=bearer(key["key"]), timeout=10).status_code == 200
    cli("key", "revoke", key["id"])
    answer = requests.get(f"{server.url}/v1/accounts", headers=bearer(key["key"]), timeout=10)
    assert answer.status_code == 401
    assert answer.json()["error"]["code"] == "invalid_api_key"


def database_contents(data_dir: Path) -> bytes:
    """Everything the database holds: the raw SQLite files, or every PostgreSQL row as text."""
    if not EXTERNAL_DATABASE_URL:
        return b"".join(p.read_bytes() for p in sorted(data_dir.glob("*.db*")))
    with db.connection_context():
        rows = []
        for model in MODELS:
            cursor = db.execute_sql(f"SELECT row_to_json(t)::text FROM {model._meta.table_name} t")
            rows.extend(r[0] for r in cursor.fetchall())
    return "\n".join(rows).encode()


def test_no_key_token_or_webhook_secret_reaches_the_database_or_the_logs(servers, insecure_env, cli, rt, tmp_path):
    server = servers(env=insecure_env)  # loopback webhook receivers need the local-development setting
    ws = cli.json("workspace", "create", "Acme", "--plan", "PRO")
    key = cli.json("key", "create", ws["id"], "--mode", "sandbox")["key"]

    started = requests.post(f"{server.url}/v1/accounts/x/connect", headers=bearer(key), json={}, timeout=10)
    session = urlsplit(started.json()["url"]).query.split("=", 1)[1]
    landed = requests.get(started.json()["url"].replace(rt.settings.base_url, server.url), allow_redirects=False, timeout=10)
    assert landed.status_code == 302
    hook = requests.post(
        f"{server.url}/v1/webhooks", headers=bearer(key), timeout=10,
        json={"url": "http://127.0.0.1:9/hook", "events": ["post.completed"]},
    )
    assert hook.status_code == 201
    for path in ("/v1/accounts", "/v1/webhooks", f"/v1/webhooks/{hook.json()['id']}"):
        assert requests.get(f"{server.url}{path}", headers=bearer(key), timeout=10).status_code == 200

    with db.connection_context():
        token = rt.keyring.decrypt(Account.get().access_token)
    secrets = {
        "API key": key,
        "API key secret part": key[len("svc_sandbox_") + 12:][:32],
        "platform token": token,
        "webhook secret": hook.json()["secret"],
        "connect session token": session,
    }
    stored = database_contents(tmp_path)
    log = server.log().encode()
    assert b"GET /connect/x" in log  # the log did record the requests
    for name, secret in secrets.items():
        assert secret.encode() not in stored, f"{name} found in the database"
        assert secret.encode() not in log, f"{name} found in the server log"


def test_serve_runs_migrations_the_api_and_a_queue_worker(servers, process_env, tmp_path):
    if not EXTERNAL_DATABASE_URL:
        process_env["FANOUT_DATABASE_URL"] = f"sqlite:///{tmp_path / 'fresh.db'}"  # an empty database
    srv = servers("serve", process_env)
    assert requests.get(f"{srv.url}/v1/accounts", timeout=10).status_code == 401
    wait_for(lambda: "queue worker running" in srv.log(), 20, "the queue worker")
    stop_server(srv)
    assert srv.proc.returncode == 0
    assert "Consumer exiting" in srv.log()


def test_serve_threads_sets_its_queue_workers_threads(servers, process_env):
    srv = servers("serve", process_env, args=("--threads", "3"))
    wait_for(lambda: "queue worker running" in srv.log(), 20, "the queue worker")
    assert "queue worker running with 3 thread(s)" in srv.log()


def test_the_api_says_it_serves_only_once_it_answers(process_env, rt):
    """A process by nature: the line a person waits for before sending a request (the
    README's quickstart) comes once the socket listens, so a request sent the moment it
    is read is answered."""
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "fanout", "api", "--port", str(port)], env=process_env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        said = []
        for line in proc.stdout:
            said.append(line)
            if "serving the API on" in line:
                break
        assert any("serving the API on" in line for line in said), "".join(said)
        assert requests.get(f"http://127.0.0.1:{port}/healthz", timeout=10).status_code == 200
    finally:
        proc.terminate()
        proc.wait(20)
