// Ask: the answer streams in (its marks drawn as chips from the first token), then shows its
// attribution (see answer.js); beside it (on a phone: behind a button), the context; above it,
// the notebook's earlier conversations.

import { api, streamEvents } from "../api.js";
import { coverageNotice, nearestList, notCovered, offQuestion, passageList, renderSentences, streamingView } from "../answer.js";
import { fmt, h, replace } from "../dom.js";
import { fromAnswer, fromContext, renderInspector } from "../inspector.js";
import { guarded } from "../ui.js";
import { loadHistory } from "./history.js";

// The one-column layout of a phone: the context sits behind a button, its rows folded.
const narrow = () => window.matchMedia("(max-width: 900px)").matches;

export async function askPage(view, key) {
  const [notebook, model] = await Promise.all([api(`/api/notebooks/notebook:${key}`), api("/api/chat/model")]);
  if (!view.alive()) return;
  view.crumbs([notebook.name, `#/nb/${key}`], ["Ask"]);
  const state = { view, notebook, model, sessionId: null, turns: [] };
  const conversation = h("ol", { class: "conversation", id: "conversation", "aria-label": "Questions and answers" });
  const aside = h("aside", { class: "panel inspector collapsed", id: "inspector", "aria-label": "Context inspector" }, h("h2", {}, "Context"), h("p", { class: "muted" }, "Ask a question: the context sent with the answer shows here, with what was left out and why."));
  const history = h("section", { class: "history", id: "history", "aria-label": "Earlier conversations" });
  Object.assign(state, { conversation, aside, history });
  replace(
    view.main,
    h(
      "div",
      { class: "ask-layout" },
      h(
        "section",
        { class: "panel ask", "aria-labelledby": "ask-title" },
        h("h1", { id: "ask-title" }, `Ask “${notebook.name}”`),
        model.configured ? h("p", { class: "muted model-line" }, `Answers from ${model.model_id}, grounded in this notebook's sources and notes.`) : h("p", { class: "notice-inline error-text" }, `No language model: ${model.detail}`),
        history,
        conversation,
        askForm(state),
      ),
      aside,
    ),
  );
  await refreshHistory(state);
}

function refreshHistory(state, open = false) {
  return loadHistory(state, { reopen: (id) => reopen(state, id), forget: (id) => forget(state, id), open });
}

// A deleted conversation that is the one shown: the page starts a new one.
function forget(state, sessionId) {
  if (state.sessionId !== sessionId) return;
  state.sessionId = null;
  state.turns = [];
  replace(state.conversation);
}

async function reopen(state, sessionId) {
  const session = await api(`/api/chat/sessions/${encodeURIComponent(sessionId)}`);
  if (!state.view.alive()) return;
  state.sessionId = session.id;
  state.turns = [];
  replace(state.conversation);
  for (const stored of session.turns) {
    const done = { ...stored, session_id: session.id, citations: [] };
    const turnView = turnShell(state, stored.question);
    drawDone(state, turnView, { question: stored.question, done });
  }
  await refreshHistory(state);
}

function askForm(state) {
  const question = h("textarea", { name: "question", id: "question", required: true, rows: 2, maxlength: 100000, placeholder: "Ask a question about this notebook…", "aria-label": "Question" });
  const submit = h("button", { type: "submit", class: "primary", id: "ask-button" }, "Ask");
  const restart = h("button", { type: "button", id: "new-conversation", onclick: () => { state.sessionId = null; state.turns = []; replace(state.conversation); } }, "New conversation");
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

function turnShell(state, question) {
  const parts = {
    coverage: h("div", { class: "coverage" }),
    answer: h("div", { class: "answer", "aria-live": "polite", "aria-busy": "false" }),
    footer: h("div", { class: "answer-foot" }),
  };
  parts.node = h("li", { class: "turn" }, h("p", { class: "question" }, question), parts.coverage, parts.answer, parts.footer);
  state.conversation.appendChild(parts.node);
  return parts;
}

// What the reader sees before the first token: what the server is doing, in words.
function waiting(text) {
  return h("p", { class: "progress-note", role: "status" }, h("span", { class: "spinner", "aria-hidden": "true" }), text);
}

async function ask(state, question) {
  const turnView = turnShell(state, question);
  const { answer, coverage } = turnView;
  answer.classList.add("streaming");
  answer.setAttribute("aria-busy", "true");
  replace(answer, waiting("Reading your notebook…"));
  turnView.node.scrollIntoView({ block: "nearest" });
  let streamed = "";
  const turn = { question, done: null };
  try {
    turn.done = await streamEvents(
      "/api/chat",
      { notebook_id: state.notebook.id, question, session_id: state.sessionId },
      (type, data) => {
        if (type === "token") {
          streamed += data.text;
          replace(answer, streamingView(streamed));
        } else if (type === "coverage") {
          // The stream opens with it, once the notebook is read: the model is asked next and
          // reads the prompt before its first word (seconds for a local model).
          replace(coverage, data.coverage === "low" ? coverageNotice(data.notice) : null);
          if (!streamed) replace(answer, waiting("Writing the answer…"));
        }
      },
    );
  } catch (error) {
    answer.classList.remove("streaming");
    answer.setAttribute("aria-busy", "false");
    answer.classList.add("failed");
    replace(answer, h("p", { class: "error-text" }, `No answer: ${error.message}`));
    throw error;
  }
  state.sessionId = turn.done.session_id;
  drawDone(state, turnView, turn);
  await refreshHistory(state);
}

function drawDone(state, turnView, turn) {
  const { answer, coverage, footer } = turnView;
  const done = turn.done;
  state.turns.push(turn);
  const inspect = h("button", { type: "button", class: "small inspect", "aria-controls": "inspector", onclick: () => showContext(state, turn, true) }, "Show the context");
  const meta = h("p", { class: "meta" }, `${sentLine(done)} `, inspect);
  if (done.coverage === "low" || notCovered(done)) {
    replace(coverage, coverageNotice(done.notice || (notCovered(done) ? "Nothing in it went into the context, so this answer does not come from your sources." : "")));
  }
  // A refused answer is the notice itself: it is said once, above, not again as the answer.
  const refused = done.refused || (done.coverage === "low" && Boolean(done.notice) && done.answer.trim() === done.notice.trim());
  if (refused) replace(answer);
  else replace(answer, renderSentences(done));
  replace(footer, offQuestion(done), passageList(done), nearestList(done, turn.question), meta);
  answer.classList.remove("streaming");
  answer.setAttribute("aria-busy", "false");
  showContext(state, turn, false);
}

// What went to the model with the question, in one line under the answer.
function sentLine(done) {
  if (done.refused) return "The model was not asked: nothing was sent.";
  const budget = done.plan && done.plan.context_budget;
  return `${done.model_id || "model"} · ${fmt(done.context_tokens)} context tokens${budget ? ` of a ${fmt(budget)}-token budget` : ""}`;
}

function showContext(state, turn, open) {
  const model = state.model.configured ? state.model : null;
  const maxBudget = model ? model.context_window - model.answer_tokens : turn.done.plan.context_budget || 16000;
  const rebuild = async (budget, note) => {
    await guarded(null, async () => {
      const payload = await api("/api/context", { method: "POST", json: { notebook_id: state.notebook.id, query: turn.question, max_tokens: budget } });
      if (!state.view.alive()) return;
      renderInspector(state.aside, fromContext(payload, model), { rebuild, maxBudget, note, title: "Context, rebuilt", collapsed: narrow() });
      state.aside.appendChild(h("button", { type: "button", class: "link", id: "back-to-sent", onclick: () => showContext(state, turn, false) }, "Back to the context sent with the answer"));
    }, "Rebuilding the context");
  };
  renderInspector(state.aside, fromAnswer(turn.done), { rebuild, maxBudget, title: "Context of the answer", collapsed: narrow() });
  if (open) {
    // On a phone the panel is behind the button: the button shows or hides it.
    const show = !narrow() || state.aside.classList.contains("collapsed");
    state.aside.classList.toggle("collapsed", !show);
    for (const button of document.querySelectorAll("button.inspect")) button.setAttribute("aria-expanded", String(show));
    if (show) state.aside.scrollIntoView({ block: "start" });
  }
}
