"""The top navigation on a phone, in a real Chromium: at 390×844 and 360×740 the brand and every link sit on one
line, in each language (German's labels are the longest), on pages with and without a game; on a wide screen the
layout is the one it always was. Screenshots go to test-artifacts/nav/."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.browser import test_score_keeper_browser as score_keeper

base_url = score_keeper.base_url
browser = score_keeper.browser
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "nav"

pytestmark = score_keeper.MARKS

# Where each header link is and how tall the bar is, read from the page (evaluate runs in the page's own world,
# which the CSP leaves alone; the values are read once the page has loaded).
MEASURE = """() => {
  const bar = document.querySelector("header.bar");
  const links = Array.from(bar.querySelectorAll("a"));
  return {
    tops: links.map((a) => a.offsetTop),
    height: Math.max(...links.map((a) => a.offsetHeight)),
    bar: bar.offsetHeight,
    names: links.map((a) => a.textContent.trim()),
    scroll: document.documentElement.scrollWidth,
  };
}"""


@pytest.mark.parametrize("size", [(390, 844), (360, 740)])
@pytest.mark.parametrize("lang", ["en", "ro", "de"])
def test_the_navigation_is_one_line_on_a_phone(base_url, browser, size, lang):
    game = score_keeper.api(base_url, "/api/games", {"players": ["Ana", "Ben"]})
    width, height = size
    context = browser.new_context(
        viewport={"width": width, "height": height},
        device_scale_factor=2,
        is_mobile=True,
        has_touch=True,
        extra_http_headers={"Accept-Language": lang},
    )
    page = context.new_page()
    pages = [
        "/",
        "/decks/",
        "/players/",
        f"/games/{game['id']}",
        f"/games/{game['id']}/access/{game['edit_token']}",
    ]
    for path in pages:
        page.goto(base_url + path)
        seen = page.evaluate(MEASURE)
        assert len(seen["tops"]) == 4 and all(seen["names"]), (path, seen)
        assert len(set(seen["tops"])) == 1, (path, lang, size, seen)
        # One line: the bar is no taller than a link with its padding, and nothing spills sideways.
        assert seen["bar"] < 2 * seen["height"], (path, seen)
        assert seen["scroll"] <= width, (path, seen)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"nav-{lang}-{width}.png"))
    context.close()


def test_the_navigation_keeps_its_roomy_layout_on_a_wide_screen(base_url, browser):
    context = browser.new_context(viewport={"width": 1024, "height": 768})
    page = context.new_page()
    page.goto(base_url + "/")
    seen = page.evaluate(MEASURE)
    assert len(set(seen["tops"])) == 1
    link = page.locator("header nav a").first
    assert link.evaluate("a => getComputedStyle(a).fontSize") == "16px"
    assert link.evaluate("a => getComputedStyle(a).marginLeft") == "12px"
    context.close()
