"""Answers shared by the apps' views: pages, and the JSON API's refusals."""

from __future__ import annotations

from django.http import JsonResponse
from django.shortcuts import render

from .errors import RateLimited, ServiceError
from .ratelimit import duration


def rate_limited_page(request, error: RateLimited, back: str = "/"):
    """A form post refused by a rate limit: 429, with when to try again."""
    context = {"error": error, "wait": duration(error.retry_after), "back": back}
    response = render(request, "rate_limited.html", context, status=429)
    response["Retry-After"] = str(error.retry_after)
    return response


def error_response(error: ServiceError) -> JsonResponse:
    """A refusal in the JSON API's envelope ``{"error": {"code", "message"}}``, with its
    status (and ``Retry-After`` when it says when to try again)."""
    response = JsonResponse(error.to_json(), status=error.status)
    retry_after = getattr(error, "retry_after", None)
    if retry_after is not None:
        response["Retry-After"] = str(retry_after)
    return response
