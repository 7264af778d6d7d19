"""The result card of a finished game through the test client: the winner by the official rules, everyone's
place with phases and points, the rounds played, a link to share; linked from the table once the game is over."""

from __future__ import annotations

import re

from .conftest import snapshot


def _finish(game) -> None:
    """A two-round game to phase 2 (001 house rule "fewer phases"): Ana completes phase 2 and goes out first."""
    rounds = [
        {
            "round": 1,
            "went_out": "Ana",
            "players": {
                "Ana": {"laid_down": True},
                "Ben": {"laid_down": True, "points": 35},
                "Cy": {"laid_down": False, "points": 40},
            },
        },
        {
            "round": 2,
            "went_out": "Ana",
            "players": {
                "Ana": {"laid_down": True},
                "Ben": {"laid_down": False, "points": 10},
                "Cy": {"laid_down": True, "points": 5},
            },
        },
    ]
    for body in rounds:
        assert game.post_round(body).status_code == 201


def _rows(page: str) -> list[list[str]]:
    body = re.search(r'<table class="result-standings">.*?<tbody>(.*?)</tbody>', page, re.S).group(1)
    rows = []
    for row in re.findall(r"<tr[^>]*>(.*?)</tr>", body, re.S):
        cells = re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", row, re.S)
        rows.append([" ".join(re.sub(r"<[^>]+>", " ", c).split()) for c in cells])
    return rows


def test_001_the_result_card_names_the_winner_and_every_place(client, api_game, app):
    game = api_game(["Ana", "Ben", "Cy"], last_phase=2)
    _finish(game)
    table = client.get(f"/games/{game.id}").get_data(as_text=True)
    assert f'href="/games/{game.id}/result"' in table and "Result card to share" in table
    before = snapshot(app)
    answer = client.get(f"/games/{game.id}/result")
    assert answer.status_code == 200
    page = answer.get_data(as_text=True)
    assert "Ana wins!" in page and "2 rounds played" in page
    # 001: the game ends after the round in which a player completes the last phase; the lowest total among
    # them wins. The others are placed by phases completed, then points; equal on both, they share a place (004).
    assert _rows(page) == [
        ["1.", "Ana", "2/2 phases", "0 pts"],
        ["2.", "Ben", "1/2 phases", "45 pts"],
        ["2.", "Cy", "1/2 phases", "45 pts"],
    ]
    assert f'value="http://localhost/games/{game.id}/result"' in page
    assert 'data-copy="result-link"' in page and 'data-share="result-link"' in page
    assert "live.js" in page and "<script>" not in page  # copy and share come from the script file (CSP)
    assert snapshot(app) == before  # reading a result card changes nothing


def test_the_result_card_is_read_only_for_anyone_with_the_link(app, api_game):
    game = api_game(["Ana", "Ben", "Cy"], last_phase=2)
    _finish(game)
    stranger = app.test_client()
    page = stranger.get(f"/games/{game.id}/result").get_data(as_text=True)
    assert "Ana wins!" in page and "Rematch" not in page


def test_a_game_in_progress_has_no_result_card_yet(client, api_game, app):
    game = api_game(["Ana", "Ben"])
    before = snapshot(app)
    answer = client.get(f"/games/{game.id}/result")
    assert answer.status_code == 404 and "not over yet" in answer.get_data(as_text=True)
    assert "Result card" not in client.get(f"/games/{game.id}").get_data(as_text=True)
    assert client.get("/games/nosuchgame00/result").status_code == 404
    assert snapshot(app) == before
