// The inspector's rows: every candidate included or dropped, most relevant first, with its
// reason, type and tokens; a passage's row opens its source at its span.

import { fmt, h, replace } from "./dom.js";
import { plainText } from "./plain.js";
import { openRecord } from "./reader.js";
import { lookupOf, reasonText } from "./reasons.js";

const SHOWN = 200;

/** Rows most relevant first; of equal relevance, what was included before what was left out. */
export function byRelevance(rows) {
  const rank = (row) => (row.relevance === null || row.relevance === undefined ? -1 : row.relevance);
  return [...rows].sort((a, b) => rank(b) - rank(a) || Number(b.status === "included") - Number(a.status === "included"));
}

/** The rows behind "all / included / dropped" tabs, in a disclosure closed when `collapsed`. */
export function manifestView(rows, { collapsed = false } = {}) {
  const sorted = byRelevance(rows);
  const lookup = lookupOf(rows);
  const filter = { value: "all" };
  const table = h("div", { class: "manifest" });
  const counts = {
    all: rows.length,
    included: rows.filter((row) => row.status === "included").length,
    dropped: rows.filter((row) => row.status === "dropped").length,
  };
  const tabs = h("div", { class: "segmented", role: "group", "aria-label": "Show" });
  const draw = () => {
    replace(
      tabs,
      ["all", "included", "dropped"].map((name) =>
        h("button", { type: "button", "aria-pressed": String(filter.value === name), onclick: () => { filter.value = name; draw(); } }, `${name} (${fmt(counts[name])})`),
      ),
    );
    drawTable(table, sorted, filter.value, lookup);
  };
  draw();
  const summary = `Candidates: ${fmt(counts.included)} included, ${fmt(counts.dropped)} left out`;
  return h("details", { class: "rows-details", id: "manifest-rows", open: !collapsed }, h("summary", {}, summary), tabs, table);
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

function decisionView(row, reason) {
  if (row.status === "dropped") return h("span", { class: "decision dropped" }, "dropped: ", h("span", { class: "reason", dataset: { reason: row.reason || "" } }, reason));
  const how = row.reused ? "included: sent with an earlier question" : row.truncated ? (row.handle ? "included, cut to fit" : "included, shortened") : "included";
  return h("span", { class: `decision included${row.reused ? " reused" : ""}` }, how, row.duplicates.length ? ` (+${row.duplicates.length} duplicates)` : "");
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
  const dataset = { id: row.id };
  if (row.handle) Object.assign(dataset, { handle: row.handle, chunk: row.chunk || "" });
  if (row.span) Object.assign(dataset, { start: row.span.start, end: row.span.end });
  // A click anywhere on a passage's row opens it (its controls keep their own clicks).
  const onclick = openable && row.span ? (event) => { if (!event.target.closest("button, a, input, summary")) open(); } : null;
  // data-label names each cell where a narrow screen shows the row as a card without a header.
  return h(
    "tr",
    { class: row.span && openable ? `${row.status} openable` : row.status, dataset, onclick },
    h("td", { class: "item" }, opener, meta),
    h("td", { dataset: { label: "type" } }, row.type),
    h("td", { class: "num", dataset: { label: "relevance" } }, relevance),
    h("td", { class: "num", dataset: { label: row.status === "included" ? "tokens" : "tokens needed" } }, tokens),
    h("td", { class: "decision-cell" }, decisionView(row, reason)),
  );
}
