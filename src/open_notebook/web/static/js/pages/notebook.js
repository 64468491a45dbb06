// One notebook: its sources (upload, drag and drop, URL), its notes, and a search box.

import { api, deleteRecord, upload } from "../api.js";
import { fmt, h, markedSnippet, replace, when } from "../dom.js";
import { plainText, tableText } from "../plain.js";
import { progressBar } from "../progress.js";
import { openRecord } from "../reader.js";
import { confirmDialog, guarded, showInfo } from "../ui.js";

// The suffixes the ingest readers take (ingest/_extract.py), so the picker offers each of them.
const ACCEPT = [
  ".pdf,.docx,.pptx,.xlsx,.xlsm,.csv,.tsv,.epub,.html,.htm,.xhtml,.md,.markdown,.txt,.text,.rst,.log,.json,.xml",
  ".png,.jpg,.jpeg,.tif,.tiff,.webp",
  ".mp3,.wav,.m4a,.ogg,.oga,.opus,.flac,.aac,.webm",
].join(",");

export async function notebookPage(view, key) {
  const notebook = await api(`/api/notebooks/notebook:${key}`);
  if (!view.alive()) return;
  view.crumbs([notebook.name]);
  const sources = h("ul", { class: "rows", id: "source-list", "aria-label": "Sources" });
  const notes = h("ul", { class: "rows", id: "note-list", "aria-label": "Notes" });
  const state = { view, notebook, sources, notes };
  replace(
    view.main,
    h(
      "section",
      { class: "panel heading" },
      h("h1", {}, notebook.name),
      notebook.description ? h("p", { class: "muted" }, notebook.description) : null,
      h("div", { class: "actions" }, h("a", { class: "button primary", href: `#/nb/${key}/ask` }, "Ask a question"), h("a", { class: "button", href: `#/nb/${key}/context` }, "Inspect the context")),
    ),
    h("div", { class: "columns" },
      h("section", { class: "panel", "aria-labelledby": "sources-title" }, h("h2", { id: "sources-title" }, "Sources"), addSources(state), sources),
      h("div", { class: "side" },
        searchPanel(state),
        h("section", { class: "panel", "aria-labelledby": "notes-title" }, h("h2", { id: "notes-title" }, "Notes"), noteForm(state), notes),
      ),
    ),
  );
  await Promise.all([loadSources(state), loadNotes(state)]);
}

async function loadSources(state) {
  const { data } = await api(`/api/sources?notebook_id=${encodeURIComponent(state.notebook.id)}&limit=1000`);
  if (!state.view.alive()) return;
  if (!data.length) {
    replace(state.sources, h("li", { class: "empty" }, "No sources yet: upload files, drop them here, or add a web page."));
    return;
  }
  replace(state.sources, data.map((source) => sourceRow(state, source)));
}

function sourceRow(state, source) {
  const remove = h("button", { type: "button", class: "danger small" }, "Delete");
  remove.addEventListener("click", () =>
    guarded(remove, async () => {
      if (!(await confirmDialog(`Delete the source “${source.title}” with its chunks and insights?`))) return;
      await deleteRecord(`/api/sources/${encodeURIComponent(source.id)}`);
      await loadSources(state);
    }, "Deleting the source"),
  );
  const origin = source.file_name || source.url || "text";
  return h(
    "li",
    { class: "row", dataset: { id: source.id } },
    h("button", { type: "button", class: "link row-title", onclick: () => openRecord(source.id) }, source.title),
    h("span", { class: "badge ok", title: "extracted, chunked and embedded" }, "ready"),
    remove,
    h("span", { class: "meta" }, `${origin} · ${fmt(source.token_count)} tokens · ${when(source.created)}`),
  );
}

function addSources(state) {
  const input = h("input", { type: "file", multiple: true, accept: ACCEPT, id: "file-input", class: "visually-hidden" });
  const queue = h("ul", { class: "rows queue", id: "upload-queue", "aria-label": "Uploads", "aria-live": "polite" });
  const zone = h(
    "label",
    { class: "dropzone", for: "file-input", id: "dropzone" },
    h("strong", {}, "Add files"),
    h("span", { class: "muted" }, " — drop documents, slides, sheets, e-books, scans, images or recordings here, or click to choose"),
  );
  input.addEventListener("change", () => {
    enqueue(state, queue, [...input.files]);
    input.value = "";
  });
  zone.addEventListener("dragover", (event) => {
    event.preventDefault();
    zone.classList.add("over");
  });
  zone.addEventListener("dragleave", () => zone.classList.remove("over"));
  zone.addEventListener("drop", (event) => {
    event.preventDefault();
    zone.classList.remove("over");
    enqueue(state, queue, [...event.dataTransfer.files]);
  });
  return h("div", { class: "add-sources" }, input, zone, urlForm(state), queue);
}

// Files go one at a time: the server extracts and embeds each on the CPU it shares.
function enqueue(state, queue, files) {
  const rows = files.map((file) => {
    const status = h("span", { class: "status" }, "waiting");
    // Empty (and so not drawn) until there is progress to show: a bar at 0 % reads as stuck.
    const bar = h("span", { class: "upload-bar" });
    const row = h("li", { class: "row upload", dataset: { state: "waiting", name: file.name } }, h("span", { class: "row-title" }, file.name), h("span", { class: "meta" }, `${fmt(Math.ceil(file.size / 1024))} KiB`), bar, status);
    queue.appendChild(row);
    return { file, row, status, bar };
  });
  state.uploads = (state.uploads || Promise.resolve()).then(() => runUploads(state, rows));
}

async function runUploads(state, rows) {
  let added = 0;
  for (const [index, item] of rows.entries()) {
    const set = (name, text, fraction) => {
      item.row.dataset.state = name;
      replace(item.status, text);
      replace(item.bar, fraction === undefined ? null : progressBar(fraction, `upload of ${item.file.name}`));
    };
    set("uploading", `uploading (${index + 1} of ${rows.length})`, 0);
    try {
      const source = await upload(item.file, state.notebook.id, (fraction) => {
        if (fraction < 1) set("uploading", `uploading ${Math.round(fraction * 100)} %`, fraction);
        else set("processing", "extracting, chunking and embedding…", null);
      });
      const note = source.already_stored ? "already stored: linked to this notebook" : `added: ${fmt(source.chunk_count)} chunks, ${fmt(source.token_count)} tokens`;
      set("done", note);
      added += 1;
    } catch (error) {
      set("failed", `failed: ${error.message}`);
      item.status.classList.add("error-text");
    }
  }
  if (added && state.view.alive()) await loadSources(state);
}

function urlForm(state) {
  const url = h("input", { type: "url", name: "url", required: true, placeholder: "https://example.org/article", "aria-label": "Web page address" });
  const submit = h("button", { type: "submit" }, "Add web page");
  const form = h("form", { class: "inline-form", id: "url-form" }, url, submit);
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    guarded(submit, async () => {
      const source = await api("/api/sources/url", { method: "POST", json: { url: url.value, notebook_id: state.notebook.id } });
      form.reset();
      showInfo(`Added “${source.title}” (${fmt(source.chunk_count)} chunks).`);
      await loadSources(state);
    }, "Adding the web page");
  });
  return form;
}

async function loadNotes(state) {
  const { data } = await api(`/api/notes?notebook_id=${encodeURIComponent(state.notebook.id)}`);
  if (!state.view.alive()) return;
  if (!data.length) {
    replace(state.notes, h("li", { class: "empty" }, "No notes yet."));
    return;
  }
  replace(state.notes, data.map((note) => noteRow(state, note)));
}

function noteRow(state, note) {
  const remove = h("button", { type: "button", class: "danger small" }, "Delete");
  remove.addEventListener("click", () =>
    guarded(remove, async () => {
      if (!(await confirmDialog(`Delete the note “${note.title || note.content.slice(0, 40)}”?`))) return;
      await deleteRecord(`/api/notes/${encodeURIComponent(note.id)}`);
      await loadNotes(state);
    }, "Deleting the note"),
  );
  return h(
    "li",
    { class: "row", dataset: { id: note.id } },
    h("button", { type: "button", class: "link row-title", onclick: () => openRecord(note.id) }, note.title || "Untitled note"),
    remove,
    h("span", { class: "meta clamp" }, note.content),
  );
}

function noteForm(state) {
  const title = h("input", { name: "title", maxlength: 500, placeholder: "Title (optional)", "aria-label": "Note title" });
  const content = h("textarea", { name: "content", required: true, rows: 3, placeholder: "Write a note…", "aria-label": "Note text" });
  const submit = h("button", { type: "submit" }, "Add note");
  const form = h("form", { class: "stack-form", id: "note-form" }, title, content, submit);
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    guarded(submit, async () => {
      await api("/api/notes", { method: "POST", json: { notebook_id: state.notebook.id, title: title.value, content: content.value } });
      form.reset();
      await loadNotes(state);
    }, "Adding the note");
  });
  return form;
}

function searchPanel(state) {
  const query = h("input", { type: "search", name: "q", required: true, placeholder: "Search this notebook", "aria-label": "Search this notebook" });
  const mode = h("select", { name: "mode", "aria-label": "Search mode" }, h("option", { value: "hybrid" }, "hybrid"), h("option", { value: "vector" }, "meaning"), h("option", { value: "text" }, "words"));
  const submit = h("button", { type: "submit" }, "Search");
  const hits = h("ol", { class: "hits", id: "search-hits", "aria-label": "Search results" });
  const form = h("form", { class: "inline-form", id: "search-form", role: "search" }, query, mode, submit);
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    guarded(submit, async () => {
      const asked = query.value;
      const result = await api("/api/search", { method: "POST", json: { query: asked, notebook_id: state.notebook.id, mode: mode.value, limit: 10 } });
      if (!state.view.alive()) return;
      const rows = result.data.map((hit) => hitRow(hit, asked));
      if (!result.data.length) replace(hits, h("li", { class: "empty no-match" }, "Nothing in this notebook matches."));
      else if (result.match === "none") replace(hits, noMatch(asked, rows));
      else replace(hits, rows);
    }, "Searching");
  });
  return h("section", { class: "panel search-panel", "aria-labelledby": "search-title" }, h("h2", { id: "search-title" }, "Search"), form, hits);
}

// The same judgment as a question's coverage: the best hits are only the nearest, not a match.
function noMatch(asked, rows) {
  const list = h("ol", { class: "hits nearest-hits" }, rows);
  list.hidden = true;
  const show = h("button", { type: "button", class: "link", onclick: () => { list.hidden = false; show.remove(); } }, "Show the nearest passages anyway");
  return h("li", { class: "no-match", role: "status" }, h("p", {}, h("strong", {}, "No good match. "), `Nothing in this notebook is about “${asked}”.`), show, list);
}

// A hit's title: its document, then the sections under it (the document's own title, which
// the path often repeats, once).
function hitTitle(hit) {
  const title = plainText(hit.parent_title);
  const path = hit.heading_path.map(plainText).filter((part, index, all) => part && part !== title && part !== all[index - 1]);
  return [title, ...path].join(" › ");
}

// Markdown's markers out (a table's pipes too), line breaks as spaces; spaces at the edges kept
// (a part may sit between two marked matches).
const cleanPart = (part) => part.replace(/(^|\n)[ \t]*#{1,6}[ \t]+/g, "$1").replace(/(^|\n)[ \t]*[-+][ \t]+/g, "$1").replace(/[*`]+/g, "").replace(/\s+/g, " ");

// At most `limit` characters of `text`, cut at a space, with "…" when cut.
function cutAtWord(text, limit) {
  if (text.length <= limit) return text;
  const cut = text.slice(0, limit + 1).replace(/\s+\S*$/, "");
  return `${cut || text.slice(0, limit)}…`;
}

function hitSnippet(hit) {
  if (!hit.highlights.length) return cutAtWord(plainText(hit.text), 240);
  // The API marks matches with <b>…</b>: clean the text between the markers, keep them.
  const parts = tableText(hit.highlights[0]).split(/(<b>|<\/b>)/).map((part) => (part === "<b>" || part === "</b>" ? part : cleanPart(part)));
  // A snippet opening with its section's heading: the title above already names it.
  const heading = plainText(hit.heading_path[hit.heading_path.length - 1] || hit.parent_title);
  if (heading && parts[0].trimStart().startsWith(heading) && parts[0].trim().length > heading.length) {
    parts[0] = parts[0].trimStart().slice(heading.length);
  }
  return markedSnippet(parts.join("").trim());
}

function hitRow(hit, asked) {
  const scores = hit.scores;
  const parts = [`rank ${hit.rank}`, `combined score ${scores.fused.toFixed(3)}`];
  if (scores.vector !== null && scores.vector !== undefined) parts.push(`meaning ${scores.vector.toFixed(3)}`);
  if (scores.bm25 !== null && scores.bm25 !== undefined) parts.push(`words ${scores.bm25.toFixed(3)}`);
  if (scores.sentence !== null && scores.sentence !== undefined) parts.push(`best sentence ${scores.sentence.toFixed(3)}`);
  return h(
    "li",
    { class: "hit", dataset: { id: hit.id } },
    h("button", { type: "button", class: "link hit-title", onclick: () => openRecord(hit.parent_id, { start: hit.char_start, end: hit.char_end }, "found by search", asked) }, hitTitle(hit)),
    hit.kind !== "source" ? h("span", { class: "badge" }, hit.kind) : null,
    h("p", { class: "snippet" }, hitSnippet(hit)),
    h("details", { class: "hit-details" }, h("summary", {}, "details"), h("span", { class: "meta" }, parts.join(" · "))),
  );
}
