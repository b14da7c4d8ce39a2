"""Database helpers every app uses: a row by an untrusted id, and append-only records."""

from __future__ import annotations

from django.db import models

from .errors import NotFound
from .input import parse_id


def locked_or_404(queryset, pk, message, *, lock: bool = True, code: str = "not_found"):
    """The row ``pk`` of ``queryset`` (a model or a queryset), or ``NotFound``.

    ``pk`` may come from a URL or a body: anything but a positive whole number is simply
    not found. With ``lock`` the row is locked (``SELECT … FOR UPDATE``) until the caller's
    transaction ends, so the caller must be inside ``transaction.atomic()``.
    """
    if isinstance(queryset, type) and issubclass(queryset, models.Model):
        queryset = queryset._default_manager.all()
    number = parse_id(pk)
    if lock:
        queryset = queryset.select_for_update()
    row = queryset.filter(pk=number).first() if number else None
    if row is None:
        raise NotFound(code, message)
    return row


class AppendOnlyQuerySet(models.QuerySet):
    def update(self, **kwargs):
        raise TypeError(f"{self.model._meta.verbose_name} records are never updated")

    def delete(self):
        raise TypeError(f"{self.model._meta.verbose_name} records are never deleted")


class AppendOnlyModel(models.Model):
    """A record that is only ever added: saving it again, updating or deleting it raises."""

    objects = AppendOnlyQuerySet.as_manager()

    class Meta:
        abstract = True

    def save(self, *args, **kwargs):
        if not self._state.adding:
            raise TypeError(f"{self._meta.verbose_name} records are never updated")
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise TypeError(f"{self._meta.verbose_name} records are never deleted")
