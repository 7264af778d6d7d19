"""Fixtures for the photo referee: an app on a migrated SQLite file (the marks table comes from a migration),
a game made through the API, and the shipped card model when it is there."""

from __future__ import annotations

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

MODELS = Path(__file__).resolve().parents[2] / "models"


def model_ready() -> bool:
    return (MODELS / "card-index.onnx").exists() and (MODELS / "index-classifier.onnx").exists()


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
