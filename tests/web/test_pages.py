"""Every page through the test client: new game, the table, entering/previewing/editing/deleting rounds,
history, the edit link, the end of the game and the error pages."""

from __future__ import annotations

import re

from companion.games.forms import NewGameForm, buckets, round_form
from companion.rules import Deck, get_ruleset

from .conftest import WORKED_EXAMPLE, make_app, round_form_data, snapshot


def _field(page, name):
    tag = re.search(rf'<input[^>]*name="{name}"[^>]*>', page)
    assert tag, name
    value = re.search(r'value="([^"]*)"', tag.group(0))
    return value.group(1) if value else ""


def _counters(page, seat):
    return {key: _field(page, f"p{seat}_{key}") for key in ("low", "high", "skip", "wild")}


def _typed(page, seat):
    return _field(page, f"p{seat}_points")


def test_home_new_game_and_table(client):
    assert client.get("/").status_code == 200
    page = client.get("/games/new")
    assert page.status_code == 200 and b"Start the game" in page.data
    response = client.post(
        "/games/new",
        data={
            "names-0": "Ana",
            "names-1": "Ben",
            "names-2": "",
            "rules": "standard",
            "last_phase": "10",
            "first_dealer": "1",
        },
    )
    assert response.status_code == 302
    table = client.get(response.headers["Location"])
    text = table.get_data(as_text=True)
    assert (
        "Round 1" in text and "<strong>Ben</strong> deals" in text and "<strong>Ana</strong> starts" in text
    )
    assert "Phase 1: two sets of 3" in text
    assert "Enter round 1" in text  # the creating browser holds the edit secret
    assert "<svg" in text  # the share QR code
    home = client.get("/").get_data(as_text=True)
    assert "Ana, Ben" in home


def test_new_game_form_errors_sit_next_to_the_fields(client, app):
    before = snapshot(app)
    one = client.post(
        "/games/new", data={"names-0": "Ana", "rules": "standard", "last_phase": "10", "first_dealer": "0"}
    )
    assert one.status_code == 400 and "2 to 6 players" in one.get_data(as_text=True)
    same = client.post(
        "/games/new",
        data={
            "names-0": "Ana",
            "names-1": " ana",
            "rules": "standard",
            "last_phase": "10",
            "first_dealer": "0",
        },
    )
    assert same.status_code == 400 and "different name" in same.get_data(as_text=True)
    dealer = client.post(
        "/games/new",
        data={
            "names-0": "Ana",
            "names-1": "Ben",
            "rules": "standard",
            "last_phase": "10",
            "first_dealer": "4",
        },
    )
    assert dealer.status_code == 400 and "first dealer" in dealer.get_data(as_text=True)
    masters = client.post(
        "/games/new",
        data={
            "names-0": "Ana",
            "names-1": "Ben",
            "rules": "masters",
            "last_phase": "10",
            "first_dealer": "0",
            "everyone_advances": "y",
        },
    )
    assert masters.status_code == 400 and "Masters" in masters.get_data(as_text=True)
    bogus = client.post(
        "/games/new",
        data={"names-0": "Ana", "names-1": "Ben", "rules": "poker", "last_phase": "99", "first_dealer": "x"},
    )
    assert bogus.status_code == 400
    assert snapshot(app) == before


def test_new_game_form_directly(app):
    with app.test_request_context(
        method="POST",
        data={
            "names-0": "Ana",
            "names-1": "",
            "names-2": "Cy",
            "rules": "playing-cards",
            "last_phase": "5",
            "first_dealer": "2",
        },
    ):
        form = NewGameForm()
        assert form.validate()
        assert form.player_names == ["Ana", "Cy"] and form.dealer_index == 1
        assert form.ruleset is not None and form.ruleset.deck is Deck.PLAYING and form.ruleset.last_phase == 5


def test_tap_counters_score_with_the_engines_values(app):
    # 001 point table: 1-9 = 5, 10-12 = 10, Skip = 15, Wild = 25 (Ben's hand in the worked example: 35).
    assert [(b.label, b.points) for b in buckets(Deck.STANDARD)] == [
        ("1–9", 5),
        ("10–12", 10),
        ("Skip", 15),
        ("Wild", 25),
    ]
    # 004: A-9 = 5, 10-K = 10, joker = 25; there is no Skip among playing cards.
    assert [(b.label, b.points) for b in buckets(Deck.PLAYING)] == [("A–9", 5), ("10–K", 10), ("Joker", 25)]
    rules = get_ruleset("standard")
    data = round_form_data(
        1,
        "Ana",
        {
            0: {"down": True},
            1: {"down": True, "low": 2, "high": 1, "skip": 1},
            2: {"points": 40},
            3: {"down": True, "low": 2},
        },
    )
    with app.test_request_context(method="POST", data=data):
        from flask import request

        form = round_form(rules, ("Ana", "Ben", "Cy", "Dee"), 1, formdata=request.form)
        assert form.validate()
        report = form.report()
        assert not form.has_errors()
    assert report["players"]["Ben"] == {"laid_down": True, "points": 35}
    assert report["players"]["Cy"] == {"laid_down": False, "points": 40}
    assert report["players"]["Ana"] == {"laid_down": True}


def test_counters_and_a_different_typed_total_are_an_error(app):
    rules = get_ruleset("standard")
    data = round_form_data(1, "Ana", {0: {"down": True}, 1: {"low": 1, "points": 20}})
    with app.test_request_context(method="POST", data=data):
        from flask import request

        form = round_form(rules, ("Ana", "Ben"), 1, formdata=request.form)
        assert form.validate()
        form.report()
        assert form.has_errors()
        assert "add up to 5" in form.players()[1].errors[0]


def test_enter_round_preview_then_save(client, api_game, app):
    game = api_game()
    game.login()
    page = client.get(f"/games/{game.id}/round")
    assert page.status_code == 200 and 'data-points="25"' in page.get_data(as_text=True)
    data = round_form_data(
        1,
        "Ana",
        {
            0: {"down": True},
            1: {"down": True, "low": 2, "high": 1, "skip": 1},
            2: {"points": 40},
            3: {"down": True, "low": 2},
        },
    )
    before = snapshot(app)
    preview = client.post(f"/games/{game.id}/round", data={**data, "preview": "1"})
    assert preview.status_code == 200
    text = preview.get_data(as_text=True)
    assert "Preview" in text and ">35<" in text.replace(" ", "")
    assert snapshot(app) == before  # a preview stores nothing
    saved = client.post(f"/games/{game.id}/round", data={**data, "save": "1"})
    assert saved.status_code == 302
    totals = {p["name"]: p["total"] for p in game.state()["players"]}
    assert totals == {"Ana": 0, "Ben": 35, "Cy": 40, "Dee": 10}


def test_engine_refusal_shows_as_a_form_error(client, api_game, app):
    game = api_game(["Ana", "Ben"])
    game.login()
    before = snapshot(app)
    # 001 "Going out": a player can only go out after laying down.
    data = round_form_data(1, "Ana", {0: {}, 1: {"points": 10}})
    response = client.post(f"/games/{game.id}/round", data={**data, "save": "1"})
    assert response.status_code == 400
    assert "without laying down" in response.get_data(as_text=True)
    nobody = round_form_data(1, "", {0: {"points": 5}, 1: {"points": 10}})
    assert client.post(f"/games/{game.id}/round", data={**nobody, "save": "1"}).status_code == 400
    assert snapshot(app) == before


def test_second_device_saving_the_same_round_is_told(client, api_game, app):
    game = api_game(["Ana", "Ben"])
    game.login()
    data = round_form_data(1, "Ana", {0: {"down": True}, 1: {"points": 10}})
    assert client.post(f"/games/{game.id}/round", data={**data, "save": "1"}).status_code == 302
    before = snapshot(app)
    again = client.post(f"/games/{game.id}/round", data={**data, "save": "1"})
    assert again.status_code == 409
    assert "already saved from another device" in again.get_data(as_text=True)
    assert snapshot(app) == before


def test_pages_refuse_writes_without_the_edit_secret(client, api_game, app):
    game = api_game(["Ana", "Ben"])
    before = snapshot(app)
    data = round_form_data(1, "Ana", {0: {"down": True}, 1: {"points": 10}})
    assert client.get(f"/games/{game.id}/round").status_code == 403
    refused = client.post(f"/games/{game.id}/round", data={**data, "save": "1"})
    assert refused.status_code == 403 and "edit link" in refused.get_data(as_text=True)
    assert client.post(f"/games/{game.id}/rounds/1/delete").status_code == 403
    table = client.get(f"/games/{game.id}").get_data(as_text=True)
    assert "Enter round" not in table and "Read-only" in table
    assert client.get(f"/games/{game.id}/access/wrong-token").status_code == 403
    assert snapshot(app) == before


def test_edit_link_gives_another_device_the_secret(app, api_game):
    """Security review, finding 5: the edit secret rides in the link's fragment, which browsers never send, so
    no request line (and no access log) holds it; the access page posts it."""
    game = api_game(["Ana", "Ben"])
    game.login()
    table = game.client.get(f"/games/{game.id}").get_data(as_text=True)
    link = re.search(r'value="(http[^"]+/access#[^"]+)"', table).group(1)
    path, secret = link.split("localhost", 1)[1].split("#")
    assert secret == game.token and game.token not in path
    other = app.test_client()
    assert other.get(f"/games/{game.id}/round").status_code == 403
    page = other.get(path)
    assert page.status_code == 200 and "access.js" in page.get_data(as_text=True)
    opened = other.post(path, data={"token": secret})
    assert opened.status_code == 302
    assert other.get(f"/games/{game.id}/round").status_code == 200


def test_a_pasted_edit_link_and_an_old_style_link_both_open_the_game(app, api_game):
    game = api_game(["Ana", "Ben"])
    pasted = app.test_client()
    answer = pasted.post(
        f"/games/{game.id}/access", data={"token": f"http://x/games/{game.id}/access#{game.token}"}
    )
    assert answer.status_code == 302 and pasted.get(f"/games/{game.id}/round").status_code == 200
    old = app.test_client()
    assert old.get(f"/games/{game.id}/access/{game.token}").status_code == 302
    assert old.get(f"/games/{game.id}/round").status_code == 200
    wrong = app.test_client()
    assert wrong.post(f"/games/{game.id}/access", data={"token": "not-the-secret"}).status_code == 403
    assert wrong.get(f"/games/{game.id}/round").status_code == 403


def test_history_edit_and_delete_with_audit(client, api_game):
    game = api_game()
    game.login()
    game.post_round(WORKED_EXAMPLE)
    history = client.get(f"/games/{game.id}/history").get_data(as_text=True)
    assert "<polyline" in history and "Added" in history and "Edit" in history
    form = client.get(f"/games/{game.id}/rounds/1/edit").get_data(as_text=True)
    # Ben's cards (R3 G7 B11 S) come back on the counters, so a tap can change them.
    assert _counters(form, 1) == {"low": "2", "high": "1", "skip": "1", "wild": "0"}
    assert _typed(form, 1) == ""
    data = round_form_data(
        1,
        "Ana",
        {
            0: {"down": True},
            1: {"down": True, "points": 35},
            2: {"down": True, "points": 40},
            3: {"down": True, "points": 10},
        },
    )
    assert client.post(f"/games/{game.id}/rounds/1/edit", data={**data, "preview": "1"}).status_code == 200
    saved = client.post(f"/games/{game.id}/rounds/1/edit", data={**data, "save": "1"})
    assert saved.status_code == 302
    state = game.state()
    assert next(p for p in state["players"] if p["name"] == "Cy")["phase"] == 2
    # Ben's total did not change, so the cards of the original report are kept.
    assert state["rounds"][0]["report"]["players"]["Ben"]["cards"] == ["R3", "G7", "B11", "S"]
    history = client.get(f"/games/{game.id}/history").get_data(as_text=True)
    assert "Edited" in history and "before" in history
    deleted = client.post(f"/games/{game.id}/rounds/1/delete")
    assert deleted.status_code == 302
    assert game.state()["rounds"] == []
    assert "Deleted" in client.get(f"/games/{game.id}/history").get_data(as_text=True)
    assert client.get(f"/games/{game.id}/rounds/1/edit").status_code == 404


def test_end_of_game_shows_winner_and_placements(client, api_game):
    game = api_game(["Ana", "Ben"], last_phase=1)
    game.login()
    game.post_round(
        {
            "round": 1,
            "went_out": "Ben",
            "players": {"Ana": {"laid_down": False, "points": 30}, "Ben": {"laid_down": True}},
        }
    )
    text = client.get(f"/games/{game.id}").get_data(as_text=True)
    assert "Ben wins!" in text and "Enter round" not in text
    assert re.search(r"1\.</span> Ben.*2\.</span> Ana", text, re.S)
    finished = client.get(f"/games/{game.id}/round")
    assert finished.status_code == 302


def test_tie_break_round_offers_only_the_tied_players(client, api_game):
    # 001: tied on points, "they replay Phase 10 against each other": the round form lists only them.
    from .test_api import _two_round_tie

    game = api_game(["Ana", "Ben", "Cy"], last_phase=2)
    game.login()
    _two_round_tie(game)
    table = client.get(f"/games/{game.id}").get_data(as_text=True)
    assert "Tie-break" in table and "Ana and Ben are tied" in table
    form = client.get(f"/games/{game.id}/round").get_data(as_text=True)
    assert (
        "<legend>Ana</legend>" in form
        and "<legend>Ben</legend>" in form
        and "<legend>Cy</legend>" not in form
    )
    data = round_form_data(3, "Ana", {0: {"down": True}, 1: {"points": 5}})
    # A round that ends the game asks first, naming the winner; nothing is saved until the scorer confirms.
    asked = client.post(f"/games/{game.id}/round", data={**data, "save": "1"})
    assert asked.status_code == 200 and "Ana wins the game with this round" in asked.get_data(as_text=True)
    assert "Ana wins!" not in client.get(f"/games/{game.id}").get_data(as_text=True)
    confirmed = client.post(f"/games/{game.id}/round", data={**data, "save": "1", "confirm_end": "1"})
    assert confirmed.status_code == 302
    assert "Ana wins!" in client.get(f"/games/{game.id}").get_data(as_text=True)


def test_error_pages_are_friendly_html(client):
    missing = client.get("/games/doesnotexist")
    assert missing.status_code == 404 and b"<html" in missing.data and b"Traceback" not in missing.data
    assert client.get("/nowhere").status_code == 404
    assert client.post("/").status_code == 405


def test_csrf_is_required_on_every_form(database, api_game):
    app = make_app(database, WTF_CSRF_ENABLED=True)
    client = app.test_client()
    new = client.post(
        "/games/new",
        data={
            "names-0": "Ana",
            "names-1": "Ben",
            "rules": "standard",
            "last_phase": "10",
            "first_dealer": "0",
        },
    )
    assert new.status_code == 400 and b"expired" in new.data
    page = client.get("/games/new").get_data(as_text=True)
    token = re.search(r'name="csrf_token" type="hidden" value="([^"]+)"', page).group(1)
    ok = client.post(
        "/games/new",
        data={
            "csrf_token": token,
            "names-0": "Ana",
            "names-1": "Ben",
            "rules": "standard",
            "last_phase": "10",
            "first_dealer": "0",
        },
    )
    assert ok.status_code == 302
    game_id = ok.headers["Location"].rsplit("/", 1)[1]
    no_token = client.post(f"/games/{game_id}/round", data={"round": "1", "went_out": "Ana", "save": "1"})
    assert no_token.status_code == 400
    round_page = client.get(f"/games/{game_id}/round").get_data(as_text=True)
    token = re.search(r'name="csrf_token" type="hidden" value="([^"]+)"', round_page).group(1)
    data = {
        "csrf_token": token,
        "round": "1",
        "went_out": "Ana",
        "p0_down": "y",
        "p1_points": "10",
        "save": "1",
    }
    assert client.post(f"/games/{game_id}/round", data=data).status_code == 302
    assert client.post(f"/games/{game_id}/rounds/1/delete").status_code == 400
    edit = {**data, "csrf_token": ""}
    assert client.post(f"/games/{game_id}/rounds/1/edit", data=edit).status_code == 400
    assert client.post(f"/games/{game_id}/rounds/1/delete", data={"csrf_token": token}).status_code == 302
    with app.app_context():
        from companion.extensions import db

        db.engine.dispose()


def test_players_page_lists_stats(client, api_game):
    game = api_game()
    game.post_round(WORKED_EXAMPLE)
    text = client.get("/players/").get_data(as_text=True)
    assert "Ben" in text and "35.0" in text


def test_masters_round_form_offers_only_phases_still_to_do(client, api_game):
    # 000: players choose the phase to attempt each hand among those not yet completed.
    game = api_game(["Ana", "Ben"], name="masters")
    game.login()
    saved = game.post_round(
        {
            "round": 1,
            "went_out": "Ana",
            "players": {"Ana": {"laid_down": True, "phase": 3}, "Ben": {"laid_down": False, "points": 5}},
        }
    )
    assert saved.status_code == 201, saved.json
    text = client.get(f"/games/{game.id}/round").get_data(as_text=True)
    ana = re.search(r'<select[^>]*id="p0_phase".*?</select>', text, re.S).group(0)
    ben = re.search(r'<select[^>]*id="p1_phase".*?</select>', text, re.S).group(0)
    assert 'value="3"' not in ana and 'value="4"' in ana
    assert 'value="3"' in ben


def test_an_empty_new_game_form_asks_for_names_and_the_dealer_list_shows_them(client):
    empty = client.post("/games/new", data={"rules": "standard", "last_phase": "10", "first_dealer": "0"})
    text = empty.get_data(as_text=True)
    assert empty.status_code == 400 and "at least 2 players" in text and "first dealer" not in text
    typed = client.post(
        "/games/new", data={"names-0": "Ana", "names-1": "", "rules": "standard", "first_dealer": "3"}
    ).get_data(as_text=True)
    assert '<option value="0">Ana</option>' in typed and '<option value="1">Player 2</option>' in typed


def test_the_table_shows_standings_leader_and_points_behind(client, api_game):
    game = api_game(["Ana", "Ben", "Cy", "Dee"])
    game.login()
    assert game.post_round(WORKED_EXAMPLE).status_code == 201
    text = client.get(f"/games/{game.id}").get_data(as_text=True)
    # 001 worked example: Ana 0, Ben 35, Cy 40 and Dee 10 points; Ana, Ben and Dee completed phase 1.
    order = [text.index(f'<strong class="name">{n}</strong>') for n in ("Ana", "Dee", "Ben", "Cy")]
    assert order == sorted(order)
    assert "leads" in text and "10 pts behind Ana" in text and "1 phase behind Ana" in text
    assert '<progress max="10" value="1"' in text


def test_a_finished_game_offers_a_rematch_with_the_deal_passing_on(client, api_game):
    game = api_game(["Ana", "Ben"], last_phase=1)
    game.login()
    body = {
        "round": 1,
        "went_out": "Ana",
        "players": {"Ana": {"laid_down": True}, "Ben": {"laid_down": False, "points": 20}},
    }
    assert game.post_round(body).status_code == 201
    assert "Rematch" in client.get(f"/games/{game.id}").get_data(as_text=True)
    answer = client.post(f"/games/{game.id}/rematch")
    assert answer.status_code == 302
    new_id = answer.headers["Location"].rsplit("/", 1)[1]
    assert new_id != game.id
    fresh = client.get(f"/api/games/{new_id}").json
    assert [p["name"] for p in fresh["players"]] == ["Ana", "Ben"] and fresh["rules"]["last_phase"] == 1
    # Ana dealt round 1, so Ben, on her left, deals the first round of the rematch (001: the deal passes left).
    assert fresh["dealer"] == "Ben"
    assert "Enter round 1" in client.get(f"/games/{new_id}").get_data(as_text=True)


def test_a_game_without_rounds_can_be_deleted_and_counts_in_no_stats(app, client, api_game):
    game = api_game(["Ana", "Ben"])
    played = api_game(["Ana", "Cy"])
    played.post_round(
        {
            "round": 1,
            "went_out": "Ana",
            "players": {"Ana": {"laid_down": True}, "Cy": {"laid_down": False, "points": 10}},
        }
    )
    with app.app_context():
        from companion import scorebook

        by_name = {s["name"]: s for s in scorebook.player_stats()}
    assert by_name["Ana"]["games"] == 1 and "Ben" not in by_name
    stranger = app.test_client()
    assert stranger.post(f"/games/{game.id}/delete").status_code == 403
    game.login()
    assert client.post(f"/games/{game.id}/delete").status_code == 302
    assert client.get(f"/api/games/{game.id}").status_code == 404
    played.login()
    refused = client.post(f"/games/{played.id}/delete", follow_redirects=True)
    assert "was not deleted" in refused.get_data(as_text=True)
    assert client.get(f"/api/games/{played.id}").status_code == 200


def test_a_player_page_has_record_and_head_to_head_and_lists_only_held_games(app, client, api_game):
    first = api_game(["Ana", "Ben"], last_phase=1)
    second = api_game(["Ana", "Cy"])
    for game, other in ((first, "Ben"), (second, "Cy")):
        game.post_round(
            {
                "round": 1,
                "went_out": "Ana",
                "players": {"Ana": {"laid_down": True}, other: {"laid_down": False, "points": 25}},
            }
        )
    first.login()
    page = client.get("/players/ana").get_data(as_text=True)
    assert "<h1>Ana</h1>" in page and "Head to head" in page
    assert f"/games/{first.id}" in page and f"/games/{second.id}" not in page
    assert "1 more game on this server" in page
    assert ">Ben</a></td><td>1</td><td>1</td><td>0</td>" in page  # one game, won by Ana
    assert client.get("/players/Nobody").status_code == 404
