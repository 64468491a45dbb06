// Sentences of a record's text, and the one that supports a claim: what the page highlights
// strongly inside a cited passage. A row of a Markdown table is one unit (a file name's dot
// does not end it), and a sentence ends at a stop followed by a space or the line's end.

import { TABLE_DELIMITER, isTableRow } from "./plain.js";

const WORD = /[\p{L}\p{N}]+/gu;
const wordsOf = (text) => new Set((String(text).toLowerCase().match(WORD) || []).filter((word) => word.length > 2 || /\d/.test(word)));

// A line break inside a paragraph is a space (hard-wrapped text); one before a blank line, a
// heading, a list item or a table row ends the sentence, and so does one after a table row.
const SOFT_BREAK = /(?<!\|[ \t]*)\n(?![ \t]*(?:\n|#{1,6}[ \t]|[-*+][ \t]|\d{1,3}[.)][ \t]|\|))/g;
// A sentence: up to a stop followed by a space or the end, or a CJK stop, or the line's end.
const SENTENCE = /\S[^\n]*?(?:[.!?]+["'”’)\]]*(?=\s|$)|[。！？]+["'”’)]*|$)/g;

/** Sentence spans [start, end) of `text` (ends of sentences and of lines; table rows whole). */
export function sentenceSpans(text) {
  // Same length: offsets stay those of `text`.
  const flowing = String(text).replace(SOFT_BREAK, " ");
  const spans = [];
  let offset = 0;
  for (const line of flowing.split("\n")) {
    if (TABLE_DELIMITER.test(line)) {
      // not a sentence
    } else if (isTableRow(line)) {
      const lead = line.length - line.replace(/^[ \t|]+/, "").length;
      const body = line.replace(/[ \t|]+$/, "").length;
      if (body > lead) spans.push([offset + lead, offset + body]);
    } else {
      for (const match of line.matchAll(SENTENCE)) {
        const end = match.index + match[0].trimEnd().length;
        if (end > match.index) spans.push([offset + match.index, offset + end]);
      }
    }
    offset += line.length + 1;
  }
  return spans;
}

/**
 * The sentence of `text` that shares most words with `claim` ([start, end) in `text`; only
 * sentences overlapping `within` = [start, end) when given), or null when none shares any: what
 * the page highlights as the supporting sentence.
 */
export function supportingSentence(text, claim, within = null) {
  const wanted = wordsOf(claim);
  let best = null;
  let bestScore = 0;
  for (const [start, end] of sentenceSpans(text)) {
    // Whole sentences that overlap the passage: a passage can start or end mid-sentence.
    if (within && (end <= within[0] || start >= within[1])) continue;
    if (/^[ \t]*#{1,6}[ \t]/.test(text.slice(start, end))) continue; // a heading states nothing
    const words = wordsOf(text.slice(start, end));
    let shared = 0;
    for (const word of words) if (wanted.has(word)) shared += 1;
    const score = shared / Math.sqrt(Math.max(words.size, 1));
    if (score > bestScore) {
      best = [start, end];
      bestScore = score;
    }
  }
  return best;
}

const HEADING_LINE = /^#{1,6}[ \t]+(.+?)[ \t#]*$/gm;

/**
 * The heading of the section that holds offset `at` of `text`: the last heading line that
 * starts at or before it (null when none does).
 */
export function sectionAt(text, at) {
  let found = null;
  for (const match of String(text).matchAll(HEADING_LINE)) {
    if (match.index > at) break;
    found = match[1];
  }
  return found;
}

/** The first offset of [start, end) of `text` that is not a heading line or a blank: where a
 * passage that opens with its section's heading begins to say something. */
export function bodyStart(text, start, end) {
  let at = start;
  for (;;) {
    const lineEnd = text.indexOf("\n", at);
    const stop = lineEnd < 0 || lineEnd > end ? end : lineEnd;
    const line = text.slice(at, stop);
    if (line.trim() && !/^[ \t]*#{1,6}[ \t]/.test(line)) return at + (line.length - line.trimStart().length);
    if (stop >= end) return start;
    at = stop + 1;
  }
}
