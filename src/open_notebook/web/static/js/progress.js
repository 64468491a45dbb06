// Progress of long work: a bar element, and the embedding rebuild (polled while it runs).

import { api } from "./api.js";
import { fmt, h, replace, when } from "./dom.js";
import { guarded, showError } from "./ui.js";

const POLL_MS = 700;

/** A <progress> with a label; fraction null shows an indeterminate bar. */
export function progressBar(fraction, label) {
  const bar = h("progress", { max: 1, "aria-label": label || "progress" });
  if (fraction !== null && fraction !== undefined) bar.value = Math.max(0, Math.min(1, fraction));
  return bar;
}

/** The library's re-embedding job: start it, and watch it until it ends. */
export function rebuildPanel(view) {
  const status = h("div", { class: "rebuild-status", id: "rebuild-status", "aria-live": "polite" });
  const start = h("button", { type: "button", id: "rebuild-start" }, "Rebuild embeddings");
  const panel = h(
    "section",
    { class: "panel subtle" },
    h("h2", {}, "Embeddings"),
    h("p", { class: "muted" }, "After changing the embedding model, re-embed every stored chunk. Search keeps working meanwhile."),
    h("div", { class: "actions" }, start),
    status,
  );
  start.addEventListener("click", () =>
    guarded(start, async () => {
      const job = await api("/api/embed/rebuild", { method: "POST" });
      show(status, job);
      await watch(view, status);
    }, "Starting the rebuild"),
  );
  api("/api/embed/rebuild")
    .then((job) => {
      if (!view.alive()) return;
      show(status, job);
      if (job.status === "running") watch(view, status).catch(showError);
    })
    .catch(showError);
  return panel;
}

async function watch(view, status) {
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    if (!view.alive()) return;
    const job = await api("/api/embed/rebuild");
    show(status, job);
    if (job.status !== "running") return;
  }
}

function show(status, job) {
  status.dataset.state = job.status;
  const fraction = job.total ? job.done / job.total : null;
  const parts = {
    idle: `No rebuild has run since the server started (model ${job.embedding_model}).`,
    running: `Re-embedding with ${job.embedding_model}: ${fmt(job.done)} of ${fmt(job.total)} records…`,
    done: `Rebuilt ${fmt(job.total)} records with ${job.embedding_model} (finished ${when(job.finished)}).`,
    failed: `The rebuild failed: ${job.error}`,
  };
  replace(
    status,
    job.status === "running" ? progressBar(fraction, "rebuild progress") : null,
    h("span", { class: job.status === "failed" ? "error-text" : "" }, parts[job.status] || job.status),
  );
}
