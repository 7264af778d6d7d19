"""``phase10 serve`` and the app's configuration: migrations applied, addresses printed, settings refused."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from companion.app import ConfigurationError, create_app, database_url
from companion.cli import main
from companion.cli.web import instance_secret

from .conftest import WORKED_EXAMPLE, ApiGame, make_app
from .served import phase10_serve


def test_serve_refuses_a_bad_port(capsys):
    assert main(["serve", "--port", "70000"]) == 2
    assert "--port" in capsys.readouterr().err


def test_serve_reports_a_database_it_cannot_reach(monkeypatch, capsys):
    monkeypatch.setenv("SECRET_KEY", "x" * 32)
    monkeypatch.setenv("DATABASE_URL", "postgresql://nobody@127.0.0.1:1/none")
    assert main(["serve", "--host", "127.0.0.1", "--port", "5999"]) == 2
    assert "cannot prepare the database" in capsys.readouterr().err


def test_instance_secret_is_kept_between_runs(tmp_path):
    first = instance_secret(tmp_path / "instance")
    assert len(first) == 64 and instance_secret(tmp_path / "instance") == first
    assert oct((tmp_path / "instance" / "secret_key").stat().st_mode & 0o777) == "0o600"


def test_no_secret_key_means_no_app(monkeypatch, tmp_path):
    # Production must never fall back to a default secret.
    monkeypatch.delenv("SECRET_KEY", raising=False)
    with pytest.raises(ConfigurationError, match="SECRET_KEY"):
        create_app({"SQLALCHEMY_DATABASE_URI": f"sqlite:///{tmp_path}/x.sqlite3"})


def test_hosting_database_urls_get_the_installed_driver():
    assert database_url("postgres://u@h/db") == "postgresql+psycopg://u@h/db"
    assert database_url("postgresql://u@h/db") == "postgresql+psycopg://u@h/db"
    assert database_url("sqlite:///x") == "sqlite:///x"


def test_proxy_headers_are_trusted_only_when_configured(database):
    app = make_app(database, PROXY_COUNT=1)
    client = app.test_client()
    game = ApiGame(client, {"players": ["Ana", "Ben", "Cy", "Dee"]})
    client.post(
        f"/api/games/{game.id}/rounds",
        json=WORKED_EXAMPLE,
        headers={**game.auth, "X-Forwarded-For": "192.0.2.7"},
    )
    history = client.get(f"/games/{game.id}/history").get_data(as_text=True)
    assert "192.0.2.7" in history


def test_unexpected_errors_are_a_plain_500_without_a_trace(database):
    app = make_app(database, PROPAGATE_EXCEPTIONS=False)

    @app.get("/api/boom")
    def boom():
        raise RuntimeError("secret detail")

    @app.get("/boom")
    def page_boom():
        raise RuntimeError("secret detail")

    client = app.test_client()
    api = client.get("/api/boom")
    assert api.status_code == 500 and "nothing was saved" in api.json["error"]
    page = client.get("/boom")
    assert page.status_code == 500 and b"secret detail" not in page.data and b"<html" in page.data


def test_migrations_downgrade_and_upgrade_again(app, runner):
    from sqlalchemy import inspect

    from companion.extensions import db

    assert runner.invoke(args=["db", "downgrade", "base"]).exit_code == 0
    with app.app_context():
        assert "games" not in inspect(db.engine).get_table_names()
    assert runner.invoke(args=["db", "upgrade"]).exit_code == 0
    with app.app_context():
        assert {"games", "players", "game_players", "rounds", "audit_entries"} <= set(
            inspect(db.engine).get_table_names()
        )


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.slow
def test_serve_migrates_a_fresh_database_and_serves(tmp_path: Path):
    port = _free_port()
    env = dict(os.environ, DATABASE_URL=f"sqlite:///{tmp_path}/fresh.sqlite3", SECRET_KEY="serve test " * 4)
    proc = subprocess.Popen(
        [sys.executable, "-m", "companion", "serve", "--host", "127.0.0.1", "--port", str(port)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        lines = []
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            line = proc.stdout.readline()
            lines.append(line)
            if "Press Ctrl+C" in line or not line:
                break
        output = "".join(lines)
        assert f"http://127.0.0.1:{port}/" in output, output
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/games/new", timeout=10) as response:
            assert response.status == 200
    finally:
        proc.terminate()
        proc.wait(timeout=20)


def test_serve_reports_a_port_in_use(monkeypatch, tmp_path, capsys):
    monkeypatch.setenv("SECRET_KEY", "x" * 32)
    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{tmp_path}/busy.sqlite3")
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert main(["serve", "--host", "127.0.0.1", "--port", str(port)]) == 2
    assert f"port {port} is already in use" in capsys.readouterr().err


@pytest.mark.slow
@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_serve_stops_cleanly(tmp_path: Path, stop: signal.Signals):
    with phase10_serve(tmp_path) as served:
        with urllib.request.urlopen(served.base + "/games/new", timeout=60) as response:
            assert response.status == 200
        served.process.send_signal(stop)
        assert served.process.wait(timeout=60) == 0
        assert served.process.stdout is not None
        assert "Stopped." in served.process.stdout.read()
        assert "Traceback" not in served.stderr(), served.stderr()
