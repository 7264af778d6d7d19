"""The JSON API of issue 3, endpoint by endpoint, with the rules it must carry through from the engine."""

from __future__ import annotations

import copy
import csv
import io

import pytest

from .conftest import WORKED_EXAMPLE, snapshot


def test_001_worked_example_end_to_end(api_game):
    # 001 "Worked example": Ana 0, Ben 35, Cy 40, Dee 10; all but Cy move on.
    game = api_game()
    response = game.post_round(WORKED_EXAMPLE)
    assert response.status_code == 201
    assert response.json["points"] == {"Ana": 0, "Ben": 35, "Cy": 40, "Dee": 10}
    state = game.state()
    assert [(p["name"], p["phase"], p["total"], p["completed"]) for p in state["players"]] == [
        ("Ana", 2, 0, [1]),
        ("Ben", 2, 35, [1]),
        ("Cy", 1, 40, []),
        ("Dee", 2, 10, [1]),
    ]
    assert state["status"] == "in_progress"
    assert state["round"] == 2
    # 001: "After each round, the deal passes to the left": Ana dealt round 1, Ben deals round 2.
    assert state["dealer"] == "Ben"
    assert state["winner"] is None
    assert state["rounds"][0]["round"] == 1
    assert state["rounds"][0]["report"]["players"]["Ben"]["cards"] == ["R3", "G7", "B11", "S"]


def test_create_game_answers_201_with_id_and_edit_token(client):
    response = client.post(
        "/api/games",
        json={
            "players": ["Ana", "Ben"],
            "rules": {"name": "standard", "everyone_advances": False, "last_phase": 10, "wrap_runs": False},
        },
    )
    assert response.status_code == 201
    assert isinstance(response.json["id"], str) and len(response.json["edit_token"]) >= 24
    assert response.headers["Location"].endswith(response.json["id"])


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        ({"players": ["Ana"]}, "2 to 6"),
        ({"players": ["Ana", "ana"]}, "different name"),
        ({"players": "Ana, Ben"}, "list"),
        ({"players": ["Ana", "Ben"], "rules": {"name": "poker"}}, "unknown rule set"),
        ({"players": ["Ana", "Ben"], "rules": {"name": "standard", "last_phase": 11}}, "1 to 10"),
        ({"players": ["Ana", "Ben"], "rules": {"name": "masters", "everyone_advances": True}}, "Masters"),
        ({"players": ["Ana", "Ben"], "rules": {"name": "standard", "wrap_runs": "yes"}}, "true or false"),
        ({"players": ["Ana", "Ben"], "first_dealer": 2}, "first dealer"),
        ({"players": ["Ana", "Ben\x00"]}, "control characters"),
        ([1, 2], "object"),
    ],
)
def test_create_game_refusals_are_400_with_a_reason(client, app, body, reason):
    before = snapshot(app)
    response = client.post("/api/games", json=body)
    assert response.status_code == 400, body
    assert reason.lower() in response.json["error"].lower(), (body, response.json)
    assert snapshot(app) == before


def test_round_for_a_saved_round_is_409_and_changes_nothing(api_game, app):
    # Issue 3: "a report for a round that is already saved (two phones sent the same round) ... gets 409".
    game = api_game()
    assert game.post_round(WORKED_EXAMPLE).status_code == 201
    before = snapshot(app)
    again = game.post_round(WORKED_EXAMPLE)
    assert again.status_code == 409
    assert "already saved" in again.json["error"]
    ahead = game.post_round({**WORKED_EXAMPLE, "round": 5})
    assert ahead.status_code == 409
    assert snapshot(app) == before


def test_writes_without_the_edit_token_are_403(api_game, client, app):
    game = api_game()
    before = snapshot(app)
    url = f"/api/games/{game.id}/rounds"
    assert client.post(url, json=WORKED_EXAMPLE).status_code == 403
    assert client.post(url, json=WORKED_EXAMPLE, headers={"Authorization": "Bearer wrong"}).status_code == 403
    assert client.post(url, json=WORKED_EXAMPLE, headers={"Authorization": game.token}).status_code == 403
    assert client.delete(f"{url}/1").status_code == 403
    assert client.patch(f"{url}/1", json=WORKED_EXAMPLE).status_code == 403
    assert snapshot(app) == before


@pytest.mark.parametrize(
    ("method", "url"),
    [
        ("get", "/api/games/nope"),
        ("post", "/api/games/nope/rounds"),
        ("get", "/api/games/nope/export.csv"),
        ("get", "/api/games/nope/export.json"),
        ("delete", "/api/games/nope/rounds/1"),
        ("get", "/api/nothing-here"),
    ],
)
def test_unknown_game_is_404_json(client, method, url):
    response = getattr(client, method)(url, json={})
    assert response.status_code == 404, url
    assert "error" in response.json


def test_engine_refusals_are_400_naming_the_player(api_game, app):
    game = api_game()
    before = snapshot(app)
    two_out = copy.deepcopy(WORKED_EXAMPLE)
    two_out["players"]["Ben"] = {"laid_down": True, "points": 0}
    response = game.post_round(two_out)
    assert response.status_code == 400
    assert response.json["player"] == "Ben"
    # 001: "The player who goes out scores zero"; a multiple of 5 for everyone else (engine table).
    odd = copy.deepcopy(WORKED_EXAMPLE)
    odd["players"]["Cy"]["points"] = 41
    assert game.post_round(odd).json["player"] == "Cy"
    stranger = copy.deepcopy(WORKED_EXAMPLE)
    stranger["players"]["Zed"] = {"laid_down": False, "points": 5}
    assert game.post_round(stranger).status_code == 400
    missing = copy.deepcopy(WORKED_EXAMPLE)
    del missing["round"]
    assert game.post_round(missing).status_code == 400
    assert snapshot(app) == before


@pytest.mark.parametrize("data", [b"{not json", b"", b"\xff\xfe", b"[]", b'"text"', b"null"])
def test_bad_bodies_get_json_errors(api_game, client, data):
    game = api_game()
    url = f"/api/games/{game.id}/rounds"
    response = client.post(url, data=data, headers={**game.auth, "Content-Type": "application/json"})
    assert response.status_code == 400, data
    assert "error" in response.json


def test_too_large_bodies_and_wrong_methods_get_json_errors(api_game, client):
    game = api_game()
    url = f"/api/games/{game.id}/rounds"
    huge = client.post(
        url, data=b"x" * (300 * 1024), headers={**game.auth, "Content-Type": "application/json"}
    )
    assert huge.status_code == 413
    assert "error" in huge.json
    wrong_method = client.put(url, json={})
    assert wrong_method.status_code == 405 and "error" in wrong_method.json


def test_etag_lets_followers_poll_cheaply(api_game, client):
    game = api_game()
    first = client.get(f"/api/games/{game.id}")
    etag = first.headers["ETag"]
    assert client.get(f"/api/games/{game.id}", headers={"If-None-Match": etag}).status_code == 304
    game.post_round(WORKED_EXAMPLE)
    changed = client.get(f"/api/games/{game.id}", headers={"If-None-Match": etag})
    assert changed.status_code == 200 and changed.headers["ETag"] != etag


def test_patch_a_past_round_recomputes_everything_after(api_game):
    game = api_game()
    game.post_round(WORKED_EXAMPLE)
    second = {
        "round": 2,
        "went_out": "Cy",
        "players": {
            "Ana": {"laid_down": False, "points": 20},
            "Ben": {"laid_down": True, "points": 5},
            "Cy": {"laid_down": True},
            "Dee": {"laid_down": False, "points": 50},
        },
    }
    assert game.post_round(second).status_code == 201
    edited = copy.deepcopy(WORKED_EXAMPLE)
    edited["players"]["Cy"] = {"laid_down": True, "points": 40}  # Cy did lay down after all
    response = game.client.patch(f"/api/games/{game.id}/rounds/1", json=edited, headers=game.auth)
    assert response.status_code == 200, response.json
    cy = next(p for p in response.json["players"] if p["name"] == "Cy")
    assert cy["completed"] == [1, 2] and cy["phase"] == 3 and cy["total"] == 40


def test_patch_that_breaks_a_later_round_is_refused(api_game, app):
    # Masters (000): a phase already completed cannot be chosen again; moving it earlier breaks round 2.
    game = api_game(["Ana", "Ben"], name="masters")
    r1 = {
        "round": 1,
        "went_out": "Ana",
        "players": {"Ana": {"laid_down": True, "phase": 1}, "Ben": {"laid_down": False, "points": 10}},
    }
    r2 = {
        "round": 2,
        "went_out": "Ana",
        "players": {"Ana": {"laid_down": True, "phase": 2}, "Ben": {"laid_down": False, "points": 10}},
    }
    assert game.post_round(r1).status_code == 201
    assert game.post_round(r2).status_code == 201
    before = snapshot(app)
    bad = copy.deepcopy(r1)
    bad["players"]["Ana"]["phase"] = 2
    response = game.client.patch(f"/api/games/{game.id}/rounds/1", json=bad, headers=game.auth)
    assert response.status_code == 409
    assert "round 2" in response.json["error"]
    assert snapshot(app) == before


def test_delete_a_round_moves_later_rounds_up(api_game):
    game = api_game(["Ana", "Ben"])
    for number, out in ((1, "Ana"), (2, "Ben"), (3, "Ana")):
        other = "Ben" if out == "Ana" else "Ana"
        body = {
            "round": number,
            "went_out": out,
            "players": {out: {"laid_down": True}, other: {"laid_down": False, "points": 5 * number}},
        }
        assert game.post_round(body).status_code == 201
    response = game.client.delete(f"/api/games/{game.id}/rounds/2", headers=game.auth)
    assert response.status_code == 200
    state = response.json
    assert [r["round"] for r in state["rounds"]] == [1, 2]
    assert [r["went_out"] for r in state["rounds"]] == ["Ana", "Ana"]
    assert {p["name"]: p["total"] for p in state["players"]} == {"Ana": 0, "Ben": 20}
    assert game.client.delete(f"/api/games/{game.id}/rounds/9", headers=game.auth).status_code == 404


def _two_round_tie(game):
    # Last phase 2, three players: Ana and Ben both complete phase 2 in round 2 on 10 points each.
    r1 = {
        "round": 1,
        "went_out": "Ana",
        "players": {
            "Ana": {"laid_down": True},
            "Ben": {"laid_down": True, "points": 5},
            "Cy": {"laid_down": False, "points": 5},
        },
    }
    r2 = {
        "round": 2,
        "went_out": "Cy",
        "players": {
            "Ana": {"laid_down": True, "points": 10},
            "Ben": {"laid_down": True, "points": 5},
            "Cy": {"laid_down": True},
        },
    }
    assert game.post_round(r1).status_code == 201
    assert game.post_round(r2).status_code == 201


def test_001_tied_totals_replay_the_last_phase_first_out_wins(api_game):
    # 001: "If those players are still tied on points, they replay Phase 10 against each other. The first of
    # them to go out wins."
    game = api_game(["Ana", "Ben", "Cy"], last_phase=2)
    _two_round_tie(game)
    state = game.state()
    assert state["status"] == "tie_break"
    assert state["tie_break_players"] == ["Ana", "Ben"]
    everyone = {
        "round": 3,
        "went_out": "Ben",
        "players": {
            "Ana": {"laid_down": False, "points": 5},
            "Ben": {"laid_down": True},
            "Cy": {"laid_down": False, "points": 5},
        },
    }
    assert game.post_round(everyone).status_code == 400  # Cy is not in the tie-break
    tie_break = {
        "round": 3,
        "went_out": "Ben",
        "players": {"Ana": {"laid_down": False, "points": 5}, "Ben": {"laid_down": True}},
    }
    assert game.post_round(tie_break).status_code == 201
    state = game.state()
    assert state["status"] == "finished" and state["winner"] == "Ben"
    assert state["rounds"][-1]["tie_break"] is True
    over = game.post_round({**tie_break, "round": 4})
    assert over.status_code == 409


def test_001_lowest_total_among_finishers_wins_and_an_edit_can_change_the_winner(api_game):
    # 001: "The player with the lowest total points among those who completed Phase 10 in that round wins."
    game = api_game(["Ana", "Ben", "Cy"], last_phase=2)
    _two_round_tie(game)
    assert game.client.delete(f"/api/games/{game.id}/rounds/3", headers=game.auth).status_code == 404
    r2 = {
        "round": 2,
        "went_out": "Cy",
        "players": {
            "Ana": {"laid_down": True, "points": 15},
            "Ben": {"laid_down": True, "points": 5},
            "Cy": {"laid_down": True},
        },
    }
    response = game.client.patch(f"/api/games/{game.id}/rounds/2", json=r2, headers=game.auth)
    assert response.status_code == 200
    assert response.json["status"] == "finished" and response.json["winner"] == "Ben"
    places = [(p["place"], p["name"]) for p in response.json["placements"]]
    assert places[0] == (1, "Ben")


def test_variants_playing_cards_masters_everyone_advances(api_game):
    # 004: playing cards score A-9 = 5, 10/J/Q/K = 10, joker = 25.
    cards = api_game(["Ana", "Ben"], name="playing-cards")
    r = cards.post_round(
        {
            "round": 1,
            "went_out": "Ana",
            "players": {"Ana": {"laid_down": True}, "Ben": {"laid_down": False, "cards": ["AH", "KD", "JK"]}},
        }
    )
    assert r.status_code == 201 and r.json["points"]["Ben"] == 40
    skip = cards.post_round(
        {
            "round": 2,
            "went_out": "Ana",
            "players": {"Ana": {"laid_down": True}, "Ben": {"laid_down": False, "cards": ["S"]}},
        }
    )
    assert skip.status_code == 400
    # 000: in Masters the phase attempted is named and must be given when laying down.
    masters = api_game(["Ana", "Ben"], name="masters")
    no_phase = masters.post_round(
        {
            "round": 1,
            "went_out": "Ana",
            "players": {"Ana": {"laid_down": True}, "Ben": {"laid_down": False, "points": 5}},
        }
    )
    assert no_phase.status_code == 400 and no_phase.json["player"] == "Ana"
    ok = masters.post_round(
        {
            "round": 1,
            "went_out": "Ana",
            "players": {"Ana": {"laid_down": True, "phase": 4}, "Ben": {"laid_down": False, "points": 5}},
        }
    )
    assert ok.status_code == 201
    ana = next(p for p in masters.state()["players"] if p["name"] == "Ana")
    assert ana["completed"] == [4] and 4 not in ana["remaining"]
    # 001 house rule "everyone advances": everyone moves on; after last_phase rounds the lowest total wins.
    short = api_game(["Ana", "Ben"], everyone_advances=True, last_phase=1)
    done = short.post_round(
        {
            "round": 1,
            "went_out": "Ben",
            "players": {"Ana": {"laid_down": False, "points": 30}, "Ben": {"laid_down": True}},
        }
    )
    assert done.status_code == 201
    assert short.state()["winner"] == "Ben"


def test_export_json_imports_back_to_the_same_game(api_game, client):
    game = api_game()
    game.post_round(WORKED_EXAMPLE)
    backup = client.get(f"/api/games/{game.id}/export.json")
    assert backup.status_code == 200 and "attachment" in backup.headers["Content-Disposition"]
    imported = client.post("/api/games/import", json=backup.json)
    assert imported.status_code == 201
    assert imported.json["id"] != game.id and imported.json["edit_token"] != game.token
    original = game.state()
    copy_state = client.get(f"/api/games/{imported.json['id']}").json
    assert copy_state["players"] == original["players"]
    assert copy_state["rounds"] == original["rounds"]


def test_import_refuses_a_backup_with_an_impossible_round(client, app):
    before = snapshot(app)
    body = {
        "format": "phase10-companion-game",
        "version": 1,
        "players": ["Ana", "Ben"],
        "rules": {"name": "standard"},
        "rounds": [
            {
                "round": 1,
                "went_out": "Ana",
                "players": {"Ana": {"laid_down": False}, "Ben": {"laid_down": False, "points": 5}},
            }
        ],
    }
    response = client.post("/api/games/import", json=body)
    assert response.status_code == 400 and response.json["error"].startswith("round 1")
    assert client.post("/api/games/import", json={**body, "format": "other"}).status_code == 400
    assert client.post("/api/games/import", json={**body, "rounds": {"1": {}}}).status_code == 400
    assert snapshot(app) == before


def test_export_csv_has_a_row_per_player_per_round(api_game, client):
    game = api_game(["Ana", "=cmd"])
    game.post_round(
        {
            "round": 1,
            "went_out": "Ana",
            "players": {"Ana": {"laid_down": True}, "=cmd": {"laid_down": False, "points": 25}},
        }
    )
    response = client.get(f"/api/games/{game.id}/export.csv")
    assert response.mimetype == "text/csv"
    rows = list(csv.DictReader(io.StringIO(response.get_data(as_text=True))))
    assert [(r["player"], r["points"], r["total"]) for r in rows] == [
        ("Ana", "0", "0"),
        ("'=cmd", "25", "25"),
    ]
