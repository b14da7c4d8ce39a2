"""German calls the action by the rulebook's word, "Shanghaien" (to shanghai), never
„Shanghai!“ rufen: the button, the board's status and notes, the log, the rules page."""

import re
from pathlib import Path

import polib
from django.conf import settings
from django.utils import translation

from games import words, words_js


def test_the_german_words_of_the_action_say_shanghaien():
    with translation.override("de"):
        assert words.describe_command({"type": "shanghai"}) == "Shanghaien!"
        data = words_js.words_json()
    text = str(data)
    assert "würfeln oder shanghaien" in text
    assert "musst du shanghaien" in text
    assert "hat shanghait" in text


def test_no_german_text_calls_shanghai_out():
    path = Path(settings.BASE_DIR) / "locale" / "de" / "LC_MESSAGES" / "django.po"
    called = re.compile(r"Shanghai!|Shanghai(?!en|t)|rief|gerufen|rufen")
    wrong = [
        entry.msgstr
        for entry in polib.pofile(str(path))
        if "Shanghai" in entry.msgid and not entry.obsolete and called.search(entry.msgstr)
    ]
    assert not wrong
