"""Admin pieces shared by the apps."""

from __future__ import annotations


class ReadOnlyAdmin:
    """For records written only by the services: viewable, never added, changed or deleted."""

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False
