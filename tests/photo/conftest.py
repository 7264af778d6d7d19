"""Fixtures for the photo referee: an app on a migrated SQLite file (the marks table comes from a migration),
a game made through the API, and the shipped card model when it is there."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from companion.app import create_app
from companion.extensions import db
from tests.web.conftest import ApiGame

PG_URL = os.environ.get("TEST_DATABASE_URL")
# Its own database on the test server, so that these tests and the score keeper's never share tables.
PG_DATABASE = "phase10_photo_tests"


def model_ready() -> bool:
    from companion.referee import camera

    # The camera's own answer: the vision extra is installed and its model files are where it looks for them.
    return camera.status().ready


needs_model = pytest.mark.skipif(not model_ready(), reason="the shipped card model is not in models/ yet")


@pytest.fixture(scope="session")
def migrated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from flask_migrate import upgrade

    path = tmp_path_factory.mktemp("photo-db") / "phase10.sqlite3"
    app = create_app({"SECRET_KEY": "test", "SQLALCHEMY_DATABASE_URI": f"sqlite:///{path}", "TESTING": True})
    with app.app_context():
        upgrade()
        db.engine.dispose()
    return path


def make_app(db_path: Path, tmp_path: Path, **config: Any) -> Flask:
    settings: dict[str, Any] = {
        "SECRET_KEY": "test secret",
        "SQLALCHEMY_DATABASE_URI": f"sqlite:///{db_path}",
        "TESTING": True,
        "WTF_CSRF_ENABLED": False,
        "TRAINING_FOLDER": str(tmp_path / "training"),
    }
    settings.update(config)
    return create_app(settings)


@pytest.fixture
def app_factory(migrated: Path, tmp_path: Path) -> Iterator[Callable[..., Flask]]:
    made: list[Flask] = []

    def make(**config: Any) -> Flask:
        path = tmp_path / f"phase10-{len(made)}.sqlite3"
        shutil.copy(migrated, path)
        app = make_app(path, tmp_path, **config)
        made.append(app)
        return app

    yield make
    for app in made:
        with app.app_context():
            db.session.remove()
            db.engine.dispose()


@pytest.fixture
def app(app_factory: Callable[..., Flask]) -> Flask:
    return app_factory()


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()


@pytest.fixture
def api_game(client: FlaskClient) -> Callable[..., ApiGame]:
    def make(players: list[str] | None = None, **rules: Any) -> ApiGame:
        body: dict[str, Any] = {"players": players or ["Ana", "Ben", "Cy"]}
        if rules:
            body["rules"] = {"name": "standard", **rules}
        return ApiGame(client, body)

    return make


@pytest.fixture(scope="session")
def postgres_photo_url() -> str:
    from sqlalchemy import create_engine, text
    from sqlalchemy.engine import make_url

    from companion.app import database_url

    assert PG_URL is not None
    server = make_url(database_url(PG_URL))
    admin = create_engine(server, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f"DROP DATABASE IF EXISTS {PG_DATABASE}"))
        conn.execute(text(f"CREATE DATABASE {PG_DATABASE}"))
    admin.dispose()
    url = server.set(database=PG_DATABASE).render_as_string(hide_password=False)
    from flask_migrate import upgrade

    app = create_app({"SECRET_KEY": "test", "SQLALCHEMY_DATABASE_URI": url, "TESTING": True})
    with app.app_context():
        upgrade()
        db.engine.dispose()
    return url


BACKENDS = [
    "sqlite",
    pytest.param("postgres", marks=pytest.mark.postgres)
    if PG_URL
    else pytest.param("postgres", marks=pytest.mark.skip(reason="TEST_DATABASE_URL is not set")),
]


@pytest.fixture(params=BACKENDS)
def any_database_app(
    request: pytest.FixtureRequest, app_factory: Callable[..., Flask], tmp_path: Path
) -> Iterator[Flask]:
    """The app on SQLite, and again on PostgreSQL when the test server is there."""
    if request.param == "sqlite":
        yield app_factory()
        return
    from sqlalchemy import create_engine, text

    url = request.getfixturevalue("postgres_photo_url")
    engine = create_engine(url)
    with engine.begin() as conn:
        conn.execute(
            text(
                "TRUNCATE laid_down_marks, audit_entries, rounds, game_players, games, players RESTART IDENTITY CASCADE"
            )
        )
    engine.dispose()
    app = create_app(
        {
            "SECRET_KEY": "test secret",
            "SQLALCHEMY_DATABASE_URI": url,
            "TESTING": True,
            "WTF_CSRF_ENABLED": False,
            "TRAINING_FOLDER": str(tmp_path / "training"),
        }
    )
    yield app
    with app.app_context():
        db.session.remove()
        db.engine.dispose()
