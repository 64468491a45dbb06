// Ask: the answer streams in, then shows its attribution (see answer.js); beside it, the context.

import { api, streamEvents } from "../api.js";
import { coverageNotice, notCovered, passageList, renderSentences } from "../answer.js";
import { fmt, h, replace } from "../dom.js";
import { fromAnswer, fromContext, renderInspector } from "../inspector.js";
import { guarded } from "../ui.js";

export async function askPage(view, key) {
  const [notebook, model] = await Promise.all([api(`/api/notebooks/notebook:${key}`), api("/api/chat/model")]);
  if (!view.alive()) return;
  view.crumbs([notebook.name, `#/nb/${key}`], ["Ask"]);
  const state = { view, notebook, model, sessionId: null, turns: [] };
  const conversation = h("ol", { class: "conversation", id: "conversation", "aria-label": "Questions and answers" });
  const aside = h("aside", { class: "panel inspector", id: "inspector", "aria-label": "Context inspector" }, h("h2", {}, "Context"), h("p", { class: "muted" }, "Ask a question: the context sent with the answer shows here, with what was left out and why."));
  state.conversation = conversation;
  state.aside = aside;
  replace(
    view.main,
    h(
      "div",
      { class: "ask-layout" },
      h(
        "section",
        { class: "panel ask", "aria-labelledby": "ask-title" },
        h("h1", { id: "ask-title" }, `Ask “${notebook.name}”`),
        model.configured ? h("p", { class: "muted" }, `Answers from ${model.model_id} (${fmt(model.context_window)}-token window), grounded in this notebook's sources and notes.`) : h("p", { class: "notice-inline error-text" }, `No language model: ${model.detail}`),
        conversation,
        askForm(state),
      ),
      aside,
    ),
  );
}

function askForm(state) {
  const question = h("textarea", { name: "question", id: "question", required: true, rows: 3, maxlength: 100000, placeholder: "Ask a question about this notebook…", "aria-label": "Question" });
  const submit = h("button", { type: "submit", class: "primary", id: "ask-button" }, "Ask");
  const restart = h("button", { type: "button", id: "new-conversation", onclick: () => { state.sessionId = null; replace(state.conversation); } }, "New conversation");
  const form = h("form", { class: "stack-form", id: "ask-form" }, question, h("div", { class: "actions" }, submit, restart));
  question.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) form.requestSubmit();
  });
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const text = question.value.trim();
    if (!text) return;
    guarded(submit, async () => {
      question.value = "";
      await ask(state, text);
    });
  });
  return form;
}

async function ask(state, question) {
  const answer = h("div", { class: "answer streaming", "aria-live": "polite", "aria-busy": "true" });
  const footer = h("div", { class: "answer-foot" });
  const coverage = h("div", { class: "coverage" });
  const turnView = h("li", { class: "turn" }, h("p", { class: "question" }, question), coverage, answer, footer);
  state.conversation.appendChild(turnView);
  turnView.scrollIntoView({ block: "nearest" });
  const streamed = document.createTextNode("");
  answer.appendChild(streamed);
  const turn = { question, done: null };
  try {
    turn.done = await streamEvents(
      "/api/chat",
      { notebook_id: state.notebook.id, question, session_id: state.sessionId },
      (type, data) => {
        if (type === "token") streamed.appendData(data.text);
        // Said as soon as it is known, before the answer streams in.
        else if (type === "coverage") replace(coverage, data.coverage === "low" ? coverageNotice(data.notice) : null);
      },
    );
  } catch (error) {
    answer.classList.remove("streaming");
    answer.setAttribute("aria-busy", "false");
    answer.classList.add("failed");
    answer.appendChild(h("p", { class: "error-text" }, `No answer: ${error.message}`));
    throw error;
  }
  state.sessionId = turn.done.session_id;
  state.turns.push(turn);
  const done = turn.done;
  const inspect = h("button", { type: "button", class: "small", onclick: () => showContext(state, turn, true) }, "Inspect context");
  const meta = h("p", { class: "meta" }, `${done.model_id} · ${fmt(done.context_tokens)} context tokens of a ${fmt(done.plan.context_budget)}-token budget `, inspect);
  if (done.coverage === "low" || notCovered(done)) {
    replace(coverage, coverageNotice(done.notice || (notCovered(done) ? "Nothing in it went into the context, so this answer does not come from your sources." : "")));
  }
  // A refused answer is the notice itself: it is said once, above, not again as the answer.
  const refused = done.coverage === "low" && Boolean(done.notice) && done.answer.trim() === done.notice.trim();
  if (refused) replace(answer);
  else replace(answer, renderSentences(done));
  replace(footer, passageList(done), meta);
  answer.classList.remove("streaming");
  answer.setAttribute("aria-busy", "false");
  showContext(state, turn, false);
}

function showContext(state, turn, scroll) {
  const model = state.model.configured ? state.model : null;
  const maxBudget = turn.done.plan.context_budget || (model && model.context_window) || 16000;
  const rebuild = async (budget) => {
    await guarded(null, async () => {
      const payload = await api("/api/context", { method: "POST", json: { notebook_id: state.notebook.id, query: turn.question, max_tokens: budget } });
      if (!state.view.alive()) return;
      renderInspector(state.aside, fromContext(payload, model), { rebuild, maxBudget, title: "Context, rebuilt" });
      state.aside.appendChild(h("button", { type: "button", class: "link", id: "back-to-sent", onclick: () => showContext(state, turn, false) }, "Back to the context sent with the answer"));
    }, "Rebuilding the context");
  };
  renderInspector(state.aside, fromAnswer(turn.done), { rebuild, maxBudget, title: "Context of the answer" });
  if (scroll) state.aside.scrollIntoView({ block: "start" });
}
