"""The console email backend of a developer's machine (``make run``, DEBUG without
EMAIL_URL): each email as Django's console backend prints it, after a framed summary
that stands out among the server's and the worker's lines: recipient, subject, and the
links the email holds, the one to confirm an address first.

The summary reads the message's own text (its body and any HTML alternative), where a
link is whole; the raw message below it may carry quoted-printable soft line breaks in a
long link.
"""

from __future__ import annotations

import re
import threading

from django.core.mail.backends.console import EmailBackend as DjangoConsoleBackend

LINK = re.compile(r"https?://[^\s\"'<>)\]]+")
WIDTH = 79
# Links in this order, the rest after them as they come: the one a newcomer looks for
# (allauth's confirmation, and a password reset), then the game's, the unsubscribe last.
FIRST = ("/confirm-email/", "/password/reset/key/")
LAST = ("/unsubscribe/",)

_lock = threading.Lock()  # one email's summary and text together, whichever thread sends


def links_of(message) -> list[str]:
    """The links of an email, each once: those of ``FIRST`` first, ``LAST`` last."""
    texts = [message.body or ""]
    texts += [content for content, _mimetype in getattr(message, "alternatives", None) or []]
    found = []
    for text in texts:
        for link in LINK.findall(str(text)):
            link = link.rstrip(".,;:!?").replace("&amp;", "&")
            if link not in found:
                found.append(link)

    def rank(link: str) -> int:
        if any(part in link for part in FIRST):
            return 0
        return 2 if any(part in link for part in LAST) else 1

    return sorted(found, key=rank)  # stable: the email's own order within each rank


def summary(message) -> str:
    """The framed lines printed above an email."""
    recipients = ", ".join([*message.to, *message.cc, *message.bcc]) or "(nobody)"
    lines = [f"To:      {recipients}", f"Subject: {message.subject}"]
    links = links_of(message)
    if links:
        lines.append("Links:")
        lines += [f"  {link}" for link in links]
    else:
        lines.append("Links:   none")
    top = "#" * WIDTH
    title = "#### EMAIL " + "#" * (WIDTH - 11)
    return "\n".join(["", top, title, *(f"## {line}" for line in lines), top, ""]) + "\n"


class EmailBackend(DjangoConsoleBackend):
    """Django's console backend, each email under a framed summary."""

    def send_messages(self, email_messages):
        if not email_messages:
            return 0
        sent = 0
        with _lock:
            for message in email_messages:
                self.stream.write(summary(message))
                sent += super().send_messages([message]) or 0
        return sent
