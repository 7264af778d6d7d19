"""The round form at the table, in a real Chromium: four players fit one 390×844 screen with Save in view, the
rules' worked example is entered with taps only (001 "Worked example": Ana goes out; Ben, who had laid down his
phase, holds 3, 7, 11 and a Skip = 35; Cy never got his phase down and holds a Wild, 9 and 12 = 40; Dee had laid
down and holds two 4s = 10), and an edit reopens with the counters as they were tapped. Screenshots go to
test-artifacts/round/."""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path

from tests.browser import test_score_keeper_browser as score_keeper

base_url = score_keeper.base_url
browser = score_keeper.browser
CHROMIUM = score_keeper.CHROMIUM
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "round"

pytestmark = score_keeper.MARKS

# Every tap a scorer makes for the worked example, in order: (player, counter), then Save. Nobody taps "Went out"
# or "Laid down": Ana is the one player left with no cards (001: "When you have no cards left, the round ends
# for everyone"), Ben and Dee hold fewer than the ten cards dealt and no Wild, which nobody who laid down keeps
# (001 "Hitting": "A Wild card can be added anywhere it fits"), and Cy holds a Wild.
WORKED_TAPS = [
    ("Ben", "1–9"),
    ("Ben", "1–9"),
    ("Ben", "10–12"),
    ("Ben", "Skip"),
    ("Cy", "Wild"),
    ("Cy", "1–9"),
    ("Cy", "10–12"),
    ("Dee", "1–9"),
    ("Dee", "1–9"),
]
TAPS_WITH_SAVE = 10


def _phone(browser):
    return browser.new_context(
        viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True
    ).new_page()


def _new_game(page, base_url, names):
    page.goto(f"{base_url}/games/new")
    for seat, name in enumerate(names):
        page.fill(f"input[name='names-{seat}']", name)
    page.click("button:has-text('Start the game')")
    page.click("text=Enter round 1")
    page.wait_for_load_state("load")
    return page.url.split("/games/", 1)[1].split("/", 1)[0]


def _plus(page, player, label):
    return (
        score_keeper.entry(page, player)
        .locator(".counter", has=page.locator(f".label:has-text('{label}')"))
        .locator("button.plus")
    )


def _saved_round(base_url, game_id, number):
    with urllib.request.urlopen(f"{base_url}/api/games/{game_id}", timeout=30) as answer:
        return json.loads(answer.read())["rounds"][number - 1]


def test_four_players_fit_one_phone_screen_and_the_worked_example_takes_10_taps(base_url, browser):
    page = _phone(browser)
    game_id = _new_game(page, base_url, ["Ana", "Ben", "Cy", "Dee"])
    boxes = page.evaluate(
        "() => [...document.querySelectorAll('fieldset[data-entry], .sticky button[name=save]')]"
        ".map(e => e.getBoundingClientRect().bottom)"
    )
    assert max(boxes) <= 844, boxes  # every player's row and Save, without scrolling
    taps = 0
    for player, label in WORKED_TAPS:
        _plus(page, player, label).click()
        taps += 1
    laid_down = {
        n: score_keeper.entry(page, n).locator("input[type=checkbox]").is_checked()
        for n in ("Ana", "Ben", "Cy", "Dee")
    }
    assert laid_down == {"Ana": True, "Ben": True, "Cy": False, "Dee": True}
    assert score_keeper.entry(page, "Ana").locator("input[name='went_out']").is_checked()
    sums = {n: score_keeper.entry(page, n).locator("[data-sum]").inner_text() for n in ("Ben", "Cy", "Dee")}
    assert sums == {"Ben": "35", "Cy": "40", "Dee": "10"}
    assert page.locator("#round-summary").inner_text() == "Ana ★ · Ben 35 · Cy 40 · Dee 10"
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "worked-example-390.png"))
    page.click("button[name='save']")
    taps += 1
    page.wait_for_selector("text=Round 1 saved.")
    assert taps == TAPS_WITH_SAVE
    saved = _saved_round(base_url, game_id, 1)
    assert saved["points"] == {"Ana": 0, "Ben": 35, "Cy": 40, "Dee": 10}
    assert saved["completed"] == {"Ana": 1, "Ben": 1, "Cy": None, "Dee": 1}


def test_a_choice_made_by_hand_is_never_changed_by_the_cards_tapped(base_url, browser):
    # The defaults are only defaults: a scorer who untick "Laid down" or names who went out keeps that choice.
    page = _phone(browser)
    game_id = _new_game(page, base_url, ["Ana", "Ben", "Cy"])
    ben, cy = score_keeper.entry(page, "Ben"), score_keeper.entry(page, "Cy")
    cy.locator("label.pill", has_text="Went out").click()
    _plus(page, "Ben", "10–12").click()
    assert ben.locator("input[type=checkbox]").is_checked()  # one card, no Wild
    ben.locator("label.pill", has_text="Laid down").click()  # he had not, all the same
    _plus(page, "Ben", "1–9").click()
    _plus(page, "Ana", "1–9").click()
    assert not ben.locator("input[type=checkbox]").is_checked()
    assert cy.locator("input[name='went_out']").is_checked()  # Ana's cards do not move "went out"
    page.reload()  # the draft brings the choices back with the cards
    page.wait_for_load_state("load")
    _plus(page, "Ben", "1–9").click()
    assert not ben.locator("input[type=checkbox]").is_checked()
    assert cy.locator("input[name='went_out']").is_checked()
    page.click("button[name='save']")
    page.wait_for_selector("text=Round 1 saved.")
    saved = _saved_round(base_url, game_id, 1)
    assert saved["points"] == {"Ana": 5, "Ben": 20, "Cy": 0}
    assert saved["completed"] == {"Ana": 1, "Ben": None, "Cy": 1}


def test_an_edit_reopens_with_the_counters_as_tapped_and_takes_one_more_tap(base_url, browser):
    page = _phone(browser)
    game_id = _new_game(page, base_url, ["Ana", "Ben", "Cy", "Dee"])
    for player, label in WORKED_TAPS:
        _plus(page, player, label).click()
    page.click("button[name='save']")
    page.wait_for_selector("text=Round 1 saved.")

    page.goto(f"{base_url}/games/{game_id}/rounds/1/edit")
    page.wait_for_load_state("load")
    counts = {
        n: [
            score_keeper.entry(page, n).locator(f"input[name='p{seat}_{key}']").input_value()
            for key in ("low", "high", "skip", "wild")
        ]
        for seat, n in enumerate(("Ana", "Ben", "Cy", "Dee"))
        if n != "Ana"
    }
    # The same cards as tapped: Ben 1–9 ×2, 10–12, Skip; Cy Wild, 1–9, 10–12; Dee 1–9 ×2; no typed totals.
    assert counts == {"Ben": ["2", "1", "1", "0"], "Cy": ["1", "1", "0", "1"], "Dee": ["2", "0", "0", "0"]}
    assert [score_keeper.entry(page, n).locator("[data-sum]").inner_text() for n in ("Ben", "Cy", "Dee")] == [
        "35",
        "40",
        "10",
    ]
    for n in ("Ben", "Cy", "Dee"):
        assert score_keeper.entry(page, n).locator(".typed input").input_value() == ""
    page.screenshot(path=str(ARTIFACTS / "edit-reopened-390.png"))
    _plus(page, "Dee", "10–12").click()  # Dee found an 11 under the table
    assert score_keeper.entry(page, "Dee").locator("[data-sum]").inner_text() == "20"
    page.click("button[name='save']")
    page.wait_for_selector("text=Round 1 changed")
    saved = _saved_round(base_url, game_id, 1)
    assert saved["points"] == {"Ana": 0, "Ben": 35, "Cy": 40, "Dee": 20}
    assert saved["completed"] == {"Ana": 1, "Ben": 1, "Cy": None, "Dee": 1}

    # Edited again: the counters are the ones saved by the edit.
    page.goto(f"{base_url}/games/{game_id}/rounds/1/edit")
    page.wait_for_load_state("load")
    assert score_keeper.entry(page, "Dee").locator("input[name='p3_high']").input_value() == "1"
    assert score_keeper.entry(page, "Dee").locator("[data-sum]").inner_text() == "20"
