"""How the app answers a refusal (:class:`companion.inputs.Refused`): one error handler for the whole app.

The JSON API (every ``/api/...`` path, and the views marked :func:`answers_in_json`, which pages call with
``fetch``) answers ``{"error": ..., "code": ..., "field"?: ..., "player"?: ...}`` with the refusal's status; the
English sentence is the contract. A request from a page that sends ``"lang"`` (the referee page does) gets the
sentence in that language too, as ``"shown": {"error": ...}``. A page a browser opens answers with the error page
and the sentence in the page's language. Pages that show a refusal beside a form field catch it themselves and
word it with :func:`sentence`; the command line prints it and exits with status 2.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from flask import Flask, Response, current_app, jsonify, render_template, request
from flask_babel import force_locale, gettext  # type: ignore[import-untyped]
from werkzeug.exceptions import RequestEntityTooLarge

from . import i18n
from .inputs import Refused
from .rules.wording import Words, say

__all__ = ["answers_in_json", "init_app", "sentence"]

View = TypeVar("View", bound=Callable[..., Any])


def answers_in_json(view: View) -> View:
    """Mark a view that pages call with ``fetch``: its refusals are answered in JSON, like the API's."""
    view.answers_in_json = True  # type: ignore[attr-defined]
    return view


def sentence(exc: Refused, words: Words | None = None) -> str:
    """The refusal in the words of ``words`` (the page's language when not given); a refusal with no sentence
    as data keeps its English."""
    if exc.why is None:
        return exc.message
    return say(exc.why, words if words is not None else i18n.words())


def _wants_json() -> bool:
    if request.path.startswith("/api/"):
        return True
    view = current_app.view_functions.get(request.endpoint or "")
    return bool(getattr(view, "answers_in_json", False))


def asked_language() -> str | None:
    """The language a page asked an API answer's sentences in (``"lang"`` in the JSON body or the form)."""
    lang: Any = None
    # Reading the body may itself be what was refused (a body past its limit): then there is no language.
    try:
        if request.is_json:
            body = request.get_json(silent=True)
            lang = body.get("lang") if isinstance(body, dict) else None
        elif request.mimetype in ("multipart/form-data", "application/x-www-form-urlencoded"):
            lang = request.form.get("lang")
    except RequestEntityTooLarge:
        lang = None
    return lang if lang in i18n.LANGUAGES else None


def _json_answer(exc: Refused) -> tuple[Response, int]:
    body = exc.to_dict()
    lang = asked_language()
    if lang is not None:
        with force_locale(lang):
            body["shown"] = {"error": sentence(exc)}
    return jsonify(body), exc.status


def answer(exc: Refused) -> Any:
    if _wants_json():
        return _json_answer(exc)
    title = gettext("Conflict") if exc.status == 409 else gettext("Bad Request")
    if exc.status == 404:
        title = gettext("Not Found")
    return render_template("errors.html", code=exc.status, title=title, message=sentence(exc)), exc.status


def init_app(app: Flask) -> None:
    app.register_error_handler(Refused, answer)
