"""Answers shared by the apps' page views."""

from __future__ import annotations

from django.shortcuts import render

from .errors import RateLimited
from .ratelimit import duration


def rate_limited_page(request, error: RateLimited, back: str = "/"):
    """A form post refused by a rate limit: 429, with when to try again."""
    context = {"error": error, "wait": duration(error.retry_after), "back": back}
    response = render(request, "rate_limited.html", context, status=429)
    response["Retry-After"] = str(error.retry_after)
    return response
