"""Players' reports to the moderators, over the JSON API (``shanghaien.api_site``)."""

from __future__ import annotations

from django.http import JsonResponse
from ninja import Router

from shanghaien.lib.schemas import refusals

from .messages import ReportBody, ReportFiled
from .services import do_report

router = Router(tags=["moderation"])


@router.post("/reports/", response={201: ReportFiled, **refusals(404, 429)}, url_name="api_reports")
def reports(request, body: ReportBody):
    """Report a game or a chat message to the moderators."""
    report = do_report(request.user, body.reason, game_id=body.game, message_id=body.message)
    return JsonResponse({"id": report.pk, "status": report.status}, status=201)
