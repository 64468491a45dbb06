// The context inspector: budget bar, every candidate included or dropped with its reason,
// relevance, type and tokens, the rendered text exactly as sent, and a budget control.
//
// Every payload shape goes through one normaliser (`rowsOf`) into rows; the view renders rows
// only. A passage-level manifest (entries with a `handle` and a character span) maps onto the
// same rows, so only `rowsOf` changes when the builder's output does.

import { fmt, h, replace } from "./dom.js";
import { openRecord } from "./reader.js";

const SHOWN = 200;
export const MIN_BUDGET = 50;

const REASONS = {
  budget: "did not fit in the budget",
  duplicate_of: "duplicate of",
  below_min_score: "below the minimum score",
  low_relevance: "far less relevant than the best evidence",
  excluded_by_config: "excluded by the context settings",
  not_found: "not found",
};

/** A readable reason from the manifest's `code` or `code:detail`. */
export function reasonText(reason) {
  if (!reason) return "";
  const [code, ...rest] = String(reason).split(":");
  const detail = rest.join(":");
  const words = REASONS[code] || code.replaceAll("_", " ");
  return detail ? `${words} ${detail}` : words;
}

/** Rows from a manifest: {status, id, handle, title, type, relevance, tokens, original, reason, span}. */
export function rowsOf(manifest) {
  const rows = [];
  for (const [status, entries] of [["included", manifest.included || []], ["dropped", manifest.dropped || []]]) {
    for (const entry of entries) {
      const tokens = entry.tokens || {};
      const span = Number.isInteger(entry.char_start) && Number.isInteger(entry.char_end) ? { start: entry.char_start, end: entry.char_end } : null;
      rows.push({
        status,
        id: entry.record_id || entry.id,
        handle: entry.handle || null,
        title: entry.title || "",
        type: entry.type || "",
        relevance: entry.relevance ?? (entry.scores ? entry.scores.relevance : null),
        tokens: typeof tokens === "number" ? tokens : tokens.used ?? null,
        original: typeof tokens === "number" ? null : tokens.original ?? null,
        truncated: Boolean(entry.truncated),
        duplicates: entry.duplicates || [],
        reason: entry.reason || null,
        span,
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
    budget: payload.metadata.budget,
    window: model && model.context_window,
    modelId: model && model.model_id,
    counter: payload.metadata.tokenizer,
    rows: rowsOf(payload.manifest),
    rendered: payload.rendered,
  };
}

/** The inspector's model from a chat `done` event: the context that was sent with the answer. */
export function fromAnswer(done) {
  return {
    origin: "sent",
    used: done.context_tokens,
    budget: done.plan.context_budget,
    window: done.plan.window,
    modelId: done.model_id,
    counter: done.model_id,
    rows: rowsOf(done.manifest),
    rendered: done.context || "",
  };
}

/**
 * Render `model` into `container`. `rebuild(budget)` (optional) builds again at another budget;
 * `maxBudget` bounds the control.
 */
export function renderInspector(container, model, { rebuild = null, maxBudget = null, title = "Context" } = {}) {
  const filter = { value: "all" };
  const table = h("div", { class: "manifest" });
  const counts = {
    all: model.rows.length,
    included: model.rows.filter((row) => row.status === "included").length,
    dropped: model.rows.filter((row) => row.status === "dropped").length,
  };
  const tabs = h("div", { class: "segmented", role: "group", "aria-label": "Show" });
  const drawTabs = () =>
    replace(
      tabs,
      ["all", "included", "dropped"].map((name) =>
        h("button", { type: "button", "aria-pressed": String(filter.value === name), onclick: () => { filter.value = name; drawTabs(); drawTable(table, model.rows, name); } }, `${name} (${fmt(counts[name])})`),
      ),
    );
  drawTabs();
  drawTable(table, model.rows, filter.value);
  replace(
    container,
    h("div", { class: "inspector-head" }, h("h2", {}, title), h("span", { class: "badge" }, model.origin === "sent" ? "as sent with the answer" : "built for this budget")),
    budgetBar(model),
    rebuild ? budgetControl(model.budget, maxBudget, rebuild) : null,
    tabs,
    table,
    renderedText(model),
  );
}

function budgetBar(model) {
  const share = model.budget ? model.used / model.budget : 0;
  const ofWindow = model.window ? model.budget / model.window : null;
  // Widths through the CSSOM: the page's policy allows no inline style attributes.
  const used = h("span", { class: "fill" });
  used.style.width = `${Math.min(100, share * 100)}%`;
  const budget = h("span", { class: "fill window" });
  budget.style.width = ofWindow === null ? "0" : `${Math.max(0.5, Math.min(100, ofWindow * 100))}%`;
  return h(
    "div",
    { class: "budget", id: "budget-bar", dataset: { used: model.used, budget: model.budget, window: model.window ?? "" } },
    h("div", { class: "bar", role: "meter", "aria-label": "tokens used of the budget", "aria-valuemin": 0, "aria-valuemax": model.budget, "aria-valuenow": model.used }, used),
    h("p", { class: "budget-text" }, h("strong", {}, `${fmt(model.used)} / ${fmt(model.budget)} tokens`), ` used (${(share * 100).toFixed(1)} %)`),
    h("div", { class: "bar thin", "aria-hidden": "true" }, budget),
    h("p", { class: "muted window-text" }, model.window ? `budget ${fmt(model.budget)} of the ${fmt(model.window)}-token window${model.modelId ? ` of ${model.modelId}` : ""} (${(ofWindow * 100).toFixed(1)} %)` : "model window unknown (no language model configured)"),
  );
}

// The slider is logarithmic: 50 tokens to the window's budget in equal ratios per step.
function budgetControl(budget, maxBudget, rebuild) {
  const top = Math.max(maxBudget || 16000, budget || MIN_BUDGET, MIN_BUDGET * 2);
  const toBudget = (position) => Math.round(Math.exp(Math.log(MIN_BUDGET) + (position / 1000) * (Math.log(top) - Math.log(MIN_BUDGET))));
  const toPosition = (value) => Math.round((1000 * (Math.log(value) - Math.log(MIN_BUDGET))) / (Math.log(top) - Math.log(MIN_BUDGET)));
  const slider = h("input", { type: "range", min: 0, max: 1000, step: 1, id: "budget-slider", "aria-label": "Token budget" });
  slider.value = String(toPosition(Math.max(budget || MIN_BUDGET, MIN_BUDGET)));
  const number = h("input", { type: "number", min: MIN_BUDGET, max: top, step: 1, id: "budget-input", "aria-label": "Token budget in tokens" });
  number.value = String(budget || MIN_BUDGET);
  slider.addEventListener("input", () => {
    number.value = String(toBudget(Number(slider.value)));
  });
  slider.addEventListener("change", () => rebuild(Number(number.value)));
  number.addEventListener("change", () => {
    const value = Math.max(MIN_BUDGET, Math.min(top, Math.round(Number(number.value)) || MIN_BUDGET));
    number.value = String(value);
    slider.value = String(toPosition(value));
    rebuild(value);
  });
  return h("div", { class: "budget-control" }, h("label", { for: "budget-slider" }, "Budget"), slider, number, h("span", { class: "muted" }, "tokens"));
}

function drawTable(table, rows, filter) {
  const chosen = rows.filter((row) => filter === "all" || row.status === filter);
  const body = h("tbody", {});
  const draw = (limit) => {
    replace(body, chosen.slice(0, limit).map(rowView));
    if (chosen.length > limit) {
      body.appendChild(h("tr", {}, h("td", { colspan: 5 }, h("button", { type: "button", class: "link", onclick: () => draw(chosen.length) }, `Show all ${fmt(chosen.length)}`))));
    }
  };
  draw(SHOWN);
  replace(
    table,
    chosen.length
      ? h("table", {}, h("thead", {}, h("tr", {}, h("th", {}, "Item"), h("th", {}, "Type"), h("th", { class: "num" }, "Relevance"), h("th", { class: "num" }, "Tokens"), h("th", {}, "Decision"))), body)
      : h("p", { class: "empty" }, filter === "dropped" ? "Nothing was left out." : "Nothing here."),
  );
}

function rowView(row) {
  const label = row.handle ? `${row.title} ${row.handle}` : row.title || row.id;
  const opener = h("button", { type: "button", class: "link", title: row.id, onclick: () => openRecord(row.id, row.span) }, label);
  const relevance = row.relevance === null || row.relevance === undefined ? "–" : row.relevance.toFixed(2);
  const tokens = row.status === "included" ? `${fmt(row.tokens)}${row.original && row.original !== row.tokens ? ` of ${fmt(row.original)}` : ""}` : fmt(row.original);
  const decision =
    row.status === "included"
      ? h("span", { class: "decision included" }, row.truncated ? "included, shortened" : "included", row.duplicates.length ? ` (+${row.duplicates.length} duplicates)` : "")
      : h("span", { class: "decision dropped" }, "dropped: ", h("span", { class: "reason", dataset: { reason: row.reason || "" } }, reasonText(row.reason)));
  // data-label names each cell where a narrow screen shows the row as a card without a header.
  return h(
    "tr",
    { class: row.status, dataset: { id: row.id } },
    h("td", { class: "item" }, opener, h("div", { class: "meta" }, row.id)),
    h("td", { dataset: { label: "type" } }, row.type),
    h("td", { class: "num", dataset: { label: "relevance" } }, relevance),
    h("td", { class: "num", dataset: { label: "tokens" } }, tokens),
    h("td", { class: "decision-cell" }, decision),
  );
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
