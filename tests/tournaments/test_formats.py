"""The pure arithmetic of tournaments: seeding, pairings, brackets, qualifiers, order."""

from itertools import combinations

import pytest

from tournaments import formats
from tournaments.formats import Result


def test_snake_deals_best_first_and_back():
    assert formats.snake(list(range(1, 9)), 2) == [[1, 4, 5, 8], [2, 3, 6, 7]]
    assert formats.snake(list(range(1, 10)), 3) == [[1, 6, 7], [2, 5, 8], [3, 4, 9]]


@pytest.mark.parametrize("players", range(3, 80))
@pytest.mark.parametrize("size", range(3, 9))
def test_groups_never_too_big_or_below_three(players, size):
    groups = formats.snake(list(range(players)), formats.group_count(players, size))
    sizes = [len(g) for g in groups]
    assert sum(sizes) == players and max(sizes) - min(sizes) <= 1
    assert min(sizes) >= 3
    if max(sizes) > size:  # only when smaller groups would be below three
        assert len(groups) == 1 or players // (len(groups) + 1) < 3


def test_uneven_group_sizes():
    assert formats.group_count(10, 4) == 3
    assert [len(g) for g in formats.snake(list(range(10)), 3)] == [3, 3, 4]
    assert formats.group_count(5, 4) == 1  # two groups would leave one of two


@pytest.mark.parametrize("n", [2, 3, 4, 5, 7, 8])
def test_round_robin_pairs_everyone_once(n):
    members = [f"p{i}" for i in range(n)]
    pairs = formats.round_robin(members)
    assert sorted(tuple(sorted(p)) for p in pairs) == sorted(combinations(members, 2))
    assert all(members.index(a) < members.index(b) for a, b in pairs)


def test_bracket_order_is_one_against_n():
    assert formats.bracket_order(8) == [1, 8, 4, 5, 2, 7, 3, 6]
    assert formats.bracket(4) == [(1, 4), (2, 3)]
    assert formats.bracket(2) == [(1, 2)]


@pytest.mark.parametrize("n", [3, 5, 6, 7, 12, 100])
def test_byes_go_to_the_top_seeds(n):
    pairs = formats.bracket(n)
    size = formats.bracket_size(n)
    assert len(pairs) == size // 2
    byes = sorted(a for a, b in pairs if b is None)
    assert byes == list(range(1, size - n + 1))
    seen = [s for pair in pairs for s in pair if s is not None]
    assert sorted(seen) == list(range(1, n + 1))


def test_seeds_one_and_two_meet_only_in_the_final():
    order = formats.bracket_order(16)
    assert order.index(1) < 8 <= order.index(2)


def test_qualifiers_winners_meet_runners_up_of_other_groups():
    placed = [["A1", "A2", "A3"], ["B1", "B2", "B3"], ["C1", "C2", "C3"], ["D1", "D2", "D3"]]
    seeded = formats.qualifiers(placed, 2)
    assert seeded[:4] == ["A1", "B1", "C1", "D1"]
    for a, b in formats.bracket(len(seeded)):
        x, y = seeded[a - 1], seeded[b - 1]
        assert x[1] == "1" and y[1] == "2" and x[0] != y[0]


def test_qualifiers_of_three_groups_with_byes():
    placed = [["A1", "A2"], ["B1", "B2"], ["C1", "C2"]]
    seeded = formats.qualifiers(placed, 2)
    assert sorted(seeded) == sorted(p for g in placed for p in g)
    for a, b in formats.bracket(6):
        if b is not None:
            assert seeded[a - 1][0] != seeded[b - 1][0]
        else:
            assert seeded[a - 1][1] == "1"  # byes go to group winners


def test_standings_three_player_group():
    results = [
        Result("a", "b", 4, 0, "a"),
        Result("a", "c", 2, 2, None),
        Result("b", "c", 3, 1, "b"),
    ]
    table = formats.tally({"a": 1, "b": 2, "c": 3}, results)
    assert (table["a"].match_points, table["a"].game_points, table["a"].played) == (3, 6, 2)
    assert (table["b"].match_points, table["c"].match_points) == (2, 1)
    # a beat b (2 mp) and drew c (1 mp): 2*2 + 1 quarters
    assert table["a"].sonneborn_berger == 5
    assert formats.order(table, results) == ["a", "b", "c"]


def test_three_way_tie_goes_to_the_seed_when_all_else_is_level():
    # a beats b, b beats c, c beats a, each 3-1: everything level, head to head too
    results = [
        Result("a", "b", 3, 1, "a"),
        Result("b", "c", 3, 1, "b"),
        Result("c", "a", 3, 1, "c"),
    ]
    table = formats.tally({"a": 2, "b": 3, "c": 1}, results)
    assert len({(s.match_points, s.game_points, s.sonneborn_berger) for s in table.values()}) == 1
    assert formats.order(table, results) == ["c", "a", "b"]


def test_sonneborn_berger_comes_before_head_to_head():
    # a beat b, but b's wins were over stronger players: b goes first
    won = {("a", "b"): 4, ("a", "c"): 0, ("a", "d"): 3, ("a", "e"): 1, ("b", "c"): 4}
    won |= {("b", "d"): 1, ("b", "e"): 3, ("c", "d"): 3, ("c", "e"): 0, ("d", "e"): 2}
    results = [
        Result(x, y, p, 4 - p, None if p == 2 else (x if p > 2 else y)) for (x, y), p in won.items()
    ]
    table = formats.tally({p: i for i, p in enumerate("abcde", 1)}, results)
    points = {p: (s.match_points, s.game_points, s.sonneborn_berger) for p, s in table.items()}
    assert points == {
        "a": (4, 8, 14),
        "b": (4, 8, 18),
        "c": (4, 7, 14),
        "d": (3, 7, 13),
        "e": (5, 10, 19),
    }
    assert formats.order(table, results) == ["e", "b", "a", "c", "d"]


def test_head_to_head_breaks_a_tie_of_points_and_sb():
    # four players: a and b level on mp, gp and SB; b beat a
    results = [
        Result("a", "b", 1, 3, "b"),
        Result("a", "c", 3, 1, "a"),
        Result("a", "d", 4, 0, "a"),
        Result("b", "c", 4, 0, "b"),
        Result("b", "d", 1, 3, "d"),
        Result("c", "d", 2, 2, None),
    ]
    table = formats.tally({"a": 1, "b": 2, "c": 3, "d": 4}, results)
    a, b = table["a"], table["b"]
    assert (a.match_points, a.game_points) == (b.match_points, b.game_points) == (4, 8)
    a.sonneborn_berger = b.sonneborn_berger  # level SB: the next tie-break decides
    assert formats.order(table, results)[:2] == ["b", "a"]


def test_knockout_tie_break_and_places():
    assert formats.knockout_winner(3, 3, 100, 120, 1, 2) == "b"
    assert formats.knockout_winner(3, 3, 100, 100, 2, 1) == "b"
    assert formats.knockout_winner(4, 2, 0, 500, 2, 1) == "a"
    assert formats.knockout_places(3) == [5, 3, 2]
