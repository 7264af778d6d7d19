"""Every page checked with axe-core in a real Chromium at 390×844 and 360×740: no serious or critical violation.
axe-core is installed from npm by .ci/system-deps; the results and a screenshot of each page go to
test-artifacts/a11y/."""

from __future__ import annotations

import json
import urllib.parse
import urllib.request
from pathlib import Path

import pytest

from tests.browser import test_score_keeper_browser as score_keeper

base_url = score_keeper.base_url
browser = score_keeper.browser
CHROMIUM = score_keeper.CHROMIUM
ROOT = Path(__file__).resolve().parents[2]
AXE = ROOT / ".ci" / "node" / "node_modules" / "axe-core" / "axe.min.js"
ARTIFACTS = ROOT / "test-artifacts" / "a11y"

pytestmark = [
    *score_keeper.MARKS,
    pytest.mark.skipif(not AXE.exists(), reason="axe-core is not installed (bash .ci/system-deps)"),
]


@pytest.mark.parametrize("size", [(390, 844), (360, 740)])
def test_no_page_has_a_serious_or_critical_accessibility_violation(base_url, browser, size):
    game = score_keeper.api(base_url, "/api/games", {"players": ["Ana", "Ben", "Cy", "Dee"]})
    gid, token = game["id"], game["edit_token"]
    score_keeper.api(
        base_url,
        f"/api/games/{gid}/rounds",
        {
            "round": 1,
            "went_out": "Ana",
            "players": {
                "Ana": {"laid_down": True},
                "Ben": {"laid_down": True, "cards": ["R3", "G7", "B11", "S"]},
                "Cy": {"laid_down": False, "points": 40},
                "Dee": {"laid_down": True, "points": 10},
            },
        },
        token,
    )
    finished = score_keeper.api(
        base_url, "/api/games", {"players": ["Ana", "Ben"], "rules": {"name": "standard", "last_phase": 1}}
    )
    score_keeper.api(
        base_url,
        f"/api/games/{finished['id']}/rounds",
        {
            "round": 1,
            "went_out": "Ben",
            "players": {"Ben": {"laid_down": True}, "Ana": {"laid_down": False, "points": 5}},
        },
        finished["edit_token"],
    )
    pages = {
        "home": "/",
        "new-game": "/games/new",
        "players": "/players/",
        "player": "/players/" + urllib.parse.quote("Ana"),
        "table": f"/games/{gid}",
        "history": f"/games/{gid}/history",
        "round": f"/games/{gid}/round",
        "edit-round": f"/games/{gid}/rounds/1/edit",
        "finished": f"/games/{finished['id']}",
        "result": f"/games/{finished['id']}/result",
        "access": f"/games/{gid}/access",
        "referee-phase": "/referee/?phase=2&cards=R7+B7+G7+%7C+G3+Y4+W+B6",
        "referee-hit": "/referee/?mode=hit&kind=run&onto=G3+G4+G5&cards=R6",
        "referee-from-game": f"/referee/?game={gid}&player=Ben",
        "decks": "/decks/",
        "decks-teach": "/decks/teach",
        "game-deck": f"/decks/games/{gid}",
        "not-found": "/games/nosuchgame00",
    }
    # axe is loaded through the DevTools protocol (evaluate), which the pages' CSP does not govern.
    axe = AXE.read_text()
    context = browser.new_context(viewport={"width": size[0], "height": size[1]})
    page = context.new_page()
    page.goto(f"{base_url}/games/{gid}/access/{token}")
    page.goto(f"{base_url}/games/{finished['id']}/access/{finished['edit_token']}")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    problems: dict[str, list[str]] = {}
    for name, path in pages.items():
        page.goto(base_url + path)
        page.wait_for_load_state("load")
        page.evaluate(axe)
        result = page.evaluate("axe.run(document, {resultTypes: ['violations']})")
        (ARTIFACTS / f"{name}-{size[0]}.json").write_text(json.dumps(result["violations"], indent=1))
        page.screenshot(path=str(ARTIFACTS / f"{name}-{size[0]}.png"), full_page=True)
        bad = [
            f"{v['id']} ({v['impact']}): {v['help']} — {[n['target'] for n in v['nodes']][:3]}"
            for v in result["violations"]
            if v["impact"] in ("serious", "critical")
        ]
        if bad:
            problems[name] = bad
    assert not problems, json.dumps(problems, indent=1, ensure_ascii=False)
