"""Provably fair randomness: the deck, the first player and every die from a stream that
neither the server nor either player could choose alone (``docs/fairness.md``).

The server commits to a secret ``server_seed`` (``commitment`` = its SHA-256) before the
players' seeds are known; each player adds a seed of their own; the stream is
HMAC-SHA256 of the server seed over both players' seeds and a block counter. When the
game is over the server seed is revealed, and anyone can derive everything again.

Two schemes, named in each game's record; they differ only in the message of a block:

- ``hmac-sha256-v2`` (``SCHEME``, the one new games use): block ``n`` (0, 1, 2, …) is
  ``HMAC-SHA256(key=server_seed, msg=json.dumps([seed_0, seed_1, n]))`` in compact JSON
  (no spaces, ASCII only), as JavaScript's ``JSON.stringify`` writes it for printable
  seeds. Each seed is quoted and escaped, so no two pairs of seeds give one message;
- ``hmac-sha256-v1`` (games before v2): ``msg=f"{seed_0}:{seed_1}:{n}"``. A colon inside
  a seed makes this ambiguous: ("a:b", "c") and ("a", "b:c") give the same stream;

and in both:

- the stream is the blocks one after the other, read as 4-byte big-endian unsigned
  integers;
- ``draw(k)`` takes the next integer ``u`` and returns ``u % k`` if
  ``u < 2**32 - (2**32 % k)``, else drops it and takes the next;
- the deck is the 48 card ids sorted as strings, shuffled from the end
  (``for i from 47 down to 1: j = draw(i + 1); swap(i, j)``); then the first player is
  ``draw(2)``; then every die, in the order of the log's ``rolled`` events, die 0 then
  die 1, is ``draw(6) + 1``. Nothing else uses the stream.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re

SCHEME_V1 = "hmac-sha256-v1"
SCHEME_V2 = "hmac-sha256-v2"
SCHEME = SCHEME_V2  # the scheme new games use
SCHEMES = (SCHEME_V1, SCHEME_V2)
SEED_BYTES = 32
CLIENT_SEED_MAX = 64
_PRINTABLE = re.compile(r"[\x20-\x7e]*")  # printable ASCII, the space included
_WORDS_PER_BLOCK = 8  # 32 bytes of HMAC-SHA256, 4 bytes a word


def commitment(server_seed: bytes) -> str:
    """What the server publishes before the game: the SHA-256 of its seed, in hex."""
    return hashlib.sha256(server_seed).hexdigest()


def valid_client_seed(seed: object) -> bool:
    """1–64 printable ASCII characters, or "" (no seed: the empty string)."""
    return (
        isinstance(seed, str) and len(seed) <= CLIENT_SEED_MAX and bool(_PRINTABLE.fullmatch(seed))
    )


def block_message(client_seeds: tuple[str, str] | list[str], n: int, scheme: str) -> bytes:
    """The message block ``n`` is the HMAC of, under ``scheme``."""
    if scheme == SCHEME_V2:
        pair = [client_seeds[0], client_seeds[1], n]
        return json.dumps(pair, separators=(",", ":"), ensure_ascii=True).encode()
    if scheme == SCHEME_V1:
        return f"{client_seeds[0]}:{client_seeds[1]}:{n}".encode()
    raise ValueError(f"unknown fairness scheme {scheme!r}")


class Stream:
    """The game's random stream from its seeds, resumable at any ``position`` (the number
    of 4-byte integers taken so far). It is an ``Rng`` for ``engine.new_game`` and
    ``engine.decide``: ``shuffle`` and ``randint`` follow the scheme above. ``scheme`` is
    the game's own (``SCHEME_V1`` or ``SCHEME_V2``); any other raises ``ValueError``."""

    def __init__(
        self,
        server_seed: bytes,
        client_seeds: tuple[str, str] | list[str],
        position=0,
        *,
        scheme: str,
    ):
        if scheme not in SCHEMES:
            raise ValueError(f"unknown fairness scheme {scheme!r}")
        self._key = bytes(server_seed)
        self._seeds = (client_seeds[0], client_seeds[1])
        self.scheme = scheme
        self.position = position
        self._block_index = -1
        self._block = b""

    def _word(self) -> int:
        block, word = divmod(self.position, _WORDS_PER_BLOCK)
        if block != self._block_index:
            message = block_message(self._seeds, block, self.scheme)
            self._block = hmac.new(self._key, message, hashlib.sha256).digest()
            self._block_index = block
        self.position += 1
        return int.from_bytes(self._block[4 * word : 4 * word + 4], "big")

    def draw(self, k: int) -> int:
        """A uniform whole number in [0, k)."""
        limit = 2**32 - (2**32 % k)
        while True:
            u = self._word()
            if u < limit:
                return u % k

    # -- the engine's Rng ---------------------------------------------------------------

    def randint(self, a: int, b: int) -> int:
        return a + self.draw(b - a + 1)

    def shuffle(self, cards: list) -> None:
        cards.sort()
        for i in range(len(cards) - 1, 0, -1):
            j = self.draw(i + 1)
            cards[i], cards[j] = cards[j], cards[i]


def derive(server_seed: bytes, client_seeds, deck: list[str], dice: int, *, scheme: str):
    """(deck order, first player, the first ``dice`` dice) the seeds give under
    ``scheme``, from the deck's cards in any order."""
    stream = Stream(server_seed, client_seeds, scheme=scheme)
    order = list(deck)
    stream.shuffle(order)
    first = stream.draw(2)
    return order, first, [stream.draw(6) + 1 for _ in range(dice)]
