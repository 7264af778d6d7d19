"""The round form at the table, in a real Chromium: four players fit one 390×844 screen with Save in view, and the
rules' worked example is entered with taps only (001 "Worked example": Ana goes out; Ben holds 3, 7, 11 and a Skip
= 35; Cy a Wild, 9 and 12 = 40; Dee two 4s = 10). Screenshots go to test-artifacts/round/."""

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

# Every tap a scorer makes for the worked example, in order: (player, what).
WORKED_TAPS = [
    ("Ana", "Went out"),
    ("Ben", "Laid down"),
    ("Ben", "1–9"),
    ("Ben", "1–9"),
    ("Ben", "10–12"),
    ("Ben", "Skip"),
    ("Cy", "Wild"),
    ("Cy", "1–9"),
    ("Cy", "10–12"),
    ("Dee", "Laid down"),
    ("Dee", "1–9"),
    ("Dee", "1–9"),
]


def test_four_players_fit_one_phone_screen_and_the_worked_example_takes_13_taps(base_url, browser):
    page = browser.new_context(
        viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True
    ).new_page()
    page.goto(f"{base_url}/games/new")
    for seat, name in enumerate(["Ana", "Ben", "Cy", "Dee"]):
        page.fill(f"input[name='names-{seat}']", name)
    page.click("button:has-text('Start the game')")
    page.click("text=Enter round 1")
    page.wait_for_load_state("load")
    boxes = page.evaluate(
        "() => [...document.querySelectorAll('fieldset[data-entry], .sticky button[name=save]')]"
        ".map(e => e.getBoundingClientRect().bottom)"
    )
    assert max(boxes) <= 844, boxes  # every player's row and Save, without scrolling
    for player, what in WORKED_TAPS:
        entry = score_keeper.entry(page, player)
        if what in ("Went out", "Laid down"):
            entry.locator("label.pill", has_text=what).click()
        else:
            entry.locator(".counter", has=page.locator(f".label:has-text('{what}')")).locator(
                "button.plus"
            ).click()
    sums = {n: score_keeper.entry(page, n).locator("[data-sum]").inner_text() for n in ("Ben", "Cy", "Dee")}
    assert sums == {"Ben": "35", "Cy": "40", "Dee": "10"}
    assert page.locator("#round-summary").inner_text() == "Ana ★ · Ben 35 · Cy 40 · Dee 10"
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "worked-example-390.png"))
    page.click("button[name='save']")  # the 13th tap
    page.wait_for_selector("text=Round 1 saved.")
    game_id = page.url.rstrip("/").rsplit("/", 1)[1]
    with urllib.request.urlopen(f"{base_url}/api/games/{game_id}", timeout=30) as answer:
        saved = json.loads(answer.read())["rounds"][0]
    assert saved["points"] == {"Ana": 0, "Ben": 35, "Cy": 40, "Dee": 10}
    assert saved["completed"] == {"Ana": 1, "Ben": 1, "Cy": None, "Dee": 1}
