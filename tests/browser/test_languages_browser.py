"""The score keeper in Romanian and German, in a real Chromium at a phone's size (390×844): a Romanian phone
creates a game and enters a round in Romanian, its scripts speaking Romanian too (dealer names, the counters'
note, the outbox); a German phone follows the table in German, with local times in German; the switcher
changes the language without script and the choice sticks; the referee's script shows the engine's verdicts in
the page's language. Screenshots go to test-artifacts/languages/."""

from __future__ import annotations

import re
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

from babel.dates import get_month_names

from tests.browser import test_score_keeper_browser as score_keeper

base_url = score_keeper.base_url
browser = score_keeper.browser
entry = score_keeper.entry
tap = score_keeper.tap
CHROMIUM = score_keeper.CHROMIUM
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "languages"

pytestmark = score_keeper.MARKS

# Words of the English pages that must not be left over on a translated one.
ENGLISH = (
    "Round",
    "Enter round",
    "New game",
    "Players",
    "Share",
    "Copy link",
    "Preview",
    "Save",
    "History",
    "Table",
    "Went out",
    "Laid down",
    "deals",
    "starts",
    "pts",
    "two sets",
    "Cancel",
    "Language",
    "Read-only",
    "phases",
    "behind",
)


def shot(page, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


def phone(browser, locale: str, timezone: str):
    return browser.new_context(
        viewport={"width": 390, "height": 844},
        device_scale_factor=2,
        is_mobile=True,
        has_touch=True,
        locale=locale,
        timezone_id=timezone,
    )


def visible_text(page) -> str:
    parts = page.locator("header, main > *, footer").all_inner_texts()
    return "\n".join(p for p in parts if p)  # an SVG has no inner text


def assert_no_english(page) -> None:
    text = visible_text(page)
    left = [w for w in ENGLISH if re.search(rf"(?<![\w-]){re.escape(w)}(?![\w-])", text)]
    assert not left, (left, text)


def local_time_shown(page, locale: str, timezone: str) -> None:
    """The first time on the page is the phone's local time, with the month named in the page's language."""
    time = page.locator("time[datetime]").first
    stamp = time.get_attribute("datetime")
    when = datetime.fromisoformat(stamp.replace("Z", "+00:00")).astimezone(ZoneInfo(timezone))
    shown = time.inner_text()
    assert "UTC" not in shown, shown
    assert f"{when:%H}:{when:%M}" in shown, (shown, when)
    month = get_month_names("abbreviated", locale=locale)[when.month].rstrip(".").casefold()
    assert month in shown.casefold(), (shown, month)


def test_a_romanian_phone_creates_a_game_and_enters_a_round_in_romanian(base_url, browser):
    context = phone(browser, "ro-RO", "Europe/Bucharest")
    page = context.new_page()
    page.goto(f"{base_url}/games/new")
    assert page.locator("html").get_attribute("lang") == "ro"
    page.locator("h1", has_text="Joc nou").wait_for()
    page.fill("input[name='names-0']", "Ana")
    page.fill("input[name='names-1']", "Ben")
    page.fill("input[name='names-2']", "Cy")
    page.fill("input[name='names-2']", "")
    # newgame.js names the seats left empty in the page's language.
    dealer = page.locator("select[name='first_dealer'] option")
    assert dealer.nth(0).inner_text() == "Ana" and dealer.nth(2).inner_text() == "Jucătorul 3"
    page.select_option("select[name='last_phase']", "2")
    assert_no_english(page)
    shot(page, "ro-01-new-game")
    page.click("button:has-text('Începe jocul')")
    page.locator("h1", has_text="Runda 1").wait_for()
    assert "Faza 1: două seturi de 3" in page.locator("ol.standings").inner_text()
    assert "Împarte Ana · începe Ben" in page.locator("section.now").inner_text()
    assert_no_english(page)
    shot(page, "ro-02-table")

    page.click("text=Introdu runda 1")
    page.locator("h1", has_text="Runda 1").wait_for()
    page.wait_for_load_state("domcontentloaded")
    entry(page, "Ana").locator("input[name='went_out']").check()
    tap(page, "Ben", "1–9", 2)
    tap(page, "Ben", "Wild", 1)
    ben = entry(page, "Ben")
    assert ben.locator("[data-sum]").inner_text() == "35"
    ben.locator(".typed input").fill("30")
    assert ben.locator("[data-sum]").inner_text() == "30 (numărătoare: 35)"
    ben.locator(".typed input").fill("")
    assert "Ben 35" in page.locator("#round-summary").inner_text()
    assert_no_english(page)
    shot(page, "ro-03-round")

    # Saved while the Wi-Fi is down: the outbox says so in Romanian, then sends the round.
    context.set_offline(True)
    page.click("button[name='save']")
    page.locator("#outbox", has_text="1 rundă în așteptare").wait_for()
    shot(page, "ro-04-waiting")
    context.set_offline(False)
    page.locator("h1", has_text="Runda 2").wait_for(timeout=30_000)
    standings = page.locator("ol.standings").inner_text()
    assert "Faza 2: un set de 3 și un șir de 4" in standings and "la 1 fază de Ana" in standings
    assert_no_english(page)
    shot(page, "ro-05-table-after")

    page.click("nav.tabs >> text=Istoric")
    page.locator("h1", has_text="Istoric").wait_for()
    assert "Adăugată runda 1" in page.locator("ol.audit").inner_text()
    local_time_shown(page, "ro", "Europe/Bucharest")
    assert_no_english(page)
    shot(page, "ro-06-history")
    context.close()


def test_a_german_phone_follows_the_table_in_german_and_switches_language(base_url, browser):
    scorer = phone(browser, "ro-RO", "Europe/Bucharest")
    page = scorer.new_page()
    page.goto(f"{base_url}/games/new")
    page.fill("input[name='names-0']", "Ana")
    page.fill("input[name='names-1']", "Ben")
    page.click("button[type='submit'].big")
    page.locator("h1", has_text="Runda 1").wait_for()
    share_url = page.locator("#share-link").input_value()

    context = phone(browser, "de-DE", "Europe/Berlin")
    follower = context.new_page()
    follower.goto(share_url)
    assert follower.locator("html").get_attribute("lang") == "de"
    follower.locator("h1", has_text="Runde 1").wait_for()
    text = follower.locator("main").inner_text()
    assert "Nur zum Ansehen" in text and "Phase 1: zwei 3er-Sätze" in text
    assert "Ana gibt · Ben beginnt" in follower.locator("section.now").inner_text()
    assert_no_english(follower)
    shot(follower, "de-01-table")

    follower.goto(f"{base_url}/")
    local_time_shown(follower, "de", "Europe/Berlin")
    assert_no_english(follower)

    # A follower whose polls fail says so in German.
    follower.goto(share_url)
    follower.locator("h1", has_text="Runde 1").wait_for()
    context.set_offline(True)
    follower.locator("#stale", has_text="nicht aktualisiert").wait_for(timeout=20_000)
    shot(follower, "de-02-stale")
    context.set_offline(False)
    follower.locator("#stale").wait_for(state="hidden", timeout=20_000)

    # The switcher: a form, a list and a button, each a full-size target; the choice outlasts the page.
    switcher = follower.locator("form.language")
    for control in (switcher.locator("select"), switcher.locator("button")):
        box = control.bounding_box()
        assert box is not None and box["height"] >= 44 and box["width"] >= 44
    switcher.locator("select").select_option("en")
    switcher.locator("button").click()
    follower.locator("h1", has_text="Round 1").wait_for()
    assert follower.url == share_url
    assert follower.locator("html").get_attribute("lang") == "en"
    assert "Read-only view" in follower.locator("main").inner_text()
    follower.goto(f"{base_url}/players/")
    assert follower.locator("html").get_attribute("lang") == "en"
    assert follower.locator("h1").inner_text() == "Players"
    shot(follower, "de-03-switched-to-english")
    context.close()
    scorer.close()


def test_the_referee_page_shows_the_engines_verdicts_in_the_pages_language(base_url, browser):
    context = phone(browser, "de-DE", "Europe/Berlin")
    page = context.new_page()
    page.goto(f"{base_url}/referee/?phase=2&cards=R7+B7+G7+|+G3+Y4+W+B7")
    verdict = page.locator("#ref-verdict")
    page.wait_for_selector("#ref-verdict .ref-bad")
    assert "✗ Nicht gültig" in verdict.inner_text()
    assert "die Folge G3 Y4 W B7 hat eine Lücke bei 6" in verdict.inner_text()
    assert page.locator(".ref-row-label").first.inner_text().startswith("Gruppe 1")
    # Tapping the right card in asks the referee again; the answer is drawn in German from its "shown" words.
    page.locator('.ref-row[data-row="1"] .chip[data-card="B7"]').click()
    page.locator("#ref-picker .ref-suits button", has_text="Blau").click()
    page.locator("#ref-picker #ref-ranks").get_by_role("button", name="6", exact=True).click()
    page.wait_for_selector("#ref-verdict .ref-ok")
    text = verdict.inner_text()
    assert "✓ Gültig: Phase 2 (ein 3er-Satz und eine 4er-Folge)" in text and "Folge 3–6" in text
    assert "Satz aus 7" in text and "An diese Gruppe anlegen" in text
    shot(page, "referee-de")
    context.close()
