"""Players' reports to the moderators, over the JSON API."""

from __future__ import annotations

from django.http import JsonResponse

from accounts.api import json_api, only_fields

from .services import do_report


@json_api("POST")
def reports(request):
    data = request.data
    only_fields(data, {"game", "message", "reason"})
    report = do_report(
        request.user, data.get("reason"), game_id=data.get("game"), message_id=data.get("message")
    )
    return JsonResponse({"id": report.pk, "status": report.status}, status=201)
