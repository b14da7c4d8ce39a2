"""The report endpoint's messages, declared once (``moderation.api``)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import WithJsonSchema

from shanghaien.lib.schemas import Body, Message

# An id, as the schema says; any other value names no game or message (404 not_found,
# as an id that names none), so the service, not the model, refuses it.
RowId = Annotated[Any, WithJsonSchema({"anyOf": [{"type": "integer"}, {"type": "null"}]})]


class ReportBody(Body):
    """A report to the moderators: of a game or of a chat message (one of the two), and
    why."""

    codes = {"reason": "reason_required"}

    game: RowId = None
    message: RowId = None
    reason: str


class ReportFiled(Message):
    id: int
    status: Literal["open", "resolved"]
