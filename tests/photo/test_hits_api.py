"""Hits through ``POST /api/check`` as the engine now judges them: as a set, with a wild's end named per card
(000: "a player may add a 2 to … 3 4 5 6 — the player may also add a 7, and an 8"; 001: "a Wild card can be added
anywhere it fits"), and the playing-card game's rules reaching the pages (004)."""

from __future__ import annotations

import pytest


def _hit(client, cards, **extra):
    body = {"kind": "run", "onto": ["G3", "G4", "G5", "G6"], "cards": cards, **extra}
    return client.post("/api/check", json=body)


def test_cards_in_any_order_and_a_wild_named_for_the_low_end(client):
    answer = _hit(client, ["R8", "R7"])
    assert answer.status_code == 200 and answer.json["legal"]
    named = _hit(client, ["W", "R7"], ends=["low", None])
    assert named.json["legal"] and named.json["group"][0] == "W"
    assert named.json["placed"][0] == {"card": "W", "end": "low", "as": 2}


@pytest.mark.parametrize("ends", [["low"], "low", [None, "top"], {"0": "low"}])
def test_ends_must_be_one_entry_per_card(client, ends):
    answer = _hit(client, ["W", "R7"], ends=ends)
    assert answer.status_code == 400 and answer.json["field"] == "ends"


def test_the_playing_card_referee_page_never_wraps(client):
    """004: "Ace is always low … I can't have a run Queen, King, Ace" — the box ticked before switching decks
    must not make the page fail."""
    page = client.get("/referee/?rules=playing-cards&wrap=1&phase=1")
    assert page.status_code == 200


def test_the_flush_option_is_kept_with_a_playing_card_game(client):
    body = {"players": ["Ana", "Ben"], "rules": {"name": "playing-cards", "flushes_share_suit": False}}
    answer = client.post("/api/games", json=body)
    assert answer.status_code == 201 and answer.json["rules"]["flushes_share_suit"] is False
    refused = client.post(
        "/api/games", json={"players": ["Ana", "Ben"], "rules": {"name": "playing-cards", "wrap_runs": True}}
    )
    assert refused.status_code == 400 and "Ace is always low" in refused.json["error"]
