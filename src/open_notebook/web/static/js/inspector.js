// The context inspector: budget bar, every candidate included or dropped with its reason,
// relevance, type and tokens, the rendered text exactly as sent, and a budget control.
//
// Every payload shape goes through one normaliser (`rowsOf`) into rows; the view renders rows
// only. A question's build lists passages (included: a span of a record with its citation
// handle `source:KEY#cN`; dropped: a chunk left out, with its span); a build without a question
// lists records. Both map onto the same rows: a row with a handle is a passage.

import { budgetBar, budgetControl } from "./budget.js";
import { fmt, h, replace } from "./dom.js";
import { manifestView } from "./manifest.js";

export { MIN_BUDGET } from "./budget.js";
export { lookupOf, reasonText, stoppedText } from "./reasons.js";

const spanOf = (entry) =>
  Number.isInteger(entry.char_start) && Number.isInteger(entry.char_end) ? { start: entry.char_start, end: entry.char_end } : null;

/**
 * Rows from a manifest (a build's, or the one sent with an answer): {status, id, handle, chunk,
 * title, type, relevance, tokens, original, truncated, duplicates, reason, span, reused}.
 * `tokens` are the tokens sent; `original` the record's whole size (included) or what the
 * candidate would have taken (dropped); `reused`: an earlier question of the conversation sent
 * it (`manifest.reused.handles`). Passages and chunks have a handle and a span; records neither.
 */
export function rowsOf(manifest) {
  const reused = new Set((manifest.reused && manifest.reused.handles) || []);
  const rows = [];
  for (const [status, entries] of [["included", manifest.included || []], ["dropped", manifest.dropped || []]]) {
    for (const entry of entries) {
      const tokens = entry.tokens || {};
      const scores = entry.scores || {};
      rows.push({
        status,
        id: entry.id,
        handle: entry.handle || null,
        chunk: entry.chunk_id || null,
        title: entry.title || "",
        type: entry.type || "",
        relevance: scores.relevance ?? null,
        tokens: tokens.used ?? null,
        original: tokens.original ?? null,
        truncated: Boolean(entry.truncated),
        duplicates: entry.duplicates || [],
        reason: entry.reason || null,
        span: spanOf(entry),
        reused: status === "included" && Boolean(entry.handle) && reused.has(entry.handle),
      });
    }
  }
  return rows;
}

/** The inspector's model from a `/api/context` payload. */
export function fromContext(payload, model) {
  return {
    origin: "rebuilt",
    used: payload.total_tokens,
    reusedTokens: 0,
    budget: payload.metadata.budget,
    window: model && model.context_window,
    modelId: model && model.model_id,
    counter: payload.metadata.tokenizer,
    rows: rowsOf(payload.manifest),
    stopped: payload.manifest.stopped ?? payload.metadata.stopped ?? null,
    rendered: payload.rendered,
  };
}

/** The inspector's model from a chat `done` event: the context that was sent with the answer
 * (none when the question was refused: the model was not asked). */
export function fromAnswer(done) {
  const manifest = done.manifest || {};
  return {
    origin: done.refused ? "refused" : "sent",
    used: done.context_tokens,
    reusedTokens: (manifest.reused && manifest.reused.tokens) || 0,
    budget: done.plan.context_budget,
    window: done.plan.window,
    modelId: done.model_id,
    counter: done.model_id,
    rows: rowsOf(manifest),
    stopped: manifest.stopped ?? null,
    rendered: done.context || "",
  };
}

/**
 * Render `model` into `container`. `rebuild(budget)` (optional) builds again at another budget;
 * `maxBudget` bounds the control; `collapsed`: the rows start folded (beside an answer on a
 * phone, where fifty rows would make the page thousands of pixels long).
 */
export function renderInspector(container, model, { rebuild = null, maxBudget = null, note = null, title = "Context", collapsed = false } = {}) {
  if (model.origin === "refused") {
    replace(container, refusedView(model, rebuild, title));
    return;
  }
  // A rebuild replaces the panel: the control that started it keeps the keyboard focus.
  const active = document.activeElement;
  const focused = active && container.contains(active) && active.id ? active.id : null;
  replace(
    container,
    h("div", { class: "inspector-head" }, h("h2", {}, title), h("span", { class: "badge" }, model.origin === "sent" ? "as sent with the answer" : "built for this budget")),
    budgetBar(model),
    rebuild ? budgetControl(model.budget, maxBudget, rebuild, model) : null,
    note ? h("p", { class: "clamp-note", id: "budget-clamped", role: "status" }, note) : null,
    manifestView(model.rows, { collapsed }),
    renderedText(model),
  );
  if (focused) {
    const again = document.getElementById(focused);
    if (again) again.focus({ preventScroll: true });
  }
}

// A refused question: nothing went to the model, so there is no context "as sent" to show;
// what the question would have been sent can still be built on demand.
function refusedView(model, rebuild, title) {
  const build = rebuild ? h("button", { type: "button", id: "build-anyway", onclick: () => rebuild(model.budget, null) }, "Build the context for this question") : null;
  return [
    h("div", { class: "inspector-head" }, h("h2", {}, title), h("span", { class: "badge" }, "nothing sent")),
    h(
      "p",
      { class: "refused-text", id: "context-refused" },
      "The notebook does not cover this question, so the model was not asked and no context was sent.",
    ),
    build ? h("div", { class: "actions" }, build) : null,
  ];
}

function renderedText(model) {
  const copy = h("button", { type: "button", class: "small" }, "Copy");
  copy.addEventListener("click", async () => {
    await navigator.clipboard.writeText(model.rendered);
    replace(copy, "Copied");
  });
  return h(
    "details",
    { class: "rendered", id: "rendered-context" },
    h("summary", {}, `${model.origin === "sent" ? "Rendered text as sent" : "Rendered text"} (${fmt(model.used)} tokens${model.counter ? `, counted by ${model.counter}` : ""})`, " ", copy),
    h("pre", { class: "source-text" }, model.rendered || "(empty: nothing went into the context)"),
  );
}
