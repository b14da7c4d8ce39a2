"""The Moderators group and its exact permissions, kept in step after every migrate."""

from django.contrib.auth.models import Group, Permission

MODERATORS = "Moderators"

# (app_label, codename): what a moderator may see, and the actions they may take.
PERMISSIONS = [
    ("accounts", "view_user"),
    ("accounts", "suspend_user"),
    ("games", "view_game"),
    ("games", "view_event"),
    ("games", "view_seat"),
    ("games", "view_invitation"),
    ("games", "view_chatmessage"),
    ("games", "annul_game"),
    ("games", "adjudicate_game"),
    ("games", "hide_chatmessage"),
    ("ratings", "view_playerrating"),
    ("ratings", "view_ratingchange"),
    ("moderation", "view_report"),
    ("moderation", "resolve_report"),
    ("moderation", "view_auditentry"),
]


def ensure_moderators_group(sender=None, **kwargs):
    group, _ = Group.objects.get_or_create(name=MODERATORS)
    wanted = []
    for app_label, codename in PERMISSIONS:
        permission = Permission.objects.filter(
            content_type__app_label=app_label, codename=codename
        ).first()
        if permission is not None:  # created by the same migrate run, app by app
            wanted.append(permission)
    group.permissions.set(wanted)


def is_moderator(user) -> bool:
    """Who opens the moderators' console: staff (a second factor required, as for the
    admin) who may close reports: the Moderators group, and superusers."""
    return bool(
        user.is_authenticated
        and user.is_active
        and user.is_staff
        and user.has_perm("moderation.resolve_report")
    )
