"""The result card in a real Chromium at 390×844: reached from the table of a finished game, it names the winner
and every place, fits the phone's width, copies its own link and prints without the page around it. Screenshots
go to test-artifacts/result/."""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import expect

from tests.browser import test_score_keeper_browser as score_keeper

base_url = score_keeper.base_url
browser = score_keeper.browser
CHROMIUM = score_keeper.CHROMIUM
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "result"

pytestmark = score_keeper.MARKS


def test_001_a_finished_game_links_to_a_result_card_to_share(base_url, browser):
    game = score_keeper.api(
        base_url,
        "/api/games",
        {"players": ["Ana", "Ben", "Cy"], "rules": {"name": "standard", "last_phase": 1}},
    )
    # 001: the game ends after the round in which someone completes the last phase (here 1, "fewer phases").
    score_keeper.api(
        base_url,
        f"/api/games/{game['id']}/rounds",
        {
            "round": 1,
            "went_out": "Cy",
            "players": {
                "Cy": {"laid_down": True},
                "Ana": {"laid_down": False, "points": 40},
                "Ben": {"laid_down": False, "cards": ["R3", "G7", "B11", "S"]},
            },
        },
        game["edit_token"],
    )
    page = browser.new_context(
        viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True
    ).new_page()
    page.goto(f"{base_url}/games/{game['id']}")
    page.click("text=Result card to share")
    expect(page.locator("h1")).to_have_text("🏆 Cy wins!")
    assert page.url == f"{base_url}/games/{game['id']}/result"
    rows = [r.locator("th, td").all_inner_texts() for r in page.locator(".result-standings tbody tr").all()]
    assert rows == [
        ["1.", "Cy", "1/1 phases", "0 pts"],
        ["2.", "Ben", "0/1 phases", "35 pts"],
        ["3.", "Ana", "0/1 phases", "40 pts"],
    ]
    assert "1 round played" in page.locator(".result-when").inner_text()
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "result-390.png"), full_page=True)

    link = page.locator("#result-link")
    assert link.input_value() == page.url
    page.click("button[data-copy='result-link']")
    expect(page.locator("button[data-copy='result-link']")).to_have_text("Copied")
    expect(page.locator("button[data-print]")).to_be_visible()
    for button in page.locator(".result-share .button:visible").all():
        assert button.bounding_box()["height"] >= 44

    # Printed, the card stands alone: no header, tabs, share box or language switcher.
    page.emulate_media(media="print")
    for hidden in (".bar", ".tabs", ".result-share", ".bar-foot"):
        expect(page.locator(hidden).first).to_be_hidden()
    expect(page.locator(".result-card")).to_be_visible()
    page.screenshot(path=str(ARTIFACTS / "result-print-390.png"), full_page=True)
