from .models import Game


def waiting_count(request):
    """How many games wait for the logged-in player: the page title shows it."""
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {}
    return {
        "waiting_count": lambda: Game.objects.filter(
            status=Game.Status.ACTIVE, to_move=user
        ).count()
    }
