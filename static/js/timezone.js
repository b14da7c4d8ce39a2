// The browser's own time zone, where the player has not chosen one:
// - the sign-up form's hidden field (the server keeps UTC without it);
// - the settings page's picker, for a player still at the default zone (the select
//   carries data-zone-unchosen): the browser's zone is preselected, and a note says that
//   saving keeps it. Nothing is saved until the player saves.
function browserZone() {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || "";
  } catch (error) {
    return ""; // an old browser: the player picks a zone from the list
  }
}

const field = document.querySelector('input[name="time_zone"]');
if (field && !field.value) field.value = browserZone();

const picker = document.querySelector("select[data-browser-zone]");
if (picker && picker.hasAttribute("data-zone-unchosen")) {
  const zone = browserZone();
  const option = Array.from(picker.options).find((o) => o.value === zone);
  if (option && picker.value !== zone) {
    picker.value = zone;
    const note = picker.parentElement?.querySelector(".zone-from-browser");
    if (note) note.hidden = false;
  }
}
