// Copy buttons (<button data-copy="text" data-copied="Copied">): the text goes to the
// clipboard and the button says so. Where the browser allows no clipboard, the text
// shown beside the button is selected instead, for the player to copy by hand.
document.addEventListener("click", async (event) => {
  const button = event.target.closest?.("button[data-copy]");
  if (!button) return;
  try {
    await navigator.clipboard.writeText(button.dataset.copy);
    button.textContent = button.dataset.copied;
  } catch (error) {
    const shown = button.parentElement?.querySelector("code");
    if (!shown) return;
    shown.textContent = button.dataset.copy;
    window.getSelection()?.selectAllChildren(shown);
  }
});
