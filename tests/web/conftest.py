"""Fixtures for the score keeper: an app on a real database file, migrated the way ``phase10 serve`` migrates.

Every test runs on SQLite; when ``TEST_DATABASE_URL`` names a PostgreSQL server (``.ci/with-postgres`` sets it),
every test runs a second time against it.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient, FlaskCliRunner
from sqlalchemy import create_engine, text

from companion.app import create_app, database_url
from companion.extensions import db

PG_URL = os.environ.get("TEST_DATABASE_URL")
TABLES = ("laid_down_marks", "audit_entries", "rounds", "game_players", "games", "players")
BACKENDS = [
    "sqlite",
    pytest.param("postgres", marks=pytest.mark.postgres)
    if PG_URL
    else pytest.param("postgres", marks=pytest.mark.skip(reason="TEST_DATABASE_URL is not set")),
]


def _migrate(url: str) -> None:
    from flask_migrate import upgrade

    app = create_app({"SECRET_KEY": "test", "SQLALCHEMY_DATABASE_URI": url, "TESTING": True})
    with app.app_context():
        upgrade()
        db.engine.dispose()


@pytest.fixture(scope="session")
def sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One migrated database file, copied for each test (running Alembic per test would dominate the suite)."""
    path = tmp_path_factory.mktemp("template") / "phase10.sqlite3"
    _migrate(f"sqlite:///{path}")
    return path


@pytest.fixture(scope="session")
def postgres_url() -> str:
    assert PG_URL is not None
    url = database_url(PG_URL)
    engine = create_engine(url)
    with engine.begin() as conn:
        # The server is a throw-away one (.ci/with-postgres): start from an empty schema, whatever ran before.
        conn.execute(text("DROP SCHEMA public CASCADE"))
        conn.execute(text("CREATE SCHEMA public"))
    engine.dispose()
    _migrate(url)
    return url


@pytest.fixture(params=BACKENDS)
def database(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        path = tmp_path / "phase10.sqlite3"
        shutil.copy(request.getfixturevalue("sqlite_template"), path)
        yield f"sqlite:///{path}"
        return
    url = request.getfixturevalue("postgres_url")
    engine = create_engine(url)
    with engine.begin() as conn:
        conn.execute(text("TRUNCATE " + ", ".join(TABLES) + " RESTART IDENTITY CASCADE"))
    engine.dispose()
    yield url


def make_app(database: str, **config: Any) -> Flask:
    settings: dict[str, Any] = {
        "SECRET_KEY": "test secret",
        "SQLALCHEMY_DATABASE_URI": database,
        "TESTING": True,
        "WTF_CSRF_ENABLED": False,
    }
    settings.update(config)
    return create_app(settings)


@pytest.fixture
def app(database: str) -> Iterator[Flask]:
    app = make_app(database)
    yield app
    with app.app_context():
        db.session.remove()
        db.engine.dispose()


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()


@pytest.fixture
def runner(app: Flask) -> FlaskCliRunner:
    return app.test_cli_runner()


WORKED_EXAMPLE = {
    # 001 "Worked example": Ana goes out; Ben 3, 7, 11, Skip = 35; Cy Wild, 9, 12 = 40; Dee two 4s = 10.
    "round": 1,
    "went_out": "Ana",
    "players": {
        "Ana": {"laid_down": True},
        "Ben": {"laid_down": True, "cards": ["R3", "G7", "B11", "S"]},
        "Cy": {"laid_down": False, "points": 40},
        "Dee": {"laid_down": True, "points": 10},
    },
}


class ApiGame:
    """A game made through the API, with its id and edit token at hand."""

    def __init__(self, client: FlaskClient, body: dict[str, Any]) -> None:
        response = client.post("/api/games", json=body)
        assert response.status_code == 201, response.json
        self.client = client
        self.id: str = response.json["id"]
        self.token: str = response.json["edit_token"]
        self.auth = {"Authorization": f"Bearer {self.token}"}

    def post_round(self, body: dict[str, Any]) -> Any:
        return self.client.post(f"/api/games/{self.id}/rounds", json=body, headers=self.auth)

    def state(self) -> dict[str, Any]:
        response = self.client.get(f"/api/games/{self.id}")
        assert response.status_code == 200
        return response.json

    def login(self) -> None:
        """Give the test client the edit cookie, as the creating browser has it."""
        self.client.set_cookie(f"p10edit_{self.id}", self.token)


@pytest.fixture
def api_game(client: FlaskClient) -> Callable[..., ApiGame]:
    def make(players: list[str] | None = None, **rules: Any) -> ApiGame:
        body: dict[str, Any] = {"players": players or ["Ana", "Ben", "Cy", "Dee"]}
        if rules:
            body["rules"] = {"name": "standard", **rules}
        return ApiGame(client, body)

    return make


def snapshot(app: Flask) -> dict[str, list[tuple[Any, ...]]]:
    """Every stored row, to show that a refused request changed nothing."""
    from companion.models import AuditEntry, Game, GamePlayer, Player, Round

    with app.app_context():
        out: dict[str, list[tuple[Any, ...]]] = {}
        for model in (Game, Player, GamePlayer, Round, AuditEntry):
            rows = db.session.execute(db.select(model)).scalars().all()
            out[model.__tablename__] = sorted(
                tuple(repr(getattr(r, c.key)) for c in model.__table__.columns) for r in rows
            )
        db.session.remove()
        return out


def round_form_data(number, went_out, entries):
    """Form fields as the round page posts them; ``entries``: seat -> dict of field suffix -> value."""
    data = {"round": str(number), "went_out": went_out}
    for seat, fields in entries.items():
        for key, value in fields.items():
            if key == "down":
                if value:
                    data[f"p{seat}_down"] = "y"
            else:
                data[f"p{seat}_{key}"] = str(value)
    return data
