"""Fixtures for the photo referee: the score keeper's own (``tests/web/conftest.py``: a migrated database per test,
on SQLite and, when the test server is there, PostgreSQL), with a training folder per test; a game of three
players made through the API; and the shipped card model when it is there."""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from companion.extensions import db
from tests.web import conftest as web
from tests.web.conftest import ApiGame, make_app

# The score keeper's fixtures, named here so that pytest finds them for these tests too.
sqlite_template = web.sqlite_template
postgres_url = web.postgres_url
database = web.database
client = web.client


def model_ready() -> bool:
    from companion.referee import camera

    # The camera's own answer: the vision extra is installed and its model files are where it looks for them.
    return camera.status().ready


needs_model = pytest.mark.skipif(not model_ready(), reason="the shipped card model is not in models/ yet")


def _photo_app(database_url: str, tmp_path: Path, **config: Any) -> Flask:
    """The score keeper's test app, keeping confirmed photos in the test's own folder."""
    return make_app(database_url, **{"TRAINING_FOLDER": str(tmp_path / "training"), **config})


def _close(app: Flask) -> None:
    with app.app_context():
        db.session.remove()
        db.engine.dispose()


@pytest.fixture
def app_factory(sqlite_template: Path, tmp_path: Path) -> Iterator[Callable[..., Flask]]:
    """Apps with settings of a test's own, each on its own copy of the migrated SQLite file."""
    made: list[Flask] = []

    def make(**config: Any) -> Flask:
        path = tmp_path / f"phase10-{len(made)}.sqlite3"
        shutil.copy(sqlite_template, path)
        app = _photo_app(f"sqlite:///{path}", tmp_path, **config)
        made.append(app)
        return app

    yield make
    for app in made:
        _close(app)


@pytest.fixture
def app(app_factory: Callable[..., Flask]) -> Flask:
    return app_factory()


@pytest.fixture
def any_database_app(database: str, tmp_path: Path) -> Iterator[Flask]:
    """The app on SQLite, and again on PostgreSQL when the test server is there."""
    app = _photo_app(database, tmp_path)
    yield app
    _close(app)


@pytest.fixture
def api_game(client: FlaskClient) -> Callable[..., ApiGame]:
    def make(players: list[str] | None = None, **rules: Any) -> ApiGame:
        body: dict[str, Any] = {"players": players or ["Ana", "Ben", "Cy"]}
        if rules:
            body["rules"] = {"name": "standard", **rules}
        return ApiGame(client, body)

    return make
