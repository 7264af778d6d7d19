"""Confirmed photos become training data for the card camera.

When a player has corrected a reading and allows it, the photo is kept in the instance folder with YOLO labels
derived from the confirmed cards and their boxes, in the layout ``phase10 train --extra-data PATH`` reads
(``images/NAME.jpg`` and ``labels/NAME.txt`` with the card classes of ``vision.crops.CLASS_CARDS``), plus
``meta/NAME.json`` recording what was confirmed. A card typed in without a place on the photo cannot be
labelled, so a photo is kept only when every confirmed card has a box.
"""

from __future__ import annotations

import datetime as dt
import json
import secrets
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from flask import current_app

from companion.inputs import BadInput, Refused
from companion.rules import Card, Deck, InvalidCardError

from . import camera
from .uploads import CameraMissing

# Long enough that every card index stays sharper than the classifier's crop; a 12-MP original is kept at half size.
KEEP_LONG_SIDE = 2000
MAX_LABELLED_CARDS = 60


def folder() -> Path:
    configured = current_app.config.get("TRAINING_FOLDER")
    return Path(configured) if configured else Path(current_app.instance_path) / "training"


def kept_count(root: Path, game_id: str | None = None) -> int:
    images = root / "images"
    pattern = f"{game_id}-*.jpg" if game_id else "*.jpg"
    return sum(1 for _ in images.glob(pattern)) if images.is_dir() else 0


def parse_confirmed(
    raw: str | None, width: int, height: int
) -> list[tuple[Card, tuple[float, float, float, float]]]:
    """The confirmed cards with their boxes (upright photo pixels), checked against the photo's size."""
    if not raw:
        raise BadInput("the confirmed cards are missing", field="cards")
    try:
        items = json.loads(raw)
    except (ValueError, RecursionError):  # RecursionError: nested past the parser's depth
        raise BadInput("the confirmed cards are not valid JSON", field="cards") from None
    if not isinstance(items, list) or not items:
        raise BadInput("confirm at least one card before keeping the photo", field="cards")
    if len(items) > MAX_LABELLED_CARDS:
        raise BadInput(f"at most {MAX_LABELLED_CARDS} cards can be labelled in one photo", field="cards")
    out: list[tuple[Card, tuple[float, float, float, float]]] = []
    for item in items:
        if not isinstance(item, dict) or not isinstance(item.get("card"), str):
            raise BadInput('each confirmed card is {"card": "R7", "box": [x1, y1, x2, y2]}', field="cards")
        try:
            card = Card.parse(item["card"], Deck.STANDARD)
        except InvalidCardError as exc:
            raise BadInput(f"{exc}; the camera learns Phase 10 cards only", field="cards") from None
        box = item.get("box")
        if box is None:
            raise BadInput(
                f"{card} was typed in without its place on the photo: tap the photo where its corner is, "
                "or the photo cannot teach the camera",
                field="cards",
            )
        out.append((card, _box(box, card, width, height)))
    return out


def _box(box: Any, card: Card, width: int, height: int) -> tuple[float, float, float, float]:
    if (
        not isinstance(box, Sequence)
        or len(box) != 4
        or not all(isinstance(v, int | float) and not isinstance(v, bool) for v in box)
    ):
        raise BadInput(f"the box of {card} must be four numbers [x1, y1, x2, y2]", field="cards")
    x1, y1, x2, y2 = (float(v) for v in box)
    x1, x2 = max(0.0, min(x1, width)), max(0.0, min(x2, width))
    y1, y2 = max(0.0, min(y1, height)), max(0.0, min(y2, height))
    if x2 - x1 < 2 or y2 - y1 < 2:
        raise BadInput(f"the box of {card} lies outside the photo or has no size", field="cards")
    return x1, y1, x2, y2


def parse_turned(raw: str | None) -> int:
    """How far the camera turned the photo to read it (clockwise degrees; none when the page does not say): one
    of the turns the camera reads in (``vision.detector.TURNS``, imported here since the camera is optional)."""
    from vision.detector import TURNS

    if not raw:
        return 0
    if raw.strip() not in {str(t) for t in TURNS}:
        raise BadInput("the photo's turn is one of 0, 90, 180 or 270 degrees", field="turned")
    return int(raw)


def keep(
    data: bytes,
    raw_cards: str | None,
    width: int,
    height: int,
    meta: dict[str, Any],
    *,
    game_id: str,
    turned: str | None = None,
) -> tuple[str, int]:
    """Store the photo with its labels; returns the example's name and how many photos are kept.

    ``turned`` is the reading's turn as the page sends it back: a photo the camera read turned (its cards upside
    down or sideways in it) is stored turned so, its cards upright, since the detector learns only upright
    indexes. Files are named after the game, so that one game's share of the folder can be counted and capped."""
    max_pixels = int(current_app.config["PHOTO_MAX_PIXELS"])
    try:
        decoded = camera.decode_upright(data, max_pixels=max_pixels, long_side=KEEP_LONG_SIDE)
    except camera.PhotoError as exc:
        raise BadInput(f"this photo cannot be read: {exc}", field="photo") from None
    except camera.CameraUnavailable as exc:
        raise CameraMissing(str(exc)) from None
    if (decoded.width, decoded.height) != (width, height):
        raise BadInput(
            f"the boxes were drawn on a {width}x{height} photo but this one is {decoded.width}x{decoded.height}",
            field="photo",
        )
    confirmed = parse_confirmed(raw_cards, width, height)
    turn = parse_turned(turned)
    root = folder()
    limit = int(current_app.config["TRAINING_MAX_PHOTOS"])
    if kept_count(root) >= limit:
        # Not the request's fault: the folder is full (507) or this game has kept its share (429).
        raise Refused(
            f"the training folder already holds {limit} photos: train with them "
            f"(phase10 train --extra-data {root}) and move them elsewhere first",
            status=507,
        )
    per_game = int(current_app.config["TRAINING_MAX_PER_GAME"])
    if kept_count(root, game_id) >= per_game:
        raise Refused(
            f"this game has already kept {per_game} photos for training, the most one game may keep",
            status=429,
        )
    from vision.detector import turned as turned_image
    from vision.detector import turned_box
    from vision.train import write_extra_example

    name = f"{game_id}-" + dt.datetime.now(dt.UTC).strftime("%Y%m%d-%H%M%S-") + secrets.token_hex(4)
    h, w = decoded.image.shape[:2]
    scaled = []
    for card, (x1, y1, x2, y2) in confirmed:
        box = (x1 / decoded.scale, y1 / decoded.scale, x2 / decoded.scale, y2 / decoded.scale)
        scaled.append((card, turned_box(box, turn, w, h)))
    write_extra_example(root, name, turned_image(decoded.image, turn), scaled)
    (root / "meta").mkdir(parents=True, exist_ok=True)
    record = {
        **meta,
        "cards": [{"card": str(card), "box": list(box)} for card, box in confirmed],
        "original_size": [width, height],
        "turned": turn,
        "kept_at": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
    }
    (root / "meta" / f"{name}.json").write_text(json.dumps(record, indent=1))
    return name, kept_count(root)
