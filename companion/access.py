"""Who may change a game, and how a change is signed in the audit.

A game's edit secret lives in the creator's browser as a cookie scoped to that game, in the edit link handed to
another device, and in the ``Authorization: Bearer`` header of API clients. Only its hash is stored.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

from flask import Response, abort, current_app, request, session
from flask_babel import gettext  # type: ignore[import-untyped]

from .extensions import db
from .models import Game, is_game_id, token_matches

View = TypeVar("View", bound=Callable[..., Any])

COOKIE_PREFIX = "p10edit_"
COOKIE_AGE = 60 * 60 * 24 * 365
# Games this browser opened by their share link, newest first, for its home page; bounded so the session cookie
# stays far below the 4 KB browsers keep.
SEEN_KEY = "seen"
SEEN_MAX = 40


def cookie_name(game_id: str) -> str:
    return COOKIE_PREFIX + game_id


def page_token(game: Game) -> str | None:
    """The secret this browser holds for ``game``, if it is the right one."""
    token = request.cookies.get(cookie_name(game.id))
    return token if game.token_matches(token) else None


def bearer_token() -> str | None:
    header = request.headers.get("Authorization", "")
    scheme, _, value = header.partition(" ")
    return value.strip() if scheme.lower() == "bearer" and value.strip() else None


def remember(response: Response, game_id: str, token: str) -> None:
    response.set_cookie(
        cookie_name(game_id),
        token,
        max_age=COOKIE_AGE,
        httponly=True,
        samesite="Lax",
        secure=request.is_secure or bool(current_app.config.get("SESSION_COOKIE_SECURE")),
    )


def held_game_ids() -> list[str]:
    """The games this browser holds: an edit cookie for each game it may change, and the share links it opened."""
    ids = [name[len(COOKIE_PREFIX) :] for name in request.cookies if name.startswith(COOKIE_PREFIX)]
    seen = session.get(SEEN_KEY, [])
    if isinstance(seen, list):
        ids.extend(seen)
    return list(dict.fromkeys(i for i in ids if is_game_id(i)))


def remember_seen(game_id: str) -> None:
    seen = session.get(SEEN_KEY, [])
    if not isinstance(seen, list):
        seen = []
    if seen[:1] == [game_id]:
        return  # unchanged: no new cookie on every refresh of a followed game
    session[SEEN_KEY] = [game_id, *(g for g in seen if g != game_id)][:SEEN_MAX]
    session.permanent = True


def who(channel: str) -> str:
    """A short signature for the audit: the channel, the device's address and its browser family."""
    agent = request.user_agent.string or ""
    family = next(
        (name for key, name in _BROWSERS if key in agent),
        agent.split("/", 1)[0][:30] if agent else "unknown client",
    )
    device = next((name for key, name in _DEVICES if key in agent), "")
    parts = [channel, request.remote_addr or "unknown address", family + (f" on {device}" if device else "")]
    return " · ".join(parts)[:120]


_BROWSERS = (
    ("Edg/", "Edge"),
    ("Firefox/", "Firefox"),
    ("Chrome/", "Chrome"),
    ("Safari/", "Safari"),
    ("curl/", "curl"),
    ("python-requests", "Python"),
    ("Python-urllib", "Python"),
)
_DEVICES = (
    ("Android", "Android"),
    ("iPhone", "iPhone"),
    ("iPad", "iPad"),
    ("Mac OS", "Mac"),
    ("Windows", "Windows"),
    ("Linux", "Linux"),
)


def editor_required(view: View) -> View:
    """The view changes the game named by its ``game_id``: only a holder of that game's edit secret may call it,
    as flaskr's ``login_required`` guards its views. Pages take the secret from this browser's cookie (their
    forms carry CSRF tokens); the JSON API only from ``Authorization: Bearer``, never from a cookie, since it
    takes no CSRF token. An unknown game is a 404, a missing or wrong secret a 403, before the view runs."""

    @functools.wraps(view)
    def guarded(*args: Any, **kwargs: Any) -> Any:
        game_id = kwargs["game_id"]
        api = request.path.startswith("/api/")
        token_hash = (
            db.session.execute(db.select(Game.edit_token_hash).where(Game.id == game_id)).scalar_one_or_none()
            if is_game_id(game_id)
            else None
        )
        if token_hash is None:
            if api:
                from .scorebook import GameNotFound

                raise GameNotFound()
            abort(
                404, description=gettext("There is no game at this address. Check the link you were given.")
            )
        token = bearer_token() if api else request.cookies.get(cookie_name(game_id))
        if not token_matches(token_hash, token):
            if api:
                abort(403, description="send the game's edit token as 'Authorization: Bearer <edit_token>'")
            abort(
                403,
                description=gettext(
                    "Only devices with this game's edit link can change it. "
                    "Ask whoever started the game to share the edit link."
                ),
            )
        return view(*args, **kwargs)

    return guarded  # type: ignore[return-value]
