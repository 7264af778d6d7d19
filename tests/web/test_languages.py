"""Languages: English, Romanian and German pages, chosen from Accept-Language or the switcher; the switcher's
redirect stays on this site; phases worded in each language; every catalogue complete and compiled."""

from __future__ import annotations

import json
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


# --------------------------------------------------------------------------------------------- the referee

GAP = "phase=2&cards=R7+B7+G7+|+G3+Y4+R6+B7"


@pytest.mark.parametrize(
    ("lang", "texts"),
    [
        (
            "en",
            (
                "Check a phase",
                "✗ Not valid",
                "the run G3 Y4 R6 B7 has a gap at 5",
                "2: one set of 3 and one run",
            ),
        ),
        (
            "ro",
            (
                "Verifică o fază",
                "✗ Nu este valid",
                "șirul G3 Y4 R6 B7 are un gol la 5",
                "2: un set de 3 și un șir",
            ),
        ),
        (
            "de",
            (
                "Phase prüfen",
                "✗ Nicht gültig",
                "die Folge G3 Y4 R6 B7 hat eine Lücke bei 5",
                "2: ein 3er-Satz und",
            ),
        ),
    ],
)
def test_the_referee_page_and_the_engines_reasons_in_each_language(client, lang, texts):
    page = client.get(f"/referee/?{GAP}", headers={"Accept-Language": lang}).get_data(as_text=True)
    assert _html_lang(page) == lang
    for text in texts:
        assert text in page, (lang, text)


def test_a_valid_lay_down_is_titled_in_the_pages_language(client):
    page = client.get(
        "/referee/?phase=2&cards=R7+B7+G7+|+W+R4+R5+R6", headers={"Accept-Language": "ro"}
    ).get_data(as_text=True)
    assert "✓ Valid: faza 2 (un set de 3 și un șir de 4)" in page and "Șir 3–6" in page and "W = 3" in page


def test_the_referee_api_reason_stays_english_and_a_page_gets_its_own_language_beside_it(client):
    body = {"phase": 2, "groups": [["R7", "B7", "G7"], ["G3", "Y4", "R6", "B7"]]}
    plain = client.post("/api/check", json=body).json
    assert plain["reason"] == "the run G3 Y4 R6 B7 has a gap at 5" and "shown" not in plain
    german = client.post("/api/check", json={**body, "lang": "de"}).json
    assert german["reason"] == plain["reason"] and german["code"] == plain["code"] == "group_invalid"
    assert german["shown"] == {
        "reason": "die Folge G3 Y4 R6 B7 hat eine Lücke bei 5",
        "description": "ein 3er-Satz und eine 4er-Folge",
        "groups": [],
    }
    hit = client.post(
        "/api/check", json={"kind": "run", "onto": "W R4 R5 R6", "cards": "W R7", "lang": "ro"}
    ).json
    assert hit["note"].startswith("W as 8 (high end)") and hit["shown"]["note"].startswith(
        "W ca 8 (capătul de sus)"
    )
    assert hit["shown"]["group"]["title"] == "Șir 3–8"


def test_a_refusal_keeps_its_english_error_and_shows_a_page_its_own_language(client):
    refused = client.post("/api/check", json={"phase": 1, "cards": ["R13"], "lang": "ro"})
    assert (
        refused.status_code == 400
        and refused.json["code"] == "bad_input"
        and refused.json["field"] == "cards"
    )
    assert refused.json["error"] == "'R13' is not a card: numbers run from 1 to 12"
    assert refused.json["shown"] == {"error": "'R13' nu este o carte: numerele merg de la 1 la 12"}
    plain = client.post("/api/check", json={"phase": 1, "cards": ["R13"]}).json
    assert "shown" not in plain and plain["error"] == refused.json["error"]


def test_hand_advice_in_the_pages_language(client):
    body = {"phase": 1, "cards": ["R5", "B5", "W", "G8", "Y8", "R11"], "lang": "de"}
    advice = client.post("/api/advise", json=body).json
    assert advice["summary"] == "two sets of 3: have 5 5 W and 8 8 — need one more 8, or a wild"
    assert (
        advice["shown"]["summary"]
        == "zwei 3er-Sätze: du hast 5 5 W und 8 8 — du brauchst noch eine 8 oder einen Joker"
    )
    assert (
        advice["shown"]["missing"] == "1 Karte fehlt"
        and advice["shown"]["groups"][1]["need"] == "noch eine 8"
    )


def test_the_referee_script_gets_its_words_from_the_page(client):
    page = client.get("/referee/?mode=hit", headers={"Accept-Language": "ro"}).get_data(as_text=True)
    match = re.search(r'<script type="application/json" id="referee-words">(.*?)</script>', page, re.S)
    assert match
    words = json.loads(match.group(1))
    assert words["legal"] == "✓ Adăugare permisă" and words["rows"]["onto"]["label"].startswith(
        "Grupul de pe masă"
    )
    # One text per plural form of Romanian, for Intl.PluralRules to pick from.
    assert set(words["found"]) == {"one", "few", "other"} and words["found"]["one"] == "{n} carte găsită"
    state = re.search(r'<script type="application/json" id="referee-state">(.*?)</script>', page, re.S)
    assert state and json.loads(state.group(1))["lang"] == "ro"


def test_a_refusal_a_page_does_not_catch_is_answered_with_the_error_page_in_its_language(database):
    from companion.inputs import BadInput
    from companion.rules.wording import reason

    app = make_app(database)

    @app.get("/refused-here")
    def refused_here() -> str:
        raise BadInput(reason("skip_in_phase"))

    page = app.test_client().get("/refused-here", headers={"Accept-Language": "de"})
    assert page.status_code == 400
    assert "eine Aussetzen-Karte kann nie Teil einer Phase sein" in page.get_data(as_text=True)


def test_the_engines_reasons_on_the_round_form_are_in_the_pages_language(client):
    """A round the engine refuses (001 "Going out": only a player who laid down can go out) shows its reason
    beside the player in the page's language: the engine gives a code and its values, the page the words."""
    table = _new_game(client)
    data = {"round": "1", "went_out": "Ana", "p0_points": "10", "p1_points": "15", "save": "1"}
    english = client.post(table + "/round", data=data).get_data(as_text=True)
    romanian = client.post(table + "/round", data=data, headers={"Accept-Language": "ro"})
    text = romanian.get_data(as_text=True)
    assert "Ana went out without laying down a phase" in english
    assert romanian.status_code == 400
    assert "Ana a închis fără să etaleze o fază" in text and "went out without" not in text
    assert client.get(table, headers={"Accept-Language": "ro"}).status_code == 200  # and nothing was saved:
    assert "Runda 1" not in client.get(table + "/history", headers={"Accept-Language": "ro"}).get_data(
        as_text=True
    )
