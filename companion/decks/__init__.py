"""Your deck: teach the camera a group's own cards from five photos, and choose the deck it reads with.

Pages under ``/decks/``: the decks taught on this server and the one the server reads with by default, the
teaching walkthrough (each photo checked at once, then the learning run in a separate process whose progress the
page polls), and the deck a game's photos are read with. ``vision`` is imported only when a photo or a deck is
looked at, so the app starts without the camera extras.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import cast

from flask import Blueprint, Flask
from flask.blueprints import BlueprintSetupState

bp = Blueprint("decks", __name__)

# The folder ``phase10 deck`` uses too (companion.cli.deck): the same variable names it on both sides.
DECKS_VARIABLE = "PHASE10_DECKS"
KEEP_DETECTOR_VARIABLE = "PHASE10_DECK_KEEP_DETECTOR"


@bp.record_once
def _setup(state: BlueprintSetupState) -> None:
    app = cast(Flask, state.app)  # the app this blueprint is registered on is always a Flask app
    named = os.environ.get(DECKS_VARIABLE)
    app.config.setdefault("DECKS_FOLDER", named or str(Path(app.instance_path) / "decks"))
    # Five photos make the usual teaching (one per colour, one with the Wilds and Skips); a few more let a
    # group add its second copy of a colour, and no more than that can come from the walkthrough.
    app.config.setdefault("DECK_MAX_PHOTOS", 10)
    app.config.setdefault("DECK_TEACH_MINUTES", 15.0)
    # Whether teaching keeps the detector a deck starts from (True), teaches it however few batches the minutes
    # give it (False), or decides (None, the default): a deck with its index in every corner has it taught only
    # where this server has time for enough batches, since too few can make it read such a deck worse than before
    # (README, "A slow computer: a four-corner deck keeps its detector").
    app.config.setdefault(
        "DECK_KEEP_DETECTOR", {"1": True, "0": False}.get(os.environ.get(KEEP_DETECTOR_VARIABLE, ""))
    )
    # What the teaching process runs, as "module:function" with vision.teach.teach's signature. Only the
    # server's own settings name it, never a request.
    app.config.setdefault("DECK_TEACHER", "vision.teach:teach")


from . import routes  # noqa: E402,F401
