// Building the page from data. Text from the API (titles, source text, answers) only ever
// becomes text nodes: nothing here parses HTML, so a source cannot inject markup.

/** An element: h("a", {href: "#/", class: "x", onclick: fn}, "text", child, [more]). */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith("on") && typeof value === "function") {
      el.addEventListener(key.slice(2), value);
    } else if (key === "class") {
      el.className = value;
    } else if (key === "dataset") {
      Object.assign(el.dataset, value);
    } else if (key === "href") {
      el.setAttribute("href", safeHref(value));
    } else {
      el.setAttribute(key, value === true ? "" : String(value));
    }
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children) {
    if (child === undefined || child === null || child === false) continue;
    if (Array.isArray(child)) append(el, child);
    else if (child instanceof Node) el.appendChild(child);
    else el.appendChild(document.createTextNode(String(child)));
  }
}

/** Only in-page and http(s) links: a URL from a source can never run script. */
export function safeHref(value) {
  const text = String(value);
  if (text.startsWith("#") || text.startsWith("/")) return text;
  try {
    const url = new URL(text, location.href);
    return url.protocol === "http:" || url.protocol === "https:" ? url.href : "#";
  } catch {
    return "#";
  }
}

export function clear(el) {
  while (el.firstChild) el.removeChild(el.firstChild);
  return el;
}

export function replace(el, ...children) {
  clear(el);
  append(el, children);
  return el;
}

/**
 * `text` with the character ranges `[start, end)` wrapped in <mark> (text nodes only).
 * Ranges are sorted and clipped so that overlapping ones cannot duplicate text.
 */
export function markRanges(text, ranges, markAttrs = {}) {
  const fragment = document.createDocumentFragment();
  let cursor = 0;
  const sorted = [...ranges].sort((a, b) => a[0] - b[0]);
  for (const [rawStart, rawEnd] of sorted) {
    const start = Math.max(cursor, Math.min(rawStart, text.length));
    const end = Math.max(start, Math.min(rawEnd, text.length));
    if (end === start) continue;
    if (start > cursor) fragment.appendChild(document.createTextNode(text.slice(cursor, start)));
    fragment.appendChild(h("mark", markAttrs, text.slice(start, end)));
    cursor = end;
  }
  if (cursor < text.length) fragment.appendChild(document.createTextNode(text.slice(cursor)));
  return fragment;
}

/**
 * A search snippet whose matches the API wraps in <b>…</b>: split on exactly those two
 * markers and mark the text between them. Everything else stays literal text.
 */
export function markedSnippet(snippet) {
  const fragment = document.createDocumentFragment();
  const parts = String(snippet).split(/(<b>|<\/b>)/);
  let inside = false;
  for (const part of parts) {
    if (part === "<b>") inside = true;
    else if (part === "</b>") inside = false;
    else if (part) fragment.appendChild(inside ? h("mark", {}, part) : document.createTextNode(part));
  }
  return fragment;
}

const numberFormat = new Intl.NumberFormat("en");
export const fmt = (n) => (n === null || n === undefined ? "–" : numberFormat.format(n));

export function when(iso) {
  if (!iso) return "";
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? "" : date.toLocaleString();
}

export function keyOf(id) {
  const text = String(id);
  const colon = text.indexOf(":");
  return colon >= 0 ? text.slice(colon + 1) : text;
}
