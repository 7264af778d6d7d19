"""The forms of the decks pages: the deck the whole server reads with, a game's deck, and the name of a deck
to teach (its photos are checked and sent by the page's script, with this form's CSRF token)."""

from __future__ import annotations

from collections.abc import Sequence

from flask_babel import lazy_gettext  # type: ignore[import-untyped]
from flask_wtf import FlaskForm  # type: ignore[import-untyped]
from wtforms import SelectField, StringField  # type: ignore[import-untyped]
from wtforms.validators import InputRequired, Length  # type: ignore[import-untyped]

from .store import NAME_MAX


class ServerDeckForm(FlaskForm):  # type: ignore[misc]
    """The deck the camera reads every game's photos with unless a game chose its own."""

    deck = SelectField(lazy_gettext("The camera reads photos with"), validate_choice=True)

    def offer(self, names: Sequence[str]) -> ServerDeckForm:
        self.deck.choices = [("", lazy_gettext("The camera's own models")), *((n, n) for n in names)]
        return self


class GameDeckForm(FlaskForm):  # type: ignore[misc]
    """The deck the camera reads one game's photos with."""

    deck = SelectField(lazy_gettext("The camera reads this game's photos with"), validate_choice=True)

    def offer(self, names: Sequence[str], server_default: str | None) -> GameDeckForm:
        default = (
            lazy_gettext("The server's deck (%(name)s)", name=server_default)
            if server_default
            else lazy_gettext("The server's deck (the camera's own models)")
        )
        self.deck.choices = [("", default), *((n, n) for n in names)]
        return self


class TeachForm(FlaskForm):  # type: ignore[misc]
    name = StringField(
        lazy_gettext("The deck's name"),
        validators=[InputRequired(), Length(max=NAME_MAX)],
        render_kw={
            "maxlength": NAME_MAX,
            "autocomplete": "off",
            "autocapitalize": "off",
            "spellcheck": "false",
            "pattern": "[A-Za-z0-9][A-Za-z0-9_\\-]*",
        },
    )
