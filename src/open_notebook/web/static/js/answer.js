// An answer's text with its citation marks as links, and the list of what it cites.
//
// Today's citations name records (`[source:KEY]`), checked as valid / not_in_context / unknown.
// A click opens the record at a passage: the citation's own character span when it carries
// one; otherwise the record's chunk whose words best match the sentence that cites it (then the
// question), found by the notebook's search.

import { api } from "./api.js";
import { h } from "./dom.js";
import { openRecord } from "./reader.js";

// The server's citation grammar (llm/_citations.py): bracket groups holding table:key ids.
const GROUP = /[[【〔]([^[\]【】〔〕\n]{1,400})[\]】〕]/g;
const ITEM = /\b(source_insight|insight|source|note)\s*[:：]\s*[⟨`]?([A-Za-z0-9_-]{1,128})/gi;
const ALIASES = { insight: "source_insight" };

const STATUS_TEXT = {
  valid: "in the context sent",
  not_in_context: "a real record, but not in the context the model saw",
  unknown: "no such record: the model made it up",
};

function idsIn(group) {
  return [...group.matchAll(ITEM)].map((match) => {
    const table = match[1].toLowerCase();
    return `${ALIASES[table] || table}:${match[2]}`;
  });
}

/**
 * The answer as text nodes and citation links; `turn` = {question, notebookId, done}.
 * Returns {node, order}: order lists cited ids in order of first mention.
 */
export function renderAnswer(turn) {
  const { answer, citations } = turn.done;
  const status = Object.fromEntries(citations.map((c) => [c.id, c]));
  const order = [];
  const node = h("div", { class: "answer-text" });
  let cursor = 0;
  for (const match of answer.matchAll(GROUP)) {
    const ids = idsIn(match[1]);
    if (!ids.length) continue;
    node.appendChild(document.createTextNode(answer.slice(cursor, match.index)));
    const marks = h("sup", { class: "cites" });
    for (const id of ids) {
      if (!order.includes(id)) order.push(id);
      const claim = sentenceBefore(answer, match.index);
      marks.appendChild(citeLink(turn, id, order.indexOf(id) + 1, status[id], claim));
    }
    node.appendChild(marks);
    cursor = match.index + match[0].length;
  }
  node.appendChild(document.createTextNode(answer.slice(cursor)));
  return { node, order };
}

/** The sentence that ends where a citation mark starts, without citation marks. */
function sentenceBefore(answer, end) {
  const before = answer.slice(0, end).replace(GROUP, " ");
  const parts = before.split(/(?<=[.!?。！？])\s+/);
  return parts[parts.length - 1].trim();
}

function citeLink(turn, id, number, citation, claim) {
  const state = citation ? citation.status : "unknown";
  return h(
    "a",
    {
      href: "#",
      class: `cite ${state}`,
      dataset: { id, status: state },
      title: `${id}: ${STATUS_TEXT[state] || state}`,
      "aria-label": `citation ${number}, ${id}, ${STATUS_TEXT[state] || state}`,
      onclick: (event) => {
        event.preventDefault();
        openCitation(turn, id, citation, claim);
      },
    },
    String(number),
  );
}

/** The list under an answer: number, title, and what the check found. */
export function citationList(turn, order) {
  if (!order.length) return h("p", { class: "muted no-cites" }, "The answer cites no sources.");
  const titles = Object.fromEntries((turn.done.manifest.included || []).concat(turn.done.manifest.dropped || []).map((e) => [e.id, e.title]));
  const status = Object.fromEntries(turn.done.citations.map((c) => [c.id, c.status]));
  return h(
    "ol",
    { class: "citations" },
    order.map((id) => {
      const state = status[id] || "unknown";
      return h(
        "li",
        { class: state, dataset: { id } },
        state === "unknown"
          ? h("span", { class: "invented" }, id)
          : h("a", { href: "#", class: "cite-title", onclick: (event) => { event.preventDefault(); openCitation(turn, id, turn.done.citations.find((c) => c.id === id)); } }, titles[id] || id),
        h("span", { class: `badge ${state}` }, STATUS_TEXT[state] || state),
      );
    }),
  );
}

async function openCitation(turn, id, citation, claim = "") {
  if (citation && Number.isInteger(citation.char_start) && Number.isInteger(citation.char_end)) {
    await openRecord(citation.record_id || id, { start: citation.char_start, end: citation.char_end }, "the cited passage");
    return;
  }
  const span = (claim && (await bestPassage(turn, id, claim, "text"))) || (await bestPassage(turn, id, turn.question, "hybrid"));
  await openRecord(id, span, span ? "the passage of the cited record that best matches the citing sentence" : "no passage of it matches the answer");
}

async function bestPassage(turn, id, query, mode) {
  turn.passages = turn.passages || new Map();
  const key = `${mode}\u0000${id}\u0000${query}`;
  if (!turn.passages.has(key)) {
    const found = api("/api/search", {
      method: "POST",
      json: { query, mode, notebook_id: turn.notebookId, limit: 100 },
    }).then(({ data }) => {
      const hit = data.find((one) => one.parent_id === id);
      return hit ? { start: hit.char_start, end: hit.char_end } : null;
    });
    turn.passages.set(key, found);
    found.catch(() => turn.passages.delete(key));
  }
  return turn.passages.get(key);
}

/** True when nothing from the notebook went into the context. */
export function notCovered(done) {
  return !(done.manifest.included || []).length;
}
