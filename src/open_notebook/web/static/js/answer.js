// A grounded answer (the `done` event's `sentences` and `passages`): every sentence marked
// supported or not, its citation marks as links that open the cited passage highlighted, and
// the quoted passages under the answer.
//
// A sentence's text comes from the server without its marks; what lies between sentences
// (line breaks, list bullets) comes from the answer, with the model's marks taken out, since
// every mark a sentence owns is drawn as one of its links.

import { h } from "./dom.js";
import { openRecord } from "./reader.js";

// The server's marks (llm/_citations.py): bracket groups of passage numbers, handles, record ids.
const REF = String.raw`(?:\d{1,3}|#[\w-]{1,64}|(?:source_insight|insight|source|note)\s*[:：]\s*[⟨\x60]?[\w-]{1,128}(?:#[\w-]{1,64})?)`;
const MARK = new RegExp(String.raw`\s?[[【〔]\s*${REF}(?:\s*[,;，、]\s*${REF})*\s*[\]】〕]`, "gi");

export const UNSUPPORTED = "not supported by the notebook";
export const NOT_COVERED = "This notebook doesn't seem to cover the question.";

const CITATION_TEXT = {
  valid: "in the context sent",
  not_in_context: "not in the context the model saw",
  unknown: "no such passage: the model made it up",
};
const NOT_HOLDING = "in the context sent, but it does not say this";
const BY_TEXT = { model: "cited by the model", attribution: "found by matching the sentence to the passages" };

/** True when nothing from the notebook went into the context. */
export function notCovered(done) {
  return !(done.manifest.included || []).length;
}

/** The answer, sentence by sentence, with its citation links (an answer without sentences: its text). */
export function renderSentences(done) {
  const node = h("div", { class: "answer-text grounded" });
  let cursor = 0;
  done.sentences.forEach((sentence, index) => {
    node.append(withoutMarks(done.answer.slice(cursor, sentence.start)));
    node.append(sentenceView(sentence, index));
    cursor = Math.max(cursor, sentence.end);
  });
  node.append(withoutMarks(done.answer.slice(cursor)).replace(/^\s+$/, ""));
  return node;
}

function withoutMarks(text) {
  return text.replace(MARK, "");
}

function sentenceView(sentence, index) {
  const supported = sentence.status === "supported";
  const view = h(
    "span",
    {
      class: `sentence ${supported ? "supported" : "unsupported"}`,
      dataset: { status: sentence.status, index: String(index), score: String(sentence.score) },
      title: supported ? null : UNSUPPORTED,
    },
    sentence.text,
  );
  if (!supported) {
    view.append(h("span", { class: "flag", "aria-hidden": "true" }, "?"), h("span", { class: "visually-hidden" }, ` (${UNSUPPORTED})`));
  }
  if (sentence.citations.length) {
    view.append(h("sup", { class: "cites" }, sentence.citations.map((citation) => citeLink(citation))));
  }
  return view;
}

function hasSpan(citation) {
  return Boolean(citation.record_id) && Number.isInteger(citation.char_start) && Number.isInteger(citation.char_end);
}

function citeLink(citation) {
  const where = citation.title || citation.record_id || citation.written || "?";
  const label = citation.number ? String(citation.number) : citation.written || "?";
  // A passage the model saw but that does not hold the sentence: shown, never counted as a citation.
  const holds = citation.supports !== false;
  const status = holds ? CITATION_TEXT[citation.status] || citation.status : NOT_HOLDING;
  const what = `${status}; ${BY_TEXT[citation.by] || citation.by}`;
  const attrs = {
    class: `cite passage ${citation.status} by-${citation.by}${holds ? "" : " not-holding"}`,
    dataset: {
      status: citation.status,
      by: citation.by,
      number: citation.number ? String(citation.number) : "",
      id: citation.record_id || "",
    },
    title: `${where}: ${what}`,
    "aria-label": `passage ${label}, ${where}, ${what}`,
  };
  if (!hasSpan(citation)) return h("span", attrs, label);
  return h("a", { ...attrs, href: "#", onclick: (event) => { event.preventDefault(); openPassage(citation); } }, label);
}

function openPassage(passage) {
  return openRecord(passage.record_id, { start: passage.char_start, end: passage.char_end }, `passage ${passage.number}, as quoted under the answer`);
}

/** The passages the sentences cite, in order of first citation, each with who cited it. */
export function citedPassages(done) {
  const found = new Map();
  for (const sentence of done.sentences) {
    for (const citation of sentence.citations) {
      if (citation.status !== "valid" || citation.supports === false || !hasSpan(citation) || !citation.number) continue;
      const seen = found.get(citation.number);
      if (seen) seen.by.add(citation.by);
      else found.set(citation.number, { ...citation, by: new Set([citation.by]) });
    }
  }
  return [...found.values()];
}

/** The quoted passages under the answer, or a plain line saying nothing is cited. */
export function passageList(done) {
  const cited = citedPassages(done);
  if (!cited.length) return h("p", { class: "muted no-cites" }, "The answer cites no passage of the notebook.");
  const unsupported = done.sentences.filter((one) => one.status !== "supported").length;
  return h(
    "section",
    { class: "quoted", "aria-label": "Quoted passages" },
    h("p", { class: "support-summary muted" }, `${done.sentences.length - unsupported} of ${done.sentences.length} sentences supported by the notebook; quoted passages:`),
    h(
      "ol",
      { class: "passages" },
      cited.map((passage) =>
        h(
          "li",
          { class: "passage", dataset: { number: String(passage.number), id: passage.record_id } },
          h(
            "p",
            { class: "passage-head" },
            h("a", { href: "#", class: "passage-number", "aria-label": `open passage ${passage.number} in its source`, onclick: (event) => { event.preventDefault(); openPassage(passage); } }, `[${passage.number}]`),
            " ",
            h("span", { class: "passage-title" }, passage.title || passage.record_id),
            " ",
            h("span", { class: "muted handle" }, passage.handle),
            " ",
            h("span", { class: "badge" }, [...passage.by].map((by) => BY_TEXT[by] || by).join("; ")),
          ),
          h("blockquote", { class: "passage-text" }, passage.text),
        ),
      ),
    ),
  );
}

/** The "not covered" notice; `notice` is the server's own sentence, when it sent one. */
export function coverageNotice(notice) {
  return h("p", { class: "not-covered", role: "status" }, h("strong", {}, "Not covered. "), notice || NOT_COVERED);
}
