"""Counting a hand from a photo in the round form, in a real Chromium at a phone's size (390×844): the player
photographs the cards left in their hand, the camera reads them, a tap corrects them and "Use these cards" fills
that player's counters, whose sum and draft follow. Screenshots go to test-artifacts/photo/."""

from __future__ import annotations

from pathlib import Path

import pytest
from flask_migrate import upgrade
from playwright.sync_api import expect

from companion.app import create_app
from companion.extensions import db
from tests.browser import test_score_keeper_browser as score_keeper
from tests.browser.test_photo_referee import ARTIFACTS, phone
from tests.web.served import served

browser = score_keeper.browser
CHROMIUM = score_keeper.CHROMIUM
ROOT = Path(__file__).resolve().parents[2]

pytestmark = score_keeper.MARKS


@pytest.fixture
def hand_app(tmp_path: Path, monkeypatch):
    from companion.referee import camera

    monkeypatch.setattr(camera, "status", lambda: camera.CameraStatus(True))
    app = create_app(
        {
            "SECRET_KEY": "browser test " * 4,
            "SQLALCHEMY_DATABASE_URI": f"sqlite:///{tmp_path / 'phase10.sqlite3'}",
        }
    )
    with app.app_context():
        upgrade()
    yield app
    with app.app_context():
        db.engine.dispose()


def _hand_reading(text: str, unsure: int):
    """A camera that reads the rendered hand right, one card at low confidence."""
    from tests.photo.scenes import known_reading

    def read(truth):
        reading = known_reading(text, truth, {})
        doubtful = reading.cards[unsure]
        cards = list(reading.cards)
        cards[unsure] = type(doubtful)(doubtful.card, 0.41, doubtful.box)
        return type(reading)(tuple(cards), reading.groups, reading.width, reading.height, reading.timings)

    return read


def _round_page(app, browser, base):
    """A phone on the round form of a new game of Ana and Ben, as the game's editor."""
    game = app.test_client().post("/api/games", json={"players": ["Ana", "Ben"]}).json
    page = phone(browser)
    page.goto(f"{base}/games/{game['id']}/access/{game['edit_token']}")
    page.goto(f"{base}/games/{game['id']}/round")
    return page


def test_a_hand_photographed_fills_the_players_counters_after_a_tap_to_correct_it(
    hand_app, browser, tmp_path, monkeypatch
):
    from companion.referee import camera
    from companion.rules import hand_points, parse_cards
    from tests.photo.scenes import phase_scene

    text = "R3 G7 B11 S W"
    jpeg, truth = phase_scene(text, seed=8)
    reading = _hand_reading(text, unsure=1)(truth)
    monkeypatch.setattr(camera, "read", lambda data, *, max_pixels: reading)
    photo = tmp_path / "hand.jpg"
    photo.write_bytes(jpeg)
    with served(hand_app) as base:
        page = _round_page(hand_app, browser, base)
        ben = page.locator("fieldset[data-entry]", has=page.locator("legend:text-is('Ben')"))
        shoot = ben.locator("[data-hand-photo]")
        expect(shoot).to_be_visible()
        assert ben.locator("[data-hand-file]").get_attribute("capture") == "environment"
        ben.locator("input[name='p1_points']").fill("40")  # a total typed before the photo
        ben.locator("[data-hand-file]").set_input_files(str(photo))
        chips = ben.locator(".hp-chip:not(.add)")
        expect(chips).to_have_count(5)
        assert [c.get_attribute("data-card") for c in chips.all()] == text.split()
        assert ben.locator(".hp-chip.unsure").get_attribute("data-card") == "G7"
        expect(ben.locator("[data-hand-count]")).to_have_text(
            "1–9 × 2 · 10–12 × 1 · Skip × 1 · Wild × 1 = 60 points"
        )
        page.screenshot(path=str(ARTIFACTS / "hand-read.png"), full_page=True)

        # The Wild was not in the hand: tap it and remove it; the camera missed a Y12: + adds it.
        ben.locator(".hp-chip[data-card='W']").click()
        page.locator(".hp-picker .hp-remove").click()
        expect(ben.locator("[data-hand-count]")).to_contain_text("= 35 points")
        ben.locator(".hp-chip.add").click()
        page.locator(".hp-picker .hp-suits button", has_text="Yellow").click()
        page.locator(".hp-picker .hp-ranks").get_by_role("button", name="12", exact=True).click()
        page.locator(".hp-picker .hp-done").click()
        final = "R3 G7 B11 S Y12"
        points = hand_points(parse_cards(final))
        expect(ben.locator("[data-hand-count]")).to_contain_text(f"= {points} points")

        ben.locator("[data-hand-use]").click()
        counts = {
            k: ben.locator(f"input[name='p1_{k}']").input_value() for k in ("low", "high", "skip", "wild")
        }
        assert counts == {"low": "2", "high": "2", "skip": "1", "wild": "0"}
        assert ben.locator("input[name='p1_points']").input_value() == ""
        expect(ben.locator("[data-sum]")).to_have_text(str(points))
        assert ben.locator(".counter.has [data-count]").all_inner_texts() == ["2", "2", "1"]
        expect(ben.locator("[data-hand-status]")).to_contain_text(f"{points} points")
        draft = page.evaluate("Object.values(localStorage).join(' ')")  # draft.js keeps what was typed
        assert '["p1_high","2"]' in draft and '["p1_skip","1"]' in draft
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        page.screenshot(path=str(ARTIFACTS / "hand-counted.png"), full_page=True)


def test_a_photo_with_no_cards_says_so_and_leaves_the_counters_alone(
    hand_app, browser, tmp_path, monkeypatch
):
    from companion.referee import camera
    from vision.reader import PhotoReading

    empty = PhotoReading((), (), 1024, 768, {"decode": 1.0})
    monkeypatch.setattr(camera, "read", lambda data, *, max_pixels: empty)
    photo = tmp_path / "table.jpg"
    from tests.photo.scenes import phase_photo

    photo.write_bytes(phase_photo("R1", seed=1))
    with served(hand_app) as base:
        page = _round_page(hand_app, browser, base)
        ana = page.locator("fieldset[data-entry]", has=page.locator("legend:text-is('Ana')"))
        ana.locator("[data-hand-file]").set_input_files(str(photo))
        expect(ana.locator("[data-hand-status]")).to_contain_text("no cards were found")
        expect(ana.locator("[data-hand-result]")).to_be_hidden()
        assert ana.locator("input[name='p0_low']").input_value() == "0"


def test_cards_the_camera_was_unsure_of_are_marked_for_the_player_to_check(
    hand_app, browser, tmp_path, monkeypatch
):
    """The API gives each card a confidence (detector score x classifier probability); below the app's 0.6 the
    colour or the number may be wrong (models/MODEL_CARD.md, "Which cards the page marks to check"), and the chip
    says so with a "?" a player sees and a label a screen reader reads. At 0.6 a card is taken as read."""
    from companion.referee import camera
    from tests.photo.scenes import known_reading, phase_scene

    text = "R3 G7 B11 Y4"
    jpeg, truth = phase_scene(text, seed=8)
    reading = known_reading(text, truth, {})
    cards = list(reading.cards)
    for index, confidence in ((1, 0.59), (3, 0.6)):
        cards[index] = type(cards[index])(cards[index].card, confidence, cards[index].box)
    reading = type(reading)(tuple(cards), reading.groups, reading.width, reading.height, reading.timings)
    monkeypatch.setattr(camera, "read", lambda data, *, max_pixels: reading)
    photo = tmp_path / "hand.jpg"
    photo.write_bytes(jpeg)
    with served(hand_app) as base:
        page = _round_page(hand_app, browser, base)
        ben = page.locator("fieldset[data-entry]", has=page.locator("legend:text-is('Ben')"))
        ben.locator("[data-hand-file]").set_input_files(str(photo))
        expect(ben.locator(".hp-chip:not(.add)")).to_have_count(4)
        unsure = ben.locator(".hp-chip.unsure")
        assert [c.get_attribute("data-card") for c in unsure.all()] == ["G7"]
        assert unsure.text_content() == "7?"
        expect(
            ben.get_by_role("button", name="green 7, the camera is not sure of it: check it")
        ).to_be_visible()
        expect(ben.get_by_role("button", name="yellow 4", exact=True)).to_be_visible()
        expect(ben.locator("[data-hand-status]")).to_have_text(
            "4 cards read; 1 marked ? may be misread. Check them, then use them."
        )
        page.screenshot(path=str(ARTIFACTS / "hand-unsure.png"), full_page=True)

        # Checked and corrected (it was a blue 7): the card is certain now.
        unsure.click()
        page.locator(".hp-picker .hp-suits button", has_text="Blue").click()
        page.locator(".hp-picker .hp-ranks").get_by_role("button", name="7", exact=True).click()
        expect(ben.locator(".hp-chip.unsure")).to_have_count(0)
        expect(ben.get_by_role("button", name="blue 7", exact=True)).to_be_visible()


def test_a_phone_photo_is_sent_upright_and_shrunk_by_the_shared_shrinking(
    hand_app, browser, tmp_path, monkeypatch
):
    """hand.js shrinks with static/shrink.js, as the referee page and the deck walkthrough do: a 12-MP photo
    held sideways (EXIF orientation 6) reaches the server upright with its long side at 1600 px, as a JPEG."""
    import cv2
    import numpy as np

    from companion.referee import camera
    from tests.photo.scenes import phase_scene, rotated_for_exif
    from vision.reader import PhotoReading

    sent: list[bytes] = []

    def read(data, *, max_pixels):
        sent.append(data)
        return PhotoReading((), (), 1600, 1200, {"decode": 1.0})

    monkeypatch.setattr(camera, "read", read)
    jpeg, _ = phase_scene("R3 G7 B11", seed=2, size=(4000, 3000))
    photo = tmp_path / "sideways.jpg"
    photo.write_bytes(rotated_for_exif(jpeg))
    with served(hand_app) as base:
        page = _round_page(hand_app, browser, base)
        # Every call of the shared shrinking, noted on its way through.
        page.evaluate(
            """() => {
              const shared = window.phase10Photo.shrink;
              window.shrinkCalls = [];
              window.phase10Photo.shrink = (file, side, quality, name) => {
                window.shrinkCalls.push([side, quality, name]);
                return shared(file, side, quality, name);
              };
            }"""
        )
        ana = page.locator("fieldset[data-entry]", has=page.locator("legend:text-is('Ana')"))
        expect(ana.locator("[data-hand-photo]")).to_be_visible()
        ana.locator("[data-hand-file]").set_input_files(str(photo))
        expect(ana.locator("[data-hand-status]")).to_contain_text("no cards were found", timeout=30_000)
        assert page.evaluate("window.shrinkCalls") == [[1600, 0.85, "hand.jpg"]]
    assert len(sent) == 1 and sent[0][:3] == b"\xff\xd8\xff"
    pixels = cv2.imdecode(np.frombuffer(sent[0], np.uint8), cv2.IMREAD_COLOR | cv2.IMREAD_IGNORE_ORIENTATION)
    assert pixels.shape[:2] == (1200, 1600)
