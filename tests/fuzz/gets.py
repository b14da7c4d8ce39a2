"""The paths of the hostile GETs: read-only pages and answers, whatever the path or the
query holds."""

from __future__ import annotations

from hypothesis import strategies as st

from .hostile_forms import JUNK_IDS, path_part, quoted
from .strategies import hostile_text

GET_PAGES = [
    "profile",
    "game",
    "replay",
    "replay-page",
    "analysis",
    "games-list",
    "api-games",
    "live",
    "note",
    "next",
    "players",
    "api-players",
    "moderation",
    "tournaments",
    "tournament",
]

# The tournaments' pages and answers: the list (its cursor anything), one tournament.
TOURNAMENT_PAGES = ["/tournaments/", "/api/tournaments/", "/tournaments/rules/"]

names_in_paths = st.one_of(
    st.sampled_from(
        ["anna", "Anna", "nobody", "x" * 150, "x" * 151, "x" * 3000, "é", "a.b@c+d-e_f"]
    ),
    hostile_text.filter(bool),
)

# The replay: its JSON, its page, or the page's analysis section.
REPLAYS = {
    "replay": "/api/games/{}/replay/",
    "replay-page": "/games/{}/replay/",
    "analysis": "/games/{}/replay/analysis/",
}


# A player's list of games (the page, the API) and the live games: their filters and
# cursors, each a valid value mostly, or junk; repeated, empty or left without "=".
LISTS = {"games-list": "/games/", "api-games": "/api/games/", "live": "/live/"}
LIST_VALUES = {
    "status": ["finished", "active", "over", ""],
    "opponent": ["bernd", "CARL", "nobody", "x" * 150, "x" * 151],
    "variant": ["standard", "extra_wild", "wild", ""],
    "rated": ["rated", "casual", "true", "1"],
    "result": ["won", "lost", "drawn", "win"],
    "before": ["1.1", "99999999999999999999.1", "1.99999999999999999999", "-1.2", "x"],
    "after": ["1.1", "0.1.1", "1.9999999999999999999.1", "9" * 19 + ".1", "x"],
}


def list_query(draw) -> str:
    names = draw(st.lists(st.sampled_from(sorted(LIST_VALUES)), max_size=5))
    parts = []
    for name in names:
        value = draw(st.one_of(st.sampled_from(LIST_VALUES[name]), names_in_paths))
        parts.append(draw(st.sampled_from([f"{name}={quoted(value)}", name, f"{name}="])))
    parts += draw(
        st.lists(st.sampled_from(["%00=1", "status=%ED%A0%80", "result=%FF%FE"]), max_size=1)
    )
    return "&".join(parts)


def get_path(draw, page: str, game_ids: list[int], finished: int) -> str:
    """A path of ``page`` (one of ``GET_PAGES``) to draw: the games are ``game_ids``, and
    the pages of a finished game's replay meet ``finished`` more often."""
    if page == "profile":
        return f"/users/{draw(path_part(['anna', 'bernd', 'carl', 'x' * 151]))}/"
    if page == "game":
        return f"/api/games/{draw(path_part(game_ids))}/"
    if page == "note":
        return f"/api/games/{draw(path_part(game_ids + [finished]))}/note/"
    if page == "next":  # the header's "Next game", from a board or not
        after = draw(st.one_of(path_part(game_ids + [finished]), names_in_paths))
        return draw(st.sampled_from(["/next/", "/next/?after=" + quoted(after), "/next/?after"]))
    if page in ("players", "api-players"):  # the search: its page and its endpoint
        base = "/players/" if page == "players" else "/api/players/"
        q = draw(st.one_of(names_in_paths, st.sampled_from(["an", "A", "", " b ", "%", "_"])))
        after = draw(st.one_of(names_in_paths, st.sampled_from(["ANNA", "BERND", ""])))
        query = draw(
            st.sampled_from(
                [
                    "q=" + quoted(q),
                    "q=" + quoted(q) + "&after=" + quoted(after),
                    "q=" + quoted(q) + "&q=anna",
                    "after=" + quoted(after),
                    "q",
                    "q=%ED%A0%80",
                    "q=%FF%FE",
                    "q=an&after=%00",
                ]
            )
        )
        return base + "?" + query
    if page == "moderation":  # the moderators' console, its page number anything
        number = draw(st.one_of(st.sampled_from(JUNK_IDS + ["1", "2", "last"]), names_in_paths))
        return "/moderation/?page=" + quoted(number)
    if page in LISTS:
        return LISTS[page] + "?" + list_query(draw)
    if page == "tournaments":
        status = draw(st.sampled_from(["signup", "running", "over", "", "%00"]))
        after = draw(st.one_of(names_in_paths, st.sampled_from(["MXwyMDMwfDE", "x", ""])))
        query = draw(
            st.sampled_from(
                [
                    "status=" + status,
                    "status=" + status + "&after=" + quoted(after),
                    "which=" + status + "&after=" + quoted(after),
                    "after",
                    "after=%ED%A0%80",
                ]
            )
        )
        return draw(st.sampled_from(TOURNAMENT_PAGES)) + "?" + query
    if page == "tournament":
        base = draw(st.sampled_from(["/tournaments/{}/", "/api/tournaments/{}/"]))
        return base.format(draw(path_part([1, 2, 3])))
    as_ = draw(st.one_of(names_in_paths, st.sampled_from(["anna", "bernd", "BERND", ""])))
    query = draw(
        st.sampled_from(
            [
                "as=" + quoted(as_),
                "as=" + quoted(as_) + "&as=anna",
                "as",
                "%00=1&as=" + quoted(as_),
                "as=%ED%A0%80",
                "as=%FF%FE",
            ]
        )
    )
    games = game_ids + [finished] * (0 if page == "replay" else 6)
    return REPLAYS[page].format(draw(path_part(games))) + "?" + query
