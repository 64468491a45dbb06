// The reader: a source, note or insight shown as text (its Markdown rendered, never as HTML),
// with a cited passage highlighted and, inside it, the sentence that supports the claim.

import { api } from "./api.js";
import { fmt, h, replace } from "./dom.js";
import { renderMarkdown } from "./markdown.js";
import { plainText } from "./plain.js";
import { bodyStart, sectionAt, supportingSentence } from "./sentences.js";
import { showError } from "./ui.js";

// Characters shown around a passage before "Show the whole text".
const AROUND = 4000;
const FIRST = 20000;

let current = null;

export function initReader() {
  const dialog = document.getElementById("reader");
  document.getElementById("reader-close").addEventListener("click", () => dialog.close());
  dialog.addEventListener("click", (event) => {
    if (event.target === dialog) dialog.close(); // a click on the backdrop
  });
  document.getElementById("reader-more").addEventListener("click", () => {
    if (current) show({ ...current, whole: true }).catch(showError);
  });
}

/**
 * Open record `id` (source:…, note:…, source_insight:…) at `span` = {start, end} (characters of
 * its text), highlighted; `note` says how the passage was found; `claim` (a sentence of an
 * answer, or a query) picks the passage's sentence that supports it, highlighted within it.
 */
export async function openRecord(id, span = null, note = "", claim = "") {
  try {
    await show({ id, span, note, claim, whole: false });
  } catch (error) {
    showError(error, "Opening the text");
  }
}

async function show(request) {
  current = request;
  const { span } = request;
  const text = await load(request);
  const dialog = document.getElementById("reader");
  const { ranges, anchor } = highlights(text, span, request.claim);
  replace(document.getElementById("reader-title"), plainText(text.title) || "Untitled");
  replace(document.getElementById("reader-meta"), [whereIs(text, span, anchor), request.note].filter(Boolean).join(" · "));
  const body = h(
    "div",
    { class: "reader-text" },
    text.start > 0 ? h("p", { class: "muted" }, "…") : null,
    renderMarkdown(text.text, text.start, ranges),
    text.end < text.length ? h("p", { class: "muted" }, "…") : null,
  );
  replace(document.getElementById("reader-body"), body);
  document.getElementById("reader-more").hidden = text.start === 0 && text.end >= text.length;
  if (!dialog.open) dialog.showModal();
  const mark = document.getElementById("cited-sentence") || document.getElementById("cited-passage");
  if (mark) mark.scrollIntoView({ block: "center" });
  else document.getElementById("reader-body").scrollTop = 0;
}

/**
 * The marks of a passage at `span` (record offsets) in the loaded `text`: the passage, and inside
 * it the sentence (or table row) that supports `claim`; `anchor`, the offset in `text` where
 * what the passage says begins: that sentence, or its first line after its headings.
 */
function highlights(text, span, claim) {
  if (!span) return { ranges: [], anchor: null };
  const local = [Math.max(0, span.start - text.start), Math.max(0, span.end - text.start)];
  const ranges = [{ start: span.start, end: span.end, class: "cited", id: "cited-passage" }];
  const found = claim ? supportingSentence(text.text, claim, local) : null;
  if (found) {
    ranges.push({ start: text.start + found[0], end: text.start + found[1], class: "cited-sentence", id: "cited-sentence" });
  }
  return { ranges, anchor: found ? found[0] : bodyStart(text.text, local[0], local[1]) };
}

// Where a passage sits, in words: the section that holds what it says, and how far in.
function whereIs(text, span, anchor) {
  if (!span) return `${fmt(wordCount(text.text))} words`;
  const heading = sectionAt(text.text, anchor);
  const section = heading ? `in “${plainText(heading)}”` : "";
  const share = text.length ? span.start / text.length : 0;
  const position = share < 0.2 ? "near the start" : share > 0.8 ? "near the end" : share < 0.4 ? "in the first half" : share > 0.6 ? "in the second half" : "about halfway through";
  return [section, position].filter(Boolean).join(", ");
}

const wordCount = (text) => (String(text).match(/\S+/g) || []).length;

async function load({ id, span, whole }) {
  const table = id.slice(0, id.indexOf(":"));
  if (table === "source") {
    let query = "";
    if (!whole) {
      const start = span ? Math.max(0, span.start - AROUND) : 0;
      const end = span ? span.end + AROUND : FIRST;
      query = `?start=${start}&end=${end}`;
    }
    return api(`/api/sources/${encodeURIComponent(id)}/text${query}`);
  }
  const path = table === "note" ? `/api/notes/${encodeURIComponent(id)}` : `/api/insights/${encodeURIComponent(id)}`;
  const record = await api(path);
  const title = table === "note" ? record.title || "Note" : `Insight: ${record.insight_type}`;
  return { id, title, text: record.content, start: 0, end: record.content.length, length: record.content.length };
}
