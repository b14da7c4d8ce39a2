"""Statements of the move path, built once per database instead of once per move.

Compiling a queryset (the joins, the columns, the ordering) costs the server more CPU
than PostgreSQL spends running the query. A game's move runs the same few statements
every time, so they are compiled once per database connection alias and then only
executed, with Django's own column converters and model construction:

- ``PreparedQuery``: a queryset with one parameter (select_related and
  select_for_update included), returning model instances as the queryset would;
- ``insert_rows`` and ``update_row``: an INSERT of several rows and an UPDATE of one,
  each value prepared by its field (JSON, dates and times for the database at hand).

They skip what the move path does not use: signals, primary keys of inserted rows,
``Model.save``'s checks. Everything else uses the ORM.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

from django.db import DEFAULT_DB_ALIAS, connections
from django.db.models import DateTimeField, Model
from django.db.models.query import get_related_populators
from django.utils import timezone

_SENTINEL = -7_654_321  # the parameter's value while compiling: found once in the params


@dataclass(frozen=True)
class _Compiled:
    sql: str
    converters: list  # (position, converters, expression)
    model: type[Model]
    fields: slice
    init_list: list
    populators: list


class PreparedQuery:
    """``build(value)`` compiled once per database, run with any ``value``.

    ``build`` returns a queryset of model instances whose only parameter is ``value``.
    """

    def __init__(self, build):
        self.build = build
        self.compiled: dict[str, _Compiled] = {}
        self.lock = threading.Lock()

    def __call__(self, value, using: str = DEFAULT_DB_ALIAS) -> list:
        compiled = self.compiled.get(using) or self._compile(using)
        connection = connections[using]
        with connection.cursor() as cursor:
            cursor.execute(compiled.sql, [value])
            rows = cursor.fetchall()
        objects = []
        for row in rows:
            if compiled.converters:
                row = list(row)
                for pos, convs, expression in compiled.converters:
                    value = row[pos]
                    for converter in convs:
                        value = converter(value, expression, connection)
                    row[pos] = value
            obj = compiled.model.from_db(using, compiled.init_list, row[compiled.fields])
            for populator in compiled.populators:
                populator.populate(row, obj)
            objects.append(obj)
        return objects

    def _compile(self, using: str) -> _Compiled:
        with self.lock:
            queryset = self.build(_SENTINEL)
            compiler = queryset.query.get_compiler(using=using)
            sql, params = compiler.as_sql()
            if list(params) != [_SENTINEL]:
                raise ValueError(f"a prepared query has one parameter, not {params!r}")
            select, klass_info = compiler.select, compiler.klass_info
            if compiler.annotation_col_map or queryset._known_related_objects:
                raise ValueError("a prepared query returns plain model instances")
            selected = klass_info["select_fields"]
            fields = slice(selected[0], selected[-1] + 1)
            converters = compiler.get_converters([s[0] for s in select])
            compiled = _Compiled(
                sql=sql,
                converters=[(pos, convs, expr) for pos, (convs, expr) in converters.items()],
                model=klass_info["model"],
                fields=fields,
                init_list=[f[0].target.attname for f in select[fields]],
                populators=get_related_populators(klass_info, select, using),
            )
            self.compiled[using] = compiled
            return compiled


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
