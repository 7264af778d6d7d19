"""Saves that survive the table's Wi-Fi, in a real Chromium at a phone's size: a round typed while offline waits in
the outbox and is saved exactly once when the connection is back; a request that fails on the way does the same;
a reload keeps the draft; a follower whose polls fail says how old its page is. Screenshots go to
test-artifacts/offline/."""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path

import pytest

from tests.browser import test_score_keeper_browser as score_keeper

base_url = score_keeper.base_url
browser = score_keeper.browser
CHROMIUM = score_keeper.CHROMIUM
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "offline"

pytestmark = score_keeper.MARKS


def shot(page, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


def rounds(base: str, game_id: str) -> list[dict]:
    with urllib.request.urlopen(f"{base}/api/games/{game_id}", timeout=30) as answer:
        return json.loads(answer.read())["rounds"]


def new_game(browser, base: str, size=(390, 844)):
    context = browser.new_context(
        viewport={"width": size[0], "height": size[1]}, is_mobile=True, has_touch=True
    )
    page = context.new_page()
    page.goto(f"{base}/games/new")
    page.fill("input[name='names-0']", "Ana")
    page.fill("input[name='names-1']", "Ben")
    page.click("button:has-text('Start the game')")
    page.wait_for_selector("text=Round 1")
    return context, page, page.url.rstrip("/").rsplit("/", 1)[1]


def fill_round(page) -> None:
    # The form's scripts (deferred) must be running before Save, or the browser would post the form itself.
    page.wait_for_load_state("domcontentloaded")
    score_keeper.entry(page, "Ana").locator("input[name='went_out']").check()
    score_keeper.tap(page, "Ben", "1–9", 2)
    score_keeper.tap(page, "Ben", "Wild", 1)


@pytest.mark.parametrize("size", [(390, 844), (360, 740)])
def test_a_round_saved_offline_is_sent_once_when_the_connection_is_back(base_url, browser, size):
    context, page, game_id = new_game(browser, base_url, size)
    page.click("text=Enter round 1")
    # The connection drops once the round page has loaded (its scripts too): cut off while they are still on
    # the way, the page would have no outbox and the browser would post the form itself.
    page.locator("button[name='save']").wait_for()
    page.wait_for_load_state("load")
    context.set_offline(True)
    fill_round(page)
    page.click("button[name='save']")
    outbox = page.locator("#outbox")
    outbox.wait_for(state="visible")
    assert "1 round waiting" in outbox.inner_text()
    shot(page, f"waiting-{size[0]}")
    assert rounds(base_url, game_id) == []
    context.set_offline(False)
    page.wait_for_url(f"**/games/{game_id}", timeout=30_000)
    page.locator("h1", has_text="Round 2").wait_for()
    saved = rounds(base_url, game_id)
    assert len(saved) == 1 and saved[0]["points"]["Ben"] == 35
    shot(page, f"sent-{size[0]}")


def test_a_request_lost_on_the_way_waits_and_is_sent_once(base_url, browser):
    _context, page, game_id = new_game(browser, base_url)
    page.click("text=Enter round 1")
    fill_round(page)
    # The phone believes it is online, but the save never reaches the server.
    page.route("**/round", lambda route: route.abort("internetdisconnected"))
    page.click("button[name='save']")
    page.locator("#outbox", has_text="1 round waiting").wait_for()
    assert rounds(base_url, game_id) == []
    page.unroute("**/round")
    page.evaluate("window.p10Outbox.flush()")
    page.wait_for_url(f"**/games/{game_id}", timeout=30_000)
    assert len(rounds(base_url, game_id)) == 1
    # Sending again what already went through saves nothing twice.
    page.goto(f"{base_url}/games/{game_id}")
    assert len(rounds(base_url, game_id)) == 1


def test_reload_keeps_the_draft(base_url, browser):
    _context, page, _game_id = new_game(browser, base_url)
    page.click("text=Enter round 1")
    fill_round(page)
    page.reload()
    page.wait_for_selector("#draft-note:has-text('draft')")
    ben = score_keeper.entry(page, "Ben")
    assert ben.locator("[data-sum]").inner_text() == "35"
    assert score_keeper.entry(page, "Ana").locator("input[name='went_out']").is_checked()
    shot(page, "draft-restored")


def test_a_follower_whose_polls_fail_says_how_old_its_page_is(base_url, browser):
    _context, _page, game_id = new_game(browser, base_url)
    follower_context = browser.new_context(viewport={"width": 390, "height": 844})
    follower = follower_context.new_page()
    follower.goto(f"{base_url}/games/{game_id}")
    follower_context.set_offline(True)
    follower.locator("#stale", has_text="Not updated for").wait_for(timeout=20_000)
    shot(follower, "follower-stale")
    follower_context.set_offline(False)
    follower.locator("#stale").wait_for(state="hidden", timeout=20_000)


def test_installable_and_readable_offline_where_a_service_worker_is_allowed(base_url, browser):
    """On localhost (a secure context, as https is) the service worker keeps the pages: a game page opened
    before still shows offline. Over plain http on a LAN there is none, and the outbox does the work."""
    context, page, game_id = new_game(browser, base_url)
    manifest = page.evaluate("fetch(document.querySelector('link[rel=manifest]').href).then(r => r.json())")
    assert manifest["display"] == "standalone" and {i["sizes"] for i in manifest["icons"]} >= {
        "192x192",
        "512x512",
    }
    page.evaluate("navigator.serviceWorker.ready.then(() => true)")
    page.reload()  # now under the worker's control, so this answer is kept
    page.wait_for_selector("text=Round 1")
    context.set_offline(True)
    page.goto(f"{base_url}/games/{game_id}")
    assert "Round 1" in page.locator("main").inner_text()
    context.set_offline(False)
