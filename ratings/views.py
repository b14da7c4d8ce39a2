from django.shortcuts import render

from .models import PROVISIONAL_DEVIATION
from .queries import RANKING_SIZE, ranking_page_rows


def ranking_page(request):
    """The best players by Glicko-2 rating; open to everyone."""
    rows = ranking_page_rows()
    context = {**rows, "size": RANKING_SIZE, "provisional_deviation": PROVISIONAL_DEVIATION}
    return render(request, "ratings/ranking.html", context)
