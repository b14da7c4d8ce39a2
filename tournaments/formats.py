"""The arithmetic of tournament formats, pure Python (no Django): seeding, pairings,
brackets, qualifiers and the order of a group's standings.

Players are any hashable keys (the services use entry ids); a *seed* is a player's rank
at the draw, 1 the highest rated. Points follow ``tournaments.models``: a game in
half-points (won 2, drawn 1, lost 0), a match in match points (won 2, drawn 1) and
Sonneborn–Berger in quarters. ``docs/tournaments.md`` says the same in plain words.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field

# The smallest group: fewer players would make a group of one match.
MIN_GROUP = 3


def group_count(players: int, group_size: int) -> int:
    """How many groups ``players`` are drawn into: as many as needed so that none has
    more than ``group_size``, but never so many that one would have fewer than three
    (then fewer, larger groups). At least one."""
    if players <= 0:
        return 0
    groups = -(-players // group_size)  # ceil
    while groups > 1 and players // groups < MIN_GROUP:
        groups -= 1
    return groups


def snake(ranked: Sequence, groups: int) -> list[list]:
    """Deal ``ranked`` (best first) into ``groups`` by rating snake: seeds 1..g into
    groups 1..g, then g+1..2g back from group g to group 1, and so on; each group's
    players stay best first. Sizes differ by at most one."""
    dealt: list[list] = [[] for _ in range(groups)]
    for i, player in enumerate(ranked):
        turn, pos = divmod(i, groups)
        dealt[pos if turn % 2 == 0 else groups - 1 - pos].append(player)
    return dealt


def round_robin(members: Sequence) -> list[tuple]:
    """Every pairing of a group once (the circle method, so that the list reads as
    rounds): ``(a, b)`` with ``a`` the better-seeded when ``members`` is best first."""
    players = list(members)
    if len(players) % 2:
        players.append(None)
    n = len(players)
    pairs = []
    for _round in range(n - 1):
        for i in range(n // 2):
            a, b = players[i], players[n - 1 - i]
            if a is not None and b is not None:
                ia, ib = members.index(a), members.index(b)
                pairs.append((a, b) if ia < ib else (b, a))
        players = [players[0], players[-1], *players[1:-1]]
    return pairs


def bracket_order(size: int) -> list[int]:
    """The seeds of a bracket of ``size`` (a power of two) in the order of its first
    round's slots, so that 1 meets ``size``, 2 meets ``size - 1``, … and 1 and 2 can only
    meet in the final: for 8, ``[1, 8, 4, 5, 2, 7, 3, 6]``."""
    order = [1]
    while len(order) < size:
        total = 2 * len(order) + 1
        order = [s for seed in order for s in (seed, total - seed)]
    return order


def bracket_size(players: int) -> int:
    size = 1
    while size < players:
        size *= 2
    return size


def bracket(players: int) -> list[tuple[int, int | None]]:
    """The first round of a knock-out of ``players`` seeds: pairs of seeds, slot by slot;
    ``None`` is a bye (the top seeds get them, as many as the bracket has room left)."""
    order = bracket_order(bracket_size(players))
    pairs = []
    for i in range(0, len(order), 2):
        a, b = order[i], order[i + 1]
        pairs.append((a, b if b <= players else None))
    return pairs


def qualifiers(placed: Sequence[Sequence], advance: int, group_of: dict | None = None) -> list:
    """The knock-out's seeding of the players who go on from the groups.

    ``placed``: each group's players in their final order. The first ``advance`` of each
    group go on; they are seeded by place (every group winner above every runner-up, and
    so on), and within a place by group. In the bracket (1 v N) the winners then meet
    players placed lower; a first-round pair of two players from the same group is
    undone by swapping the lower one with the lower one of the next pair (then the
    previous) where that leaves both pairs from different groups."""
    order = []
    group_of = dict(group_of or {})
    for place in range(advance):
        for g, players in enumerate(placed):
            if place < len(players):
                order.append(players[place])
                group_of.setdefault(players[place], g)
    if len(order) < 2:
        return order
    pairs = bracket(len(order))
    seeds = {i + 1: p for i, p in enumerate(order)}
    slots = [[seeds[a], seeds[b] if b else None] for a, b in pairs]
    for i, (a, b) in enumerate(slots):
        if b is None or group_of[a] != group_of[b]:
            continue
        for j in [*range(i + 1, len(slots)), *range(i - 1, -1, -1)]:
            c, d = slots[j]
            if d is None:
                continue
            if group_of[a] != group_of[d] and group_of[c] != group_of[b]:
                slots[i][1], slots[j][1] = d, b
                break
    # back to a seed list whose bracket() gives these slots
    result = [None] * len(order)
    for (sa, sb), (a, b) in zip(pairs, slots, strict=True):
        result[sa - 1] = a
        if sb is not None:
            result[sb - 1] = b
    return result


@dataclass
class Standing:
    """One player's line in a group, in the model's units."""

    player: Hashable
    seed: int
    match_points: int = 0  # halves: won 2, drawn 1
    game_points: int = 0  # halves
    sonneborn_berger: int = 0  # quarters
    played: int = 0
    beaten: list = field(default_factory=list)
    drawn: list = field(default_factory=list)


@dataclass(frozen=True)
class Result:
    """A decided match: ``a`` and ``b``, their game half-points and the winner (None:
    a drawn match)."""

    a: Hashable
    b: Hashable
    points_a: int
    points_b: int
    winner: Hashable | None


def tally(seeds: dict, results: Sequence[Result]) -> dict:
    """Each player's standing from the decided matches of their group: ``seeds`` maps a
    player to their seed. Sonneborn–Berger: the match points of each opponent beaten
    and half of each drawn with (in quarters: twice, and once, their halves)."""
    table = {p: Standing(p, s) for p, s in seeds.items()}
    for r in results:
        a, b = table[r.a], table[r.b]
        a.played += 1
        b.played += 1
        a.game_points += r.points_a
        b.game_points += r.points_b
        if r.winner is None:
            a.match_points += 1
            b.match_points += 1
            a.drawn.append(r.b)
            b.drawn.append(r.a)
        else:
            won, lost = (a, b) if r.winner == r.a else (b, a)
            won.match_points += 2
            won.beaten.append(lost.player)
    for s in table.values():
        s.sonneborn_berger = sum(2 * table[o].match_points for o in s.beaten) + sum(
            table[o].match_points for o in s.drawn
        )
    return table


def order(table: dict, results: Sequence[Result]) -> list:
    """The players of a group, first place first: match points, then game points, then
    Sonneborn–Berger, then the match points among the players still level (head to
    head), then the seed."""

    def key(s: Standing):
        return (-s.match_points, -s.game_points, -s.sonneborn_berger)

    ranked = sorted(table.values(), key=lambda s: (key(s), s.seed))
    out, i = [], 0
    while i < len(ranked):
        j = i
        while j + 1 < len(ranked) and key(ranked[j + 1]) == key(ranked[i]):
            j += 1
        tied = ranked[i : j + 1]
        if len(tied) > 1:
            among = {s.player for s in tied}
            head = tally(
                {s.player: s.seed for s in tied},
                [r for r in results if r.a in among and r.b in among],
            )
            tied = sorted(tied, key=lambda s: (-head[s.player].match_points, s.seed))
        out += [s.player for s in tied]
        i = j + 1
    return out


def knockout_winner(
    points_a: int, points_b: int, score_a: int, score_b: int, seed_a: int, seed_b: int
) -> str:
    """The written tie-break of a knock-out match level after its third game: the higher
    total score of the match's games, then the higher seed. "a" or "b"."""
    if points_a != points_b:
        return "a" if points_a > points_b else "b"
    if score_a != score_b:
        return "a" if score_a > score_b else "b"
    return "a" if seed_a < seed_b else "b"


def knockout_places(rounds: int) -> list[int]:
    """The final place of a player knocked out in each round of a knock-out of
    ``rounds`` rounds (the first round first): the final's loser is 2nd, the semi-finals'
    3rd, the quarter-finals' 5th, and so on (a round of m matches: m + 1)."""
    return [2 ** (rounds - 1 - r) + 1 for r in range(rounds)]
