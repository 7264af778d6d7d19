"""The access log of ``phase10 serve``: a line per request, and never a game's edit secret."""

from __future__ import annotations

import http.client
import json
import logging
from pathlib import Path
from typing import Any

import pytest

from companion.accesslog import AccessLog, redact

from .served import phase10_serve

SECRET = "Zq8xK2mW9pL4vN7tR1sY"


@pytest.mark.parametrize(
    ("path", "logged"),
    [
        (f"/games/g1/access/{SECRET}", "/games/g1/access/…"),
        (f"/games/g1/access/{SECRET}/", "/games/g1/access/…"),
        (f"/games/g1/access/{SECRET}/more/path", "/games/g1/access/…"),
        (f"/games/g1/ACCESS/{SECRET}", "/games/g1/ACCESS/…"),
        (f"/games/g1/access/{SECRET}?next=/x", "/games/g1/access/…?next=/x"),
        (f"//games//g1//access//{SECRET}", "//games//g1//access/…"),
        (f"/games/g1?token={SECRET}", "/games/g1?token=[redacted]"),
        (f"/games/g1?a=1&token={SECRET}&b=2", "/games/g1?a=1&token=[redacted]&b=2"),
        (f"/games/g1?edit_token={SECRET}", "/games/g1?edit_token=[redacted]"),
        (f"/games/g1?t%6Fken={SECRET}", "/games/g1?t%6Fken=[redacted]"),
        ("/games/g1/access", "/games/g1/access"),  # the new form, its secret in the fragment
        ("/games/g1/access/", "/games/g1/access/"),
        ("/games/g1?tokens=3&x=1", "/games/g1?tokens=3&x=1"),
        ("/static/app.css", "/static/app.css"),
    ],
)
def test_redact(path: str, logged: str):
    assert redact(path) == logged
    assert SECRET not in redact(path)


def _call(app: Any, environ: dict[str, Any]) -> bytes:
    base = {
        "REQUEST_METHOD": "GET",
        "SCRIPT_NAME": "",
        "PATH_INFO": "/",
        "QUERY_STRING": "",
        "SERVER_PROTOCOL": "HTTP/1.1",
        "REMOTE_ADDR": "192.0.2.9",
    }
    iterable = app({**base, **environ}, lambda status, headers, exc_info=None: None)
    try:
        return b"".join(iterable)
    finally:
        iterable.close()


def test_the_middleware_logs_one_redacted_line_and_no_header(caplog):
    def app(environ, start_response):
        start_response("302 FOUND", [("Location", "/games/g1")])
        return [b"moved", b"!"]

    with caplog.at_level(logging.INFO, logger="companion.access"):
        _call(
            AccessLog(app),
            {
                "PATH_INFO": f"/games/g1/access/{SECRET}",
                "QUERY_STRING": f"token={SECRET}",
                "HTTP_AUTHORIZATION": f"Bearer {SECRET}",
                "HTTP_COOKIE": f"p10edit_g1={SECRET}",
            },
        )
    [record] = [r for r in caplog.records if r.name == "companion.access"]
    line = record.getMessage()
    assert SECRET not in line and "Bearer" not in line
    assert line.startswith('192.0.2.9 "GET /games/g1/access/…?token=[redacted] HTTP/1.1" 302 6 ')
    assert line.endswith("ms")


def test_a_path_cannot_forge_a_log_line(caplog):
    def app(environ, start_response):
        start_response("404 NOT FOUND", [])
        return [b""]

    with caplog.at_level(logging.INFO, logger="companion.access"):
        _call(AccessLog(app), {"PATH_INFO": '/x\n1.2.3.4 "GET /admin HTTP/1.1" 200'})
    [record] = [r for r in caplog.records if r.name == "companion.access"]
    assert "\n" not in record.getMessage() and "\\x0a" in record.getMessage()


def test_an_app_that_raises_is_logged_as_a_500(caplog):
    def app(environ, start_response):
        raise RuntimeError("boom")

    with caplog.at_level(logging.INFO, logger="companion.access"), pytest.raises(RuntimeError):
        _call(AccessLog(app), {"PATH_INFO": f"/games/g1/access/{SECRET}"})
    [record] = [r for r in caplog.records if r.name == "companion.access"]
    assert '"GET /games/g1/access/… HTTP/1.1" 500 0 ' in record.getMessage()


@pytest.mark.slow
def test_serve_logs_requests_without_the_edit_secret(tmp_path: Path):
    with phase10_serve(tmp_path) as served:
        connection = http.client.HTTPConnection("127.0.0.1", served.port, timeout=60)
        connection.request(
            "POST",
            "/api/games",
            body=json.dumps({"players": ["Ana", "Ben", "Cy", "Dee"]}),
            headers={"Content-Type": "application/json"},
        )
        created = connection.getresponse()
        assert created.status == 201
        game = json.loads(created.read())
        game_id, token = game["id"], game["edit_token"]

        # An edit link in the path form of links already shared, then the API with the bearer token.
        connection.request("GET", f"/games/{game_id}/access/{token}")
        link = connection.getresponse()
        link.read()
        assert link.status == 302
        connection.request(
            "GET", f"/api/games/{game_id}?token={token}", headers={"Authorization": f"Bearer {token}"}
        )
        api = connection.getresponse()
        api.read()
        assert api.status == 200
        connection.close()

        log = served.wait_for_log(f"/api/games/{game_id}?token=[redacted]")
    assert token not in log, log
    assert f'127.0.0.1 "GET /games/{game_id}/access/… HTTP/1.1" 302 ' in log, log
    assert f'"GET /api/games/{game_id}?token=[redacted] HTTP/1.1" 200 ' in log, log
    assert '"POST /api/games HTTP/1.1" 201 ' in log, log
    assert "Bearer" not in log
