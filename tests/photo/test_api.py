"""``POST /api/check`` without a photo: the same answers as ``phase10 check --json`` / ``phase10 hit --json``,
and a clear JSON error for everything it cannot judge."""

from __future__ import annotations

import argparse
import io
import json
from contextlib import redirect_stdout

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.cli import main as cli

from .conftest import needs_model

PHASE_2 = "R7 B7 G7 | G3 Y4 W B6"


def _cli_json(*argv: str) -> dict:
    out = io.StringIO()
    with redirect_stdout(out):
        cli([*argv, "--json"])
    return json.loads(out.getvalue())


def test_001_grouped_phase_answers_like_the_command_line(client):
    # 001: "Phase 2: one set of 3 and one run of 4"; the wild stands for the missing 5 of the run.
    answer = client.post(
        "/api/check", json={"phase": 2, "groups": [["R7", "B7", "G7"], ["G3", "Y4", "W", "B6"]]}
    )
    assert answer.status_code == 200
    expected = _cli_json("check", "--phase", "2", "R7", "B7", "G7", "|", "G3", "Y4", "W", "B6")
    body = answer.json
    assert {k: body[k] for k in expected} == expected
    assert body["valid"] is True
    assert body["groups"][1]["wilds"] == [{"index": 2, "as": 5}]


def test_001_ungrouped_cards_are_arranged_by_the_referee(client):
    # 001: the two sets of a phase may use the same number... here two different numbers, wilds filling both.
    body = client.post("/api/check", json={"phase": 1, "cards": ["R5", "B5", "W", "G8", "Y8", "W"]}).json
    assert body["valid"] is True
    assert sorted(g["number"] for g in body["groups"]) == [5, 8]


def test_001_run_with_a_gap_is_refused_with_the_reason(client):
    body = client.post("/api/check", json={"phase": 2, "groups": "R7 B7 G7 | G3 Y4 R6 B7"}).json
    assert body["valid"] is False
    assert body["reason"] == "the run G3 Y4 R6 B7 has a gap at 5"


def test_001_skip_is_never_part_of_a_phase(client):
    body = client.post("/api/check", json={"phase": 1, "cards": "R5 B5 W S G8 Y8 R8"}).json
    assert body["valid"] is False and "Skip" in body["reason"]


def test_000_wild_keeps_the_value_it_was_laid_as_when_hit(client):
    # 000: a wild laid as the 3 of W 4 5 6 cannot later be moved: the run takes a 2 or a 7, not a 3.
    body = client.post(
        "/api/check", json={"kind": "run", "onto": ["W", "R4", "R5", "R6"], "cards": ["B3"]}
    ).json
    expected = _cli_json("hit", "--kind", "run", "--onto", "W R4 R5 R6", "B3")
    assert {k: body[k] for k in expected} == expected
    assert body["legal"] is False and body["reason"] == "the run W R4 R5 R6 takes a 2 or a 7, not a 3"


def test_001_run_takes_cards_at_both_ends(client):
    body = client.post("/api/check", json={"kind": "run", "onto": "R9 B10 G11", "cards": "Y8 R12"}).json
    assert body["legal"] is True and body["group"] == ["Y8", "R9", "B10", "G11", "R12"]
    low = client.post(
        "/api/check", json={"kind": "run", "onto": "R9 B10 G11", "cards": "W", "end": "low"}
    ).json
    assert low["laid"]["low"] == 8


def test_001_hit_before_laying_down_is_refused(client):
    body = client.post(
        "/api/check", json={"kind": "set", "onto": "R12 B12 G12", "cards": "Y12", "phase_down": False}
    ).json
    assert body["legal"] is False and "lay down your own phase" in body["reason"]


def test_004_playing_cards_rules_by_name_or_object(client):
    by_name = client.post(
        "/api/check", json={"phase": 3, "rules": "playing-cards", "groups": "AH AS AD | 7C 7D JK"}
    )
    by_object = client.post(
        "/api/check", json={"phase": 3, "rules": {"name": "playing-cards"}, "groups": "AH AS AD | 7C 7D JK"}
    )
    assert by_name.json["valid"] is True and by_object.json == by_name.json


def test_001_wrap_runs_house_rule_is_passed_to_the_engine(client):
    groups = [["R11", "B12", "G1", "Y2", "R3", "B4", "G5"]]
    plain = client.post("/api/check", json={"phase": 4, "groups": groups}).json
    wrapped = client.post(
        "/api/check", json={"phase": 4, "rules": {"name": "standard", "wrap_runs": True}, "groups": groups}
    ).json
    assert plain["valid"] is False and wrapped["valid"] is True


@pytest.mark.parametrize(
    ("body", "status", "words"),
    [
        ({"phase": 11, "cards": ["R5"]}, 400, "no phase 11"),
        ({"phase": "two", "cards": ["R5"]}, 400, "phase number"),
        ({"cards": ["R5"]}, 400, "give the phase"),
        ({"phase": 1}, 400, "give the cards"),
        ({"phase": 1, "cards": ["R13"]}, 400, "'R13' is not a card"),
        ({"phase": 1, "cards": ["R5"], "groups": [["R5"]]}, 400, "not both"),
        ({"phase": 1, "groups": [["R5"], []]}, 400, "has no cards"),
        ({"phase": 1, "cards": ["R5"] * 25}, 400, "at most 24"),
        ({"phase": 1, "cards": [5, 6]}, 400, "list of cards"),
        ({"phase": 1, "rules": "poker", "cards": ["R5"]}, 400, "unknown rule set"),
        ({"phase": 1, "cards": ["JK", "R5"]}, 400, "'JK' is not a card"),
        ({"phase": 1, "rules": "playing-cards", "cards": ["AH", "S"]}, 400, "'S' is not a card"),
        ({"kind": "pair", "onto": "R5 B5", "cards": "G5"}, 400, "kind"),
        ({"kind": "set", "onto": "R5 B6 G7", "cards": "G5"}, 400, "not a set"),
        ({"kind": "set", "onto": "", "cards": "G5"}, 400, "group on the table"),
        ({"kind": "run", "onto": "R5 R6 R7", "cards": "R8", "end": "top"}, 400, '"end"'),
        ([1, 2], 400, "JSON object"),
    ],
)
def test_bad_requests_get_a_json_error_and_change_nothing(client, body, status, words):
    answer = client.post("/api/check", json=body)
    assert answer.status_code == status
    assert words in answer.json["error"]


def test_bad_json_and_wrong_content_type(client):
    broken = client.post("/api/check", data="{not json", content_type="application/json")
    assert broken.status_code == 400 and "not valid JSON" in broken.json["error"]
    text = client.post("/api/check", data="R5 B5 W", content_type="text/plain")
    assert text.status_code == 415 and "multipart" in text.json["error"]


def test_json_body_over_the_api_limit_is_413(app_factory):
    client = app_factory(API_MAX_BODY=200).test_client()
    answer = client.post("/api/check", json={"phase": 1, "cards": ["R5"] * 20, "pad": "x" * 400})
    assert answer.status_code == 413 and "too much" in answer.json["error"]


def test_check_needs_no_csrf_token_because_it_changes_nothing(app_factory):
    client = app_factory(WTF_CSRF_ENABLED=True).test_client()
    assert client.post("/api/check", json={"phase": 1, "cards": "R5 B5 W G8 Y8 W"}).json["valid"] is True


def test_emit_check_and_the_api_agree_on_every_key(client):
    # The API promises the JSON of `phase10 check`; the CLI's own printer is the reference.
    from companion.cli.rules import emit_check
    from companion.rules import parse_groups

    groups = parse_groups("R1 R1 R1 | W B2 B2")
    out = io.StringIO()
    with redirect_stdout(out):
        emit_check(
            groups,
            argparse.Namespace(
                phase=1, rules="standard", wrap_runs=False, natural_per_group=False, json=True
            ),
        )
    expected = json.loads(out.getvalue())
    body = client.post("/api/check", json={"phase": 1, "groups": "R1 R1 R1 | W B2 B2"}).json
    assert {k: body[k] for k in expected} == expected


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-3, 30)
    | st.sampled_from(["R7", "W", "S", "JK", "AH", "run", "low", "", "R7 B7 | W"]),
    lambda inner: (
        st.lists(inner, max_size=6)
        | st.dictionaries(st.sampled_from(["name", "wrap_runs", "last_phase"]), inner, max_size=3)
    ),
    max_leaves=12,
)
bodies = st.dictionaries(
    st.sampled_from(["phase", "rules", "cards", "groups", "kind", "onto", "end", "phase_down"]),
    json_values,
    max_size=6,
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(body=bodies)
def test_any_json_body_gets_an_answer_or_a_clear_error_never_a_server_error(client, body):
    answer = client.post("/api/check", json=body)
    assert answer.status_code in (200, 400), answer.json
    assert ("error" in answer.json) == (answer.status_code == 400)
    if answer.status_code == 400:
        assert answer.json["error"] and "Traceback" not in answer.json["error"]


# --------------------------------------------------------------------------------------------- POST /api/advise


@pytest.mark.parametrize(
    ("phase", "hand"),
    [
        ("1", "R5 B5 W G8 Y8 R11"),
        ("2", "R3 B4 G7 Y12 R12"),
        ("2", "R3 B4 G6 W Y9 Y9 B9"),
        ("1", "W W W W W W"),
        ("8", "R1 R4 R6 R9 W R12 B3"),
        ("2", "R7 B7 G7 | G3 Y4 W B6"),
    ],
)
def test_001_advise_answers_exactly_what_phase10_advise_json_prints(client, phase, hand):
    expected = _cli_json("advise", "--phase", phase, *hand.split())
    answer = client.post("/api/advise", json={"phase": int(phase), "cards": hand.split()})
    assert answer.status_code == 200
    assert answer.json == expected
    as_text = client.post("/api/advise", json={"phase": int(phase), "rules": "standard", "cards": hand})
    assert as_text.json == expected


def test_004_advise_with_playing_cards_and_house_rules_answers_like_the_command_line(client):
    expected = _cli_json("advise", "--phase", "3", "--rules", "playing-cards", "AH", "AS", "7C", "7D", "JK")
    body = client.post(
        "/api/advise", json={"phase": 3, "rules": "playing-cards", "cards": ["AH", "AS", "7C", "7D", "JK"]}
    ).json
    assert body == expected
    wrapped = _cli_json("advise", "--phase", "4", "--wrap-runs", "R11", "B12", "G1", "Y2", "R3")
    body = client.post(
        "/api/advise",
        json={"phase": 4, "rules": {"name": "standard", "wrap_runs": True}, "cards": "R11 B12 G1 Y2 R3"},
    ).json
    assert body == wrapped


def test_000_masters_without_a_phase_is_advised_toward_every_phase_closest_first(client):
    hand = "R5 B5 W G8 Y8 R11 R12 B3"
    body = client.post("/api/advise", json={"rules": "masters", "cards": hand}).json
    advice = body["advice"]
    assert sorted(a["phase"] for a in advice) == list(range(1, 11))
    for a in advice:
        assert a == _cli_json("advise", "--phase", str(a["phase"]), "--rules", "masters", *hand.split())
    order = [(a["missing"], a["phase"]) for a in advice]
    assert order == sorted(order)


def test_000_masters_game_player_is_advised_toward_the_phases_still_to_do(client, api_game):
    game = api_game(name="masters")
    saved = game.post_round(
        {
            "round": 1,
            "went_out": "Ana",
            "players": {
                "Ana": {"laid_down": True, "phase": 3},
                "Ben": {"laid_down": True, "phase": 1, "points": 10},
                "Cy": {"laid_down": False, "points": 5},
            },
        }
    )
    assert saved.status_code == 201, saved.json
    hand = "R5 B5 W G8 Y8 R11"
    body = client.post("/api/advise", json={"game": game.id, "player": "Ana", "cards": hand}).json
    assert sorted(a["phase"] for a in body["advice"]) == [1, 2, 4, 5, 6, 7, 8, 9, 10]
    chosen = client.post(
        "/api/advise", json={"game": game.id, "player": "Ana", "phase": 3, "cards": hand}
    ).json
    assert chosen == _cli_json("advise", "--phase", "3", "--rules", "masters", *hand.split())


def test_001_standard_game_player_is_advised_toward_their_phase(client, api_game):
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
    hand = "R7 B7 G7 G3 Y4 W B6"
    ana = client.post("/api/advise", json={"game": game.id, "player": "Ana", "cards": hand}).json
    assert ana == _cli_json("advise", "--phase", "2", *hand.split())
    ben = client.post("/api/advise", json={"game": game.id, "player": "Ben", "cards": hand}).json
    assert ben == _cli_json("advise", "--phase", "1", *hand.split())


@pytest.mark.parametrize(
    ("body", "status", "field", "words"),
    [
        ({"phase": 1}, 400, "cards", "give the cards in the hand"),
        ({"phase": 1, "cards": []}, 400, "cards", "give the cards in the hand"),
        ({"phase": 1, "cards": ["R13"]}, 400, "cards", "'R13' is not a card"),
        ({"phase": 1, "cards": [5]}, 400, "cards", "list of cards"),
        ({"phase": 1, "cards": ["R5"] * 25}, 400, "cards", "at most 24"),
        ({"cards": ["R5"]}, 400, "phase", "give the phase"),
        ({"phase": 11, "cards": ["R5"]}, 400, "phase", "no phase 11"),
        ({"phase": "two", "cards": ["R5"]}, 400, "phase", "phase number"),
        ({"phase": 1, "rules": "poker", "cards": ["R5"]}, 400, "rules", "unknown rule set"),
        ({"phase": 1, "rules": "playing-cards", "cards": ["S"]}, 400, "cards", "'S' is not a card"),
        ({"player": "Ana", "cards": ["R5"]}, 400, "game", 'give the "game"'),
        ({"game": "nope", "cards": ["R5"]}, 404, "game", "no game with this id"),
        ({"game": 12, "cards": ["R5"]}, 404, "game", "no game with this id"),
    ],
)
def test_advise_refuses_what_it_cannot_advise_with_the_errors_shape(client, body, status, field, words):
    answer = client.post("/api/advise", json=body)
    assert answer.status_code == status, answer.json
    assert set(answer.json) <= {"error", "field", "code"} and answer.json["error"] and answer.json["code"]
    assert answer.json.get("field") == field
    if words:
        assert words in answer.json["error"]


def test_advise_refuses_an_unknown_player_and_rules_beside_a_game(client, api_game):
    game = api_game()
    zed = client.post("/api/advise", json={"game": game.id, "player": "Zed", "cards": ["R5"]})
    assert zed.status_code == 404 and zed.json == {
        "error": "Zed does not play in this game",
        "field": "player",
        "code": "not_a_player",
    }
    gone = client.post("/api/advise", json={"game": "nope", "cards": ["R5"]})
    assert gone.status_code == 404 and gone.json["code"] == "game_not_found"
    both = client.post("/api/advise", json={"game": game.id, "rules": "masters", "phase": 1, "cards": ["R5"]})
    assert both.status_code == 400 and both.json["field"] == "rules" and "not both" in both.json["error"]


def test_advise_takes_json_only_within_the_api_body_limit(app_factory):
    client = app_factory(API_MAX_BODY=200).test_client()
    text = client.post("/api/advise", data="R5 B5 W", content_type="text/plain")
    assert text.status_code == 415 and "application/json" in text.json["error"]
    form = client.post("/api/advise", data={"phase": "1", "cards": "R5"})
    assert form.status_code == 415
    broken = client.post("/api/advise", data="{not json", content_type="application/json")
    assert broken.status_code == 400 and "not valid JSON" in broken.json["error"]
    listed = client.post("/api/advise", json=[1, 2])
    assert listed.status_code == 400 and "JSON object" in listed.json["error"]
    big = client.post("/api/advise", json={"phase": 1, "cards": ["R5"], "pad": "x" * 400})
    assert big.status_code == 413 and "too much" in big.json["error"]


def test_advise_takes_a_body_without_a_length_only_within_the_limit(app_factory):
    client = app_factory(API_MAX_BODY=200).test_client()
    body = json.dumps({"phase": 1, "cards": ["R5"], "pad": "x" * 400}).encode()
    answer = client.post(
        "/api/advise",
        input_stream=io.BytesIO(body),
        headers={"Content-Type": "application/json", "Transfer-Encoding": "chunked"},
        environ_overrides={"wsgi.input_terminated": True},
    )
    assert answer.status_code == 413 and "too much" in answer.json["error"]


def test_advise_needs_no_csrf_token_because_it_changes_nothing(app_factory):
    client = app_factory(WTF_CSRF_ENABLED=True).test_client()
    assert client.post("/api/advise", json={"phase": 1, "cards": "R5 B5 W G8 Y8 W"}).json["complete"] is True


advise_bodies = st.dictionaries(
    st.sampled_from(["phase", "rules", "cards", "game", "player"]), json_values, max_size=5
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(body=advise_bodies)
def test_any_advise_body_gets_advice_or_a_clear_error_never_a_server_error(client, body):
    answer = client.post("/api/advise", json=body)
    assert answer.status_code in (200, 400, 404), answer.json
    assert ("error" in answer.json) == (answer.status_code != 200)


# --------------------------------------------------------------------------------------------- POST /api/hand


def test_001_hand_cards_fill_the_round_forms_counters_with_the_engines_points(client):
    from companion.games.forms import buckets
    from companion.rules import Deck

    # 001's worked example: Ben holds R3 G7 B11 S, 35 points.
    body = client.post("/api/hand", json={"cards": ["R3", "G7", "B11", "S"]}).json
    assert body["points"] == 35
    assert body["buckets"] == {"low": 2, "high": 1, "skip": 1, "wild": 0}
    assert set(body["buckets"]) == {b.key for b in buckets(Deck.STANDARD)}
    assert [c["card"] for c in body["cards"]] == ["R3", "G7", "B11", "S"]
    tapped = {b.key: b.points for b in buckets(Deck.STANDARD)}
    assert sum(tapped[k] * n for k, n in body["buckets"].items()) == body["points"]


def test_hand_of_more_cards_than_a_round_ends_with_gets_a_note(client):
    body = client.post("/api/hand", json={"cards": ["W"] * 12}).json
    assert body["buckets"]["wild"] == 12 and body["points"] == 300
    assert "at most 11" in body["note"]


@pytest.mark.parametrize(
    ("request_kwargs", "status", "words"),
    [
        ({"json": {"rules": "playing-cards", "cards": ["AH"]}}, 422, "Phase 10 cards only"),
        ({"json": {"cards": ["R13"]}}, 400, "'R13' is not a card"),
        ({"data": "R5", "content_type": "text/plain"}, 415, "multipart"),
        ({"data": {"rules": "standard"}, "content_type": "multipart/form-data"}, 400, "no photo was sent"),
        (
            {"data": {"photo": (io.BytesIO(b""), "empty.jpg")}, "content_type": "multipart/form-data"},
            400,
            "empty",
        ),
    ],
)
def test_hand_refuses_what_it_cannot_count(client, request_kwargs, status, words):
    answer = client.post("/api/hand", **request_kwargs)
    assert answer.status_code == status, answer.json
    assert words in answer.json["error"]


def test_hand_photo_of_playing_cards_is_refused_with_a_clear_message(client):
    data = {"rules": "playing-cards", "photo": (io.BytesIO(b"\xff\xd8\xff"), "hand.jpg")}
    answer = client.post("/api/hand", data=data, content_type="multipart/form-data")
    assert answer.status_code == 422
    assert answer.json == {
        "error": "the camera reads Phase 10 cards only; for playing cards, tap the counters",
        "field": "rules",
        "code": "bad_input",
    }


def test_hand_photo_over_the_photo_limit_is_413(app_factory):
    client = app_factory(PHOTO_MAX_BYTES=1000).test_client()
    data = {"photo": (io.BytesIO(b"\xff\xd8" + b"x" * 2000), "hand.jpg")}
    answer = client.post("/api/hand", data=data, content_type="multipart/form-data")
    assert answer.status_code == 413 and "too large" in answer.json["error"]


def _stub_camera(monkeypatch, reading=None, error=None):
    from companion.referee import camera

    def read(data, *, max_pixels):
        if error is not None:
            raise error
        return reading

    monkeypatch.setattr(camera, "read", read)


def _hand_reading(cards: str, confidences: list[float] | None = None):
    from companion.rules import parse_cards
    from vision.reader import CardReading, PhotoReading

    parsed = parse_cards(cards)
    conf = confidences or [0.95] * len(parsed)
    read = tuple(
        CardReading(c, p, (40 + 50 * i, 40, 80 + 50 * i, 100))
        for i, (c, p) in enumerate(zip(parsed, conf, strict=True))
    )
    return PhotoReading(read, (parsed,), 1600, 1200, {"decode": 1.0})


def _hand_upload(client, **fields):
    data = {**fields, "photo": (io.BytesIO(b"\xff\xd8\xff\xe0 a photo"), "hand.jpg")}
    return client.post("/api/hand", data=data, content_type="multipart/form-data")


def test_hand_photo_answers_the_cards_read_with_their_count(client, monkeypatch):
    pytest.importorskip("vision.reader")
    _stub_camera(monkeypatch, _hand_reading("R3 G7 B11 S W", [0.9, 0.3, 0.9, 0.9, 0.9]))
    answer = _hand_upload(client)
    assert answer.status_code == 200, answer.json
    body = answer.json
    assert [c["card"] for c in body["cards"]] == ["R3", "G7", "B11", "S", "W"]
    assert body["cards"][1]["confidence"] == 0.3 and body["cards"][0]["box"] == [40, 40, 80, 100]
    assert body["buckets"] == {"low": 2, "high": 1, "skip": 1, "wild": 1} and body["points"] == 60
    assert (body["width"], body["height"]) == (1600, 1200)


def test_hand_photo_without_cards_or_unreadable_or_without_camera(client, monkeypatch):
    pytest.importorskip("vision.reader")
    from companion.referee import camera

    _stub_camera(monkeypatch, _hand_reading(""))
    empty = _hand_upload(client)
    assert empty.status_code == 422 and "no cards were found" in empty.json["error"]
    assert empty.json["cards"] == [] and empty.json["points"] == 0
    _stub_camera(monkeypatch, error=camera.PhotoError("not an image"))
    bad = _hand_upload(client)
    assert bad.status_code == 400 and bad.json == {
        "error": "this photo cannot be read: not an image",
        "field": "photo",
        "code": "bad_input",
    }
    _stub_camera(monkeypatch, error=camera.CameraUnavailable("The camera is not installed on this server."))
    off = _hand_upload(client)
    assert off.status_code == 503 and "not installed" in off.json["error"]


@needs_model
@pytest.mark.slow
def test_hand_photo_of_a_rendered_hand_is_counted_by_the_engine(client):
    from companion.rules import hand_points, parse_cards

    from .scenes import phase_photo

    hand = "R3 G7 B11 S W Y12"
    answer = client.post(
        "/api/hand",
        data={"photo": (io.BytesIO(phase_photo(hand, seed=5)), "hand.jpg")},
        content_type="multipart/form-data",
    )
    assert answer.status_code == 200, answer.json
    body = answer.json
    assert sorted(c["card"] for c in body["cards"]) == sorted(hand.split())
    assert body["points"] == hand_points(parse_cards(hand))
    assert body["buckets"] == {"low": 2, "high": 2, "skip": 1, "wild": 1}


@needs_model
@pytest.mark.slow
def test_a_photo_shrunk_as_the_page_shrinks_it_reads_like_the_full_size_photo(client):
    """A 12-MP photo and the 1600-px copy the page sends give the same reading and the same verdict."""
    import cv2
    import numpy as np

    from .scenes import phase_photo

    small = cv2.imdecode(np.frombuffer(phase_photo(PHASE_2, seed=3), np.uint8), cv2.IMREAD_COLOR)
    full = cv2.resize(small, (4032, 3024), interpolation=cv2.INTER_CUBIC)
    shrunk = cv2.resize(full, (1600, 1200), interpolation=cv2.INTER_AREA)
    answers = []
    for img, quality in ((full, 92), (shrunk, 85)):
        ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, quality])
        assert ok
        data = {"phase": "2", "photo": (io.BytesIO(buf.tobytes()), "phase.jpg")}
        answer = client.post("/api/check", data=data, content_type="multipart/form-data")
        assert answer.status_code == 200, answer.json
        answers.append(answer.json)
    big, sent = answers
    read = [" | ".join(" ".join(b["cards"][k]["card"] for k in g) for g in b["detected"]) for b in answers]
    assert read == [PHASE_2, PHASE_2]
    assert (sent["width"], sent["height"]) == (1600, 1200) and (big["width"], big["height"]) == (4032, 3024)
    assert sent["valid"] is big["valid"] is True
