"""A count meets its noun through ngettext: each counted phrase read with 1 and with 2 in
English, German, French and Italian, and every plural of the catalogues complete."""

import re
from pathlib import Path

import polib
import pytest
from django.conf import settings
from django.template import Context, Template
from django.utils import translation
from django.utils.translation import ngettext

from games import words_js

LANGUAGES = ("en", "de", "fr", "it")
PLACEHOLDER = re.compile(r"%\(\w+\)[sd]")

# (singular, plural, values, {language: (for 1, for 2)})
PHRASES = [
    (
        "At most %(n)d command a second.",
        "At most %(n)d commands a second.",
        {},
        {
            "en": ("At most 1 command a second.", "At most 2 commands a second."),
            "de": ("Höchstens 1 Befehl pro Sekunde.", "Höchstens 2 Befehle pro Sekunde."),
            "fr": ("Au plus 1 commande par seconde.", "Au plus 2 commandes par seconde."),
            "it": ("Al massimo 1 comando al secondo.", "Al massimo 2 comandi al secondo."),
        },
    ),
    (
        "Notifications are on for %(n)d device already: remove it first.",
        "Notifications are on for %(n)d devices already: remove one first.",
        {},
        {
            "en": ("on for 1 device already", "on for 2 devices already"),
            "de": ("auf 1 Gerät eingeschaltet", "auf 2 Geräten eingeschaltet"),
            "fr": ("sur 1 appareil :", "sur 2 appareils :"),
            "it": ("su 1 dispositivo:", "su 2 dispositivi:"),
        },
    ),
    (
        "'client_seed' is at most %(n)d printable ASCII character.",
        "'client_seed' is at most %(n)d printable ASCII characters.",
        {},
        {
            "en": ("1 printable ASCII character.", "2 printable ASCII characters."),
            "de": ("1 druckbares ASCII-Zeichen.", "2 druckbare ASCII-Zeichen."),
            "fr": ("1 caractère ASCII imprimable.", "2 caractères ASCII imprimables."),
            "it": ("1 carattere ASCII stampabile.", "2 caratteri ASCII stampabili."),
        },
    ),
    (
        "Frames are at most %(n)d byte.",
        "Frames are at most %(n)d bytes.",
        {},
        {
            "en": ("1 byte.", "2 bytes."),
            "de": ("1 Byte groß", "2 Bytes groß"),
            "fr": ("1 octet.", "2 octets."),
            "it": ("1 byte.", "2 byte."),
        },
    ),
    (
        "JSON nested more than %(depth)d level deep is refused.",
        "JSON nested more than %(depth)d levels deep is refused.",
        {},
        {
            "en": ("1 level deep", "2 levels deep"),
            "de": ("1 Ebene verschachtelt", "2 Ebenen verschachtelt"),
            "fr": ("1 niveau est", "2 niveaux est"),
            "it": ("1 livello viene", "2 livelli viene"),
        },
    ),
    (
        "%(n)s day",
        "%(n)s days",
        {},
        {
            "en": ("1 day", "2 days"),
            "de": ("1 Tag", "2 Tage"),
            "fr": ("1 jour", "2 jours"),
            "it": ("1 giorno", "2 giorni"),
        },
    ),
    (
        "%(n)d game waiting for your move",
        "%(n)d games waiting for your move",
        {},
        {"en": ("1 game waiting", "2 games waiting")},
    ),
]


def values(n: int, names: dict) -> dict:
    return {"n": n, "limit": n, "depth": n, "max": n, "field": "x", "name": "anna", **names}


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize(("one", "other", "names", "expected"), PHRASES, ids=lambda p: str(p)[:24])
def test_each_counted_phrase_takes_the_form_of_its_number(one, other, names, expected, language):
    if language not in expected:
        pytest.skip("checked in English only")
    with translation.override(language):
        first = ngettext(one, other, 1) % values(1, names)
        second = ngettext(one, other, 2) % values(2, names)
    assert expected[language][0] in first, first
    assert expected[language][1] in second, second


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_rules_page_counts_its_rounds_and_dice(language):
    template = Template(
        "{% load i18n %}{% blocktranslate trimmed count rounds=n %}The game lasts {{ rounds }} "
        "round. At the end, each nationality is scored on its own. The captain with the "
        "stronger crew of a nationality scores the strength of the weaker crew. Whoever has "
        "more points wins.{% plural %}The game lasts {{ rounds }} rounds. At the end, each "
        "nationality is scored on its own. The captain with the stronger crew of a "
        "nationality scores the strength of the weaker crew. Whoever has more points wins."
        "{% endblocktranslate %}"
    )
    starts = {
        "en": ("The game lasts 1 round.", "The game lasts 2 rounds."),
        "de": ("Eine Partie dauert 1 Runde.", "Eine Partie dauert 2 Runden."),
        "fr": ("La partie dure 1 manche.", "La partie dure 2 manches."),
        "it": ("La partita dura 1 round.", "La partita dura 2 round."),
    }[language]
    with translation.override(language):
        for n, start in zip((1, 2), starts, strict=True):
            assert template.render(Context({"n": n})).startswith(start)


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_boards_counted_words_carry_both_forms(language):
    """words_js's counted entries (``_count``) hold a form for one and one for more."""
    with translation.override(language):
        data = words_js.words_json()
    counted = []

    def walk(node, path):
        if isinstance(node, dict) and set(node) == {"one", "other"}:
            counted.append((path, node))
        elif isinstance(node, dict):
            for key, value in node.items():
                walk(value, f"{path}.{key}")

    walk(data, "")
    assert len(counted) >= 8
    for path, forms in counted:
        assert "{n}" in forms["one"] and "{n}" in forms["other"], path
        if language == "en":
            assert forms["one"] != forms["other"], path


@pytest.mark.parametrize("language", ["de", "fr", "it"])
def test_every_plural_of_the_catalogue_is_complete_and_keeps_its_placeholders(language):
    path = Path(settings.BASE_DIR) / "locale" / language / "LC_MESSAGES" / "django.po"
    plurals = [e for e in polib.pofile(str(path)) if e.msgid_plural and not e.obsolete]
    assert len(plurals) >= 30
    for entry in plurals:
        assert "fuzzy" not in entry.flags, entry.msgid
        forms = [entry.msgstr_plural[i] for i in sorted(entry.msgstr_plural)]
        assert len(forms) == 2 and all(forms), entry.msgid
        wanted = set(PLACEHOLDER.findall(entry.msgid_plural))
        for form in forms:
            # a singular may say "1"/"un" instead of the count, never another placeholder
            assert set(PLACEHOLDER.findall(form)) <= wanted, (entry.msgid, form)
