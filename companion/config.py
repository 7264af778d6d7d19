"""The app's settings: defaults, then the environment, then what ``create_app(config)`` is given, checked once.

As microblog's ``Config``, the settings live in one object instead of inline in the factory; unlike a class read
at import time, the environment is read when an app is made, so tests and servers each get what they set.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

# A signing key shorter than this can be guessed offline from one signed cookie; tests may use short ones.
MIN_SECRET_BYTES = 32


class ConfigurationError(RuntimeError):
    """The app cannot start as configured; the message says what to set."""


class Config:
    # A game left open on a phone all evening must still accept its next round.
    WTF_CSRF_TIME_LIMIT = None
    SESSION_COOKIE_SAMESITE = "Lax"
    # Followers poll every few seconds; re-signing and re-sending the session cookie on each poll costs every
    # answer a Set-Cookie for nothing (the cookie only changes when the browser opens another game).
    SESSION_REFRESH_EACH_REQUEST = False
    MAX_CONTENT_LENGTH = 16 * 1024 * 1024
    # Round reports are a few hundred bytes; a backup of a long game a few dozen kilobytes.
    API_MAX_BODY = 256 * 1024
    SEND_FILE_MAX_AGE_DEFAULT = 3600
    SQLALCHEMY_ENGINE_OPTIONS: Mapping[str, Any] = {"pool_pre_ping": True}

    def __init__(self, environ: Mapping[str, str] = os.environ) -> None:
        self.SECRET_KEY = environ.get("SECRET_KEY")
        self.SQLALCHEMY_DATABASE_URI = environ.get("DATABASE_URL")
        self.SESSION_COOKIE_SECURE = environ.get("PHASE10_SECURE_COOKIES") == "1"
        self.PROXY_COUNT: Any = environ.get("PHASE10_PROXIES", "0")
        self.PUBLIC_BASE_URL = environ.get("PUBLIC_BASE_URL")


def database_url(url: str) -> str:
    """Hosting services hand out ``postgres://`` URLs; SQLAlchemy wants the driver named."""
    for prefix in ("postgres://", "postgresql://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix) :]
    return url


def finish(settings: dict[str, Any], instance_path: str) -> None:
    """Check the settings and fill in what follows from them; raises :class:`ConfigurationError`."""
    secret = settings.get("SECRET_KEY")
    if not secret:
        raise ConfigurationError(
            "SECRET_KEY is not set: export SECRET_KEY to a long random string "
            '(python -c "import secrets; print(secrets.token_hex(32))"), or run "phase10 serve", '
            "which keeps one in the instance folder"
        )
    if len(secret.encode()) < MIN_SECRET_BYTES and not settings.get("TESTING"):
        raise ConfigurationError(
            f"SECRET_KEY is too short ({len(secret.encode())} bytes; at least {MIN_SECRET_BYTES}): "
            'use a long random string (python -c "import secrets; print(secrets.token_hex(32))")'
        )
    url = settings.get("SQLALCHEMY_DATABASE_URI")
    if not url:
        Path(instance_path).mkdir(parents=True, exist_ok=True)
        url = "sqlite:///" + str(Path(instance_path) / "phase10.sqlite3")
    settings["SQLALCHEMY_DATABASE_URI"] = database_url(url)
    try:
        settings["PROXY_COUNT"] = int(settings.get("PROXY_COUNT") or 0)
    except (TypeError, ValueError):
        raise ConfigurationError(
            "PHASE10_PROXIES must be the number of proxies in front of the app"
        ) from None
