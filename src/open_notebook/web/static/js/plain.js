// Markdown as plain text on one line: titles, search snippets, quoted and nearest passages.
// A table reads as its cells ("a · b") row after row ("a · b — c · d"), never as pipes.

// A table's delimiter row: |---|:--:| (the pipes are what tell it from a rule).
export const TABLE_DELIMITER = /^[ \t]*\|?[ \t]*:?-+:?[ \t]*(\|[ \t]*:?-+:?[ \t]*)+\|?[ \t]*$|^[ \t]*\|[ \t]*:?-+:?[ \t]*\|[ \t]*$/;

/** True for a line of a Markdown table: it opens or closes with a pipe. */
export function isTableRow(line) {
  return /^[ \t]*\|/.test(line) || /\|[ \t]*$/.test(line);
}

/** The cells of a table row, trimmed (a cell's own escaped pipe `\|` stays in it). */
export function rowCells(line) {
  const inner = line.trim().replace(/^\|/, "").replace(/(?<!\\)\|$/, "");
  return inner.split(/(?<!\\)\|/).map((cell) => cell.trim());
}

/** `text` with each table row as its cells joined by " · ", rows by " — ", delimiters dropped. */
export function tableText(text) {
  const out = [];
  let previousRow = false;
  for (const line of String(text).split("\n")) {
    if (TABLE_DELIMITER.test(line)) continue;
    // A snippet may start or end inside a row: a line with inner pipes between words is one.
    const row = isTableRow(line.replace(/^…|…$/g, "")) || /\S[ \t]+\|[ \t]+\S/.test(line);
    if (!row) {
      out.push(`${line}\n`);
      previousRow = false;
      continue;
    }
    // A snippet's "…" sits outside the row's pipes it was cut from.
    const lead = line.startsWith("…") ? "…" : "";
    const tail = line.length > 1 && line.endsWith("…") ? "…" : "";
    const cells = rowCells(line.slice(lead.length, line.length - tail.length)).filter(Boolean).join(" · ");
    if (!cells) {
      out.push(lead || tail);
      continue;
    }
    out.push(`${previousRow ? " — " : ""}${lead}${cells}${tail}`);
    previousRow = true;
  }
  return out.join("").replace(/\n$/, "");
}

/** A passage quoted on its own: its text without the heading lines its title already gives. */
export function quoteText(text) {
  return plainText(String(text).replace(/(^|\n)[ \t]*#{1,6}[ \t]+[^\n]*(?=\n|$)/g, "$1"));
}

/** `text` with its Markdown markers dropped, on one line (snippets, titles). */
export function plainText(text) {
  return tableText(text)
    .replace(/^[ \t]*#{1,6}[ \t]+/gm, "")
    .replace(/^[ \t]*([-*+])[ \t]+/gm, "")
    .replace(/(\*\*|__)(\S[\s\S]*?\S|\S)\1/g, "$2")
    .replace(/(^|[^\w*])[*_](\S[^*_]*?\S|\S)[*_](?![\w*])/g, "$1$2")
    .replace(/`([^`]+)`/g, "$1")
    .replace(/\s+/g, " ")
    .trim();
}
