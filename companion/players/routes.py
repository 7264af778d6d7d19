"""The players pages: everyone who has played here, with games, wins and per-round averages, and one player
across games with their record against each other player."""

from __future__ import annotations

from flask import abort, render_template
from flask_babel import gettext  # type: ignore[import-untyped]

from .. import scorebook
from ..access import held_game_ids
from . import bp


@bp.get("/")
def index() -> str:
    return render_template("players/index.html", stats=scorebook.player_stats())


@bp.get("/<path:name>")
def show(name: str) -> str:
    record = scorebook.player_record(name)
    if record is None:
        abort(404, description=gettext("Nobody called %(name)s has played here yet.", name=name))
    # Games are listed only where this browser holds them: a game's address is its share secret.
    held = set(held_game_ids())
    shown = [g for g in record["games"] if g.id in held]
    return render_template(
        "players/show.html", record=record, shown=shown, hidden=len(record["games"]) - len(shown)
    )
