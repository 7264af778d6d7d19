"""Your deck in a real Chromium at a phone's size (390×844), as issue 17 asks: the walkthrough shrinks a photo,
checks it at once and shows its count beside its step, says what to fix for a wrong one, follows a teaching run
to its end and makes the deck the server's. The teaching run's work is ``tests.web.test_decks.fake_teach``, run
by the real teaching process. Screenshots go to test-artifacts/decks/."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from flask_migrate import upgrade
from playwright.sync_api import expect

from companion.app import create_app
from companion.decks import routes as deck_routes
from companion.extensions import db
from tests.browser import test_score_keeper_browser as score_keeper
from tests.web.served import served

browser = score_keeper.browser
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "decks"

pytestmark = score_keeper.MARKS

teach = pytest.importorskip("vision.teach", reason="the camera's extras are not installed")


def shot(page, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


@pytest.fixture
def decks(tmp_path: Path) -> Path:
    return tmp_path / "decks"


@pytest.fixture
def kept(tmp_path: Path) -> Path:
    return tmp_path / "training"


@pytest.fixture
def base_url(tmp_path: Path, decks: Path, kept: Path) -> Iterator[str]:
    app = create_app(
        {
            "SECRET_KEY": "browser test " * 4,
            "SQLALCHEMY_DATABASE_URI": f"sqlite:///{tmp_path / 'phase10.sqlite3'}",
            "DECKS_FOLDER": str(decks),
            "TRAINING_FOLDER": str(kept),
            "DECK_TEACHER": "tests.web.test_decks:fake_teach",
        }
    )
    with app.app_context():
        upgrade()
    with served(app) as base:
        yield base
    with app.app_context():
        db.engine.dispose()


def phone(browser):
    context = browser.new_context(
        viewport={"width": 390, "height": 844}, device_scale_factor=2, has_touch=True
    )
    page = context.new_page()
    # Every script is a file and every style a stylesheet: the CSP must never have to stop anything here.
    page.blocked = []
    page.on("console", lambda m: "Content Security Policy" in m.text and page.blocked.append(m.text))
    page.on("pageerror", lambda e: page.blocked.append(str(e)))
    return page


def photo_files() -> list[tuple[bytes, str]]:
    from tests.web.test_decks import photos

    return photos()


def upload(page, step: int, data: bytes, name: str = "photo.jpg", mime: str = "image/jpeg") -> None:
    # The "Choose a photo" input; "Take the photo" is the same input with the phone camera.
    page.locator(f'.deck-step[data-step="{step}"] input.deck-photo:not([capture])').set_input_files(
        files=[{"name": name, "mimeType": mime, "buffer": data}]
    )


def result(page, step: int):
    return page.locator(f'.deck-step[data-step="{step}"] .deck-result')


def test_the_walkthrough_checks_each_photo_at_once_and_says_what_to_fix(base_url, browser, monkeypatch):
    import cv2
    import numpy as np

    monkeypatch.setattr(deck_routes, "training_missing", lambda: None)
    page = phone(browser)
    page.goto(f"{base_url}/decks/teach")
    expect(page.locator(".deck-step")).to_have_count(5)
    expect(page.locator("#deck-start")).to_be_disabled()
    shots = photo_files()
    # A 12-MP photo, as a phone takes it: the page sends it shrunk to the long side the cutting needs.
    red = cv2.imdecode(np.frombuffer(shots[0][0], np.uint8), cv2.IMREAD_COLOR)
    big = cv2.resize(red, (4000, 3000), interpolation=cv2.INTER_CUBIC)
    upload(page, 1, cv2.imencode(".jpg", big, [cv2.IMWRITE_JPEG_QUALITY, 92])[1].tobytes())
    expect(result(page, 1)).to_have_text("✓ 12 cards found: this photo is ready.", timeout=30_000)
    thumb = page.locator('.deck-step[data-step="1"] .deck-thumb')
    assert thumb.evaluate("img => [img.naturalWidth, img.naturalHeight]") == [2000, 1500]
    expect(page.locator('.deck-step[data-step="1"]')).to_have_class("card deck-step checked")

    # A list that names fewer cards than the photo shows: the problem's sentence beside the step.
    page.fill("#deck-cards-2", "B1 B2 B3")
    upload(page, 2, shots[1][0])
    expect(result(page, 2)).to_contain_text("The photo shows 12 cards, the list names 3", timeout=30_000)
    expect(page.locator('.deck-step[data-step="2"]')).to_have_class("card deck-step refused")
    # Something that is not a photo.
    upload(page, 3, b"not a photo at all", name="notes.png", mime="image/png")
    expect(result(page, 3)).to_contain_text("This is not a photo that can be read", timeout=30_000)
    # Putting the list right checks the same photo again.
    page.fill("#deck-cards-2", shots[1][1])
    page.locator("#deck-cards-2").dispatch_event("change")
    expect(result(page, 2)).to_have_text("✓ 12 cards found: this photo is ready.", timeout=30_000)
    expect(page.locator("#deck-summary")).to_have_text("2 photos checked")
    shot(page, "01-walkthrough")
    page.goto(f"{base_url}/decks/")
    expect(page.locator("h1")).to_have_text("Your deck")
    assert page.blocked == []


def test_a_deck_is_learnt_in_the_background_and_becomes_the_servers(base_url, browser, decks, monkeypatch):
    monkeypatch.setattr(deck_routes, "training_missing", lambda: None)
    page = phone(browser)
    page.goto(f"{base_url}/decks/teach")
    upload(page, 1, photo_files()[0][0])
    expect(result(page, 1)).to_contain_text("12 cards found", timeout=30_000)
    expect(page.locator("#deck-start")).to_be_disabled()  # no name yet
    page.fill("#name", "kitchen")
    expect(page.locator("#deck-start")).to_be_enabled()
    page.click("#deck-start")
    expect(page.locator("#deck-progress")).to_be_visible()
    expect(page.locator("#deck-stage")).to_contain_text(
        "Drawing practice tables with your cards", timeout=30_000
    )
    shot(page, "02-learning")
    (decks / "release").touch()
    expect(page.locator("#deck-ready")).to_have_text("The deck kitchen is ready.", timeout=30_000)
    expect(page.locator("#deck-bar")).to_have_attribute("value", "1000")
    shot(page, "03-ready")
    page.click("text=Read every game's photos with it")
    expect(page.locator(".flash")).to_have_text("The camera now reads photos with the deck kitchen.")
    expect(page.locator(".deck-item", has_text="kitchen")).to_contain_text("read with by default")
    shot(page, "04-decks")
    assert page.blocked == []


def test_without_the_train_extra_the_page_says_so_and_still_checks_photos(base_url, browser, monkeypatch):
    monkeypatch.setattr(deck_routes, "training_missing", lambda: "torch")
    page = phone(browser)
    page.goto(f"{base_url}/decks/teach")
    expect(page.locator("#deck-needs-training")).to_contain_text("pip install -e '.[train]'")
    expect(page.locator("#deck-start")).to_have_count(0)
    upload(page, 5, photo_files()[4][0])
    expect(result(page, 5)).to_contain_text("12 cards found", timeout=30_000)


def test_teaching_again_under_a_taken_name_needs_the_replace_box(base_url, browser, decks, monkeypatch):
    from tests.web.test_decks import make_deck

    monkeypatch.setattr(deck_routes, "training_missing", lambda: None)
    make_deck(decks, "kitchen")
    page = phone(browser)
    page.goto(f"{base_url}/decks/teach")
    upload(page, 1, photo_files()[0][0])
    expect(result(page, 1)).to_contain_text("12 cards found", timeout=30_000)
    replace = page.locator("#deck-replace")
    box = page.get_by_role("checkbox", name="Replace the deck kitchen")
    page.fill("#name", "kitche")
    expect(replace).to_be_hidden()
    page.fill("#name", "kitchen")
    expect(replace).to_be_visible()
    expect(box).not_to_be_checked()
    # Without the tick the server's refusal stands, and says what to tick.
    page.click("#deck-start")
    expect(page.locator("#deck-start-error")).to_contain_text(
        "There is already a deck called kitchen on this server: choose another name, or tick"
    )
    expect(page.locator("#deck-progress")).to_be_hidden()
    box.check()
    # A tick is for the name it names: another name hides it, and coming back finds it clear.
    page.fill("#name", "kitchen2")
    expect(replace).to_be_hidden()
    page.fill("#name", "kitchen")
    expect(box).not_to_be_checked()
    box.check()
    shot(page, "05-replace")
    page.click("#deck-start")
    expect(page.locator("#deck-stage")).to_contain_text(
        "Drawing practice tables with your cards", timeout=30_000
    )
    (decks / "release").touch()
    expect(page.locator("#deck-ready")).to_have_text("The deck kitchen is ready.", timeout=30_000)
    page.goto(f"{base_url}/decks/")
    expect(page.locator(".deck-item", has_text="kitchen")).to_contain_text("12 cards taught")
    assert page.blocked == []


def test_a_deck_is_removed_without_script_once_its_removal_is_confirmed(base_url, browser, decks):
    from tests.web.test_decks import make_deck

    make_deck(decks, "kitchen")
    make_deck(decks, "cabin")
    context = browser.new_context(viewport={"width": 390, "height": 844}, java_script_enabled=False)
    page = context.new_page()
    page.goto(f"{base_url}/decks/")
    page.get_by_role("link", name="Remove the deck kitchen").click()
    expect(page.locator("h1")).to_have_text("Remove the deck kitchen?")
    assert (decks / "kitchen").exists()
    shot(page, "06-remove-confirm")
    page.get_by_role("button", name="Yes, remove the deck kitchen").click()
    expect(page.locator(".flash")).to_have_text("The deck kitchen was removed.")
    expect(page.locator(".deck-item")).to_have_count(1)
    expect(page.locator(".deck-item")).to_contain_text("cabin")
    assert not (decks / "kitchen").exists()
    # Keeping it changes nothing.
    page.get_by_role("link", name="Remove the deck cabin").click()
    page.get_by_role("link", name="Keep it").click()
    expect(page.locator("h1")).to_have_text("Your deck")
    assert (decks / "cabin" / "deck.json").exists()
    context.close()


def _learnt_from_kept(folder: Path) -> bool:
    """Whether the deck in ``folder`` has learnt from kept photos. The learnt deck takes the old one's place by
    two renames, the old one moved aside first: in the instant between them there is no deck to read, which the
    app's readers take as no deck (the shipped models), and so does this wait."""
    try:
        return bool(teach.read_deck(folder)["trained_from"].get("kept"))
    except teach.TeachingError:
        return False


def test_a_deck_learns_from_its_kept_photos_without_script(base_url, browser, decks, kept, monkeypatch):
    from tests.web.test_decks import keep_photo, make_deck

    monkeypatch.setattr(deck_routes, "training_missing", lambda: None)
    make_deck(decks, "kitchen")
    keep_photo(kept, "game-1", "kitchen")
    context = browser.new_context(viewport={"width": 390, "height": 844}, java_script_enabled=False)
    page = context.new_page()
    page.goto(f"{base_url}/decks/")
    item = page.locator(".deck-item", has_text="kitchen")
    expect(item).to_contain_text("1 photo read with it was corrected and kept for training")
    page.get_by_role("button", name="Learn the deck kitchen again from its kept photos").click()
    expect(page.locator(".flash")).to_have_text(
        "The deck kitchen is being learnt again; it reads photos as before until then."
    )
    expect(page.get_by_role("status").filter(has_text="A deck is being learnt now: kitchen")).to_have_count(1)
    expect(
        page.get_by_role("button", name="Learn the deck kitchen again from its kept photos")
    ).to_have_count(0)
    shot(page, "07-learning-from-kept-photos")
    (decks / "release").touch()
    for _ in range(100):
        if _learnt_from_kept(decks / "kitchen"):
            break
        page.wait_for_timeout(100)
    page.reload()
    expect(page.locator(".deck-item", has_text="kitchen")).to_contain_text("it has learnt from them all")
    context.close()


@pytest.mark.parametrize("size", [(390, 844), (360, 740)])
def test_the_decks_page_and_the_removal_page_have_no_serious_accessibility_violation(
    base_url, browser, decks, kept, size, monkeypatch
):
    """The pages tests/browser/test_accessibility_browser.py checks, here with a deck on the server: its Remove
    link and its button to learn from kept photos, and the confirmation page that only a listed deck has."""
    import json

    from tests.browser.test_accessibility_browser import AXE
    from tests.web.test_decks import keep_photo, make_deck

    if not AXE.exists():
        pytest.skip("axe-core is not installed (bash .ci/system-deps)")
    monkeypatch.setattr(deck_routes, "training_missing", lambda: None)
    make_deck(decks, "kitchen")
    keep_photo(kept, "game-1", "kitchen")
    context = browser.new_context(viewport={"width": size[0], "height": size[1]})
    page = context.new_page()
    problems = {}
    for path in ("/decks/", "/decks/remove/kitchen"):
        page.goto(base_url + path)
        if path == "/decks/":
            expect(
                page.get_by_role("button", name="Learn the deck kitchen again from its kept photos")
            ).to_be_visible()
        page.evaluate(AXE.read_text())
        result = page.evaluate("axe.run(document, {resultTypes: ['violations']})")
        bad = [v["id"] for v in result["violations"] if v["impact"] in ("serious", "critical")]
        if bad:
            problems[path] = bad
    assert not problems, json.dumps(problems)
    context.close()
