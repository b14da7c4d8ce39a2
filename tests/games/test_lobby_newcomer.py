"""The lobby as a newcomer sees it: the seed for the dice folded away in each form, with a
line saying what it is for; no id twice on the page."""

import re
from collections import Counter

import pytest

pytestmark = pytest.mark.django_db


def test_the_seed_for_the_dice_is_folded_away_with_a_line_of_explanation(clients):
    page = clients["anna"].get("/").content.decode()
    folded = re.findall(r"<details class=\"advanced\">.*?</details>", page, re.S)
    assert len(folded) == 2  # the computer's form and the invitation's
    for details in folded:
        assert "<summary>Advanced: your seed for the dice</summary>" in details
        assert 'href="/fairness/"' in details
        assert re.search(r'<input type="text" name="client_seed"[^>]*data-client-seed', details)
        assert "Server's commitment for this game:" in details
    outside = re.sub(r"<details class=\"advanced\">.*?</details>", "", page, flags=re.S)
    assert "seed for the dice" not in outside and 'name="client_seed"' not in outside.replace(
        'type="hidden" name="client_seed"', ""
    )  # the accept forms' hidden seeds aside


def test_no_id_is_used_twice_on_the_lobby(clients):
    page = clients["anna"].get("/").content.decode()
    twice = [i for i, n in Counter(re.findall(r'\sid="([^"]+)"', page)).items() if n > 1]
    assert not twice
    assert 'id="id_extra_wild"' in page and 'id="computer_extra_wild"' in page
