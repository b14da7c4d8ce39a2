"""Websocket routes: the game and lobby sockets are added here."""

websocket_urlpatterns: list = []
