// The context inspector: budget bar, every candidate included or dropped with its reason,
// relevance, type and tokens, the rendered text exactly as sent, and a budget control.
//
// Every payload shape goes through one normaliser (`rowsOf`) into rows; the view renders rows
// only. A question's build lists passages (included: a span of a record with its citation
// handle `source:KEY#cN`; dropped: a chunk left out, with its span); a build without a question
// lists records. Both map onto the same rows: a row with a handle is a passage.

import { fmt, h, replace } from "./dom.js";
import { plainText } from "./markdown.js";
import { openRecord } from "./reader.js";

const SHOWN = 200;
export const MIN_BUDGET = 50;

const REASONS = {
  budget: "did not fit in the budget",
  duplicate_of: "duplicate of",
  below_min_score: "not relevant enough to the question",
  low_relevance: "much less relevant than the best passages",
  excluded_by_config: "excluded by the context settings",
  not_found: "not found",
};

// What ended a question's selection (the manifest's `stopped`).
const STOPPED = {
  budget: "Stopped because the budget is full.",
  relevance_floor: "Stopped because the rest is much less relevant than the best passages.",
  candidates_exhausted: "Everything that matches the question fits.",
};

export function stoppedText(stopped) {
  return STOPPED[stopped] || `Stopped: ${String(stopped).replaceAll("_", " ")}.`;
}

const TOKENIZER_STORY =
  "The context sent with an answer is counted with the model's own tokenizer, as the model reads it. " +
  "A rebuild here counts with the context builder's tokenizer, so the same text can differ by a few tokens.";

/**
 * A readable reason from the manifest's `code` or `code:detail`. `duplicate_of:<target>` names
 * what the row repeats: a passage by its handle (`#c2` of the same record, or of another record
 * by its title), or a record (its own: the row holds only words of the record's title).
 * `lookup` = {handles: Map(handle → row), ids: Map(id → row)} from the same manifest.
 */
export function reasonText(reason, row = null, lookup = null) {
  if (!reason) return "";
  const [code, ...rest] = String(reason).split(":");
  const detail = rest.join(":");
  if (code === "duplicate_of" && detail) return duplicateText(detail, row, lookup);
  const words = REASONS[code] || code.replaceAll("_", " ");
  return detail ? `${words} ${detail}` : words;
}

function duplicateText(target, row, lookup) {
  const hash = target.indexOf("#");
  if (hash >= 0) {
    const record = target.slice(0, hash);
    const kept = lookup && lookup.handles.get(target);
    const where = row && row.id === record ? `this ${row.type || "record"}` : kept && kept.title ? `“${kept.title}”` : record;
    return `repeats passage ${target.slice(hash)} of ${where}`;
  }
  if (row && row.id === target) return `repeats only the title of this ${row.type || "record"}`;
  const kept = lookup && lookup.ids.get(target);
  return `duplicate of ${kept && kept.title ? `“${kept.title}”` : target}`;
}

const spanOf = (entry) =>
  Number.isInteger(entry.char_start) && Number.isInteger(entry.char_end) ? { start: entry.char_start, end: entry.char_end } : null;

/**
 * Rows from a manifest (a build's, or the one sent with an answer): {status, id, handle, chunk,
 * title, type, relevance, tokens, original, truncated, duplicates, reason, span}. `tokens` are
 * the tokens sent; `original` the record's whole size (included) or what the candidate would
 * have taken (dropped). Passages and chunks have a handle and a span; records have neither.
 */
export function rowsOf(manifest) {
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
    stopped: payload.manifest.stopped ?? payload.metadata.stopped ?? null,
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
    stopped: (done.manifest && done.manifest.stopped) ?? null,
    rendered: done.context || "",
  };
}

/**
 * Render `model` into `container`. `rebuild(budget)` (optional) builds again at another budget;
 * `maxBudget` bounds the control.
 */
export function renderInspector(container, model, { rebuild = null, maxBudget = null, note = null, title = "Context" } = {}) {
  // A rebuild replaces the panel: the control that started it keeps the keyboard focus.
  const active = document.activeElement;
  const focused = active && container.contains(active) && active.id ? active.id : null;
  const filter = { value: "all" };
  const table = h("div", { class: "manifest" });
  const counts = {
    all: model.rows.length,
    included: model.rows.filter((row) => row.status === "included").length,
    dropped: model.rows.filter((row) => row.status === "dropped").length,
  };
  const lookup = lookupOf(model.rows);
  const tabs = h("div", { class: "segmented", role: "group", "aria-label": "Show" });
  const drawTabs = () =>
    replace(
      tabs,
      ["all", "included", "dropped"].map((name) =>
        h("button", { type: "button", "aria-pressed": String(filter.value === name), onclick: () => { filter.value = name; drawTabs(); drawTable(table, model.rows, name, lookup); } }, `${name} (${fmt(counts[name])})`),
      ),
    );
  drawTabs();
  drawTable(table, model.rows, filter.value, lookup);
  replace(
    container,
    h("div", { class: "inspector-head" }, h("h2", {}, title), h("span", { class: "badge" }, model.origin === "sent" ? "as sent with the answer" : "built for this budget")),
    budgetBar(model),
    rebuild ? budgetControl(model.budget, maxBudget, rebuild, model) : null,
    note ? h("p", { class: "clamp-note", id: "budget-clamped", role: "status" }, note) : null,
    tabs,
    table,
    renderedText(model),
  );
  if (focused) {
    const again = document.getElementById(focused);
    if (again) again.focus({ preventScroll: true });
  }
}

function budgetBar(model) {
  const share = model.budget ? model.used / model.budget : 0;
  // Widths through the CSSOM: the page's policy allows no inline style attributes.
  const used = h("span", { class: "fill" });
  used.style.width = `${Math.min(100, share * 100)}%`;
  const counted = model.origin === "sent" ? `counted by ${model.counter || "the model"}` : `counted by the builder's ${model.counter || "tokenizer"}`;
  const limit = model.window
    ? `Limit: ${model.modelId ? `${model.modelId} reads` : "the model reads"} ${fmt(model.window)} tokens at once; the budget is what is left for the context after the question, the instructions and room for the answer.`
    : "Limit: unknown (no language model configured).";
  return h(
    "div",
    { class: "budget", id: "budget-bar", dataset: { used: model.used, budget: model.budget, window: model.window ?? "" } },
    h("p", { class: "budget-text", id: "budget-label" }, h("strong", {}, `${fmt(model.used)} of ${fmt(model.budget)} tokens used`), " ", h("span", { class: "muted tokenizer", title: TOKENIZER_STORY, tabindex: "0", "aria-label": `${counted}. ${TOKENIZER_STORY}` }, `(${counted})`)),
    h("div", { class: "bar", role: "meter", "aria-labelledby": "budget-label", "aria-valuemin": 0, "aria-valuemax": model.budget, "aria-valuenow": model.used }, used),
    model.stopped ? selectionText(model) : null,
    h("p", { class: "muted window-text" }, limit),
  );
}

// A question's selection: how many passages of how many records, what was left out, and why
// the selection ended where it did.
function selectionText(model) {
  const passages = model.rows.filter((row) => row.status === "included" && row.handle);
  const records = new Set(passages.map((row) => row.id)).size;
  const left = model.rows.length - passages.length;
  const plural = (n, word) => `${fmt(n)} ${word}${n === 1 ? "" : "s"}`;
  return h(
    "p",
    { class: "selection", id: "context-stopped", dataset: { stopped: model.stopped } },
    `${plural(passages.length, "passage")} from ${plural(records, "document")}, ${fmt(left)} left out. `,
    h("strong", { class: "stopped" }, stoppedText(model.stopped)),
  );
}

/** Rows by handle and by record id, for reasons that name another row. */
export function lookupOf(rows) {
  const handles = new Map();
  const ids = new Map();
  for (const row of rows) {
    if (row.handle && !handles.has(row.handle)) handles.set(row.handle, row);
    if (!ids.has(row.id)) ids.set(row.id, row);
  }
  return { handles, ids };
}

// The slider is logarithmic: 50 tokens to the most the context can take, in equal ratios.
function budgetControl(budget, maxBudget, rebuild, model) {
  const top = Math.max(maxBudget || 16000, MIN_BUDGET * 2);
  const toBudget = (position) => Math.round(Math.exp(Math.log(MIN_BUDGET) + (position / 1000) * (Math.log(top) - Math.log(MIN_BUDGET))));
  const toPosition = (value) => Math.round((1000 * (Math.log(value) - Math.log(MIN_BUDGET))) / (Math.log(top) - Math.log(MIN_BUDGET)));
  const slider = h("input", { type: "range", min: 0, max: 1000, step: 1, id: "budget-slider", "aria-label": "Token budget" });
  const shown = Math.min(top, Math.max(budget || MIN_BUDGET, MIN_BUDGET));
  slider.value = String(toPosition(shown));
  const number = h("input", { type: "number", min: MIN_BUDGET, max: top, step: 1, id: "budget-input", "aria-label": "Token budget in tokens" });
  number.value = String(budget || MIN_BUDGET);
  const why = model.window ? `the model's ${fmt(model.window)}-token window less the room kept for the answer` : "the largest budget this page builds";
  slider.addEventListener("input", () => {
    number.value = String(toBudget(Number(slider.value)));
  });
  slider.addEventListener("change", () => rebuild(Number(number.value), null));
  number.addEventListener("change", () => {
    const asked = Math.round(Number(number.value)) || MIN_BUDGET;
    const value = Math.max(MIN_BUDGET, Math.min(top, asked));
    const note = asked > top ? `The budget is at most ${fmt(top)} tokens (${why}): it is set to ${fmt(top)}.` : asked < MIN_BUDGET ? `The budget is at least ${fmt(MIN_BUDGET)} tokens: it is set to ${fmt(MIN_BUDGET)}.` : null;
    number.value = String(value);
    slider.value = String(toPosition(value));
    rebuild(value, note);
  });
  return h("div", { class: "budget-control" }, h("label", { for: "budget-slider" }, "Budget"), slider, number, h("span", { class: "muted" }, "tokens"));
}

function drawTable(table, rows, filter, lookup) {
  const chosen = rows.filter((row) => filter === "all" || row.status === filter);
  const body = h("tbody", {});
  const draw = (limit) => {
    replace(body, chosen.slice(0, limit).map((row) => rowView(row, lookup)));
    if (chosen.length > limit) {
      body.appendChild(h("tr", {}, h("td", { colspan: 5 }, h("button", { type: "button", class: "link", onclick: () => draw(chosen.length) }, `Show all ${fmt(chosen.length)}`))));
    }
  };
  draw(SHOWN);
  replace(
    table,
    chosen.length
      ? h("table", {}, h("thead", {}, h("tr", {}, h("th", {}, "Item"), h("th", {}, "Type"), h("th", { class: "num", title: "How well the item matches the question, as a share of the best match (100 %). The same question gives the same values at every budget." }, "Relevance"), h("th", { class: "num" }, "Tokens"), h("th", {}, "Decision"))), body)
      : h("p", { class: "empty" }, filter === "dropped" ? "Nothing was left out." : "Nothing here."),
  );
}

function rowView(row, lookup) {
  const reason = reasonText(row.reason, row, lookup);
  // A passage opens at its span (what was sent, or what was left out); a record at its start.
  const note = row.handle ? `${row.handle} · ${row.status === "included" ? "in the context" : `left out: ${reason}`}` : "";
  const open = () => openRecord(row.id, row.span, note);
  const openable = row.reason !== "not_found";
  const label = plainText(row.title) || row.id;
  const opener = openable ? h("button", { type: "button", class: "link", title: row.span ? `open ${row.id} at this passage` : row.id, onclick: open }, label) : h("span", {}, label);
  const meta = row.handle ? h("div", { class: "meta" }, h("span", { class: "handle", title: `${row.handle}, characters ${fmt(row.span && row.span.start)}–${fmt(row.span && row.span.end)}` }, `passage ${row.handle.split("#").pop()}`)) : h("div", { class: "meta" }, "whole document");
  const relevance = row.relevance === null || row.relevance === undefined ? "–" : `${Math.round(row.relevance * 100)} %`;
  const tokens = row.status === "included" ? `${fmt(row.tokens)}${row.original && row.original !== row.tokens ? ` of ${fmt(row.original)}` : ""}` : fmt(row.original);
  const decision =
    row.status === "included"
      ? h("span", { class: "decision included" }, row.truncated ? (row.handle ? "included, cut to fit" : "included, shortened") : "included", row.duplicates.length ? ` (+${row.duplicates.length} duplicates)` : "")
      : h("span", { class: "decision dropped" }, "dropped: ", h("span", { class: "reason", dataset: { reason: row.reason || "" } }, reason));
  const dataset = { id: row.id };
  if (row.handle) Object.assign(dataset, { handle: row.handle, chunk: row.chunk || "" });
  if (row.span) Object.assign(dataset, { start: row.span.start, end: row.span.end });
  // A click anywhere on a passage's row opens it (its controls keep their own clicks).
  const onclick = openable && row.span ? (event) => { if (!event.target.closest("button, a, input, summary")) open(); } : null;
  // data-label names each cell where a narrow screen shows the row as a card without a header.
  return h(
    "tr",
    { class: row.span && openable ? `${row.status} passage` : row.status, dataset, onclick },
    h("td", { class: "item" }, opener, meta),
    h("td", { dataset: { label: "type" } }, row.type),
    h("td", { class: "num", dataset: { label: "relevance" } }, relevance),
    h("td", { class: "num", dataset: { label: row.status === "included" ? "tokens" : "tokens needed" } }, tokens),
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
