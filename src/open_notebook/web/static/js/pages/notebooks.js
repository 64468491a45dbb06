// The notebook list: open, create, delete (with confirmation); and the embedding rebuild.

import { api, deleteRecord } from "../api.js";
import { fmt, h, keyOf, replace, when } from "../dom.js";
import { confirmDialog, guarded, showInfo } from "../ui.js";
import { rebuildPanel } from "../progress.js";

export async function notebooksPage(view) {
  view.crumbs();
  const list = h("ul", { class: "cards", id: "notebook-list", "aria-label": "Notebooks" });
  const form = createForm(view, list);
  replace(
    view.main,
    h("section", { class: "panel" }, h("h1", {}, "Notebooks"), form),
    h("section", { class: "panel" }, list),
    rebuildPanel(view),
  );
  await refresh(view, list);
}

async function refresh(view, list) {
  const { data } = await api("/api/notebooks");
  if (!view.alive()) return;
  if (!data.length) {
    replace(list, h("li", { class: "empty" }, "No notebooks yet: create one above."));
    return;
  }
  replace(list, data.map((notebook) => card(view, list, notebook)));
}

function card(view, list, notebook) {
  // The same size as Ask and Open beside it: one row of three actions.
  const remove = h("button", { type: "button", class: "danger" }, "Delete");
  remove.addEventListener("click", () =>
    guarded(remove, async () => {
      const sure = await confirmDialog(
        `Delete the notebook “${notebook.name}”, its notes, and the sources that belong to no other notebook? This cannot be undone.`,
      );
      if (!sure) return;
      await deleteRecord(`/api/notebooks/${encodeURIComponent(notebook.id)}`);
      showInfo(`Deleted “${notebook.name}”.`);
      await refresh(view, list);
    }, "Deleting the notebook"),
  );
  const href = `#/nb/${keyOf(notebook.id)}`;
  return h(
    "li",
    { class: "card", dataset: { id: notebook.id } },
    h("a", { class: "card-title", href }, notebook.name),
    notebook.description ? h("p", { class: "muted" }, notebook.description) : null,
    h("p", { class: "meta" }, `${fmt(notebook.source_count)} sources · ${fmt(notebook.note_count)} notes · created ${when(notebook.created)}`),
    h("div", { class: "actions" }, h("a", { class: "button", href: `${href}/ask` }, "Ask"), h("a", { class: "button", href }, "Open"), remove),
  );
}

function createForm(view, list) {
  const name = h("input", { name: "name", required: true, maxlength: 500, placeholder: "Name", "aria-label": "Notebook name" });
  const description = h("input", { name: "description", maxlength: 10000, placeholder: "Description (optional)", "aria-label": "Description" });
  const submit = h("button", { type: "submit", class: "primary" }, "Create notebook");
  const form = h("form", { class: "inline-form", id: "create-notebook" }, name, description, submit);
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    guarded(submit, async () => {
      const created = await api("/api/notebooks", {
        method: "POST",
        json: { name: name.value, description: description.value },
      });
      form.reset();
      location.hash = `#/nb/${keyOf(created.id)}`;
    }, "Creating the notebook");
  });
  return form;
}
