"""Hostile input to every endpoint and form (issue 3): malformed JSON, wrong types, huge strings, unknown fields.
Whatever arrives, the answer is never a 500, and a refused request leaves every stored row as it was."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from .conftest import WORKED_EXAMPLE, ApiGame, snapshot

FUZZ = settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
KEYS = st.sampled_from(
    [
        "round",
        "went_out",
        "players",
        "laid_down",
        "points",
        "cards",
        "phase",
        "rules",
        "name",
        "last_phase",
        "everyone_advances",
        "wrap_runs",
        "first_dealer",
        "format",
        "version",
        "rounds",
        "Ana",
        "Ben",
        "zzz",
    ]
)
TEXT = st.one_of(
    st.text(max_size=20),
    st.text(min_size=3000, max_size=6000),
    st.sampled_from(["Ana", "Ben", "R3", "W", "S", "standard", "masters"]),
)
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.integers(min_value=-(10**30), max_value=10**30),
    st.floats(allow_nan=False),
    TEXT,
)
JSON = st.recursive(
    SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=6), st.dictionaries(st.one_of(KEYS, st.text(max_size=8)), inner, max_size=6)
    ),
    max_leaves=25,
)


def _mutated_round():
    def mutate(base, path_value):
        body = json.loads(json.dumps(base))
        key, value = path_value
        if key in body:
            body[key] = value
        else:
            body["players"]["Ben"][key] = value
        return body

    return st.tuples(
        st.sampled_from(["round", "went_out", "players", "laid_down", "points", "cards", "phase", "extra"]),
        JSON,
    ).map(lambda kv: mutate(WORKED_EXAMPLE, kv))


def _check(app, response, before):
    assert response.status_code < 500, response.get_data(as_text=True)[:500]
    if response.status_code >= 400:
        assert snapshot(app) == before
        if response.mimetype == "application/json":
            assert "error" in response.json
        return before
    return snapshot(app)


@FUZZ
@given(body=st.one_of(JSON, _mutated_round()), target=st.sampled_from(["rounds", "patch", "games", "import"]))
def test_api_json_bodies_never_500_and_refusals_change_nothing(app, client, body, target):
    game = getattr(app, "_fuzz_game", None)
    if game is None:
        game = app._fuzz_game = ApiGame(client, {"players": ["Ana", "Ben", "Cy", "Dee"]})
        game.post_round(WORKED_EXAMPLE)
    before = snapshot(app)
    if target == "rounds":
        response = client.post(f"/api/games/{game.id}/rounds", json=body, headers=game.auth)
    elif target == "patch":
        response = client.patch(f"/api/games/{game.id}/rounds/1", json=body, headers=game.auth)
    elif target == "games":
        response = client.post("/api/games", json=body)
    else:
        response = client.post("/api/games/import", json=body)
    _check(app, response, before)


@FUZZ
@given(
    raw=st.binary(max_size=400),
    path=st.text(max_size=40),
    method=st.sampled_from(["get", "post", "patch", "delete"]),
)
# PostgreSQL refuses a NUL byte in text: a game id holding one must be an unknown game, not a server error.
@example(raw=b"", path="\x00", method="get")
@example(raw=b"{}", path="ab\x00cd", method="post")
def test_raw_bytes_and_odd_paths_never_500(app, client, raw, path, method):
    game = getattr(app, "_fuzz_game", None)
    if game is None:
        game = app._fuzz_game = ApiGame(client, {"players": ["Ana", "Ben"]})
    before = snapshot(app)
    for url in (f"/api/games/{game.id}/rounds", "/api/games", f"/api/games/{path}", f"/games/{path}"):
        response = getattr(client, method)(
            url, data=raw, headers={**game.auth, "Content-Type": "application/json"}, query_string=None
        )
        before = _check(app, response, before)


FORM_VALUE = st.one_of(
    st.text(max_size=30), st.text(min_size=2000, max_size=4000), st.integers().map(str), st.just("")
)


@FUZZ
@given(
    data=st.dictionaries(
        st.one_of(
            st.sampled_from(
                [
                    "round",
                    "went_out",
                    "save",
                    "preview",
                    "p0_down",
                    "p0_points",
                    "p0_low",
                    "p0_high",
                    "p0_skip",
                    "p0_wild",
                    "p1_points",
                    "p1_low",
                    "p1_down",
                    "p9_points",
                    "names-0",
                    "names-1",
                    "names-7",
                    "rules",
                    "last_phase",
                    "first_dealer",
                    "everyone_advances",
                ]
            ),
            st.text(max_size=10),
        ),
        FORM_VALUE,
        max_size=12,
    )
)
def test_forms_never_500_and_refusals_change_nothing(app, client, data):
    game = getattr(app, "_fuzz_game", None)
    if game is None:
        game = app._fuzz_game = ApiGame(client, {"players": ["Ana", "Ben"], "rules": {"name": "masters"}})
        game.post_round(
            {
                "round": 1,
                "went_out": "Ana",
                "players": {"Ana": {"laid_down": True, "phase": 3}, "Ben": {"laid_down": False, "points": 5}},
            }
        )
        game.login()
    before = snapshot(app)
    for url in (
        "/games/new",
        f"/games/{game.id}/round",
        f"/games/{game.id}/rounds/1/edit",
        f"/games/{game.id}/rounds/1/delete",
    ):
        before = _check(app, client.post(url, data=data), before)
