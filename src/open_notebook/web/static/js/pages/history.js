// The notebook's earlier conversations above the Ask page's conversation: reopen one, give it a
// title of its own (sessions that begin with the same question look alike), or delete it.

import { api, deleteRecord } from "../api.js";
import { fmt, h, replace, when } from "../dom.js";
import { confirmDialog, guarded } from "../ui.js";

/**
 * Draw `state.history` from the server's list. `reopen(id)` shows a session again; `forget(id)`
 * is told when a session is deleted (the page drops it if it is the one shown). `open` keeps
 * the list unfolded (after a rename or a delete made from it).
 */
export async function loadHistory(state, { reopen, forget, open = false }) {
  const { data } = await api(`/api/notebooks/${encodeURIComponent(state.notebook.id)}/sessions`);
  if (!state.view.alive()) return;
  if (!data.length) {
    replace(state.history);
    return;
  }
  const again = () => loadHistory(state, { reopen, forget, open: true });
  const items = data.map((session) => sessionRow(state, session, { reopen, forget, again }));
  replace(state.history, h("details", { class: "history-list", open }, h("summary", {}, `Earlier conversations (${fmt(data.length)})`), h("ul", { class: "sessions" }, items)));
}

function sessionRow(state, session, { reopen, forget, again }) {
  const title = session.title || "Untitled conversation";
  const opener = h("button", { type: "button", class: "link session-open", onclick: () => guarded(null, () => reopen(session.id), "Opening the conversation") }, title);
  const meta = h("span", { class: "meta" }, ` · ${fmt(session.turns)} question${session.turns === 1 ? "" : "s"} · ${when(session.updated)}`);
  const row = h("li", { dataset: { id: session.id }, class: session.id === state.sessionId ? "current" : "" });
  const rename = h("button", { type: "button", class: "link session-rename", "aria-label": `Rename “${title}”` }, "Rename");
  const remove = h("button", { type: "button", class: "link danger session-delete", "aria-label": `Delete “${title}”` }, "Delete");
  const actions = h("span", { class: "session-actions" }, rename, remove);
  const show = () => replace(row, opener, meta, actions);
  rename.addEventListener("click", () => replace(row, renameForm(session, { done: again, cancel: show })));
  remove.addEventListener("click", () =>
    guarded(remove, async () => {
      const questions = `${fmt(session.turns)} question${session.turns === 1 ? "" : "s"}`;
      if (!(await confirmDialog(`Delete the conversation “${title}” with its ${questions} and answers?`))) return;
      await deleteRecord(`/api/chat/sessions/${encodeURIComponent(session.id)}`);
      forget(session.id);
      await again();
    }, "Deleting the conversation"),
  );
  show();
  return row;
}

function renameForm(session, { done, cancel }) {
  const input = h("input", { name: "title", required: true, maxlength: 200, "aria-label": "New title", class: "session-title-input" });
  input.value = session.title || "";
  const save = h("button", { type: "submit", class: "small primary" }, "Save");
  const form = h("form", { class: "inline-form session-rename-form" }, input, save, h("button", { type: "button", class: "small", onclick: cancel }, "Cancel"));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    guarded(save, async () => {
      await api(`/api/chat/sessions/${encodeURIComponent(session.id)}`, { method: "PATCH", json: { title: input.value } });
      await done();
    }, "Renaming the conversation");
  });
  input.addEventListener("keydown", (event) => {
    if (event.key === "Escape") cancel();
  });
  queueMicrotask(() => {
    input.focus();
    input.select();
  });
  return form;
}
