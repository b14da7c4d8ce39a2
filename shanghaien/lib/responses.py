"""Answers shared by the apps' page views."""

from __future__ import annotations

from django.shortcuts import render

from .errors import RateLimited


def rate_limited_page(request, error: RateLimited, back: str = "/"):
    """A form post refused by a rate limit: 429, with when to try again."""
    response = render(request, "rate_limited.html", {"error": error, "back": back}, status=429)
    response["Retry-After"] = str(error.retry_after)
    return response
