"""Languages: English, Romanian and German pages, chosen from Accept-Language or the switcher; the switcher's
redirect stays on this site; phases worded in each language; every catalogue complete and compiled."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from babel.messages.frontend import CommandLineInterface
from babel.messages.mofile import read_mo, write_mo
from babel.messages.pofile import read_po
from flask_babel import force_locale

from companion.i18n import COOKIE, LANGUAGES, phase_description, phase_text
from companion.rules import get_ruleset
from companion.rules.phases import PHASE_LISTS

from .conftest import make_app

ROOT = Path(__file__).resolve().parents[2]
TRANSLATIONS = ROOT / "companion" / "translations"
TRANSLATED = tuple(lang for lang in LANGUAGES if lang != "en")


def _html_lang(page: str) -> str:
    match = re.search(r'<html lang="([^"]+)">', page)
    assert match, page[:200]
    return match.group(1)


def _new_game(client, headers=None, **fields) -> str:
    data = {"names-0": "Ana", "names-1": "Ben", "rules": "standard", "last_phase": "10", "first_dealer": "0"}
    data.update(fields)
    answer = client.post("/games/new", data=data, headers=headers or {})
    assert answer.status_code == 302, answer.get_data(as_text=True)[:500]
    return answer.headers["Location"]


def test_a_romanian_browser_gets_romanian_pages(client):
    page = client.get("/", headers={"Accept-Language": "ro"}).get_data(as_text=True)
    assert _html_lang(page) == "ro"
    assert "Începe un joc" in page and "Jocurile tale" in page
    assert "Start a game" not in page


def test_a_german_browser_gets_german_pages(client):
    page = client.get("/", headers={"Accept-Language": "de-DE,de;q=0.9"}).get_data(as_text=True)
    assert _html_lang(page) == "de"
    assert "Spiel starten" in page and "Deine Spiele" in page


@pytest.mark.parametrize("header", [None, "fr-FR,fr;q=0.9,ja;q=0.5", "*", "xx"])
def test_any_other_browser_gets_english(client, header):
    headers = {"Accept-Language": header} if header else {}
    page = client.get("/", headers=headers).get_data(as_text=True)
    assert _html_lang(page) == "en" and "Start a game" in page


def test_the_best_accepted_language_wins(client):
    page = client.get("/", headers={"Accept-Language": "fr;q=1, de;q=0.8, ro;q=0.5"}).get_data(as_text=True)
    assert _html_lang(page) == "de"


def test_the_switcher_sticks_and_overrides_accept_language(client):
    page = client.get("/players/", headers={"Accept-Language": "ro"}).get_data(as_text=True)
    # The switcher is a plain form: it works without script and sends the player back where they were.
    assert 'action="/language"' in page and 'name="next" value="/players/"' in page
    assert '<option value="ro" lang="ro" selected>Română</option>' in page
    answer = client.post("/language", data={"lang": "de", "next": "/players/"})
    assert answer.status_code == 303 and answer.headers["Location"] == "/players/"
    cookie = client.get_cookie(COOKIE)
    assert cookie is not None and cookie.value == "de" and cookie.http_only
    for path in ("/", "/players/", "/games/new"):
        again = client.get(path, headers={"Accept-Language": "ro"}).get_data(as_text=True)
        assert _html_lang(again) == "de", path
    client.post("/language", data={"lang": "en", "next": "/"})
    assert _html_lang(client.get("/", headers={"Accept-Language": "ro"}).get_data(as_text=True)) == "en"


def test_an_unknown_language_or_cookie_is_refused_or_ignored(client):
    assert client.post("/language", data={"lang": "fr", "next": "/"}).status_code == 400
    client.set_cookie(COOKIE, "xx")
    page = client.get("/", headers={"Accept-Language": "ro"}).get_data(as_text=True)
    assert _html_lang(page) == "ro"


@pytest.mark.parametrize(
    "target",
    [
        "https://evil.example/",
        "//evil.example/games",
        "///evil.example",
        "/\\evil.example",
        "\\\\evil.example",
        "javascript:alert(1)",
        "http:/evil.example",
        " //evil.example",
        "/\t/evil.example",
        "/ok\r\nSet-Cookie: x=1",
        "evil.example",
        "",
    ],
)
def test_the_switcher_redirects_on_this_site_only(client, target):
    answer = client.post("/language", data={"lang": "ro", "next": target})
    assert answer.status_code == 303
    location = urlsplit(answer.headers["Location"])
    assert location.netloc in ("", "localhost") and location.scheme in ("", "http")
    assert answer.headers["Location"] == "/"


def test_the_switcher_keeps_a_path_and_its_query(client):
    answer = client.post("/language", data={"lang": "ro", "next": "/games/new?x=1"})
    assert answer.headers["Location"] == "/games/new?x=1"


def test_the_switcher_needs_the_csrf_token(database):
    app = make_app(database, WTF_CSRF_ENABLED=True)
    client = app.test_client()
    refused = client.post("/language", data={"lang": "de", "next": "/"}, headers={"Accept-Language": "ro"})
    assert refused.status_code == 400 and "Formular expirat" in refused.get_data(as_text=True)
    assert client.get_cookie(COOKIE) is None
    page = client.get("/").get_data(as_text=True)
    token = re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)
    answer = client.post("/language", data={"lang": "de", "next": "/", "csrf_token": token})
    assert answer.status_code == 303 and client.get_cookie(COOKIE).value == "de"


def test_the_table_and_round_pages_in_each_language(client):
    table = _new_game(client, {"Accept-Language": "ro"})
    expected = {
        "en": ("Phase 1: two sets of 3", "<strong>Ana</strong> deals", "Enter round 1", "Went out"),
        "ro": ("Faza 1: două seturi de 3", "Împarte <strong>Ana</strong>", "Introdu runda 1", "A închis"),
        "de": ("Phase 1: zwei 3er-Sätze", "<strong>Ana</strong> gibt", "Runde 1 eintragen", "Raus"),
    }
    for lang, (phase, dealer, enter, went_out) in expected.items():
        page = client.get(table, headers={"Accept-Language": lang}).get_data(as_text=True)
        assert _html_lang(page) == lang
        assert phase in page and dealer in page and enter in page, lang
        form = client.get(table + "/round", headers={"Accept-Language": lang}).get_data(as_text=True)
        assert went_out in form and phase in form, lang


def test_form_messages_and_flashes_are_translated(client):
    de = {"Accept-Language": "de"}
    one = client.post(
        "/games/new", data={"names-0": "Ana", "rules": "standard", "last_phase": "10"}, headers=de
    )
    assert one.status_code == 400 and "mindestens 2 Spielern" in one.get_data(as_text=True)
    table = _new_game(client, de)
    flashed = client.get(table, headers=de).get_data(as_text=True)
    assert "Das Spiel läuft." in flashed
    bad = client.post(
        table + "/round",
        data={"round": "1", "went_out": "Ana", "p1_points": "zwölf"},
        headers={"Accept-Language": "ro"},
    )
    text = bad.get_data(as_text=True)
    # WTForms' own messages come from its catalogues, the form's from ours.
    assert bad.status_code == 400 and "Număr întreg invalid." in text
    saved = client.post(
        table + "/round",
        data={"round": "1", "went_out": "Ana", "p0_down": "y", "p1_points": "15", "save": "1"},
        headers={"Accept-Language": "ro"},
        follow_redirects=True,
    ).get_data(as_text=True)
    assert "Runda 1 a fost salvată." in saved and "la 1 fază de Ana" in saved


def test_error_pages_are_translated_and_the_api_stays_english(client):
    missing = client.get("/games/nosuchgame00", headers={"Accept-Language": "de"})
    page = missing.get_data(as_text=True)
    assert (
        missing.status_code == 404
        and "Nicht gefunden" in page
        and "Unter dieser Adresse gibt es kein Spiel" in page
    )
    nothing = client.get("/no/such/page", headers={"Accept-Language": "ro"}).get_data(as_text=True)
    assert "Nu există nimic la această adresă." in nothing
    api = client.get("/api/games/nosuchgame00", headers={"Accept-Language": "de"})
    english = client.get("/api/games/nosuchgame00")
    assert api.status_code == 404 and api.json["error"] == english.json["error"]


def test_pages_vary_on_language(client):
    answer = client.get("/", headers={"Accept-Language": "ro"})
    assert "Accept-Language" in answer.headers["Vary"] and "Cookie" in answer.headers["Vary"]


def test_scripts_get_their_words_from_the_page(client, api_game):
    game = api_game(["Ana", "Ben"])
    game.login()
    page = game.client.get(f"/games/{game.id}/round", headers={"Accept-Language": "ro"}).get_data(
        as_text=True
    )
    # One text per plural form of Romanian (one, few, other), for Intl.PluralRules to pick from.
    assert 'data-waiting-one="{n} rundă în așteptare' in page
    assert 'data-waiting-few="{n} runde în așteptare' in page
    assert 'data-waiting-other="{n} de runde în așteptare' in page
    assert 'data-refused="Runda {round} nu a fost salvată' in page
    assert 'data-restored="Ciorna acestei runde a revenit' in page
    assert 'data-counters="(numărătoare: {sum})"' in page
    table = game.client.get(f"/games/{game.id}", headers={"Accept-Language": "de"}).get_data(as_text=True)
    assert 'data-text="Seit {s} s nicht aktualisiert' in table and 'data-copied="Kopiert"' in table
    new = game.client.get("/games/new", headers={"Accept-Language": "de"}).get_data(as_text=True)
    assert 'data-player="Spieler {n}"' in new


def test_phase_descriptions_in_english_are_the_engines(app):
    with app.test_request_context(headers={"Accept-Language": "en"}):
        for name, phases in PHASE_LISTS.items():
            for phase in phases.values():
                assert phase_description(phase, list_name=name) == phase.description


# "set" is Romanian too ("un set de 3").
ENGLISH_WORDS = re.compile(r"\b(one|two|sets|runs?|cards?|colou?r|suits?|flush(es)?|another|and|of)\b")


@pytest.mark.parametrize(
    ("lang", "phase", "rules", "expected"),
    [
        ("ro", 1, "standard", "Faza 1: două seturi de 3"),
        ("ro", 2, "standard", "Faza 2: un set de 3 și un șir de 4"),
        ("ro", 4, "standard", "Faza 4: un șir de 7"),
        ("ro", 8, "standard", "Faza 8: 7 cărți de aceeași culoare"),
        ("ro", 7, "playing-cards", "Faza 7: 8 cărți roșii sau 8 negre"),
        ("ro", 8, "playing-cards", "Faza 8: două culori de câte 4 cărți"),
        ("ro", 9, "playing-cards", "Faza 9: 5 cărți de aceeași culoare și 3 de altă culoare"),
        ("de", 1, "standard", "Phase 1: zwei 3er-Sätze"),
        ("de", 2, "standard", "Phase 2: ein 3er-Satz und eine 4er-Folge"),
        ("de", 6, "standard", "Phase 6: eine 9er-Folge"),
        ("de", 8, "standard", "Phase 8: 7 Karten einer Farbe"),
        ("de", 9, "standard", "Phase 9: ein 5er-Satz und ein 2er-Satz"),
        ("de", 7, "playing-cards", "Phase 7: 8 rote oder 8 schwarze Karten"),
        ("de", 8, "playing-cards", "Phase 8: zweimal 4 Karten einer Farbe"),
        ("de", 10, "playing-cards", "Phase 10: 5 Karten einer Farbe und 4 einer anderen Farbe"),
        ("en", 10, "standard", "Phase 10: one set of 5 and one set of 3"),
    ],
)
def test_phase_text_in_each_language(app, lang, phase, rules, expected):
    with app.test_request_context(headers={"Accept-Language": lang}):
        assert phase_text(phase, get_ruleset(rules)) == expected


@pytest.mark.parametrize("lang", TRANSLATED)
def test_every_phase_of_every_list_is_worded_without_english(app, lang):
    with app.test_request_context(), force_locale(lang):
        for name, phases in PHASE_LISTS.items():
            for phase in phases.values():
                text = phase_description(phase, list_name=name)
                assert text and not ENGLISH_WORDS.search(text), (name, phase.number, text)
        distinct = get_ruleset("playing-cards", flushes_share_suit=False)
        assert phase_text(8, distinct) != phase_text(8, get_ruleset("playing-cards"))


def _key(value: object) -> object:
    return value if isinstance(value, str) else tuple(value)


def _po(lang: str):
    with open(TRANSLATIONS / lang / "LC_MESSAGES" / "messages.po", "rb") as f:
        return read_po(f, locale=lang)


@pytest.mark.parametrize("lang", TRANSLATED)
def test_every_message_is_translated(lang):
    catalog = _po(lang)
    untranslated = []
    for message in catalog:
        if not message.id:
            continue
        forms = message.string if isinstance(message.string, tuple) else (message.string,)
        if (
            message.fuzzy
            or not all(forms)
            or len(forms) != (catalog.num_plurals if message.pluralizable else 1)
        ):
            untranslated.append(message.id)
    assert not untranslated
    assert len(catalog) > 150


@pytest.fixture(scope="module")
def extracted(tmp_path_factory: pytest.TempPathFactory) -> set[object]:
    """The messages the sources hold now, extracted as the README says."""
    pot = tmp_path_factory.mktemp("pot") / "messages.pot"
    args = ["pybabel", "-q", "extract", "-F", str(ROOT / "companion" / "babel.cfg"), "-k", "lazy_gettext"]
    CommandLineInterface().run([*args, "-o", str(pot), str(ROOT)])
    with open(pot, "rb") as f:
        return {_key(m.id) for m in read_po(f) if m.id}


@pytest.mark.parametrize("lang", TRANSLATED)
def test_the_catalogues_hold_every_message_of_the_sources(lang, extracted):
    held = {_key(m.id) for m in _po(lang) if m.id}
    assert not extracted - held, "run pybabel extract and update (companion/babel.cfg), then translate"


@pytest.mark.parametrize("lang", TRANSLATED)
def test_the_compiled_catalogues_are_current(lang, tmp_path):
    fresh = tmp_path / "messages.mo"
    with open(fresh, "wb") as f:
        write_mo(f, _po(lang))
    with open(fresh, "rb") as f:
        want = {_key(m.id): _key(m.string) for m in read_mo(f) if m.id}
    with open(TRANSLATIONS / lang / "LC_MESSAGES" / "messages.mo", "rb") as f:
        have = {_key(m.id): _key(m.string) for m in read_mo(f) if m.id}
    assert have == want, "run pybabel compile -d companion/translations"


def test_the_switcher_comes_back_to_a_player_page_whatever_the_name(client):
    _new_game(client, **{"names-0": "Zoë?#"})
    page = client.get("/players/Zo%C3%AB%3F%23").get_data(as_text=True)
    assert 'name="next" value="/players/Zo%C3%AB%3F%23"' in page
    answer = client.post("/language", data={"lang": "ro", "next": "/players/Zo%C3%AB%3F%23"})
    assert client.get(answer.headers["Location"]).status_code == 200


def test_an_edit_secret_in_a_path_is_never_written_back(client, api_game):
    game = api_game(["Ana", "Ben"])
    refused = client.get(f"/games/{game.id}/access/not-the-secret-{game.token[:4]}")
    assert refused.status_code == 403
    assert "not-the-secret" not in refused.get_data(as_text=True)
