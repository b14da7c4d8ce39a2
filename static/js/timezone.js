// The sign-up form's hidden time zone: the browser's own (the server keeps UTC without it).
const field = document.querySelector('input[name="time_zone"]');
if (field && !field.value) {
  try {
    field.value = Intl.DateTimeFormat().resolvedOptions().timeZone || "";
  } catch (error) {
    // an old browser: the player picks a zone on their profile
  }
}
