"""The live game: what its boards are shown and how they hear of a change.

``reads``: the read cache (what a game's JSON needs, read once per version and kept per
process for its sockets), whose docstring holds every rule of when a kept read goes
stale. ``broadcast``: the notices sent after a commit, which carry a version and never a
view. The JSON shapes themselves are ``games/serializers.py``'s.
"""
