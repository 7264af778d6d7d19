"""``phase10 check | hit | score | advise | phases``: exit status 0 valid/legal/done, 1 not, 2 bad input."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import types

import pytest

from companion.cli import main
from companion.cli.rules import VISION_MISSING, emit_check
from companion.rules.cards import parse_groups


def run(capsys, *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_check_grouped_valid_prints_the_arrangement(capsys):
    status, out, err = run(capsys, "check", "--phase", "2", "R7", "B7", "G7", "|", "G3", "Y4", "W", "B6")
    assert status == 0 and err == ""
    assert out.splitlines() == [
        "valid: phase 2 (one set of 3 and one run of 4)",
        "  set of 7s: R7 B7 G7",
        "  run 3-6: G3 Y4 W B6 (W as 5)",
    ]


def test_check_ungrouped_finds_the_arrangement(capsys):
    status, out, _ = run(capsys, "check", "--phase", "1", "r5", "b5", "w", "g8", "y8", "w")
    assert status == 0 and out.startswith("valid: phase 1")


def test_check_invalid_exits_1_with_the_reason(capsys):
    status, out, _ = run(capsys, "check", "--phase", "8", "R1", "R3", "R5", "R7", "R9", "R11", "B2")
    assert status == 1
    assert out == "not valid: 7 cards of one colour: these are 6 red and 1 blue\n"


def test_check_json_prints_one_object(capsys):
    status, out, _ = run(capsys, "check", "--json", "--phase", "2", "R7 B7 G7 | G3 Y4 W B6")
    data = json.loads(out)
    assert status == 0 and data["valid"] is True and data["reason"] is None
    assert data["groups"][1] == {
        "kind": "run",
        "cards": ["G3", "Y4", "W", "B6"],
        "wilds": [{"index": 2, "as": 5}],
        "low": 3,
        "high": 6,
    }
    status, out, _ = run(
        capsys, "check", "--json", "--phase", "2", "W", "W", "R2", "B3", "|", "R9", "R9", "R9"
    )
    assert status == 1 and json.loads(out)["valid"] is False


def test_check_rule_options(capsys):
    cards = ["R11", "B12", "G1", "Y2", "|", "R5", "R5", "R5"]
    assert run(capsys, "check", "--phase", "2", *cards)[0] == 1
    assert run(capsys, "check", "--phase", "2", "--wrap-runs", *cards)[0] == 0
    assert run(capsys, "check", "--phase", "1", "R5", "W", "W", "W", "W", "W")[0] == 0
    assert run(capsys, "check", "--phase", "1", "--natural-per-group", "R5", "W", "W", "W", "W", "W")[0] == 1
    status, out, _ = run(
        capsys, "check", "--phase", "7", "--rules", "playing-cards", "2S 4S 6S 8C 10C QS KC JK"
    )
    assert status == 0 and "black colour group" in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["check", "--phase", "2", "R7", "X9"], "'X9' is not a card"),
        (["check", "--phase", "12", "R7"], "there is no phase 12"),
        (["check", "--phase", "2"], "give the cards"),
        (["check", "--phase", "2", "R7 R7 R7 |"], "has no cards"),
        (["check", "--phase", "2", "--rules", "playing-cards", "R7"], "'R7' is not a card"),
        (["check", "--phase", "1", "--photo", "table.jpg", "R7"], "either --photo or cards"),
        (
            ["hit", "--kind", "run", "--onto", "R3 R5 R6", "R7"],
            "--onto is not a run: the run R3 R5 R6 has a gap at 4",
        ),
        (["score", "JK"], "'JK' is not a card"),
        (
            ["hit", "--kind", "run", "--onto", "G3 G4 G5", "W@top"],
            "after @ comes the end of the run, low or high",
        ),
        (["hit", "--kind", "run", "--onto", "G3 G4 G5", "X@low"], "'X' is not a card"),
        (
            ["hit", "--rules", "playing-cards", "--wrap-runs", "--kind", "run", "--onto", "JS QS KS", "AH"],
            '"Ace is always low", so there is no run Queen, King, Ace (004)',
        ),
        (["advise", "--phase", "0", "R1"], "there is no phase 0"),
    ],
)
def test_bad_input_exits_2_with_a_message_on_stderr(capsys, argv, message):
    status, out, err = run(capsys, *argv)
    assert status == 2 and out == ""
    assert message in err and "Traceback" not in err


def test_check_photo_hands_over_to_the_camera_and_judges_what_it_read(capsys, monkeypatch):
    from companion.rules.cards import parse_groups

    seen = []

    def read(args):
        seen.append(args.photo)
        return parse_groups("R5 B5 W | G8 Y8 R8"), {"file": args.photo}

    fake = types.ModuleType("companion.cli.vision")
    fake.photo_lay_down = read  # type: ignore[attr-defined]
    fake.register = lambda sub: None  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "companion.cli.vision", fake)
    status, out, _err = run(capsys, "check", "--phase", "1", "--photo", "table.jpg", "--json")
    assert status == 0 and seen == ["table.jpg"]
    assert json.loads(out)["file"] == "table.jpg" and json.loads(out)["valid"] is True


def test_check_photo_without_the_vision_extra_says_how_to_get_it(capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "companion.cli.vision", None)  # importing it raises ModuleNotFoundError
    status, out, err = run(capsys, "check", "--phase", "1", "--photo", "table.jpg")
    assert status == 2 and out == "" and err.strip() == VISION_MISSING


def test_emit_check_prints_like_check_and_merges_extra(capsys):
    args = argparse.Namespace(phase=1, rules="standard", json=True)
    status = emit_check(parse_groups("R5 B5 W | G8 Y8 R8"), args, {"photo": "table.jpg"})
    data = json.loads(capsys.readouterr().out)
    assert status == 0 and data["valid"] is True and data["photo"] == "table.jpg"
    args = argparse.Namespace(phase=1)
    assert emit_check(parse_groups("R5 B5 W | G8 Y8 R9"), args) == 1
    assert capsys.readouterr().out.startswith("not valid: the set G8 Y8 R9 mixes 8 and 9")


def test_hit_legal_and_not_legal(capsys):
    status, out, _ = run(capsys, "hit", "--kind", "run", "--onto", "R9 B10 G11", "Y8", "R12")
    assert (
        status == 0 and out == "legal: run 8-12: Y8 R9 B10 G11 R12\n  added: Y8 (low end), R12 (high end)\n"
    )
    status, out, _ = run(capsys, "hit", "--kind", "run", "--onto", "R9 B10 G11", "R7")
    assert status == 1 and out == "not legal: the run R9 B10 G11 takes an 8 or a 12, not a 7\n"
    status, out, _ = run(capsys, "hit", "--json", "--kind", "set", "--onto", "R12 B12 G12", "Y8")
    data = json.loads(out)
    assert status == 1 and data["legal"] is False and data["group"] == ["R12", "B12", "G12"]
    status, out, _ = run(capsys, "hit", "--json", "--kind", "run", "--onto", "W R4 R5", "W", "--end", "low")
    assert status == 0 and json.loads(out)["group"] == ["W", "W", "R4", "R5"]
    status, out, _ = run(capsys, "hit", "--not-down", "--kind", "set", "--onto", "R4 B4 G4", "Y4")
    assert status == 1 and "lay down your own phase" in out


def test_000_hit_takes_the_cards_in_any_order_and_says_where_each_went(capsys):
    # 000: "A player may add a '2' to a player's existing run of '3', '4', '5', '6' - the player may also add a
    # '7', and an '8'": typed 8 before 7, the hit is still legal.
    status, out, _ = run(capsys, "hit", "--kind", "run", "--onto", "G3 G4 G5 G6", "R8", "R7")
    assert status == 0
    assert out.splitlines() == ["legal: run 3-8: G3 G4 G5 G6 R7 R8", "  added: R8 (high end), R7 (high end)"]


def test_001_hit_a_wild_goes_on_top_unless_its_own_end_is_named(capsys):
    # 001: "A Wild card can be added anywhere it fits." Unnamed it goes to the top, and the answer says so.
    status, out, _ = run(capsys, "hit", "--kind", "run", "--onto", "G3 G4 G5 G6", "W", "R7")
    assert status == 0
    assert out.splitlines() == [
        "legal: run 3-8: G3 G4 G5 G6 R7 W (W as 8)",
        "  added: W as 8 (high end), R7 (high end)",
        "  note: W as 8 (high end) — a wild with no end named goes to the top; W as 2 (low end) would fit too",
    ]
    status, out, _ = run(capsys, "hit", "--kind", "run", "--onto", "G3 G4 G5 G6", "w@LOW", "R7")
    assert status == 0
    assert out.splitlines() == [
        "legal: run 2-7: W G3 G4 G5 G6 R7 (W as 2)",
        "  added: W as 2 (low end), R7 (high end)",
    ]
    # --end names the end of every wild; a card's own end comes first.
    status, out, _ = run(
        capsys, "hit", "--end", "low", "--kind", "run", "--onto", "G3 G4 G5 G6", "W", "W@high"
    )
    assert out.splitlines()[1] == "  added: W as 2 (low end), W as 7 (high end)"
    status, out, _ = run(capsys, "hit", "--json", "--kind", "run", "--onto", "G3 G4 G5 G6", "W@low R7")
    data = json.loads(out)
    assert status == 0 and data["note"] is None
    assert data["placed"] == [{"card": "W", "end": "low", "as": 2}, {"card": "R7", "end": "high", "as": 7}]
    status, out, _ = run(capsys, "hit", "--kind", "run", "--onto", "R1 R2 R3", "W@low")
    assert status == 1 and out == "not legal: the run R1 R2 R3 has no room at the low end for a wild\n"


def test_004_runs_of_playing_cards_print_with_ranks(capsys):
    # 004: A = 1 and J, Q, K above the 10; "Ace is always low".
    status, out, _ = run(capsys, "check", "--rules", "playing-cards", "--phase", "4", "9S 10S JK QS KS JH")
    assert status == 0 and out.splitlines()[1] == "  run 8-K: JK 9S 10S JH QS KS (JK as 8)"
    status, out, _ = run(
        capsys, "hit", "--rules", "playing-cards", "--kind", "run", "--onto", "2S 3H 4D", "AC", "JK"
    )
    assert status == 0 and out.splitlines()[:2] == [
        "legal: run A-5: AC 2S 3H 4D JK (JK as 5)",
        "  added: AC (low end), JK as 5 (high end)",
    ]
    status, out, _ = run(
        capsys, "hit", "--rules", "playing-cards", "--kind", "run", "--onto", "JS QH", "JK@high"
    )
    assert out.splitlines()[0] == "legal: run J-K: JS QH JK (JK as K)"


def test_score_adds_the_points_left_in_hand(capsys):
    # 001 worked example: Ben holds a 3, a 7, an 11 and a Skip: 35 points.
    assert run(capsys, "score", "R3", "G7", "B11", "S") == (0, "35 points\n", "")
    status, out, _ = run(capsys, "score", "--json", "--rules", "playing-cards", "KS", "JK", "9H")
    assert status == 0 and json.loads(out)["points"] == 40  # 004: K = 10, joker = 25, 9 = 5
    assert run(capsys, "score")[1] == "0 points\n"


def test_advise_prints_the_summary(capsys):
    status, out, _ = run(capsys, "advise", "--phase", "1", "R5", "B5", "W", "G8", "Y8", "R11")
    assert status == 0
    assert out.splitlines() == [
        "two sets of 3: have 5 5 W and 8 8 — need one more 8, or a wild",
        "not used: R11",
    ]
    status, out, _ = run(capsys, "advise", "--json", "--phase", "1", "R5", "B5", "W", "G8", "Y8", "G8")
    data = json.loads(out)
    assert data["complete"] is True and data["missing"] == 0


def test_phases_lists_the_phase_list(capsys):
    status, out, _ = run(capsys, "phases")
    assert status == 0 and out.splitlines()[0] == " 1  two sets of 3" and len(out.splitlines()) == 10
    status, out, _ = run(capsys, "phases", "--json", "--rules", "playing-cards")
    assert json.loads(out)["phases"][8] == {
        "number": 9,
        "description": "5 cards of one suit and 3 of another suit",
    }


def test_the_real_command_exits_0_1_2_and_prints_json():
    def phase10(*argv: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "companion", *argv],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )

    ok = phase10("check", "--json", "--phase", "1", "R5", "B5", "W", "|", "G8", "Y8", "R8")
    assert ok.returncode == 0 and json.loads(ok.stdout)["valid"] is True
    bad = phase10("check", "--json", "--phase", "1", "R5", "B5", "W", "|", "G8", "Y8", "R9")
    assert (
        bad.returncode == 1
        and json.loads(bad.stdout)["reason"] == "the set G8 Y8 R9 mixes 8 and 9; a set is cards of one number"
    )
    error = phase10("check", "--phase", "1", "R5", "Q9")
    assert error.returncode == 2 and error.stdout == "" and "'Q9' is not a card" in error.stderr
