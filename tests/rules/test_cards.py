from collections import Counter

from games.rules import CARDS, DECK, NATIONS, TRICK_ACTIONS
from games.rules.cards import EXTRA_WILD_IDS, all_card_ids


def test_deck_has_40_sailors_and_8_tricks():
    kinds = Counter(CARDS[c].kind for c in DECK)
    assert len(DECK) == len(set(DECK)) == 48
    assert kinds == {"sailor": 40, "trick": 8}


def test_each_nation_has_values_1_2_3_3_4_for_13_strength():
    for nation in NATIONS:
        values = sorted(CARDS[c].value for c in DECK if CARDS[c].nation == nation)
        assert values == [1, 2, 3, 3, 4]
        assert sum(values) == 13
    assert len(NATIONS) == 8


def test_trick_split_decision_is_3_adjust_3_both_2_reroll():
    assert Counter(TRICK_ACTIONS) == {"adjust": 3, "both": 3, "reroll": 2}
    assert Counter(CARDS[c].action for c in DECK if CARDS[c].kind == "trick") == Counter(
        TRICK_ACTIONS
    )


def test_extra_wild_cards_are_outside_the_deck_and_offer_die_plus_minus_one():
    assert not set(EXTRA_WILD_IDS) & set(DECK)
    assert all(CARDS[c].kind == "trick" and CARDS[c].action == "adjust" for c in EXTRA_WILD_IDS)
    assert len(all_card_ids(True)) == 50
    assert len(all_card_ids(False)) == 48
