"""Every fault of a round form shown at once, next to its player, after one Save — and live as the scorer taps —
in a real Chromium at 390×844; with the page's script and without it (then the server finds them all). Nothing is
saved while one is left. Screenshots go to test-artifacts/round/."""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path

from playwright.sync_api import expect

from tests.browser import test_score_keeper_browser as score_keeper

base_url = score_keeper.base_url
browser = score_keeper.browser
CHROMIUM = score_keeper.CHROMIUM
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "round"

pytestmark = score_keeper.MARKS

NAMES = ["Ana", "Ben", "Cy", "Dee"]


def _game(base_url, browser, *, script=True):
    game = score_keeper.api(base_url, "/api/games", {"players": NAMES})
    page = browser.new_context(
        viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True, java_script_enabled=script
    ).new_page()
    page.goto(f"{base_url}/games/{game['id']}/access/{game['edit_token']}")
    page.goto(f"{base_url}/games/{game['id']}/round")
    page.wait_for_load_state("load")
    return page, game["id"]


def _four_faults(page, *, script=True):
    """Nobody marked as out; Ben's 7 points (001: every card scores 5, 10, 15 or 25); Cy's counters (5) beside a
    different typed total (20); Dee's 0 points (001: "The player who goes out scores zero": only one does)."""
    entry = score_keeper.entry
    entry(page, "Dee").locator("input[name='p3_points']").fill("0")
    entry(page, "Ben").locator("input[name='p1_points']").fill("7")
    entry(page, "Cy").locator("input[name='p2_points']").fill("20")
    if script:
        entry(page, "Cy").locator("button.plus").first.click()
        entry(page, "Ana").locator("button.plus").first.click()
    else:
        entry(page, "Cy").locator("input[name='p2_low']").fill("1")
        entry(page, "Ana").locator("input[name='p0_low']").fill("1")


def _rounds(base_url, game_id):
    with urllib.request.urlopen(f"{base_url}/api/games/{game_id}", timeout=30) as answer:
        return json.loads(answer.read())["rounds"]


def _messages(page):
    return {
        where: page.locator(f"#{where} .error:visible").all_inner_texts()
        for where in ("went-out-errors", "p0-errors", "p1-errors", "p2-errors", "p3-errors")
    }


def test_four_faults_show_four_messages_after_one_save_and_go_as_they_are_fixed(base_url, browser):
    page, game_id = _game(base_url, browser)
    _four_faults(page)
    # Live: the faults of the values themselves show as they are typed, before any Save.
    expect(page.locator("#p1-errors .error")).to_have_count(1)
    page.click("button[name='save']")
    messages = _messages(page)
    assert messages == {
        "went-out-errors": ["choose who went out"],
        "p0-errors": [],
        "p1-errors": ["points come in steps of 5: every card scores a multiple of 5"],
        "p2-errors": ["the counters add up to 5 but 20 was typed: clear one of them"],
        "p3-errors": ["0 points means Dee went out: tap Went out instead"],
    }, messages
    assert page.locator("[aria-invalid=true]").count() == 3  # the typed totals of Ben, Cy and Dee
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "four-faults-390.png"), full_page=True)
    assert _rounds(base_url, game_id) == []

    # Each message goes with its fault, without another Save.
    score_keeper.entry(page, "Ben").locator("input[name='p1_points']").fill("10")
    expect(page.locator("#p1-errors .error")).to_have_count(0)
    score_keeper.entry(page, "Cy").locator("input[name='p2_points']").fill("")
    expect(page.locator("#p2-errors .error")).to_have_count(0)
    score_keeper.entry(page, "Dee").locator("input[name='p3_points']").fill("")
    # Dee now holds nothing: the one player with no cards is the one who went out (001 "Going out").
    expect(page.locator("#went-out-errors .error")).to_have_count(0)
    assert score_keeper.entry(page, "Dee").locator("input[name='went_out']").is_checked()
    assert _messages(page) == {k: [] for k in _messages(page)}
    page.click("button[name='save']")
    page.wait_for_selector("text=Round 1 saved.")
    assert _rounds(base_url, game_id)[0]["points"] == {"Ana": 5, "Ben": 10, "Cy": 5, "Dee": 0}


def test_without_the_script_the_server_shows_all_four_faults_after_one_save(base_url, browser):
    page, game_id = _game(base_url, browser, script=False)
    _four_faults(page, script=False)
    page.click("button[name='save']")
    page.wait_for_load_state("load")
    messages = _messages(page)
    assert messages["went-out-errors"] == ["choose who went out"]
    assert messages["p0-errors"] == []
    # The engine's own reasons, each beside its player.
    assert messages["p1-errors"] == [
        "Ben's points must be a multiple of 5: every card scores 5, 10, 15 or 25"
    ]
    assert messages["p2-errors"] == ["the counters add up to 5 but 20 was typed: clear one of them"]
    assert len(messages["p3-errors"]) == 1 and "Dee has no cards left" in messages["p3-errors"][0]
    page.screenshot(path=str(ARTIFACTS / "four-faults-no-script-390.png"), full_page=True)
    assert _rounds(base_url, game_id) == []


def test_000_in_masters_every_player_who_laid_down_is_asked_for_the_phase(base_url, browser):
    game = score_keeper.api(base_url, "/api/games", {"players": ["Ana", "Ben", "Cy"], "rules": "masters"})
    page = browser.new_context(
        viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True
    ).new_page()
    page.goto(f"{base_url}/games/{game['id']}/access/{game['edit_token']}")
    page.goto(f"{base_url}/games/{game['id']}/round")
    ana, ben, cy = (score_keeper.entry(page, n) for n in ("Ana", "Ben", "Cy"))
    ana.locator("label.pill", has_text="Went out").click()
    ben.locator("label.pill", has_text="Laid down").click()
    score_keeper.tap(page, "Ben", "10–12", 1)
    score_keeper.tap(page, "Cy", "Wild", 2)
    # 000: players choose their phase each hand, so "laid down" is never filled in for them.
    assert not cy.locator("input[type=checkbox]").is_checked()
    page.click("button[name='save']")
    assert _messages(page)["p0-errors"] == ["choose the phase Ana laid down"]
    assert _messages(page)["p1-errors"] == ["choose the phase Ben laid down"]
    assert _messages(page)["p2-errors"] == []
    assert _rounds(base_url, game["id"]) == []
    ana.locator("select").select_option("7")
    expect(page.locator("#p0-errors .error")).to_have_count(0)
    ben.locator("select").select_option("2")
    page.click("button[name='save']")
    page.wait_for_selector("text=Round 1 saved.")
    saved = _rounds(base_url, game["id"])[0]
    assert saved["points"] == {"Ana": 0, "Ben": 10, "Cy": 50}
    assert saved["completed"] == {"Ana": 7, "Ben": 2, "Cy": None}
