"""The score keeper in a real Chromium at a phone's size (390×844), as issue 3 asks: create a two-player game on a
short variant, enter rounds with the tap counters, edit one, finish the game, and watch a second page that holds
only the share link update by itself. Screenshots go to test-artifacts/browser/."""

from __future__ import annotations

import json
import re
import shutil
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from flask_migrate import upgrade

from companion.app import create_app
from companion.extensions import db
from tests.web.served import served

CHROMIUM = "/usr/bin/chromium"
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "browser"

# The marks every page test carries; the other browser test modules take them from here with the fixtures.
MARKS = [
    pytest.mark.browser,
    pytest.mark.slow,
    pytest.mark.skipif(
        shutil.which(CHROMIUM) is None, reason="Chromium is not installed (bash .ci/system-deps)"
    ),
]
pytestmark = MARKS


def api(base: str, path: str, body: dict, token: str | None = None) -> dict:
    """A JSON write to the served app, as an API client (or a second phone) makes it."""
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    request = urllib.request.Request(base + path, data=json.dumps(body).encode(), headers=headers)
    with urllib.request.urlopen(request, timeout=30) as answer:
        return json.loads(answer.read())


@pytest.fixture
def base_url(tmp_path: Path) -> Iterator[str]:
    app = create_app(
        {
            "SECRET_KEY": "browser test " * 4,
            "SQLALCHEMY_DATABASE_URI": f"sqlite:///{tmp_path / 'phase10.sqlite3'}",
        }
    )
    with app.app_context():
        upgrade()
    with served(app) as base:
        yield base
    with app.app_context():
        db.engine.dispose()


@pytest.fixture
def browser() -> Iterator[object]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=CHROMIUM,
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
            ],
        )
        yield browser
        browser.close()


def shot(page, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


def tap(page, player: str, label: str, times: int) -> None:
    counter = page.locator("fieldset[data-entry]", has=page.locator(f"legend:text-is('{player}')")).locator(
        ".counter", has=page.locator(f".label:has-text('{label}')")
    )
    for _ in range(times):
        counter.locator("button.plus").click()


def entry(page, player: str):
    return page.locator("fieldset[data-entry]", has=page.locator(f"legend:text-is('{player}')"))


def test_a_short_game_from_start_to_winner_with_a_live_share_page(base_url, browser):
    phone = browser.new_context(
        viewport={"width": 390, "height": 844}, device_scale_factor=2, is_mobile=True, has_touch=True
    )
    page = phone.new_page()
    page.goto(f"{base_url}/games/new")
    page.fill("input[name='names-0']", "Ana")
    page.fill("input[name='names-1']", "Ben")
    page.select_option("select[name='last_phase']", "2")
    shot(page, "01-new-game")
    page.click("button:has-text('Start the game')")
    page.wait_for_selector("text=Round 1")
    shot(page, "02-table")

    # The share link, opened on a second phone that has no edit secret.
    share_url = page.locator("#share-link").input_value()
    follower_context = browser.new_context(
        viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True
    )
    follower = follower_context.new_page()
    follower.goto(share_url)
    assert "Read-only view" in follower.content()
    assert follower.locator("text=Enter round").count() == 0

    # Round 1: Ana goes out; Ben holds two low cards and a Wild: 5 + 5 + 25 = 35 (001 point table).
    page.click("text=Enter round 1")
    entry(page, "Ana").locator("input[name='went_out']").check()
    assert entry(page, "Ana").locator("input[type=checkbox]").is_checked()
    tap(page, "Ben", "1–9", 2)
    tap(page, "Ben", "Wild", 1)
    assert entry(page, "Ben").locator("[data-sum]").inner_text() == "35"
    shot(page, "03-round-tapped")
    page.click("button[name='preview']")
    page.wait_for_selector("section.preview")
    assert "35" in page.locator("section.preview").inner_text()
    shot(page, "04-round-preview")
    page.click("button[name='save']")
    page.wait_for_selector("text=Round 1 saved.")
    assert "Round 2" in page.content()

    # The follower's page notices the new round by itself.
    # A locator wait, not a page function: the pages' CSP allows no eval, which wait_for_function would need.
    follower.locator("h1", has_text="Round 2").wait_for(timeout=15000)
    shot(follower, "05-share-page-after-round-1")

    # Edit round 1: Ben's total was really 40.
    page.click("a:has-text('History')")
    page.click("td .actions a:has-text('Edit')")
    ben = entry(page, "Ben")
    ben.locator("input[name='p1_points']").fill("40")
    for counter in ben.locator(".counter input").all():
        counter.fill("0")
    page.click("button[name='save']")
    page.wait_for_selector("text=Round 1 changed")
    assert re.search(r"Edited\s+round 1", page.locator("ol.audit").inner_text())
    shot(page, "06-history-after-edit")

    # Round 2: Ana lays down her last phase (2) and goes out, so she wins (001 end of game).
    page.click("a:has-text('Table')")
    page.click("text=Enter round 2")
    entry(page, "Ana").locator("input[name='went_out']").check()
    tap(page, "Ben", "10–12", 1)
    page.click("button[name='save']")
    # A round that ends the game is confirmed first, naming the winner.
    page.wait_for_selector("text=Ana wins the game with this round")
    shot(page, "07a-confirm-end")
    page.click("button[name='save']")
    page.wait_for_selector("text=Ana wins!")
    shot(page, "07-end-of-game")
    follower.locator("h1", has_text="Ana wins!").wait_for(timeout=15000)
    shot(follower, "08-share-page-finished")
    text = follower.locator("ol.placements").inner_text()
    assert text.index("Ana") < text.index("Ben") and "50 pts" in text


def test_six_player_masters_pages_fit_a_360_px_phone(base_url, browser):
    # Phone first (issue 3): nothing may need sideways scrolling at 360 px, even with six players in Masters.
    phone = browser.new_context(viewport={"width": 360, "height": 780}, is_mobile=True, has_touch=True)
    page = phone.new_page()
    page.goto(f"{base_url}/games/new")
    for seat, name in enumerate(["Ana", "Ben", "Cy", "Dee", "Eve", "Finnegan-Alexander"]):
        page.fill(f"input[name='names-{seat}']", name)
    page.select_option("select[name='rules']", "masters")
    page.click("button:has-text('Start the game')")
    page.wait_for_selector("text=Still to do")
    pages = {"09-masters-table": page.url}
    page.click("text=Enter round 1")
    entry(page, "Eve").locator("input[name='went_out']").check()
    entry(page, "Eve").locator("select").select_option("7")
    for name in ("Ana", "Ben", "Cy", "Dee", "Finnegan-Alexander"):
        tap(page, name, "10–12", 1)
    page.click("button[name='save']")
    page.wait_for_selector("text=Round 1 saved.")
    pages["10-masters-history"] = page.url.replace("/games/", "/games/", 1) + "/history"
    pages["11-home"] = base_url + "/"
    pages["12-players"] = base_url + "/players/"
    page.click("text=Enter round 2")
    shot(page, "13-masters-round-form")
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    for name, url in pages.items():
        page.goto(url)
        shot(page, name)
        assert page.evaluate("document.documentElement.scrollWidth") <= 360, name
    page.goto(pages["09-masters-table"])
    assert "Still to do: 1, 2, 3, 4, 5, 6, 8, 9, 10" in page.content()
