"""The score keeper's languages: English, Romanian and German through gettext catalogues (``translations/``).

The language is the one the player chose with the switcher (a ``lang`` cookie), else the best of the browser's
Accept-Language, else English. The API always answers in English: its messages are read by programs (a page
that asks for its own language gets the sentences in it beside them, see ``companion.answers``).

The engine describes phases in English for its own messages; pages word a phase here, from its requirements,
so that each language can put the words together in its own order and agreement. The engine's other sentences
are worded by :mod:`companion.rules.wording` with the catalogue of the page's language (:func:`words`).

>>> from companion.rules.phases import PHASE_LISTS
>>> phase_description(PHASE_LISTS["standard"][2])
'one set of 3 and one run of 4'
>>> all(phase_description(p, list_name=name) == p.description for name, phases in PHASE_LISTS.items()
...     for p in phases.values())
True
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import groupby
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit

from babel import Locale
from babel.lists import format_list
from flask import Blueprint, Flask, abort, current_app, redirect, request
from flask_babel import (  # type: ignore[import-untyped]
    Babel,
    get_locale,
    get_translations,
    lazy_gettext,
)
from flask_babel import gettext as _gettext
from flask_babel import ngettext as _ngettext
from werkzeug.wrappers import Response

from .rules.phases import GroupKind, Phase
from .rules.rulesets import RuleSet
from .rules.wording import ENGLISH, Words

__all__ = [
    "COOKIE",
    "LANGUAGES",
    "LANGUAGE_NAMES",
    "and_list",
    "bp",
    "current_language",
    "init_app",
    "phase_description",
    "plural_samples",
    "ruleset_name",
    "ruleset_title",
    "safe_next",
    "select_locale",
    "words",
]

LANGUAGES = ("en", "ro", "de")
# Each language in its own words: a player who cannot read the page must still find theirs in the list.
LANGUAGE_NAMES = {"en": "English", "ro": "Română", "de": "Deutsch"}
COOKIE = "lang"
COOKIE_MAX_AGE = 400 * 24 * 3600  # the longest browsers keep a cookie
TRANSLATIONS = Path(__file__).resolve().parent / "translations"

babel = Babel()
bp = Blueprint("i18n", __name__)


def gettext(string: str, **variables: Any) -> str:
    """Flask-Babel's ``gettext``, typed."""
    return str(_gettext(string, **variables))


def ngettext(singular: str, plural: str, num: int, **variables: Any) -> str:
    """Flask-Babel's ``ngettext``, typed."""
    return str(_ngettext(singular, plural, num, **variables))


def select_locale() -> str:
    if request.path.startswith("/api/"):
        return "en"
    chosen = request.cookies.get(COOKIE)
    if chosen in LANGUAGES:
        return chosen
    return request.accept_languages.best_match(LANGUAGES) or "en"


def current_language() -> str:
    locale = get_locale()
    return locale.language if locale is not None and locale.language in LANGUAGES else "en"


def safe_next(target: str | None) -> str:
    """A path on this site to go back to; anything else (another host, a scheme, ``//host``, a backslash that
    some browsers read as a slash, control characters) is replaced by the home page."""
    if not target or not target.startswith("/") or target.startswith("//"):
        return "/"
    if "\\" in target or any(ord(c) < 0x20 or ord(c) == 0x7F for c in target):
        return "/"
    parts = urlsplit(target)
    if parts.scheme or parts.netloc:
        return "/"
    return target


@bp.post("/language")
def set_language() -> Response:
    """The switcher: remember the language in a cookie and go back to the page it was chosen on."""
    lang = request.form.get("lang", "")
    if lang not in LANGUAGES:
        abort(400, description=gettext("Choose one of the languages in the list."))
    response = redirect(safe_next(request.form.get("next")), 303)
    response.set_cookie(
        COOKIE,
        lang,
        max_age=COOKIE_MAX_AGE,
        samesite="Lax",
        httponly=True,
        secure=bool(current_app.config.get("SESSION_COOKIE_SECURE")),
    )
    return response


def _here() -> str:
    """Where the switcher sends the player back to, quoted as it came (a player's name may hold "?" or "#")."""
    # An old-style edit link carries the game's secret in its path; a page never writes it out again.
    if "/access/" in request.path:
        return "/"
    query = request.query_string.decode("latin-1")
    return quote(request.path, safe="/:@!$&'()*+,;=-._~") + ("?" + query if query else "")


def plural_samples() -> list[tuple[str, int]]:
    """One number per plural category of the page's language (English: one, other; Romanian: one, few, other),
    for scripts that count on the phone: the page renders each form and the script picks the one
    ``Intl.PluralRules`` names."""
    locale = get_locale() or Locale("en")
    samples: dict[str, int] = {}
    for n in (1, 2, 0, 3, 5, 11, 20, 21, 100, 101, 102):
        samples.setdefault(str(locale.plural_form(n)), n)
    return list(samples.items())


# The rule sets' titles and short names as pages show them; the registry keeps its English for the API.
_TITLES = {
    "standard": lazy_gettext("Phase 10 (standard)"),
    "masters": lazy_gettext("Phase 10 Masters (choose your phase)"),
    "playing-cards": lazy_gettext("Phase 10 with playing cards"),
}
_NAMES = {
    "standard": lazy_gettext("standard"),
    "masters": lazy_gettext("masters"),
    "playing-cards": lazy_gettext("playing cards"),
}


def ruleset_title(name: str, fallback: str) -> str:
    title = _TITLES.get(name)
    return str(title) if title is not None else fallback


def ruleset_name(name: str) -> str:
    shown = _NAMES.get(name)
    return str(shown) if shown is not None else name


def and_list(items: Any) -> str:
    """Names joined as the page's language joins them: "Ana and Ben", "Ana și Ben", "Ana und Ben"."""
    return format_list([str(item) for item in items], locale=current_language())


def _set_or_run(kind: GroupKind, size: int, count: int) -> str:
    if kind is GroupKind.SET:
        if count == 1:
            return gettext("one set of %(size)d", size=size)
        if count == 2:
            return gettext("two sets of %(size)d", size=size)
        return ngettext("%(num)d set of %(size)d", "%(num)d sets of %(size)d", count, size=size)
    if count == 1:
        return gettext("one run of %(size)d", size=size)
    if count == 2:
        return gettext("two runs of %(size)d", size=size)
    return ngettext("%(num)d run of %(size)d", "%(num)d runs of %(size)d", count, size=size)


def _colour(size: int, count: int, playing_cards: bool) -> list[str]:
    if playing_cards:
        one = ngettext(
            "%(num)d card of one colour (red or black)", "%(num)d cards of one colour (red or black)", size
        )
    else:
        one = ngettext("%(num)d card of one colour", "%(num)d cards of one colour", size)
    return [one] * count


def _flush_pair(size: int, distinct: bool) -> str:
    # 004 words two equal flushes as a pair: "2 Four Card Flushes".
    if size == 4:
        return (
            gettext("two four-card flushes of different suits")
            if distinct
            else gettext("two four-card flushes")
        )
    if distinct:
        return gettext("two %(size)d-card flushes of different suits", size=size)
    return gettext("two %(size)d-card flushes", size=size)


def phase_description(phase: Phase, *, list_name: str = "standard") -> str:
    """The phase in the page's language, built from its groups: "one set of 3 and one run of 4".

    ``list_name``: the phase list (a rule set's ``phase_list``); with playing cards a colour is red or black."""
    playing_cards = list_name.startswith("playing-cards")
    parts: list[str] = []
    suit_seen = False
    for req, count in groupby(phase.requirements):
        times = len(list(count))
        if req.kind in (GroupKind.SET, GroupKind.RUN):
            parts.append(_set_or_run(req.kind, req.size, times))
        elif req.kind is GroupKind.COLOR:
            parts.extend(_colour(req.size, times, playing_cards))
        elif times == 2 and not suit_seen:
            parts.append(_flush_pair(req.size, phase.distinct_suits))
            suit_seen = True
        else:
            for _ in range(times):
                if suit_seen and phase.distinct_suits:
                    # 004: "5 Cards of 1 Suit + 3 of Another".
                    parts.append(ngettext("%(num)d of another suit", "%(num)d of another suit", req.size))
                else:
                    parts.append(ngettext("%(num)d card of one suit", "%(num)d cards of one suit", req.size))
                suit_seen = True
    return format_list(parts, locale=current_language()) if parts else ""


def phase_text(number: int | None, rules: Any) -> str:
    """A player's phase as the pages show it: "Phase 2: one set of 3 and one run of 4"."""
    if number is None:
        return gettext("all phases done")
    description = phase_description(rules.phase(number), list_name=rules.phase_list)
    return gettext("Phase %(number)d: %(description)s", number=number, description=description)


def _joined(items: Sequence[str], style: str, lang: str) -> str:
    if not items:
        return ""
    # English chains the parts of a need with "and" ("a 1 and a 2"); other languages list them as usual.
    return format_list(list(items), style="or" if style == "or" else "standard", locale=lang)


def words(rules: RuleSet | None = None) -> Words:
    """The engine's sentences in the page's language (English: the engine's own words, as the API says them).
    ``rules`` says how phases are worded (with playing cards a colour is red or black)."""
    lang = current_language()
    if lang == "en":
        return ENGLISH
    translations = get_translations()
    list_name = rules.phase_list if rules is not None else "standard"
    return Words(
        gettext=translations.gettext,
        ngettext=translations.ngettext,
        join=lambda items, style: _joined(items, style, lang),
        phase=lambda phase: phase_description(phase, list_name=list_name),
    )


def init_app(app: Flask) -> None:
    app.config.setdefault("BABEL_TRANSLATION_DIRECTORIES", str(TRANSLATIONS))
    babel.init_app(app, default_locale="en", locale_selector=select_locale)
    app.register_blueprint(bp)
    app.jinja_env.globals.update(plural_samples=plural_samples)
    app.jinja_env.filters.update(and_list=and_list, ruleset_name=ruleset_name, ruleset_title=ruleset_title)

    @app.context_processor
    def language() -> dict[str, Any]:
        return {
            "lang": current_language(),
            "languages": [(code, LANGUAGE_NAMES[code]) for code in LANGUAGES],
            "here": _here,
        }

    @app.after_request
    def vary(response: Any) -> Any:
        # A page's words depend on both; a cache in between must not hand a German page to an English phone.
        if response.mimetype == "text/html":
            response.vary.add("Accept-Language")
            response.vary.add("Cookie")
        return response
