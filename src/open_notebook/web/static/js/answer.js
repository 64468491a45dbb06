// A grounded answer (the `done` event's `sentences` and `passages`): every sentence marked
// supported or not, its citation marks as links that open the cited passage highlighted, and
// the quoted passages under the answer.
//
// A sentence's text comes from the server without its marks; what lies between sentences
// (line breaks, list bullets) comes from the answer, with the model's marks taken out, since
// every mark a sentence owns is drawn as one of its links.

import { h } from "./dom.js";
import { plainText, quoteText } from "./plain.js";
import { supportingSentence } from "./sentences.js";
import { openRecord } from "./reader.js";

// The server's marks (llm/_citations.py): bracket groups of passage numbers, handles, record ids.
const REF = String.raw`(?:\d{1,3}|#[\w-]{1,64}|(?:source_insight|insight|source|note)\s*[:：]\s*[⟨\x60]?[\w-]{1,128}(?:#[\w-]{1,64})?)`;
const MARK = new RegExp(String.raw`\s?[[【〔]\s*${REF}(?:\s*[,;，、]\s*${REF})*\s*[\]】〕]`, "gi");

export const UNSUPPORTED = "not supported by the notebook";
export const OFF_QUESTION = "in your notebook, but it does not answer the question";
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

// A mark still being written at the end of the stream ("[1", "[sour"): held back until it ends.
const OPEN_MARK = /\s?[[【〔][^\]】〕\n]{0,140}$/;

/**
 * The answer as it streams: its text, each of the model's marks drawn as the chip the final
 * answer shows, numbered 1, 2, 3 by first appearance as the server numbers them.
 */
export function streamingView(text) {
  const node = h("div", { class: "answer-text grounded streaming-text" });
  const numbers = new Map();
  const shown = text.replace(OPEN_MARK, "");
  let cursor = 0;
  for (const match of shown.matchAll(MARK)) {
    node.append(shown.slice(cursor, match.index));
    const refs = match[0].replace(/^\s?[[【〔]\s*|\s*[\]】〕]$/g, "").split(/\s*[,;，、]\s*/);
    const chips = refs.map((ref) => {
      const key = ref.replace(/\s+/g, "").toLowerCase();
      if (!numbers.has(key)) numbers.set(key, numbers.size + 1);
      return h("span", { class: "cite pending", "aria-label": `passage ${numbers.get(key)}` }, String(numbers.get(key)));
    });
    node.append(h("sup", { class: "cites" }, chips));
    cursor = match.index + match[0].length;
  }
  node.append(shown.slice(cursor));
  return node;
}

function sentenceView(sentence, index) {
  const supported = sentence.status === "supported";
  const view = h(
    "span",
    {
      class: `sentence ${supported ? "supported" : "unsupported"}`,
      dataset: { status: sentence.status, index: String(index), score: String(sentence.score) },
      title: supported ? null : sentence.held ? OFF_QUESTION : UNSUPPORTED,
    },
    sentence.text,
  );
  if (!supported) {
    const why = sentence.held ? OFF_QUESTION : UNSUPPORTED;
    view.append(h("span", { class: "flag", "aria-hidden": "true" }, "?"), h("span", { class: "visually-hidden" }, ` (${why})`));
  }
  if (sentence.citations.length) {
    view.append(h("sup", { class: "cites" }, sentence.citations.map((citation) => citeLink(citation, sentence.text))));
  }
  return view;
}

function hasSpan(citation) {
  return Boolean(citation.record_id) && Number.isInteger(citation.char_start) && Number.isInteger(citation.char_end);
}

function citeLink(citation, claim) {
  const where = plainText(citation.title || "") || citation.record_id || citation.written || "?";
  const label = citation.mark ? String(citation.mark) : "?";
  // A passage the model saw but that does not hold the sentence: shown, never counted as a citation.
  const holds = citation.supports !== false;
  const status = holds ? CITATION_TEXT[citation.status] || citation.status : NOT_HOLDING;
  const what = `${status}; ${BY_TEXT[citation.by] || citation.by}`;
  const attrs = {
    class: `cite ${citation.status} by-${citation.by}${holds ? "" : " not-holding"}`,
    dataset: {
      status: citation.status,
      by: citation.by,
      number: citation.number ? String(citation.number) : "",
      mark: citation.mark ? String(citation.mark) : "",
      id: citation.record_id || "",
    },
    title: `${where}: ${what}`,
    "aria-label": `passage ${label}, ${where}, ${what}`,
  };
  if (!hasSpan(citation)) return h("span", attrs, label);
  return h("a", { ...attrs, href: "#", onclick: (event) => { event.preventDefault(); openPassage(citation, claim); } }, label);
}

function openPassage(passage, claim, note) {
  return openRecord(passage.record_id, { start: passage.char_start, end: passage.char_end }, note || `passage [${passage.mark}] of the answer`, claim);
}

/** The passages the sentences cite and that hold them, by mark, each with who cited it and
 * the first sentence it supports. */
export function citedPassages(done) {
  const found = new Map();
  for (const sentence of done.sentences) {
    for (const citation of sentence.citations) {
      if (citation.status !== "valid" || citation.supports === false || !hasSpan(citation) || !citation.mark) continue;
      const seen = found.get(citation.mark);
      if (seen) seen.by.add(citation.by);
      else found.set(citation.mark, { ...citation, by: new Set([citation.by]), claim: sentence.text });
    }
  }
  return [...found.values()].sort((a, b) => a.mark - b.mark);
}

/** A passage quoted as text, its sentence that supports `claim` highlighted. */
function quoted(passage, claim) {
  const text = passage.text;
  const found = claim ? supportingSentence(text, claim) : null;
  if (!found) return h("blockquote", { class: "passage-text" }, quoteText(text));
  return h(
    "blockquote",
    { class: "passage-text" },
    quoteText(text.slice(0, found[0])),
    " ",
    h("mark", { class: "cited-sentence" }, plainText(text.slice(found[0], found[1]))),
    " ",
    quoteText(text.slice(found[1])),
  );
}

/** The quoted passages under the answer, or a plain line saying nothing is cited. */
export function passageList(done) {
  const cited = citedPassages(done);
  if (done.coverage === "low" && !done.refused && done.sentences.length) {
    return h("p", { class: "muted no-cites support-summary" }, "Not an answer from your notebook: nothing in it covers the question.");
  }
  if (!cited.length) return done.refused ? null : h("p", { class: "muted no-cites" }, "The answer cites no passage of the notebook.");
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
          { class: "passage", dataset: { mark: String(passage.mark), number: String(passage.number), id: passage.record_id } },
          h(
            "p",
            { class: "passage-head" },
            h("a", { href: "#", class: "passage-number cite valid", "aria-label": `open passage ${passage.mark} in its source`, onclick: (event) => { event.preventDefault(); openPassage(passage, passage.claim); } }, String(passage.mark)),
            " ",
            h("span", { class: "passage-title" }, plainText(passage.title) || passage.record_id),
            " ",
            h("span", { class: "badge", title: `passage ${passage.number} of the context sent to the model` }, [...passage.by].map((by) => BY_TEXT[by] || by).join("; ")),
          ),
          quoted(passage, passage.claim),
        ),
      ),
    ),
  );
}

// The server's heading says it in the question's language; a turn stored before it did, in English.
const NEAREST_HEADING = "Nearest in your notebook — not an answer: these passages come closest to the question, and none of them answers it.";

/** The passages nearest to a question the notebook does not cover: offered, not an answer. */
export function nearestList(done, question) {
  const nearest = done.nearest || [];
  if (!nearest.length) return null;
  const heading = done.nearest_heading || NEAREST_HEADING;
  const cut = heading.indexOf(" — ");
  const [name, rest] = cut < 0 ? [heading, ""] : [heading.slice(0, cut), heading.slice(cut)];
  return h(
    "section",
    { class: "nearest", "aria-label": name },
    h("p", { class: "nearest-head" }, h("strong", {}, name), rest),
    h(
      "ul",
      { class: "passages" },
      nearest.map((passage) =>
        h(
          "li",
          { class: "passage nearest-passage", dataset: { id: passage.record_id } },
          h("p", { class: "passage-head" }, h("a", { href: "#", class: "passage-title", onclick: (event) => { event.preventDefault(); openPassage(passage, question, "nearest to the question, not an answer"); } }, plainText(passage.title) || passage.record_id)),
          // A passage that is only its heading quotes the heading.
          h("blockquote", { class: "passage-text" }, quoteText(passage.text) || plainText(passage.text)),
        ),
      ),
    ),
  );
}

/**
 * An answer whose sentences come from passages about something else than the question: the
 * server's notice (in the question's language), then the context's sentence that matches the
 * question best, quoted as such, its passage opening at it.
 */
export function offQuestion(done) {
  const evidence = done.answer_check && done.answer_check.evidence;
  if (!done.off_question || !evidence) return null;
  const passage = (done.passages || []).find((one) => one.number === evidence.number);
  const title = passage ? plainText(passage.title) || passage.record_id : "";
  return h(
    "section",
    { class: "off-question", role: "status", "aria-label": "The passage that matches the question best" },
    h("p", { class: "off-question-head" }, done.off_question),
    h("blockquote", { class: "passage-text" }, h("mark", { class: "cited-sentence" }, plainText(evidence.text))),
    passage ? h("p", { class: "passage-head" }, h("a", { href: "#", class: "passage-title", onclick: (event) => { event.preventDefault(); openPassage(passage, evidence.text, "the passage that matches the question best"); } }, title)) : null,
  );
}

/** The "not covered" notice; `notice` is the server's own sentence, when it sent one. */
export function coverageNotice(notice) {
  return h("p", { class: "not-covered", role: "status" }, h("strong", {}, "Not covered. "), notice || NOT_COVERED);
}
