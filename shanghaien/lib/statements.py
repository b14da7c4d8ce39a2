"""Statements of the move path, written once per database instead of once per move.

Building a queryset's SQL (the joins, the columns, the ordering) costs the server more
CPU than PostgreSQL spends running the query. A game's move runs the same few statements
every time, so they are written once per database connection alias, from the models'
``_meta`` (Django's documented Options API), and then only executed through
``connection.cursor()``:

- ``JoinedQuery``: the rows of a model whose one field equals a value, with the rows of
  some of its foreign keys joined in (what ``select_related`` does, and
  ``select_for_update(of=...)`` if asked), returned as model instances built with
  ``Model.from_db`` and their related objects set;
- ``insert_rows`` and ``update_row``: an INSERT of several rows and an UPDATE of one,
  each value prepared by its field (JSON, dates and times for the database at hand).

Only public APIs: the Options API, ``Field.from_db_value`` / ``to_python`` /
``get_db_prep_save``, ``Model.from_db``, ``connection.cursor()`` and
``connection.ops.quote_name``; no compiler. They skip what the move path does not use:
signals, primary keys of inserted rows, ``Model.save``'s checks. Everything else uses
the ORM.
"""

from __future__ import annotations

import datetime as dt
import threading
from dataclasses import dataclass

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, connections, transaction
from django.db.models import (
    AutoField,
    BigAutoField,
    BigIntegerField,
    BooleanField,
    CharField,
    DateTimeField,
    ForeignKey,
    IntegerField,
    JSONField,
    Model,
    PositiveIntegerField,
    PositiveSmallIntegerField,
    SmallAutoField,
    SmallIntegerField,
    TextField,
)
from django.utils import timezone

# Types that both backends hand back as Django's Python values (SQLite's booleans and
# datetimes through the converters its backend registers with the sqlite3 module; the
# datetimes naive, in UTC, there). Any other field's value goes through its to_python.
_AS_IS = (
    AutoField,
    BigAutoField,
    SmallAutoField,
    IntegerField,
    BigIntegerField,
    SmallIntegerField,
    PositiveIntegerField,
    PositiveSmallIntegerField,
    CharField,  # EmailField, SlugField, URLField… are CharFields
    TextField,
    BooleanField,
)


def _converter(field, connection):
    """What turns the database's value of ``field`` into the model's, or None."""
    if isinstance(field, ForeignKey):
        return _converter(field.related_model._meta.pk, connection)
    if isinstance(field, JSONField):

        def json_value(value):  # text from both backends (Django's psycopg loaders)
            if isinstance(value, str):
                return field.from_db_value(value, None, connection)
            return value

        return json_value
    if isinstance(field, DateTimeField):
        if not settings.USE_TZ:
            return None

        def aware(value):
            if isinstance(value, str):
                value = field.to_python(value)
            if value is not None and value.tzinfo is None:
                return timezone.make_aware(value, dt.UTC)
            return value

        return aware
    if hasattr(field, "from_db_value"):
        return lambda value: field.from_db_value(value, None, connection)
    if isinstance(field, _AS_IS):
        return None
    return field.to_python


@dataclass(frozen=True)
class _Part:
    """One model's columns in the joined row."""

    model: type[Model]
    attnames: list
    start: int
    stop: int
    converters: list  # (position in the row, function)
    name: str | None  # the foreign key it is reached by; None for the main model


@dataclass(frozen=True)
class _Written:
    sql: str
    parts: list


class JoinedQuery:
    """The rows of ``model`` whose field ``where`` equals a value, ordered by
    ``order_by``, with the objects of the foreign keys ``related`` (each not null) joined
    in, and the rows of the foreign keys ``lock_of`` locked (``FOR UPDATE OF``; inside a
    transaction, where the database can lock). ``query(value)`` returns the instances.
    """

    def __init__(
        self,
        model: type[Model],
        *,
        where: str,
        related: tuple = (),
        order_by: str | None = None,
        lock_of: tuple = (),
    ):
        self.model = model
        self.where = where
        self.related = tuple(related)
        self.order_by = order_by
        self.lock_of = tuple(lock_of)
        for name in (*self.related, *self.lock_of):
            field = model._meta.get_field(name)
            if not isinstance(field, ForeignKey) or field.null:
                raise ValueError(f"{name!r} is not a foreign key that is never null")
            if "to_field" in field.deconstruct()[3]:
                raise ValueError(f"{name!r} points at a field other than a primary key")
        if not set(self.lock_of) <= set(self.related):
            raise ValueError("only joined rows can be locked")
        model._meta.get_field(where)  # FieldDoesNotExist now rather than at the first call
        self.written: dict[str, _Written] = {}
        self.lock = threading.Lock()

    def __call__(self, value, using: str = DEFAULT_DB_ALIAS) -> list:
        written = self.written.get(using) or self._write(using)
        if self.lock_of and transaction.get_autocommit(using):
            raise transaction.TransactionManagementError(
                "a query that locks rows runs in a transaction"
            )
        with connections[using].cursor() as cursor:
            cursor.execute(written.sql, [value])
            rows = cursor.fetchall()
        main, *joined = written.parts
        objects = []
        for row in rows:
            if main.converters or any(p.converters for p in joined):
                row = list(row)
                for part in written.parts:
                    for position, convert in part.converters:
                        if row[position] is not None:
                            row[position] = convert(row[position])
            obj = main.model.from_db(using, main.attnames, row[main.start : main.stop])
            for part in joined:
                other = part.model.from_db(using, part.attnames, row[part.start : part.stop])
                setattr(obj, part.name, other)
            objects.append(obj)
        return objects

    def _write(self, using: str) -> _Written:
        with self.lock:
            connection = connections[using]
            quote = connection.ops.quote_name
            meta = self.model._meta
            columns, parts, joins = [], [], []

            def select(model, alias, name):
                fields = model._meta.concrete_fields
                start = len(columns)
                columns.extend(f"{alias}.{quote(f.column)}" for f in fields)
                converters = []
                for i, f in enumerate(fields):
                    convert = _converter(f, connection)
                    if convert is not None:
                        converters.append((start + i, convert))
                parts.append(
                    _Part(model, [f.attname for f in fields], start, len(columns), converters, name)
                )

            select(self.model, "t0", None)
            aliases = {}
            for i, name in enumerate(self.related, start=1):
                field = meta.get_field(name)
                other = field.related_model
                alias = aliases[name] = f"t{i}"
                target = quote(other._meta.pk.column)
                joins.append(
                    f"INNER JOIN {quote(other._meta.db_table)} {alias}"
                    f" ON ({alias}.{target} = t0.{quote(field.column)})"
                )
                select(other, alias, name)
            sql = (
                f"SELECT {', '.join(columns)} FROM {quote(meta.db_table)} t0 {' '.join(joins)}"
                f" WHERE t0.{quote(meta.get_field(self.where).column)} = %s"
            )
            if self.order_by:
                sql += f" ORDER BY t0.{quote(meta.get_field(self.order_by).column)} ASC"
            if self.lock_of and connection.features.has_select_for_update:
                sql += " FOR UPDATE"
                if connection.features.has_select_for_update_of:
                    sql += " OF " + ", ".join(aliases[name] for name in self.lock_of)
            written = self.written[using] = _Written(sql, parts)
            return written


_insert_sql: dict = {}
_update_sql: dict = {}


def _columns(model: type[Model], names) -> list:
    return [model._meta.get_field(name) for name in names]


def insert_rows(model: type[Model], names: tuple, rows: list[tuple], using=DEFAULT_DB_ALIAS):
    """INSERT ``rows`` (values in the order of the fields ``names``) in one statement.

    A ``DateTimeField`` with ``auto_now_add`` that is not named is set to now.
    """
    if not rows:
        return
    connection = connections[using]
    key = (model, names, len(rows), using)
    built = _insert_sql.get(key)
    if built is None:
        fields = _columns(model, names)
        stamped = [
            f
            for f in model._meta.concrete_fields
            if isinstance(f, DateTimeField) and f.auto_now_add and f.name not in names
        ]
        columns = ", ".join(connection.ops.quote_name(f.column) for f in fields + stamped)
        one = "(" + ", ".join(["%s"] * (len(fields) + len(stamped))) + ")"
        table = connection.ops.quote_name(model._meta.db_table)
        sql = f"INSERT INTO {table} ({columns}) VALUES " + ", ".join([one] * len(rows))
        built = _insert_sql[key] = (sql, fields, stamped)
    sql, fields, stamped = built
    now = [f.get_db_prep_save(timezone.now(), connection) for f in stamped]
    params = []
    for row in rows:
        params += [f.get_db_prep_save(v, connection) for f, v in zip(fields, row, strict=True)]
        params += now
    with connection.cursor() as cursor:
        cursor.execute(sql, params)


def update_row(obj: Model, names: tuple, using=DEFAULT_DB_ALIAS) -> int:
    """UPDATE the fields ``names`` of ``obj``'s row to ``obj``'s values; the rows changed."""
    model = type(obj)
    connection = connections[using]
    key = (model, names, using)
    built = _update_sql.get(key)
    if built is None:
        fields = _columns(model, names)
        assignments = ", ".join(f"{connection.ops.quote_name(f.column)} = %s" for f in fields)
        table = connection.ops.quote_name(model._meta.db_table)
        pk = connection.ops.quote_name(model._meta.pk.column)
        built = _update_sql[key] = (f"UPDATE {table} SET {assignments} WHERE {pk} = %s", fields)
    sql, fields = built
    params = [f.get_db_prep_save(getattr(obj, f.attname), connection) for f in fields]
    with connection.cursor() as cursor:
        cursor.execute(sql, [*params, obj.pk])
        return cursor.rowcount
