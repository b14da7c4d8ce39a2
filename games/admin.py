import json

from django.contrib import admin
from django.http import Http404
from django.shortcuts import get_object_or_404, render
from django.urls import path, reverse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import mark_safe

from shanghaien.lib.admin import ReadOnlyAdmin

from . import redaction, rules
from .access import seating
from .models import ChatMessage, Command, Event, Game, GameAnalysis, Invitation, Seat
from .narrate import timeline as narrated
from .notify import admin as notify_admin  # noqa: F401  (the slice's admin)

PAYLOAD_WIDTH = 100  # characters a line of a shown payload, before a long list wraps


def readable_json(payload: dict) -> str:
    """``payload`` as JSON with one key a line and long lists wrapped between items."""
    lines = []
    for key, value in payload.items():
        head = f"  {json.dumps(key)}: "
        text = json.dumps(value, ensure_ascii=False)
        if isinstance(value, list) and len(head) + len(text) > PAYLOAD_WIDTH:
            rows, row = [], ""
            for item in (json.dumps(v, ensure_ascii=False) for v in value):
                if row and len(row) + len(item) + 2 > PAYLOAD_WIDTH - 4:
                    rows.append(row)
                    row = ""
                row = f"{row}, {item}" if row else item
            rows.append(row)
            text = "[\n    " + ",\n    ".join(rows) + "\n  ]"
        lines.append(head + text)
    return "{\n" + ",\n".join(lines) + "\n}" if lines else "{}"


class ShownPayload:
    """The ``shown_payload`` column of event pages: never the raw payload."""

    @admin.display(description="payload")
    def shown_payload(self, event: Event) -> str:
        """The payload as anyone may see it now, as readable JSON in HTML."""
        lines = readable_json(redaction.shown_payload(event)).split("\n")
        # Line breaks and non-breaking spaces rather than a <pre>: the tabular inline puts
        # each value in a <p>, which may not hold a <pre>.
        indented = (
            (mark_safe("&nbsp;" * (len(line) - len(line.lstrip()))), line.lstrip())
            for line in lines
        )
        return format_html("<code>{}</code>", format_html_join(mark_safe("<br>"), "{}{}", indented))


class NoSecretLookups:
    """Refuses changelist filters on fields that hold secrets, for every user.

    Django allows any lookup on a model's own fields in the URL, so ``?payload__deck__0=T5``
    would tell by the rows it keeps what the deck holds, though no page shows it.
    """

    def lookup_allowed(self, lookup, value, request):
        if redaction.reaches_secrets(self.model, lookup):
            return False
        return super().lookup_allowed(lookup, value, request)


class ReadOnlyInline(admin.TabularInline):
    extra = 0
    can_delete = False

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False


class SeatInline(ReadOnlyInline):
    model = Seat
    fields = ("seat", "user")
    readonly_fields = fields


class EventInline(ShownPayload, ReadOnlyInline):
    model = Event
    fields = ("seq", "kind", "seat", "shown_payload", "created_at")
    readonly_fields = fields
    ordering = ("seq",)

    def get_queryset(self, request):
        # Each row asks its game whether the game is over.
        return super().get_queryset(request).select_related("game")


@admin.register(Game)
class GameAdmin(NoSecretLookups, admin.ModelAdmin):
    list_display = (
        "id",
        "status",
        "round",
        "to_move",
        "extra_wild",
        "last_move_at",
        "result_reason",
    )
    list_filter = ("status", "extra_wild", "days_per_move", "created_at", "result_reason")
    list_select_related = ("to_move",)
    search_fields = ("seats__user__username",)
    date_hierarchy = "created_at"
    raw_id_fields = ("to_move", "winner")
    # The snapshot and its copies change only through games.services.
    readonly_fields = (
        "status",
        "extra_wild",
        "days_per_move",
        "bank_start_hours",
        "bank_increment_hours",
        "bank_cap_hours",
        "banks",
        "rated",
        "version",
        "round",
        "to_move",
        "winner",
        "result_reason",
        "score0",
        "score1",
        "created_at",
        "last_move_at",
        "finished_at",
        "fair_commitment",
        "client_seeds",
        "server_seed",
        "timeline",
    )
    # The snapshot and the server's seed hold the deck and every die to come.
    exclude = ("state", "fair_seed", "fair_position")
    inlines = [SeatInline, EventInline]

    def has_add_permission(self, request):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    @admin.display(description="server seed")
    def server_seed(self, game):
        """Revealed once the game is over, as to the players (docs/fairness.md)."""
        if not game.fair_seed:
            return "-"
        return game.fair_seed if redaction.game_is_over(game) else redaction.hidden_text()

    @admin.display(description="What happened")
    def timeline(self, game):
        rows = [
            (
                reverse("admin:games_game_board", args=[game.pk, line["seq"]]),
                line["seq"],
                f"round {line['round']} — " if line["round"] else "",
                line["text"],
            )
            for line in narrated(game)
        ]
        return format_html(
            "<ol class='timeline'>{}</ol>",
            format_html_join("", "<li><a href='{}'>#{}</a> {}{}</li>", rows),
        )

    def get_urls(self):
        board = self.admin_site.admin_view(self.board_at)
        return [
            path("<int:pk>/board/<int:seq>/", board, name="games_game_board"),
            *super().get_urls(),
        ]

    def board_at(self, request, pk, seq):
        """The board as it stood after event ``seq``, seen from seat 0.

        It shows the player's view of that state, which never holds the deck order.
        """
        game = get_object_or_404(Game, pk=pk)
        if not self.has_view_permission(request, game):
            from django.core.exceptions import PermissionDenied

            raise PermissionDenied
        events = [e.as_rules_event() for e in game.events.filter(seq__lte=seq).order_by("seq")]
        if not events:
            raise Http404("There is no board before the first event.")
        view = rules.player_view(rules.replay(events), 0)
        names = seating(game).players
        context = {
            **self.admin_site.each_context(request),
            "title": f"Game {game.pk} after event {seq}",
            "game_obj": game,
            "seq": seq,
            "last": game.version,
            "view": view,
            "names": names,
            "opts": self.model._meta,
        }
        return render(request, "admin/games/board_at.html", context)


@admin.register(Event)
class EventAdmin(NoSecretLookups, ShownPayload, ReadOnlyAdmin, admin.ModelAdmin):
    list_display = ("game", "seq", "kind", "seat", "shown_payload", "created_at")
    list_filter = ("kind",)
    list_select_related = ("game",)
    raw_id_fields = ("game",)
    # The raw payload is never a field of these pages: only its shown form.
    fields = ("game", "seq", "kind", "seat", "shown_payload", "created_at")
    readonly_fields = fields


@admin.register(Invitation)
class InvitationAdmin(NoSecretLookups, admin.ModelAdmin):
    list_display = (
        "id",
        "from_user",
        "to_user",
        "status",
        "extra_wild",
        "days_per_move",
        "created_at",
    )
    list_filter = ("status", "extra_wild")
    list_select_related = ("from_user", "to_user")
    raw_id_fields = ("from_user", "to_user", "game")
    search_fields = ("from_user__username", "to_user__username")
    # The server's seed becomes the game's: shown with the game once it is over, never here.
    exclude = ("fair_seed",)
    readonly_fields = ("fair_commitment", "client_seed")


@admin.register(Command)
class CommandAdmin(NoSecretLookups, ReadOnlyAdmin, admin.ModelAdmin):
    list_display = ("game", "seat", "client_id", "version", "created_at")
    list_select_related = ("game",)
    raw_id_fields = ("game",)


@admin.register(Seat)
class SeatAdmin(NoSecretLookups, admin.ModelAdmin):
    list_display = ("game", "seat", "user")
    list_select_related = ("game", "user")
    raw_id_fields = ("game", "user")
    search_fields = ("user__username",)

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False


@admin.register(ChatMessage)
class ChatMessageAdmin(NoSecretLookups, admin.ModelAdmin):
    list_display = ("created_at", "game", "user", "text", "hidden")
    list_filter = ("hidden",)
    list_select_related = ("game", "user")
    raw_id_fields = ("game", "user")
    search_fields = ("text", "user__username")
    readonly_fields = ("game", "user", "text", "created_at", "hidden")

    def has_add_permission(self, request):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(GameAnalysis)
class GameAnalysisAdmin(ReadOnlyAdmin, admin.ModelAdmin):
    """The analyses after the game, as the worker stored them (only of finished games)."""

    list_display = (
        "game",
        "status",
        "engine",
        "done",
        "total",
        "attempts",
        "seconds",
        "computed_at",
    )
    list_filter = ("status", "engine")
    list_select_related = ("game",)
    raw_id_fields = ("game",)
    fields = (
        "game",
        "status",
        "engine",
        "done",
        "total",
        "attempts",
        "error",
        "seconds",
        "created_at",
        "computed_at",
        "decisions",
    )
    readonly_fields = fields
