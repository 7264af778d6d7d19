"""The benches' error kinds (vision.evaluate.error_kinds): every lost card and every wrong reading is counted once,
as a colour slip, a figure slip, a miss or an extra."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from vision.evaluate import Tally, error_kinds

CARDS = [f"{c}{n}" for c in "RBGY" for n in range(1, 13)] + ["W", "S"]


def test_a_card_read_in_another_ink_is_a_colour_slip_not_a_figure_slip() -> None:
    kinds = error_kinds([("R7", "B3", "W")], [("G7", "B3", "W")])
    assert dict(kinds) == {"colour": 1, "missed": 0}


def test_a_wrong_figure_a_miss_and_an_extra_are_told_apart() -> None:
    assert error_kinds([("R7", "R8")], [("R9", "R8")])["figure"] == 1
    assert error_kinds([("R7", "R8")], [("R8",)])["missed"] == 1
    assert error_kinds([("R8",)], [("R8", "S")])["extra"] == 1
    # A Skip read as a Wild has no colour to slip on: a figure slip.
    assert error_kinds([("S",)], [("W",)])["figure"] == 1


def test_the_colour_slip_is_paired_first_even_when_another_card_was_also_lost() -> None:
    # R1 lost, R7 read as Y7: one colour slip and one miss, not two figure slips.
    kinds = error_kinds([("R1", "R7")], [("Y7",)])
    assert (kinds["colour"], kinds["figure"], kinds["missed"]) == (1, 0, 1)


@given(
    st.lists(st.sampled_from(CARDS), max_size=12),
    st.lists(st.sampled_from(CARDS), max_size=12),
)
def test_the_kinds_account_for_every_lost_card_and_every_wrong_reading(
    truth: list[str], read: list[str]
) -> None:
    # Brute-force oracle: the tally's own card counts.
    tally = Tally()
    tally.add([truth], [read])
    k = tally.kinds
    assert k["missed"] + k["colour"] + k["figure"] == tally.true_cards - tally.right_cards
    assert k["colour"] + k["figure"] + k["extra"] == tally.read_cards - tally.right_cards
    assert tally.kinds_text() == f"{k['missed']} / {k['colour']} / {k['figure']} / {k['extra']}"
