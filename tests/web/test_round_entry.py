"""The round form through the test client: every fault after one Save, the counters kept with a round for its
edit, and the form's public way to be filled in (the referee's "laid down" marks use it)."""

from __future__ import annotations

import re

from flask import Flask

from companion.extensions import db
from companion.games.forms import round_form, round_form_shown
from companion.models import Round
from companion.rules import get_ruleset

from .conftest import WORKED_EXAMPLE, round_form_data, snapshot


def _errors(page: str, where: str) -> list[str]:
    box = re.search(rf'<div id="{where}"[^>]*>(.*?)</div>', page, re.S)
    assert box, where
    return [
        re.sub(r"\s+", " ", m).strip() for m in re.findall(r'<p class="error"[^>]*>(.*?)</p>', box.group(1))
    ]


def _value(page: str, name: str) -> str:
    tag = re.search(rf'<input[^>]*name="{name}"[^>]*>', page)
    assert tag, name
    value = re.search(r'value="([^"]*)"', tag.group(0))
    return value.group(1) if value else ""


def _stored_counters(app: Flask, game_id: str) -> list[object]:
    with app.app_context():
        rows = db.session.execute(
            db.select(Round.counters).where(Round.game_id == game_id).order_by(Round.number)
        ).scalars()
        found = list(rows)
        db.session.remove()
        return found


# --------------------------------------------------------------------------------------------- every fault at once


def test_four_faults_come_back_at_once_after_one_save_and_nothing_is_saved(client, api_game, app):
    game = api_game()
    game.login()
    before = snapshot(app)
    # Nobody marked as out; Ben 7 points (001: every card scores 5, 10, 15 or 25); Cy's counters (5) beside a
    # typed 20; Dee 0 points, which only the player who went out scores (001 "Scoring").
    data = round_form_data(
        1,
        "",
        {0: {"low": 1}, 1: {"points": 7}, 2: {"low": 1, "points": 20}, 3: {"points": 0}},
    )
    answer = client.post(f"/games/{game.id}/round", data={**data, "save": "1"})
    assert answer.status_code == 400
    page = answer.get_data(as_text=True)
    assert _errors(page, "went-out-errors") == ["choose who went out"]
    assert _errors(page, "p0-errors") == []
    assert _errors(page, "p1-errors") == [
        "Ben&#39;s points must be a multiple of 5: every card scores 5, 10, 15 or 25"
    ]
    assert _errors(page, "p2-errors") == ["the counters add up to 5 but 20 was typed: clear one of them"]
    assert len(_errors(page, "p3-errors")) == 1 and "Dee has no cards left" in _errors(page, "p3-errors")[0]
    assert snapshot(app) == before


def test_000_faults_of_two_masters_players_come_back_together(client, api_game, app):
    game = api_game(["Ana", "Ben", "Cy"], name="masters")
    game.login()
    before = snapshot(app)
    # 000: a player who laid down names the phase chosen; Cy's points are not a multiple of 5 (001 table).
    data = round_form_data(
        1,
        "Ana",
        {0: {"down": True, "phase": 4}, 1: {"down": True, "points": 10}, 2: {"points": 12}},
    )
    answer = client.post(f"/games/{game.id}/round", data={**data, "preview": "1"})
    assert answer.status_code == 400
    page = answer.get_data(as_text=True)
    assert _errors(page, "p0-errors") == []
    assert "say which phase Ben laid down" in _errors(page, "p1-errors")[0]
    assert "multiple of 5" in _errors(page, "p2-errors")[0]
    assert snapshot(app) == before


def test_a_form_the_engine_takes_is_previewed_and_saved_as_before(client, api_game):
    game = api_game()
    game.login()
    data = round_form_data(
        1,
        "Ana",
        {0: {"down": True}, 1: {"down": True, "points": 35}, 2: {"points": 40}, 3: {"down": True, "low": 2}},
    )
    preview = client.post(f"/games/{game.id}/round", data={**data, "preview": "1"})
    assert preview.status_code == 200 and "Nothing is saved yet" in preview.get_data(as_text=True)
    assert client.post(f"/games/{game.id}/round", data={**data, "save": "1"}).status_code == 302
    assert game.state()["rounds"][0]["points"] == {"Ana": 0, "Ben": 35, "Cy": 40, "Dee": 10}


def test_000_an_edit_that_breaks_a_later_round_says_so_at_the_player(client, api_game, app):
    game = api_game(["Ana", "Ben"], name="masters")
    game.login()
    one = {
        "round": 1,
        "went_out": "Ana",
        "players": {"Ana": {"laid_down": True, "phase": 3}, "Ben": {"laid_down": False, "points": 5}},
    }
    two = {
        "round": 2,
        "went_out": "Ben",
        "players": {
            "Ben": {"laid_down": True, "phase": 5},
            "Ana": {"laid_down": True, "phase": 4, "points": 5},
        },
    }
    assert game.post_round(one).status_code == 201 and game.post_round(two).status_code == 201
    before = snapshot(app)
    # Round 1 as phase 4 would have Ana choose phase 4 again in round 2 (000: a phase not yet completed).
    data = round_form_data(1, "Ana", {0: {"down": True, "phase": 4}, 1: {"points": 5}})
    answer = client.post(f"/games/{game.id}/rounds/1/edit", data={**data, "save": "1"})
    assert answer.status_code == 409
    assert "does not fit the rounds after it" in " ".join(_errors(answer.get_data(as_text=True), "p0-errors"))
    assert snapshot(app) == before


# --------------------------------------------------------------------------------------------- counters kept


def test_counters_are_kept_with_the_round_and_an_edit_reopens_with_them(client, api_game, app):
    game = api_game()
    game.login()
    data = round_form_data(
        1,
        "Ana",
        {
            0: {"down": True},
            1: {"down": True, "low": 2, "high": 1, "skip": 1},
            2: {"wild": 1, "low": 1, "high": 1},
            3: {"down": True, "points": 10},
        },
    )
    assert client.post(f"/games/{game.id}/round", data={**data, "save": "1"}).status_code == 302
    assert _stored_counters(app, game.id) == [
        {"Ben": {"low": 2, "high": 1, "skip": 1}, "Cy": {"low": 1, "high": 1, "wild": 1}}
    ]
    # The report itself keeps the totals, as the API gives them (001 point table).
    assert game.state()["rounds"][0]["points"] == {"Ana": 0, "Ben": 35, "Cy": 40, "Dee": 10}
    page = client.get(f"/games/{game.id}/rounds/1/edit").get_data(as_text=True)
    assert [_value(page, f"p1_{k}") for k in ("low", "high", "skip", "wild")] == ["2", "1", "1", "0"]
    assert [_value(page, f"p2_{k}") for k in ("low", "high", "skip", "wild")] == ["1", "1", "0", "1"]
    assert _value(page, "p1_points") == _value(page, "p2_points") == ""
    assert _value(page, "p3_points") == "10"  # typed, so shown typed

    # One more card for Ben on the counters: the edit saves 45 and the counters with it.
    edit = round_form_data(
        1,
        "Ana",
        {
            0: {"down": True},
            1: {"down": True, "low": 3, "high": 1, "skip": 1},
            2: {"wild": 1, "low": 1, "high": 1},
            3: {"down": True, "points": 10},
        },
    )
    assert client.post(f"/games/{game.id}/rounds/1/edit", data={**edit, "save": "1"}).status_code == 302
    assert game.state()["rounds"][0]["points"]["Ben"] == 40
    assert _stored_counters(app, game.id)[0]["Ben"] == {"low": 3, "high": 1, "skip": 1}


def test_counters_that_no_longer_make_the_points_are_not_shown(client, api_game, app):
    game = api_game(["Ana", "Ben"])
    game.login()
    data = round_form_data(1, "Ana", {0: {"down": True}, 1: {"low": 2}})
    assert client.post(f"/games/{game.id}/round", data={**data, "save": "1"}).status_code == 302
    # The round changed through the API since: the stored counters (10 points) no longer make Ben's 25.
    changed = client.patch(
        f"/api/games/{game.id}/rounds/1",
        json={
            "round": 1,
            "went_out": "Ana",
            "players": {"Ana": {"laid_down": True}, "Ben": {"laid_down": False, "points": 25}},
        },
        headers=game.auth,
    )
    assert changed.status_code == 200, changed.json
    page = client.get(f"/games/{game.id}/rounds/1/edit").get_data(as_text=True)
    assert _value(page, "p1_points") == "25" and _value(page, "p1_low") == "0"


def test_an_api_round_with_cards_reopens_on_the_counters(client, api_game):
    game = api_game()
    game.login()
    assert game.post_round(WORKED_EXAMPLE).status_code == 201
    page = client.get(f"/games/{game.id}/rounds/1/edit").get_data(as_text=True)
    # Ben's R3 G7 B11 S: two of 1–9, one of 10–12, a Skip (001 point table).
    assert [_value(page, f"p1_{k}") for k in ("low", "high", "skip", "wild")] == ["2", "1", "1", "0"]
    assert _value(page, "p2_points") == "40"


def test_deleting_a_round_keeps_the_counters_with_the_rounds_after_it(client, api_game, app):
    game = api_game(["Ana", "Ben"])
    game.login()
    for number, low in ((1, 1), (2, 3)):
        data = round_form_data(number, "Ana", {0: {"down": True}, 1: {"low": low}})
        assert client.post(f"/games/{game.id}/round", data={**data, "save": "1"}).status_code == 302
    assert client.post(f"/games/{game.id}/rounds/1/delete").status_code == 302
    assert _stored_counters(app, game.id) == [{"Ben": {"low": 3}}]
    page = client.get(f"/games/{game.id}/rounds/1/edit").get_data(as_text=True)
    assert _value(page, "p1_low") == "3"


# --------------------------------------------------------------------------------------------- filled in from outside


def test_the_round_form_is_filled_in_through_its_public_method(app):
    with app.test_request_context():
        standard = round_form(get_ruleset("standard"), ("Ana", "Ben"), 1)
        standard.prefill_laid_down({"Ben": True, "Zed": True}, {"Ben": 1})
        assert standard["p1_down"].data is True and not standard["p0_down"].data
        assert standard.chosen.data == "p1_down"  # the page then leaves Ben's box as it is
        masters = round_form(get_ruleset("masters"), ("Ana", "Ben"), 1, phases={"Ana": (2, 3), "Ben": (1, 2)})
        # 000: the phase chosen comes with the mark; one the player has completed already is not offered.
        masters.prefill_laid_down({"Ana": True, "Ben": True}, {"Ana": 3, "Ben": 7})
        assert masters["p0_phase"].data == "3" and not masters["p1_phase"].data
        assert masters.chosen.data == "p0_down p1_down"


def test_a_fresh_form_for_the_next_round_is_announced_and_nothing_else(client, api_game, app):
    game = api_game(["Ana", "Ben"])
    game.login()
    shown: list[tuple[str, int]] = []

    def receiver(sender, *, form, game, number, **extra):
        shown.append((game.id, number))
        form.prefill_laid_down({"Ben": True})

    with round_form_shown.connected_to(receiver, app):
        page = client.get(f"/games/{game.id}/round").get_data(as_text=True)
        assert re.search(r'<input[^>]*checked[^>]*name="p1_down"|<input[^>]*name="p1_down"[^>]*checked', page)
        data = round_form_data(1, "Ana", {0: {"down": True}, 1: {"points": 5}})
        client.post(f"/games/{game.id}/round", data={**data, "preview": "1"})
        client.post(f"/games/{game.id}/round", data={**data, "save": "1"})
        client.get(f"/games/{game.id}/rounds/1/edit")
    assert shown == [(game.id, 1)]
