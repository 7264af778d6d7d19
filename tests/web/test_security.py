"""The score keeper's side of the security review: each test names the finding it checks and fails on the code the
review attacked."""

from __future__ import annotations

import json
import re
import threading
import urllib.request

import pytest

from companion.app import ConfigurationError, create_app
from companion.extensions import db
from companion.models import Player, Round

from .conftest import WORKED_EXAMPLE, ApiGame, make_app, snapshot
from .served import served


def _round(points: int) -> dict:
    return {
        "round": 1,
        "went_out": "Ana",
        "players": {"Ana": {"laid_down": True}, "Ben": {"laid_down": False, "points": points}},
    }


def test_6_every_write_answers_with_the_version_its_own_transaction_made(app, client):
    """Finding 6: the version was read again after the commit, so under load an answer's ETag could be a later
    write's. Concurrent edits each make one version; their answers must name each one exactly once."""
    game = ApiGame(client, {"players": ["Ana", "Ben"]})
    assert game.post_round(_round(5)).status_code == 201
    threads_count, writes = 6, 8
    answers: list[tuple[int, str, int]] = []
    lock = threading.Lock()
    with served(app) as base:
        start = threading.Barrier(threads_count)

        def device(seat: int) -> None:
            start.wait()
            for i in range(writes):
                # Every edit differs from every other, so each one is a write with a version of its own.
                body = json.dumps(_round(5 * (2 + seat * writes + i))).encode()
                request = urllib.request.Request(
                    f"{base}/api/games/{game.id}/rounds/1",
                    data=body,
                    method="PATCH",
                    headers={"Content-Type": "application/json", **game.auth},
                )
                with urllib.request.urlopen(request, timeout=60) as answer:
                    data = json.loads(answer.read())
                    with lock:
                        answers.append((answer.status, answer.headers["ETag"], data["version"]))

        threads = [threading.Thread(target=device, args=(s,)) for s in range(threads_count)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=120)
    assert len(answers) == threads_count * writes and all(status == 200 for status, _, _ in answers)
    assert all(etag == f'"{version}"' for _, etag, version in answers)
    versions = sorted(version for _, _, version in answers)
    # Created at 1, the round made it 2; the edits made 3, 4, ... each once.
    assert versions == list(range(3, 3 + threads_count * writes))


def test_8_json_nested_past_the_parsers_depth_is_a_bad_request(app, client, api_game):
    """Finding 8: 50,000 nested ``[`` gave a 500 and a traceback."""
    game = api_game(["Ana", "Ben"])
    deep = "[" * 50_000 + "]" * 50_000
    before = snapshot(app)
    for path, headers in (
        ("/api/games", {}),
        ("/api/games/import", {}),
        (f"/api/games/{game.id}/rounds", game.auth),
        ("/api/check", {}),
    ):
        answer = client.post(path, data=deep, content_type="application/json", headers=headers)
        assert answer.status_code == 400, (path, answer.status_code)
        assert "error" in answer.json
    assert snapshot(app) == before


@pytest.mark.parametrize("content_type", ["text/plain", "application/x-www-form-urlencoded", None])
def test_9_json_endpoints_refuse_bodies_a_foreign_page_could_send(app, client, api_game, content_type):
    """Finding 9: a text/plain body was read as JSON, so any page on another site could create games here."""
    game = api_game(["Ana", "Ben"])
    before = snapshot(app)
    body = json.dumps({"players": ["Mallory", "Eve"]})
    headers = {"Content-Type": content_type} if content_type else {}
    for path, auth in (
        ("/api/games", {}),
        ("/api/games/import", {}),
        (f"/api/games/{game.id}/rounds", game.auth),
    ):
        answer = client.post(path, data=body, headers={**headers, **auth})
        assert answer.status_code == 415 and "application/json" in answer.json["error"], path
    assert snapshot(app) == before


def test_10_the_home_page_lists_only_the_games_this_browser_holds(app, api_game):
    """Finding 10: the home page listed up to 200 games to anyone on the network."""
    mine = api_game(["Ana", "Ben"])
    theirs = api_game(["Mallory", "Eve"])
    followed = api_game(["Cy", "Dee"])
    browser = app.test_client()
    browser.set_cookie(f"p10edit_{mine.id}", mine.token)
    assert browser.get(f"/games/{followed.id}").status_code == 200  # opened by its share link
    home = browser.get("/").get_data(as_text=True)
    assert f"/games/{mine.id}" in home and f"/games/{followed.id}" in home
    assert f"/games/{theirs.id}" not in home and "Mallory" not in home
    stranger = app.test_client().get("/").get_data(as_text=True)
    assert not any(f"/games/{g.id}" in stranger for g in (mine, theirs, followed))
    assert "Open a game from its link" in stranger


def test_10_a_pasted_share_link_opens_its_game(app, api_game):
    game = api_game(["Ana", "Ben"])
    browser = app.test_client()
    answer = browser.post("/open", data={"link": f"http://192.168.1.20:5000/games/{game.id}"})
    assert answer.status_code == 302 and answer.headers["Location"].endswith(f"/games/{game.id}")
    unknown = browser.post("/open", data={"link": "http://x/games/nosuchgame00"}, follow_redirects=True)
    assert "No game was found" in unknown.get_data(as_text=True)


def test_11_secure_cookies_mark_the_edit_cookie_too(database):
    """Finding 11: ``PHASE10_SECURE_COOKIES=1`` marked the session cookie only; the edit cookie followed
    ``request.is_secure``, false without ``PHASE10_PROXIES`` behind a TLS proxy."""
    app = make_app(database, SESSION_COOKIE_SECURE=True)
    client = app.test_client()
    game = ApiGame(client, {"players": ["Ana", "Ben"]})
    answer = client.get(f"/games/{game.id}/access/{game.token}")
    cookies = answer.headers.getlist("Set-Cookie")
    assert cookies and all("Secure" in c for c in cookies), cookies
    with app.app_context():
        db.engine.dispose()


def test_11_a_short_secret_key_is_refused_outside_tests(tmp_path):
    with pytest.raises(ConfigurationError, match="too short"):
        create_app({"SECRET_KEY": "x" * 31, "SQLALCHEMY_DATABASE_URI": f"sqlite:///{tmp_path}/a.db"})
    create_app({"SECRET_KEY": "x" * 32, "SQLALCHEMY_DATABASE_URI": f"sqlite:///{tmp_path}/a.db"})


def test_11_share_and_edit_links_never_take_the_host_header(app, api_game):
    game = api_game(["Ana", "Ben"])
    game.login()
    page = game.client.get(f"/games/{game.id}", headers={"Host": "evil.example"}).get_data(as_text=True)
    assert "evil.example" not in page
    by_ip = game.client.get(f"/games/{game.id}", headers={"Host": "192.168.1.20:5000"}).get_data(as_text=True)
    assert f"http://192.168.1.20:5000/games/{game.id}" in by_ip
    configured = make_app(app.config["SQLALCHEMY_DATABASE_URI"], PUBLIC_BASE_URL="http://table.local:5000/")
    shown = configured.test_client().get(f"/games/{game.id}", headers={"Host": "evil.example"})
    assert f"http://table.local:5000/games/{game.id}" in shown.get_data(as_text=True)


def test_11_a_name_typed_composed_or_decomposed_is_one_player(app, client):
    composed, decomposed = "Zo\u00eb", "Zoe\u0308"
    first = ApiGame(client, {"players": [composed, "Ben"]})
    second = ApiGame(client, {"players": [decomposed, "Ben"]})
    assert first.state()["players"][0]["name"] == second.state()["players"][0]["name"] == composed
    with app.app_context():
        assert db.session.execute(db.select(db.func.count()).select_from(Player)).scalar() == 2
        db.session.remove()
    # A round report may spell the name either way too.
    body = {
        "round": 1,
        "went_out": decomposed,
        "players": {decomposed: {"laid_down": True}, "Ben": {"laid_down": True, "points": 5}},
    }
    assert second.post_round(body).status_code == 201
    # The two spellings are one name, so one game cannot seat both.
    assert client.post("/api/games", json={"players": [composed, decomposed]}).status_code == 400


def test_12_a_retried_round_with_its_idempotency_key_is_saved_once(app, client, api_game):
    """Finding 12: a retried request saved a round twice. A retry answers the round first saved."""
    game = api_game(["Ana", "Ben", "Cy", "Dee"])
    headers = {**game.auth, "Idempotency-Key": "round-1-from-ana-phone"}
    first = client.post(f"/api/games/{game.id}/rounds", json=WORKED_EXAMPLE, headers=headers)
    again = client.post(f"/api/games/{game.id}/rounds", json=WORKED_EXAMPLE, headers=headers)
    assert first.status_code == again.status_code == 201
    assert again.headers.get("Idempotent-Replayed") == "true"
    assert again.json["round"] == first.json["round"] == 1 and again.json["points"] == first.json["points"]
    with app.app_context():
        assert db.session.execute(db.select(db.func.count()).select_from(Round)).scalar() == 1
        db.session.remove()
    other = {**WORKED_EXAMPLE, "round": 2, "went_out": "Ben"}
    other["players"] = {
        **WORKED_EXAMPLE["players"],
        "Ana": {"laid_down": True, "points": 10},
        "Ben": {"laid_down": True},
    }
    reused = client.post(f"/api/games/{game.id}/rounds", json=other, headers=headers)
    assert reused.status_code == 409 and reused.json["field"] == "idempotency_key"
    bad = client.post(
        f"/api/games/{game.id}/rounds", json=other, headers={**game.auth, "Idempotency-Key": "x" * 65}
    )
    assert bad.status_code == 400 and bad.json["field"] == "idempotency_key"
    assert [r["round"] for r in game.state()["rounds"]] == [1]


def test_12_a_round_form_sent_twice_saves_one_round(app, client, api_game):
    game = api_game(["Ana", "Ben"])
    game.login()
    page = client.get(f"/games/{game.id}/round").get_data(as_text=True)
    token = re.search(r'name="once" type="hidden" value="([^"]+)"', page).group(1)
    form = {"round": "1", "once": token, "went_out": "Ana", "p0_down": "y", "p1_points": "15", "save": "1"}
    assert client.post(f"/games/{game.id}/round", data=form).status_code == 302
    again = client.post(f"/games/{game.id}/round", data={**form, "round": "2"}, follow_redirects=True)
    assert "Round 1 was already saved" in again.get_data(as_text=True)
    assert [r["round"] for r in game.state()["rounds"]] == [1]


@pytest.mark.parametrize("token", ["\x00", "x" * 200, "ü-not-ascii", "a b"])
def test_12_a_tampered_form_token_is_ignored_not_a_server_error(app, client, api_game, token):
    """Found by bench_fuzz on PostgreSQL, which refuses a NUL byte in a query: the form's token reaches the
    database only once it is one this app could have handed out."""
    game = api_game(["Ana", "Ben"])
    game.login()
    form = {
        "round": "1",
        "once": token,
        "once_kept": token,
        "went_out": "Ana",
        "p0_down": "y",
        "p1_points": "15",
    }
    form["save"] = "1"
    assert client.post(f"/games/{game.id}/round", data=form).status_code == 302
    assert [r["round"] for r in game.state()["rounds"]] == [1]


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("post", "/games/{id}/round"),
        ("post", "/games/{id}/rounds/1/edit"),
        ("post", "/games/{id}/rounds/1/delete"),
        ("post", "/games/{id}/rematch"),
        ("post", "/games/{id}/delete"),
        ("post", "/referee/games/{id}/laid-down"),
        ("post", "/api/games/{id}/rounds"),
        ("patch", "/api/games/{id}/rounds/1"),
        ("delete", "/api/games/{id}/rounds/1"),
    ],
)
def test_every_write_needs_the_edit_secret_and_the_api_takes_it_only_as_a_bearer_token(
    app, client, api_game, method, path
):
    """One ``editor_required`` guards every write: no secret, 403; an unknown game, 404; and the JSON API, which
    takes no CSRF token, never accepts the page's cookie as the secret."""
    game = api_game(["Ana", "Ben"])
    game.post_round(_round(5))
    before = snapshot(app)
    url = path.format(id=game.id)
    kwargs = {"json": _round(10)} if url.startswith("/api/") else {"data": {}}
    assert getattr(client, method)(url, **kwargs).status_code == 403
    game.login()  # the cookie: enough for pages, not for the API
    if url.startswith("/api/"):
        assert getattr(client, method)(url, **kwargs).status_code == 403
    assert getattr(client, method)(path.format(id="nosuchgame00"), **kwargs).status_code == 404
    assert snapshot(app) == before


def test_settings_come_from_the_environment_when_an_app_is_made(database, monkeypatch):
    """The README's production settings are read from the environment: PUBLIC_BASE_URL for links,
    PHASE10_PROXIES for the proxies trusted, PHASE10_SECURE_COOKIES; create_app's own config wins over them."""
    monkeypatch.setenv("PUBLIC_BASE_URL", "https://phase10.example.org")
    monkeypatch.setenv("PHASE10_PROXIES", "1")
    monkeypatch.setenv("PHASE10_SECURE_COOKIES", "1")
    app = make_app(database)
    assert app.config["PUBLIC_BASE_URL"] == "https://phase10.example.org"
    assert app.config["PROXY_COUNT"] == 1 and app.config["SESSION_COOKIE_SECURE"] is True
    game = ApiGame(app.test_client(), {"players": ["Ana", "Ben"]})
    page = app.test_client().get(f"/games/{game.id}").get_data(as_text=True)
    assert f"https://phase10.example.org/games/{game.id}" in page
    assert (
        make_app(database, PUBLIC_BASE_URL="http://other:5000").config["PUBLIC_BASE_URL"]
        == "http://other:5000"
    )
    monkeypatch.setenv("PHASE10_PROXIES", "many")
    with pytest.raises(ConfigurationError, match="PHASE10_PROXIES"):
        make_app(database)
    with app.app_context():
        db.engine.dispose()


@pytest.mark.parametrize(
    "name", ["<script>alert(1)</script>", '"><img src=x onerror=alert(1)>', "</title><svg onload=x>"]
)
def test_the_score_charts_markup_holds_player_names_only_as_escaped_text(name):
    """The chart is built as markup on the server and marked safe: a player name must reach it only escaped, in
    the line's title and in the legend, however it tries to close the tag around it."""
    from markupsafe import escape

    from companion.games.chart import score_chart

    svg = str(score_chart([name, "Ben"], []))
    assert name not in svg
    assert svg.count(str(escape(name))) == 2
    assert "<script" not in svg and "<img" not in svg and svg.count("<svg") == 1
