// The context inspector on its own: build a notebook's context for a question at any budget.

import { api } from "../api.js";
import { h, replace } from "../dom.js";
import { fromContext, renderInspector } from "../inspector.js";
import { guarded } from "../ui.js";

const FIRST_BUDGET = 2000;

export async function contextPage(view, key) {
  const [notebook, model] = await Promise.all([api(`/api/notebooks/notebook:${key}`), api("/api/chat/model")]);
  if (!view.alive()) return;
  view.crumbs([notebook.name, `#/nb/${key}`], ["Context"]);
  const window = model.configured ? model.context_window : null;
  const maxBudget = window ? window - model.answer_tokens : 16000;
  const query = h("input", { type: "search", name: "query", id: "context-query", placeholder: "A question (empty: the whole notebook)", "aria-label": "Question" });
  const format = h("select", { name: "format", "aria-label": "Format" }, h("option", { value: "markdown" }, "Markdown"), h("option", { value: "xml" }, "XML"));
  const submit = h("button", { type: "submit", class: "primary" }, "Build");
  const form = h("form", { class: "inline-form", id: "context-form" }, query, format, submit);
  const inspector = h("section", { class: "panel inspector", id: "inspector", "aria-label": "Context inspector" });
  replace(view.main, h("section", { class: "panel" }, h("h1", {}, `Context of “${notebook.name}”`), h("p", { class: "muted" }, "What a question would send to the model: every candidate included or dropped, with its reason."), form), inspector);
  let budget = Math.min(FIRST_BUDGET, maxBudget);
  const build = async (value, note = null) => {
    budget = value;
    const body = { notebook_id: notebook.id, max_tokens: budget, format: format.value };
    if (query.value.trim()) body.query = query.value.trim();
    const payload = await api("/api/context", { method: "POST", json: body });
    if (!view.alive()) return;
    renderInspector(inspector, fromContext(payload, model.configured ? model : null), { rebuild: (next, clamped) => guarded(null, () => build(next, clamped), "Building the context"), maxBudget, note });
  };
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    guarded(submit, () => build(budget), "Building the context");
  });
  await build(budget);
}
