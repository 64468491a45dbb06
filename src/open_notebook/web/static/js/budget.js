// The inspector's budget: one labelled bar of the tokens used (and, on a follow-up, those of
// passages an earlier question sent), what ended the selection, and the budget control.

import { fmt, h } from "./dom.js";
import { stoppedText } from "./reasons.js";

export const MIN_BUDGET = 50;

const TOKENIZER_STORY =
  "The context sent with an answer is counted with the model's own tokenizer, as the model reads it. " +
  "A rebuild here counts with the context builder's tokenizer, so the same text can differ by a few tokens.";

const plural = (n, word) => `${fmt(n)} ${word}${n === 1 ? "" : "s"}`;

// A bar segment; widths through the CSSOM: the page's policy allows no inline style attributes.
function segment(className, share) {
  const part = h("span", { class: className });
  part.style.width = `${Math.max(0, Math.min(100, share * 100))}%`;
  return part;
}

export function budgetBar(model) {
  const budget = model.budget || 0;
  const share = (tokens) => (budget ? tokens / budget : 0);
  const counted = model.origin === "sent" ? `counted by ${model.counter || "the model"}` : `counted by the builder's ${model.counter || "tokenizer"}`;
  const limit = model.window
    ? `Limit: ${model.modelId ? `${model.modelId} reads` : "the model reads"} ${fmt(model.window)} tokens at once; the budget is what is left for the context after the question, the instructions and room for the answer.`
    : "Limit: unknown (no language model configured).";
  return h(
    "div",
    { class: "budget", id: "budget-bar", dataset: { used: model.used, reused: model.reusedTokens || 0, budget: model.budget, window: model.window ?? "" } },
    h("p", { class: "budget-text", id: "budget-label" }, h("strong", {}, `${fmt(model.used)} of ${fmt(model.budget)} tokens used`), " ", h("span", { class: "muted tokenizer", title: TOKENIZER_STORY, tabindex: "0", "aria-label": `${counted}. ${TOKENIZER_STORY}` }, `(${counted})`)),
    h(
      "div",
      { class: "bar", role: "meter", "aria-labelledby": "budget-label", "aria-valuemin": 0, "aria-valuemax": model.budget, "aria-valuenow": model.used + (model.reusedTokens || 0) },
      segment("fill", share(model.used)),
      model.reusedTokens ? segment("fill reused", share(model.reusedTokens)) : null,
    ),
    model.reusedTokens ? reusedText(model) : null,
    model.stopped ? selectionText(model) : null,
    h("p", { class: "muted window-text" }, limit),
  );
}

// A follow-up: passages an earlier question of the conversation sent are named by their number,
// not sent again; they take part of the budget but none of the tokens sent.
function reusedText(model) {
  const reused = model.rows.filter((row) => row.reused).length;
  return h(
    "p",
    { class: "reused-text", id: "context-reused" },
    `+ ${fmt(model.reusedTokens)} tokens of ${plural(reused, "passage")} already sent with an earlier question of this conversation: named by their numbers, not sent again.`,
  );
}

// A question's selection: how many passages of how many records, what was left out, and why
// the selection ended where it did.
function selectionText(model) {
  const passages = model.rows.filter((row) => row.status === "included" && row.handle);
  const records = new Set(passages.map((row) => row.id)).size;
  const left = model.rows.length - passages.length;
  return h(
    "p",
    { class: "selection", id: "context-stopped", dataset: { stopped: model.stopped } },
    `${plural(passages.length, "passage")} from ${plural(records, "document")}, ${fmt(left)} left out. `,
    h("strong", { class: "stopped" }, stoppedText(model.stopped)),
  );
}

// The slider is logarithmic: 50 tokens to the most the context can take, in equal ratios.
export function budgetControl(budget, maxBudget, rebuild, model) {
  const top = Math.max(maxBudget || 16000, MIN_BUDGET * 2);
  const toBudget = (position) => Math.round(Math.exp(Math.log(MIN_BUDGET) + (position / 1000) * (Math.log(top) - Math.log(MIN_BUDGET))));
  const toPosition = (value) => Math.round((1000 * (Math.log(value) - Math.log(MIN_BUDGET))) / (Math.log(top) - Math.log(MIN_BUDGET)));
  const slider = h("input", { type: "range", min: 0, max: 1000, step: 1, id: "budget-slider", "aria-label": "Token budget" });
  const shown = Math.min(top, Math.max(budget || MIN_BUDGET, MIN_BUDGET));
  slider.value = String(toPosition(shown));
  const number = h("input", { type: "number", min: MIN_BUDGET, max: top, step: 1, id: "budget-input", "aria-label": "Token budget in tokens" });
  number.value = String(budget || MIN_BUDGET);
  const why = model.window ? `the model's ${fmt(model.window)}-token window less the room kept for the answer` : "the largest budget this page builds";
  slider.addEventListener("input", () => {
    number.value = String(toBudget(Number(slider.value)));
  });
  slider.addEventListener("change", () => rebuild(Number(number.value), null));
  number.addEventListener("change", () => {
    const asked = Math.round(Number(number.value)) || MIN_BUDGET;
    const value = Math.max(MIN_BUDGET, Math.min(top, asked));
    const note = asked > top ? `The budget is at most ${fmt(top)} tokens (${why}): it is set to ${fmt(top)}.` : asked < MIN_BUDGET ? `The budget is at least ${fmt(MIN_BUDGET)} tokens: it is set to ${fmt(MIN_BUDGET)}.` : null;
    number.value = String(value);
    slider.value = String(toPosition(value));
    rebuild(value, note);
  });
  // The number and its unit stay on one line, whatever the width.
  return h("div", { class: "budget-control" }, h("label", { for: "budget-slider" }, "Budget"), slider, h("span", { class: "budget-value" }, number, h("span", { class: "muted unit" }, "tokens")));
}
