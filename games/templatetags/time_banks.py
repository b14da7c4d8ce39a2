"""``{{ row|bank_terms }}``: a time bank's terms in the reader's language, or "" (days
per move). ``row``: a game or an invitation, or a game line's JSON (its ``bank``)."""

from django import template

from ..clock import Bank, bank_text

register = template.Library()


@register.filter
def bank_terms(row) -> str:
    if isinstance(row, dict):
        terms = row.get("bank")
        bank = Bank(**terms) if terms else None
    else:
        bank = Bank.of(row)
    return bank_text(bank) if bank else ""
