// The player's private note on the board page (templates/games/game.html): saved through
// the JSON API (PUT /api/games/<id>/note/) without leaving the page. Without JavaScript
// the form posts to the page's own view, which saves the same way.
import { t } from "./words.js";

const form = document.querySelector("#note form[data-note-api]");
if (form) {
  const status = form.querySelector(".note-status");
  const button = form.querySelector("button[type=submit]");
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const token = document.cookie.split("; ").find((c) => c.startsWith("csrftoken="))?.split("=")[1];
    button.disabled = true;
    status.textContent = t("note.saving");
    try {
      const response = await fetch(form.dataset.noteApi, {
        method: "PUT",
        headers: { "X-CSRFToken": token ?? "", "Content-Type": "application/json" },
        body: JSON.stringify({ text: form.elements.text.value }),
      });
      const body = await response.json();
      if (response.ok) {
        form.elements.text.value = body.text;
        status.textContent = body.text ? t("note.saved") : t("note.deleted");
      } else {
        status.textContent = body.error?.message ?? t("alerts.failed");
      }
    } catch (error) {
      status.textContent = t("alerts.failed"); // offline, or an answer that is not JSON
    } finally {
      button.disabled = false;
    }
  });
}
