// Motion only where it explains: a new roll's dice tumble briefly, and at a round's end
// each card moves toward the side of the player who takes it. Nothing moves for a player
// who asked for reduced motion, nor when a page opens (only changes seen here move).

const reduced = () => window.matchMedia?.("(prefers-reduced-motion: reduce)").matches ?? false;

let seen = null; // what the last paint showed: {roll, roundEnd}

export function animateNews(root, game) {
  const view = game.view;
  const now = { roll: view.roll ? JSON.stringify([view.round, view.roll]) : null, roundEnd: view.last_round?.round ?? null };
  const before = seen;
  seen = now;
  if (!before || reduced()) return;
  if (now.roll && now.roll !== before.roll) {
    for (const die of root.querySelectorAll(".rolled .die")) {
      die.animate(
        [
          { transform: "translateY(-14px) rotate(-200deg) scale(.7)", opacity: 0.4 },
          { transform: "translateY(2px) rotate(15deg) scale(1.05)", opacity: 1, offset: 0.7 },
          { transform: "none", opacity: 1 },
        ],
        { duration: 450, easing: "ease-out" },
      );
    }
  }
  if (now.roundEnd && now.roundEnd !== before.roundEnd) {
    for (const outcome of root.querySelectorAll(".round-end .outcome")) {
      const card = outcome.querySelector(".card");
      if (!card) continue;
      const toward = outcome.classList.contains("to-me") ? 1 : outcome.classList.contains("to-opponent") ? -1 : 0;
      const frames = toward
        ? [{ transform: `translateY(${-14 * toward}px)`, opacity: 0.5 }, { transform: "none", opacity: 1 }]
        : [{ opacity: 1 }, { opacity: 0.4 }, { opacity: 1 }];
      card.animate(frames, { duration: 600, easing: "ease-out" });
    }
  }
}
