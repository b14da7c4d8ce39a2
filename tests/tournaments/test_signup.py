"""Creating a tournament and signing up: every bad term and every refusal has its code
and changes nothing."""

import datetime as dt

import pytest
from django.utils import timezone

from games.clock import Bank
from shanghaien.lib.errors import BadRequest, Conflict, Forbidden, NotFound
from tournaments.models import Entry, Tournament
from tournaments.services import entries, stages

from .conftest import open_tournament

pytestmark = pytest.mark.django_db


def soon(**delta):
    return timezone.now() + dt.timedelta(**(delta or {"days": 2}))


GOOD = {"name": "Spring cup", "format": "knockout", "min_players": 3}


@pytest.mark.parametrize(
    "terms, field",
    [
        ({"name": ""}, "name"),
        ({"name": "x" * 81}, "name"),
        ({"name": "a\x00b"}, "name"),
        ({"format": "swiss"}, "format"),
        ({"signup_deadline": soon(minutes=30)}, "signup_deadline"),
        ({"signup_deadline": soon(days=31)}, "signup_deadline"),
        ({"signup_deadline": "tomorrow"}, "signup_deadline"),
        ({"signup_deadline": dt.datetime(2030, 1, 1)}, "signup_deadline"),
        ({"days_per_move": 4}, "days_per_move"),
        ({"days_per_move": 3.0}, "days_per_move"),
        ({"rated": "yes"}, "rated"),
        ({"bank": Bank(0, 24, 72)}, "bank.start_hours"),
        ({"bank": Bank(72, 24, 48)}, "bank.cap_hours"),
        ({"bank": Bank(72, 24, 721)}, "bank.cap_hours"),
        ({"bank": Bank(25, 24, 168)}, "bank.start_hours"),
        ({"bank": Bank(72, 6, 168)}, "bank.increment_hours"),
        ({"bank": Bank(72.0, 24, 168)}, "bank.start_hours"),
        ({"bank": {"start": 3}}, "bank"),
        ({"min_rating": 1800, "max_rating": 1500}, "max_rating"),
        ({"min_rating": -1}, "min_rating"),
        ({"min_players": 1}, "min_players"),
        ({"max_players": 257}, "max_players"),
        ({"min_players": 8, "max_players": 4}, "max_players"),
        ({"format": "round_robin", "max_players": 13}, "max_players"),
        ({"format": "groups_knockout", "group_size": 9}, "group_size"),
        ({"format": "groups_knockout", "group_size": 2}, "group_size"),
        ({"format": "groups_knockout", "group_size": 4, "advance": 4}, "advance"),
        ({"advance": True}, "advance"),
        ({"colour": "red"}, "colour"),
    ],
)
def test_bad_terms_are_refused_naming_the_field(make_players, terms, field):
    (user,) = make_players(1)
    with pytest.raises(BadRequest) as refused:
        entries.do_create(user, **{**GOOD, "signup_deadline": soon(), **terms})
    # the bank is checked as an invitation's (games.services.invitations.check_bank)
    codes = ("bad_bank",) if field.startswith("bank") else ("bad_tournament", "bad_text")
    assert refused.value.code in codes
    assert f"'{field}'" in refused.value.message
    assert not Tournament.objects.exists()


def test_a_bank_and_the_terms_are_kept(make_players):
    (user,) = make_players(1)
    t = entries.do_create(
        user, **GOOD, signup_deadline=soon(), bank=Bank(72, 24, 168), extra_wild=True
    )
    assert (t.bank_start_hours, t.bank_increment_hours, t.bank_cap_hours) == (72, 24, 168)
    assert t.extra_wild and not t.featured and t.check_at == t.signup_deadline


def test_a_player_has_two_tournaments_of_their_own_at_most_staff_more(make_players, staff):
    (user,) = make_players(1)
    for _ in range(2):
        entries.do_create(user, **GOOD, signup_deadline=soon())
    with pytest.raises(Conflict) as refused:
        entries.do_create(user, **GOOD, signup_deadline=soon())
    assert refused.value.code == "too_many_tournaments"
    for _ in range(3):
        assert entries.do_create(staff, **GOOD, signup_deadline=soon()).featured


def test_join_refusals(make_players, staff, django_user_model):
    low, high, unrated, other = make_players(4, ratings=[1400, 1900, None, 1600])
    t = open_tournament(staff, "knockout", min_rating=1500, max_rating=1800, max_players=2)
    for user, code in (
        (low, "rating_too_low"),
        (high, "rating_too_high"),
        (unrated, "rating_too_low"),
    ):
        with pytest.raises(Forbidden) as refused:
            entries.do_join(t.pk, user)
        assert refused.value.code == code
    entries.do_join(t.pk, other)
    with pytest.raises(Conflict) as refused:
        entries.do_join(t.pk, other)
    assert refused.value.code == "already_joined"
    guest = django_user_model.objects.create_user(
        "guest1", password="x", guest_until=timezone.now() + dt.timedelta(days=1)
    )
    with pytest.raises(Forbidden) as refused:
        entries.do_join(t.pk, guest)
    assert refused.value.code == "guest"
    bot = django_user_model.objects.create_user("botty", password="x", bot_level=1)
    with pytest.raises(Forbidden) as refused:
        entries.do_join(t.pk, bot)
    assert refused.value.code == "bot"
    suspended = django_user_model.objects.create_user(
        "naughty", password="x", suspended_until=timezone.now() + dt.timedelta(days=1)
    )
    with pytest.raises(Forbidden) as refused:
        entries.do_join(t.pk, suspended)
    assert refused.value.code == "suspended"
    for call in (entries.do_join, entries.do_leave, entries.do_withdraw, entries.do_cancel):
        for bad in ("nope", -1, None, 10**30, 999999):
            with pytest.raises(NotFound):
                call(bad, other)
    for bad in ("nope", 10**30):
        with pytest.raises(NotFound):
            stages.do_start(bad, staff)
    assert Entry.objects.filter(tournament=t).count() == 1


def test_full_leave_and_start_early(make_players, staff):
    a, b, c = make_players(3)
    t = open_tournament(staff, "knockout", max_players=2, min_players=2)
    entries.do_join(t.pk, a)
    with pytest.raises(Conflict) as refused:
        stages.do_start(t.pk, staff)
    assert refused.value.code == "too_few_players"
    entries.do_join(t.pk, b)
    with pytest.raises(Conflict) as refused:
        entries.do_join(t.pk, c)
    assert refused.value.code == "full"
    entries.do_leave(t.pk, b)
    with pytest.raises(Conflict) as refused:
        entries.do_leave(t.pk, b)
    assert refused.value.code == "not_joined"
    entries.do_join(t.pk, c)
    with pytest.raises(Forbidden) as refused:
        stages.do_start(t.pk, a)
    assert refused.value.code == "not_creator"
    stages.do_start(t.pk, staff)
    t.refresh_from_db()
    assert t.status == Tournament.Status.RUNNING and t.stage == 1
    for call in (lambda: entries.do_join(t.pk, b), lambda: entries.do_leave(t.pk, a)):
        with pytest.raises(Conflict) as refused:
            call()
        assert refused.value.code == "not_open"
    with pytest.raises(Conflict) as refused:
        stages.do_start(t.pk, staff)
    assert refused.value.code == "not_open"


def test_only_the_creator_before_the_start_or_staff_cancel(make_players, staff):
    creator, other = make_players(2)
    t = entries.do_create(creator, **GOOD, signup_deadline=soon())
    entries.do_join(t.pk, other)
    with pytest.raises(Forbidden) as refused:
        entries.do_cancel(t.pk, other)
    assert refused.value.code == "not_allowed"
    entries.do_cancel(t.pk, creator)
    t.refresh_from_db()
    assert t.status == Tournament.Status.CANCELLED and t.check_at is None
    assert Entry.objects.filter(tournament=t).count() == 1
    with pytest.raises(Conflict) as refused:
        entries.do_cancel(t.pk, staff)
    assert refused.value.code == "over"


def test_the_version_grows_with_each_change(make_players, staff):
    (a,) = make_players(1)
    t = open_tournament(staff, "knockout")
    before = Tournament.objects.get(pk=t.pk).version
    entries.do_join(t.pk, a)
    entries.do_leave(t.pk, a)
    assert Tournament.objects.get(pk=t.pk).version == before + 2
