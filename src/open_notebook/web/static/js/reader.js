// The reader: a source, note or insight shown as text, with a passage highlighted and in view.

import { api } from "./api.js";
import { fmt, h, markRanges, replace } from "./dom.js";
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
 * its text), highlighted; `note` says how the passage was found.
 */
export async function openRecord(id, span = null, note = "") {
  try {
    await show({ id, span, note, whole: false });
  } catch (error) {
    showError(error, "Opening the text");
  }
}

async function show(request) {
  current = request;
  const { id, span } = request;
  const text = await load(request);
  const dialog = document.getElementById("reader");
  replace(document.getElementById("reader-title"), text.title);
  const where = span ? `characters ${fmt(span.start)}–${fmt(span.end)} of ${fmt(text.length)}` : `${fmt(text.length)} characters`;
  replace(document.getElementById("reader-meta"), `${id} · ${where}${request.note ? ` · ${request.note}` : ""}`);
  const ranges = span ? [[span.start - text.start, span.end - text.start]] : [];
  const body = h(
    "pre",
    { class: "source-text" },
    text.start > 0 ? "…\n" : "",
    markRanges(text.text, ranges, { id: "cited-passage", class: "cited" }),
    text.end < text.length ? "\n…" : "",
  );
  replace(document.getElementById("reader-body"), body);
  document.getElementById("reader-more").hidden = text.start === 0 && text.end >= text.length;
  if (!dialog.open) dialog.showModal();
  const mark = document.getElementById("cited-passage");
  if (mark) mark.scrollIntoView({ block: "center" });
  else document.getElementById("reader-body").scrollTop = 0;
}

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
