"""The referee pages through the test client: standalone and from the game table, the verdict without JavaScript,
and "laid down this round" marks that tick the round form."""

from __future__ import annotations

import re

import pytest

from companion.extensions import db
from companion.referee.marks import LaidDownMark


@pytest.fixture
def app(any_database_app):
    """Marks are stored: every page test runs on SQLite and, when it is there, on PostgreSQL."""
    return any_database_app


def _checked(page: str, seat: int) -> bool:
    tag = re.search(rf'<input[^>]*name="p{seat}_down"[^>]*>', page)
    assert tag, page
    return "checked" in tag.group(0)


def test_standalone_page_offers_rules_phases_and_the_camera(client):
    page = client.get("/referee/").get_data(as_text=True)
    assert 'name="rules"' in page and "Phase 10 with playing cards" in page
    assert "1: two sets of 3" in page and "10: one set of 5 and one set of 3" in page
    assert 'accept="image/*"' in page or "tap the cards in" in page
    assert 'id="ref-mark"' not in page  # nothing to mark outside a game


def test_camera_input_uses_the_phone_camera_when_the_model_is_there(client, monkeypatch):
    from companion.referee import camera

    monkeypatch.setattr(camera, "status", lambda: camera.CameraStatus(True))
    page = client.get("/referee/").get_data(as_text=True)
    assert 'capture="environment"' in page and "Choose a photo" in page


def test_001_typed_cards_get_a_verdict_without_javascript(client):
    page = client.get("/referee/", query_string={"phase": "2", "cards": "R7 B7 G7 | G3 Y4 W B6"}).get_data(
        as_text=True
    )
    assert "✓ Valid: phase 2" in page and "W = 5" in page
    bad = client.get("/referee/", query_string={"phase": "2", "cards": "R7 B7 G7 | G3 Y4 R6 B7"}).get_data(
        as_text=True
    )
    assert "✗ Not valid" in bad and "has a gap at 5" in bad


def test_typed_nonsense_shows_a_message_not_an_error_page(client):
    page = client.get("/referee/", query_string={"phase": "2", "cards": "R7 X9"})
    assert page.status_code == 200 and "&#39;X9&#39; is not a card" in page.get_data(as_text=True)
    odd = client.get("/referee/", query_string={"phase": "99", "rules": "nonsense"})
    assert odd.status_code == 200 and "no phase 99" in odd.get_data(as_text=True)


def test_000_hit_page_without_javascript(client):
    page = client.get(
        "/referee/", query_string={"mode": "hit", "kind": "run", "onto": "W R4 R5 R6", "cards": "B3"}
    ).get_data(as_text=True)
    assert "Check a hit" in page and "✗ Not legal" in page and "takes a 2 or a 7, not a 3" in page
    not_down = client.get(
        "/referee/",
        query_string={"mode": "hit", "kind": "run", "onto": "W R4 R5 R6", "cards": "B7", "down": "0"},
    ).get_data(as_text=True)
    assert "lay down your own phase before you can hit" in not_down


def test_game_table_links_each_player_to_the_referee(client, api_game):
    game = api_game()
    page = client.get(f"/games/{game.id}").get_data(as_text=True)
    assert f"/referee/?game={game.id}&amp;player=Ben" in page


def test_from_the_game_the_players_phase_is_preselected(client, api_game):
    game = api_game()
    game.post_round(
        {
            "round": 1,
            "went_out": "Ana",
            "players": {
                "Ana": {"laid_down": True},
                "Ben": {"laid_down": False, "points": 10},
                "Cy": {"laid_down": True, "points": 5},
            },
        }
    )
    page = client.get("/referee/", query_string={"game": game.id, "player": "Ana"}).get_data(as_text=True)
    assert '<option value="2" selected>2: one set of 3 and one run of 4</option>' in page
    assert '<option value="1"' not in page  # only the phase Ana plays this round
    assert 'name="rules"' not in page  # the game's rules, not a choice


def test_000_masters_player_chooses_among_the_phases_still_to_do(client, api_game):
    game = api_game(name="masters")
    page = client.get("/referee/", query_string={"game": game.id, "player": "Ben"}).get_data(as_text=True)
    phases = page[page.index('id="ref-phase"') : page.index("</select>", page.index('id="ref-phase"'))]
    assert phases.count("<option value=") == 10


def test_unknown_game_or_player_is_404_with_a_message(client, api_game):
    assert "no game at this address" in client.get("/referee/?game=nope&player=Ana").get_data(as_text=True)
    game = api_game()
    answer = client.get("/referee/", query_string={"game": game.id, "player": "Zed"})
    assert answer.status_code == 404 and "Zed does not play in this game" in answer.get_data(as_text=True)


def test_marking_needs_the_edit_secret(client, api_game, app):
    game = api_game()
    answer = client.post(
        f"/referee/games/{game.id}/laid-down",
        data={"player": "Ana", "phase": "1", "groups": "R5 B5 W | G8 Y8 W"},
    )
    assert answer.status_code == 403 and "edit link" in answer.get_data(as_text=True)
    with app.app_context():
        assert db.session.execute(db.select(LaidDownMark)).first() is None


def test_001_only_a_valid_phase_is_marked(client, api_game, app):
    game = api_game()
    game.login()
    bad = client.post(
        f"/referee/games/{game.id}/laid-down",
        data={"player": "Ana", "phase": "1", "groups": "R5 B5 W | G8 Y9 W"},
    )
    assert bad.status_code == 400 and "not marked" in bad.get_data(as_text=True)
    wrong_phase = client.post(
        f"/referee/games/{game.id}/laid-down",
        data={"player": "Ana", "phase": "2", "groups": "R7 B7 G7 | G3 Y4 W B6"},
    )
    assert wrong_phase.status_code == 400 and "cannot lay down phase 2" in wrong_phase.get_data(as_text=True)
    junk = client.post(
        f"/referee/games/{game.id}/laid-down", data={"player": "Ana", "phase": "1", "groups": "R5 | Q"}
    )
    assert junk.status_code == 400
    with app.app_context():
        assert db.session.execute(db.select(LaidDownMark)).first() is None


def test_marked_player_starts_ticked_in_the_round_form_until_the_round_is_saved(client, api_game):
    game = api_game()
    game.login()
    answer = client.post(
        f"/referee/games/{game.id}/laid-down",
        data={"player": "Ben", "phase": "1", "groups": "R5 B5 W | G8 Y8 W"},
    )
    assert answer.status_code == 302 and answer.headers["Location"].endswith(f"/games/{game.id}")
    table = client.get(f"/games/{game.id}").get_data(as_text=True)
    assert "Ben laid down phase 1" in table and "Ben ✓ laid down" in table
    form = client.get(f"/games/{game.id}/round").get_data(as_text=True)
    assert _checked(form, 1) and not _checked(form, 0) and not _checked(form, 2)
    saved = game.post_round(
        {
            "round": 1,
            "went_out": "Ana",
            "players": {
                "Ana": {"laid_down": True},
                "Ben": {"laid_down": True, "points": 5},
                "Cy": {"laid_down": False, "points": 5},
            },
        }
    )
    assert saved.status_code == 201
    form = client.get(f"/games/{game.id}/round").get_data(as_text=True)
    assert not _checked(form, 1)  # the mark belonged to round 1


def test_000_masters_mark_also_chooses_the_phase_attempted(client, api_game):
    game = api_game(name="masters")
    game.login()
    answer = client.post(
        f"/referee/games/{game.id}/laid-down",
        data={"player": "Cy", "phase": "7", "groups": "R4 B4 G4 W | Y9 R9 W W"},
    )
    assert answer.status_code == 302
    form = client.get(f"/games/{game.id}/round").get_data(as_text=True)
    assert _checked(form, 2)
    select = re.search(r'<select[^>]*name="p2_phase".*?</select>', form, re.S).group(0)
    assert '<option selected value="7">' in select or '<option value="7" selected>' in select


# --------------------------------------------------------------------------------------------- the Hand tab


def test_every_referee_page_has_a_hand_tab_beside_phase_and_hit(client, api_game):
    page = client.get("/referee/").get_data(as_text=True)
    assert '/referee/?mode=hand&amp;rules=standard"' in page and ">Hand</a>" in page
    game = api_game()
    from_game = client.get("/referee/", query_string={"game": game.id, "player": "Ben"}).get_data(
        as_text=True
    )
    assert f"/referee/?mode=hand&amp;game={game.id}&amp;player=Ben" in from_game


def test_001_hand_typed_without_javascript_gets_the_engines_advice(client):
    from companion.rules import advise, parse_cards

    page = client.get(
        "/referee/", query_string={"mode": "hand", "phase": "1", "cards": "R5 B5 W G8 Y8 R11"}
    ).get_data(as_text=True)
    assert "Advise a hand" in page and 'aria-current="page">Hand</a>' in page
    summary = advise(parse_cards("R5 B5 W G8 Y8 R11"), 1).summary
    assert summary in page and "Not used: R11" in page
    assert 'id="ref-mark"' not in page


def test_hand_tab_from_a_standard_game_advises_toward_the_players_phase(client, api_game):
    game = api_game()
    page = client.get(
        "/referee/", query_string={"mode": "hand", "game": game.id, "player": "Cy", "cards": "R5 B5 W G8 Y8"}
    ).get_data(as_text=True)
    select = re.search(r'<select name="phase" id="ref-phase">.*?</select>', page, re.S).group(0)
    assert select.count("<option value=") == 1 and '<option value="1" selected>' in select
    assert "Phase 1: two sets of 3" in page and "need one more 8, or a wild" in page


def test_000_hand_tab_in_masters_advises_toward_each_phase_still_to_do(client, api_game):
    game = api_game(name="masters")
    game.post_round(
        {
            "round": 1,
            "went_out": "Ana",
            "players": {
                "Ana": {"laid_down": True, "phase": 2},
                "Ben": {"laid_down": False, "points": 10},
                "Cy": {"laid_down": False, "points": 5},
            },
        }
    )
    page = client.get(
        "/referee/", query_string={"mode": "hand", "game": game.id, "player": "Ana", "cards": "R5 B5 W G8 Y8"}
    ).get_data(as_text=True)
    assert '<option value="" selected>Each phase still to do</option>' in page
    shown = re.findall(r"Phase (\d+): ", page)
    assert sorted(int(n) for n in shown) == [1, 3, 4, 5, 6, 7, 8, 9, 10]
    standalone = client.get("/referee/", query_string={"mode": "hand", "rules": "masters"}).get_data(
        as_text=True
    )
    assert '<option value="" selected>Every phase</option>' in standalone


def test_hand_tab_typed_nonsense_shows_a_message(client):
    page = client.get("/referee/", query_string={"mode": "hand", "phase": "1", "cards": "R5 X9"})
    assert page.status_code == 200 and "&#39;X9&#39; is not a card" in page.get_data(as_text=True)


# --------------------------------------------------------------------------------------------- the round form's photo


def _hand_partial(app, rules_name: str, index: int = 1, name: str = "Ben") -> str:
    from flask import render_template

    from companion.rules import get_ruleset

    row = type("Row", (), {"index": index, "name": name})()
    with app.test_request_context("/"):
        return render_template("games/_hand_photo.html", row=row, rules=get_ruleset(rules_name))


def test_round_form_hand_photo_offers_the_phone_camera_for_that_player(app, monkeypatch):
    from companion.referee import camera

    monkeypatch.setattr(camera, "status", lambda: camera.CameraStatus(True))
    html = _hand_partial(app, "standard", 2, "<Zoë>")
    assert 'capture="environment"' in html and 'accept="image/*"' in html
    assert 'data-player="2"' in html and 'data-api="/api/hand"' in html and 'data-rules="standard"' in html
    assert "&lt;Zoë&gt;" in html and "<Zoë>" not in html
    assert " name=" not in html  # the form never sends the photo's controls
    # Hidden until hand.js runs: without the script the counters work as before.
    assert re.search(r'<div class="hand-photo" data-hand-photo[^>]* hidden>', html)


def test_round_form_hand_photo_renders_nothing_without_the_camera_or_for_playing_cards(app, monkeypatch):
    from companion.referee import camera

    monkeypatch.setattr(camera, "status", lambda: camera.CameraStatus(False, "not installed"))
    assert _hand_partial(app, "standard").strip() == ""
    monkeypatch.setattr(camera, "status", lambda: camera.CameraStatus(True))
    assert _hand_partial(app, "playing-cards").strip() == ""
    assert "data-hand-photo" in _hand_partial(app, "masters")
