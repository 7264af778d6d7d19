"""The Flask application factory of the score keeper."""

from __future__ import annotations

import mimetypes
from pathlib import Path
from typing import Any

from flask import Flask, jsonify, render_template, request
from flask.json.provider import DefaultJSONProvider
from flask_babel import gettext  # type: ignore[import-untyped]
from flask_wtf.csrf import CSRFError  # type: ignore[import-untyped]
from sqlalchemy import event
from werkzeug.exceptions import HTTPException

from . import answers, i18n
from .config import Config, ConfigurationError, database_url, finish
from .extensions import csrf, db, migrate

__all__ = ["ConfigurationError", "create_app", "database_url"]

ROOT = Path(__file__).resolve().parent.parent
MIGRATIONS = ROOT / "migrations"


# No inline script or style anywhere: page data travels in attributes or ``tojson`` blocks and every script is a
# file under static/, so a value that slips past escaping still cannot run. ``blob:`` shows the photo being
# checked before it is sent; ``data:`` is the empty favicon.
CONTENT_SECURITY_POLICY = "; ".join(
    (
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' blob: data:",
        "connect-src 'self'",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'self'",
    )
)


class _JSONProvider(DefaultJSONProvider):
    """Flask's JSON, with a body nested past Python's recursion limit read as a bad body (400), not a crash."""

    def loads(self, s: str | bytes, **kwargs: Any) -> Any:
        try:
            return super().loads(s, **kwargs)
        except RecursionError:
            raise ValueError("the JSON is nested too deeply") from None


def create_app(config: dict[str, Any] | None = None) -> Flask:
    # Browsers read the install manifest only with its own type; Python's table may not know the suffix.
    mimetypes.add_type("application/manifest+json", ".webmanifest")
    app = Flask(
        __name__,
        instance_relative_config=True,
        template_folder=str(ROOT / "templates"),
        static_folder=str(ROOT / "static"),
    )
    app.json = _JSONProvider(app)
    app.config.from_object(Config())
    app.config.update(config or {})
    settings = dict(app.config)
    finish(settings, app.instance_path)
    app.config.update(settings)
    proxies = app.config["PROXY_COUNT"]
    if proxies > 0:
        from werkzeug.middleware.proxy_fix import ProxyFix

        app.wsgi_app = ProxyFix(  # type: ignore[method-assign]
            app.wsgi_app, x_for=proxies, x_proto=proxies, x_host=proxies, x_prefix=proxies
        )

    db.init_app(app)
    migrate.init_app(app, db, directory=str(MIGRATIONS))
    csrf.init_app(app)
    i18n.init_app(app)
    with app.app_context():
        if db.engine.dialect.name == "sqlite":
            event.listen(db.engine, "connect", _sqlite_pragmas)

    from . import models  # noqa: F401  (the tables must be known before the first query)
    from .api import bp as api_bp
    from .decks import bp as decks_bp
    from .games import bp as games_bp
    from .players import bp as players_bp
    from .referee import bp as referee_bp

    csrf.exempt(api_bp)  # the API authenticates with a bearer token, never with a cookie
    # Blueprints, one per area; the photo referee registers next to these.
    for blueprint in (games_bp, players_bp, api_bp, referee_bp, decks_bp):
        app.register_blueprint(blueprint)

    _register_error_pages(app)
    answers.init_app(app)  # refusals (companion.inputs.Refused): JSON for the API, a page for a browser

    @app.after_request
    def safety_headers(response: Any) -> Any:
        # Edit links carry the game's secret in their path: never pass a URL on to another site.
        response.headers.setdefault("Referrer-Policy", "same-origin")
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        response.headers.setdefault("X-Frame-Options", "SAMEORIGIN")
        response.headers.setdefault("Content-Security-Policy", CONTENT_SECURITY_POLICY)
        return response

    return app


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    # WAL lets the share pages read while a round is being written; the busy timeout lets writers queue
    # instead of failing; NORMAL is safe under WAL and keeps a round save from waiting on two fsyncs.
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA busy_timeout=20000")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()


def _wants_json() -> bool:
    return request.path.startswith("/api/")


def _register_error_pages(app: Flask) -> None:
    @app.errorhandler(CSRFError)
    def csrf_error(exc: CSRFError) -> Any:
        message = gettext(
            "This form has expired or was sent from elsewhere. Go back, reload the page and try again."
        )
        return render_template("errors.html", code=400, title=gettext("Form expired"), message=message), 400

    @app.errorhandler(HTTPException)
    def http_error(exc: HTTPException) -> Any:
        code = exc.code or 500
        if _wants_json():
            return jsonify(error=_plain(exc)), code
        return render_template("errors.html", code=code, title=_title(exc), message=_plain(exc)), code

    @app.errorhandler(Exception)
    def unexpected(exc: Exception) -> Any:
        from .accesslog import redact

        app.logger.exception("unhandled error on %s %s", request.method, redact(request.path))
        db.session.rollback()
        message = gettext("Something went wrong on the server; nothing was saved. Try again.")
        if _wants_json():
            return jsonify(error=message), 500
        return render_template("errors.html", code=500, title=gettext("Server error"), message=message), 500


def _title(exc: HTTPException) -> str:
    # Werkzeug's names, in the page's language.
    titles: dict[int, str] = {
        400: gettext("Bad Request"),
        403: gettext("Forbidden"),
        404: gettext("Not Found"),
        405: gettext("Method Not Allowed"),
        409: gettext("Conflict"),
        413: gettext("Request Entity Too Large"),
        500: gettext("Internal Server Error"),
    }
    return titles.get(exc.code or 0, exc.name)


def _plain(exc: HTTPException) -> str:
    messages: dict[int, str] = {
        400: gettext("The request could not be read."),
        403: gettext("This needs the game's edit secret."),
        404: gettext("There is nothing at this address."),
        405: gettext("This address does not take that kind of request."),
        413: gettext("That is too much data to send at once."),
    }
    description = exc.description or ""
    # Werkzeug's stock descriptions talk to developers; a message given with abort() talks to players.
    if not description or description == type(exc).description:
        return messages.get(exc.code or 0, exc.name)
    return description
