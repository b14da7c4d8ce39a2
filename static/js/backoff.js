// How long a socket waits before it tries to reconnect. A restart closes every board and
// lobby of a server at once; were they all to come back on the same schedule, each
// attempt would arrive as one burst. "Full jitter": a random wait between nothing and a
// bound that doubles with every failed attempt, up to a cap, spreads them out. A
// connection that stayed open a while starts the bound afresh (`reset`).
export const BASE_MS = 500;
export const CAP_MS = 30000;
export const STABLE_MS = 10000; // open this long, a connection counts as good again

export class Backoff {
  constructor({ base = BASE_MS, cap = CAP_MS, random = Math.random } = {}) {
    this.base = base;
    this.cap = cap;
    this.random = random;
    this.attempt = 0;
  }

  // The bound of the next wait: base, twice that, four times… up to the cap.
  bound() {
    return Math.min(this.cap, this.base * 2 ** this.attempt);
  }

  // The wait before the next attempt, in milliseconds; each call widens the next one.
  next() {
    const wait = Math.floor(this.random() * this.bound());
    if (this.bound() < this.cap) this.attempt += 1;
    return wait;
  }

  reset() {
    this.attempt = 0;
  }
}
