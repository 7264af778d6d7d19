"""Game pages: home, new game, the game table, rounds, history and the end of the game."""

from flask import Blueprint

bp = Blueprint("games", __name__)

from . import routes  # noqa: E402,F401
