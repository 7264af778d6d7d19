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
