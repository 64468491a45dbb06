// Markdown shown as text: headings, paragraphs, lists, tables, emphasis and code become
// elements, their markers dropped; nothing is parsed as HTML (every piece of the source becomes a
// text node).
//
// Highlights are given in the source's character offsets (a cited passage, its supporting
// sentence) and survive the rendering: each text node is cut at their boundaries.

import { h } from "./dom.js";
import { TABLE_DELIMITER, isTableRow } from "./plain.js";

const HEADING = /^(#{1,6})[ \t]+/;
const ITEM = /^[ \t]*([-*+]|\d{1,3}[.)])[ \t]+/;
const FENCE = /^[ \t]*```/;
// Inline spans: strong, emphasis, code, links (their text; the address is dropped).
const INLINE = /(\*\*|__)(?=\S)([\s\S]+?)(?<=\S)\1|(\*|_)(?=[^\s*_])([\s\S]+?)(?<=[^\s*_])\3(?![\w*])|`([^`\n]+)`|\[([^\]\n]+)\]\([^)\s]+\)/g;

/**
 * The blocks of `text`: {kind, level, from, to} (offsets of their content within `text`); a
 * table is {kind: "table", from, to, rows: [{header, cells: [{from, to}]}]}.
 */
export function blocksOf(text) {
  const blocks = [];
  let paragraph = null;
  let fence = null;
  let table = null;
  let offset = 0;
  const close = () => {
    if (paragraph) blocks.push(paragraph);
    paragraph = null;
  };
  const lines = text.split("\n");
  for (const [index, line] of lines.entries()) {
    const start = offset;
    const end = start + line.length;
    offset = end + 1;
    if (!fence && table && isTableRow(line) && !TABLE_DELIMITER.test(line)) {
      table.rows.push({ header: false, cells: cellsOf(line, start) });
      table.to = end;
      continue;
    }
    if (!fence && table && TABLE_DELIMITER.test(line)) continue;
    table = null;
    // A table: a row of cells over a delimiter row (GFM), then rows until a line without pipes.
    if (!fence && isTableRow(line) && TABLE_DELIMITER.test(lines[index + 1] || "")) {
      close();
      table = { kind: "table", from: start, to: end, rows: [{ header: true, cells: cellsOf(line, start) }] };
      blocks.push(table);
      continue;
    }
    if (FENCE.test(line)) {
      close();
      if (fence) {
        blocks.push(fence);
        fence = null;
      } else fence = { kind: "code", from: end + 1, to: end + 1 };
      continue;
    }
    if (fence) {
      fence.to = end;
      continue;
    }
    const heading = HEADING.exec(line);
    const item = ITEM.exec(line);
    if (!line.trim()) close();
    else if (heading) {
      close();
      blocks.push({ kind: "heading", level: heading[1].length, from: start + heading[0].length, to: end });
    } else if (item) {
      close();
      blocks.push({ kind: /\d/.test(item[1]) ? "ordered" : "item", from: start + item[0].length, to: end });
    } else if (paragraph && paragraph.kind === "paragraph") paragraph.to = end;
    else if (blocks.length && ["item", "ordered"].includes(blocks[blocks.length - 1].kind) && /^[ \t]+/.test(line)) {
      blocks[blocks.length - 1].to = end; // a list item's continuation line
    } else {
      close();
      paragraph = { kind: "paragraph", from: start, to: end };
    }
  }
  close();
  if (fence) blocks.push(fence);
  return blocks;
}

// The cells of a table row at offset `start`: [{from, to}] of each cell's trimmed text.
function cellsOf(line, start) {
  const cells = [];
  const body = line.replace(/[ \t]*\|?[ \t]*$/, (tail) => (tail.includes("|") ? "" : tail));
  let at = body.search(/\S/);
  if (body[at] === "|") at += 1;
  for (const piece of body.slice(at).split(/(?<!\\)\|/)) {
    const to = start + at + piece.trimEnd().length;
    cells.push({ from: Math.min(to, start + at + piece.length - piece.trimStart().length), to });
    at += piece.length + 1;
  }
  return cells;
}

/**
 * `text` (which starts at offset `base` of its record) rendered; `ranges`: [{start, end, class,
 * id}] in the record's offsets, drawn as <mark> (the id on its first piece only).
 */
export function renderMarkdown(text, base = 0, ranges = []) {
  const fragment = document.createDocumentFragment();
  const used = new Set();
  const emit = (parent, from, to) => emitText(parent, text, base, from, to, ranges, used);
  let list = null;
  for (const block of blocksOf(text)) {
    if (block.kind === "item" || block.kind === "ordered") {
      const tag = block.kind === "ordered" ? "ol" : "ul";
      if (!list || list.tagName.toLowerCase() !== tag) {
        list = h(tag, {});
        fragment.appendChild(list);
      }
      const li = h("li", {});
      inline(li, text, block.from, block.to, emit);
      list.appendChild(li);
      continue;
    }
    list = null;
    if (block.kind === "table") {
      fragment.appendChild(tableView(block, text, emit));
    } else if (block.kind === "code") {
      const pre = h("pre", {});
      emit(pre, block.from, block.to);
      fragment.appendChild(pre);
    } else {
      const node = h(block.kind === "heading" ? `h${Math.min(6, block.level + 2)}` : "p", {});
      inline(node, text, block.from, block.to, emit);
      fragment.appendChild(node);
    }
  }
  return fragment;
}

function tableView(block, text, emit) {
  const [head, ...rows] = block.rows;
  const row = (one, tag) => h("tr", {}, one.cells.map((cell) => {
    const node = h(tag, {});
    inline(node, text, cell.from, cell.to, emit);
    return node;
  }));
  return h("div", { class: "md-table" }, h("table", {}, h("thead", {}, row(head, "th")), h("tbody", {}, rows.map((one) => row(one, "td")))));
}

function inline(parent, text, from, to, emit) {
  const slice = text.slice(from, to);
  INLINE.lastIndex = 0;
  let cursor = 0;
  for (let match = INLINE.exec(slice); match; match = INLINE.exec(slice)) {
    if (match.index > cursor) emit(parent, from + cursor, from + match.index);
    const [whole, strongMark, strongText, emMark, emText, code, link] = match;
    const inner = strongText ?? emText ?? code ?? link;
    const lead = strongMark ? strongMark.length : emMark ? 1 : code !== undefined ? 1 : 1;
    const tag = strongMark ? "strong" : emMark ? "em" : code !== undefined ? "code" : "span";
    const node = h(tag, {});
    const start = from + match.index + lead;
    emit(node, start, start + inner.length);
    parent.appendChild(node);
    cursor = match.index + whole.length;
  }
  if (cursor < slice.length) emit(parent, from + cursor, to);
}

function emitText(parent, text, base, from, to, ranges, used) {
  const cuts = new Set([from, to]);
  for (const range of ranges) {
    for (const at of [range.start - base, range.end - base]) if (at > from && at < to) cuts.add(at);
  }
  const points = [...cuts].sort((a, b) => a - b);
  for (let i = 0; i + 1 < points.length; i++) {
    const [a, b] = [points[i], points[i + 1]];
    const piece = text.slice(a, b);
    const range = innermost(ranges, a + base, b + base);
    if (!range) {
      parent.appendChild(document.createTextNode(piece));
      continue;
    }
    const attrs = { class: range.class };
    if (range.id && !used.has(range.id)) {
      attrs.id = range.id;
      used.add(range.id);
    }
    parent.appendChild(h("mark", attrs, piece));
  }
}

// The range covering [start, end) that is shortest; of equal ones the later, more specific one
// (a supporting sentence that is its whole passage is drawn as the sentence).
function innermost(ranges, start, end) {
  let found = null;
  for (const one of ranges) {
    if (one.start > start || one.end < end) continue;
    if (!found || one.end - one.start <= found.end - found.start) found = one;
  }
  return found;
}
