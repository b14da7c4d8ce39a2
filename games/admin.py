from django.contrib import admin
from django.shortcuts import get_object_or_404, render
from django.urls import path, reverse
from django.utils.html import format_html, format_html_join

from moderation.actions import ReadOnlyAdmin, reasoned_action
from moderation.services import do_adjudicate, do_annul, do_hide_message

from . import rules
from .models import ChatMessage, Command, Event, Game, Invitation, Seat
from .narrate import timeline as narrated


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


class EventInline(ReadOnlyInline):
    model = Event
    fields = ("seq", "kind", "seat", "payload", "created_at")
    readonly_fields = fields
    ordering = ("seq",)


@admin.register(Game)
class GameAdmin(admin.ModelAdmin):
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
    actions = ["annul", "adjudicate"]
    raw_id_fields = ("to_move", "winner")
    # The snapshot and its copies change only through games.services.
    readonly_fields = (
        "status",
        "extra_wild",
        "days_per_move",
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
        "timeline",
    )
    exclude = ("state",)
    inlines = [SeatInline, EventInline]

    def has_add_permission(self, request):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    def has_annul_permission(self, request):
        return request.user.has_perm("games.annul_game")

    def has_adjudicate_permission(self, request):
        return request.user.has_perm("games.adjudicate_game")

    @admin.action(description="Annul (no result)", permissions=["annul"])
    def annul(self, request, queryset):
        return reasoned_action(
            self,
            request,
            queryset,
            title="Annul the game",
            perform=lambda game, data: do_annul(game.pk, request.user, data["reason"]),
        )

    @admin.action(description="Adjudicate (award the win)", permissions=["adjudicate"])
    def adjudicate(self, request, queryset):
        from django import forms

        def perform(game, data):
            winner = game.players()[int(data["winner"])]
            do_adjudicate(game.pk, request.user, winner, data["reason"])

        choices = [("0", "the player at seat 0 (the inviter)"), ("1", "the player at seat 1")]
        return reasoned_action(
            self,
            request,
            queryset,
            title="Award the game",
            perform=perform,
            extra_fields={"winner": forms.ChoiceField(choices=choices)},
        )

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
        """The board as it stood after event ``seq``, seen from seat 0."""
        game = get_object_or_404(Game, pk=pk)
        if not self.has_view_permission(request, game):
            from django.core.exceptions import PermissionDenied

            raise PermissionDenied
        events = [e.as_rules_event() for e in game.events.filter(seq__lte=seq).order_by("seq")]
        view = rules.player_view(rules.replay(events), 0)
        names = game.players()
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
class EventAdmin(ReadOnlyAdmin, admin.ModelAdmin):
    list_display = ("game", "seq", "kind", "seat", "created_at")
    list_filter = ("kind",)
    list_select_related = ("game",)
    raw_id_fields = ("game",)


@admin.register(Invitation)
class InvitationAdmin(admin.ModelAdmin):
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


@admin.register(Command)
class CommandAdmin(ReadOnlyAdmin, admin.ModelAdmin):
    list_display = ("game", "seat", "client_id", "version", "created_at")
    list_select_related = ("game",)
    raw_id_fields = ("game",)


@admin.register(Seat)
class SeatAdmin(admin.ModelAdmin):
    list_display = ("game", "seat", "user")
    list_select_related = ("game", "user")
    raw_id_fields = ("game", "user")
    search_fields = ("user__username",)

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False


@admin.register(ChatMessage)
class ChatMessageAdmin(admin.ModelAdmin):
    list_display = ("created_at", "game", "user", "text", "hidden")
    list_filter = ("hidden",)
    list_select_related = ("game", "user")
    raw_id_fields = ("game", "user")
    search_fields = ("text", "user__username")
    readonly_fields = ("game", "user", "text", "created_at", "hidden")
    actions = ["hide"]

    def has_add_permission(self, request):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    def has_hide_permission(self, request):
        return request.user.has_perm("games.hide_chatmessage")

    @admin.action(description="Hide the message", permissions=["hide"])
    def hide(self, request, queryset):
        return reasoned_action(
            self,
            request,
            queryset,
            title="Hide the message",
            perform=lambda message, data: do_hide_message(message.pk, request.user, data["reason"]),
        )
