// Page-wide pieces: error notices, the confirmation and token dialogs, the busy marker.

import { h, replace } from "./dom.js";

/** Show an error (an ApiError or any Error) as a readable, dismissable notice. */
export function showError(error, context) {
  const message = error && error.message ? error.message : String(error);
  const notice = h(
    "div",
    { class: "notice error", role: "alert" },
    h("strong", {}, context ? `${context}: ` : "Error: "),
    h("span", { class: "notice-text" }, message),
    h("button", { type: "button", class: "link", "aria-label": "Dismiss", onclick: () => notice.remove() }, "✕"),
  );
  document.getElementById("notices").appendChild(notice);
  return notice;
}

export function showInfo(message) {
  const notice = h(
    "div",
    { class: "notice info", role: "status" },
    h("span", { class: "notice-text" }, message),
    h("button", { type: "button", class: "link", "aria-label": "Dismiss", onclick: () => notice.remove() }, "✕"),
  );
  document.getElementById("notices").appendChild(notice);
  setTimeout(() => notice.remove(), 6000);
}

export function clearNotices() {
  replace(document.getElementById("notices"));
}

/** A modal yes/no question; resolves true when the action is confirmed. */
export function confirmDialog(message, actionLabel = "Delete") {
  const dialog = document.getElementById("confirm-dialog");
  replace(document.getElementById("confirm-text"), message);
  replace(document.getElementById("confirm-ok"), actionLabel);
  dialog.returnValue = "";
  return new Promise((resolve) => {
    dialog.addEventListener("close", () => resolve(dialog.returnValue === "ok"), { once: true });
    dialog.showModal();
  });
}

/** Ask for the API token; resolves with the entered value. */
export function tokenDialog(reason) {
  const dialog = document.getElementById("token-dialog");
  const input = document.getElementById("token-input");
  replace(document.getElementById("token-error"), reason || "");
  input.value = "";
  return new Promise((resolve) => {
    const form = document.getElementById("token-form");
    const submit = (event) => {
      event.preventDefault();
      const value = input.value.trim();
      if (!value) return;
      form.removeEventListener("submit", submit);
      dialog.removeEventListener("cancel", keep);
      dialog.close();
      resolve(value);
    };
    // Escape would leave the page without a token and nothing to show: keep the dialog open.
    const keep = (event) => event.preventDefault();
    form.addEventListener("submit", submit);
    dialog.addEventListener("cancel", keep);
    if (!dialog.open) dialog.showModal();
    input.focus();
  });
}

export function setBusy(on) {
  document.getElementById("busy").hidden = !on;
}

/** Run an async action from a button: disabled meanwhile, errors shown as notices. */
export async function guarded(button, action, context) {
  if (button) button.disabled = true;
  try {
    return await action();
  } catch (error) {
    showError(error, context);
    return undefined;
  } finally {
    if (button) button.disabled = false;
  }
}
