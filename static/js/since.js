// "Since your last move": what the opponent did after the player's own last move, told
// in sentences, with the new dice and the new round end marked on the board, until the
// player moves (the server sends it as `game.since`, see docs/protocol.md).
import { esc, t } from "./words.js";

function sentence(text) {
  return /[.!?]$/.test(text) ? text : text + t("status.stop");
}

// One line of the summary as plain text.
export function sinceLine(game, line) {
  if (line.by) return sentence(t("status.last_action", { name: game.players.opponent, action: line.text }));
  return sentence(line.text);
}

export function sinceHtml(game) {
  const since = game.since;
  if (!since) return "";
  const title = esc(t("since.title"));
  const items = since.lines.map((line) => `<li>${esc(sinceLine(game, line))}</li>`);
  return `<section class="since" aria-labelledby="since-title">
    <h2 id="since-title">${title}</h2><ol>${items.join("")}</ol></section>`;
}

// Marks, in the rendered board, the opponent's dice placed since the player's last move
// (the newest ones on the card with each value's number) and a round end that is new.
export function markNew(root, game) {
  const since = game.since;
  if (!since) return;
  const counts = {};
  for (const value of since.placed) counts[value] = (counts[value] || 0) + 1;
  for (const slot of root.querySelectorAll(".tavern .slot")) {
    const number = slot.querySelector(".number")?.textContent.trim();
    const dice = [...slot.querySelectorAll(".dice-row.opponent .die")];
    const fresh = dice.slice(Math.max(0, dice.length - (counts[number] || 0)));
    for (const die of fresh) {
      die.classList.add("new");
      die.setAttribute("aria-label", t("since.new_die", { label: die.getAttribute("aria-label") }));
    }
  }
  const roundEnd = root.querySelector(".round-end");
  if (since.round_end && roundEnd) {
    roundEnd.classList.add("new");
    const heading = roundEnd.querySelector("h2");
    heading?.insertAdjacentHTML("beforeend", ` <span class="new-tag">${esc(t("since.new_round_end"))}</span>`);
  }
}
