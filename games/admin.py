from django.contrib import admin

from .models import Command, Event, Game, Invitation, Seat


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
    list_filter = ("status", "extra_wild", "days_per_move")
    list_select_related = ("to_move",)
    search_fields = ("seats__user__username",)
    raw_id_fields = ("to_move", "winner")
    # The snapshot and its copies change only through games.services.
    readonly_fields = (
        "status",
        "extra_wild",
        "days_per_move",
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
    )
    exclude = ("state",)
    inlines = [SeatInline, EventInline]

    def has_add_permission(self, request):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(Event)
class EventAdmin(admin.ModelAdmin):
    list_display = ("game", "seq", "kind", "seat", "created_at")
    list_filter = ("kind",)
    list_select_related = ("game",)
    raw_id_fields = ("game",)

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


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
class CommandAdmin(admin.ModelAdmin):
    list_display = ("game", "seat", "client_id", "version", "created_at")
    list_select_related = ("game",)
    raw_id_fields = ("game",)

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


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
