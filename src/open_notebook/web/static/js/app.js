// Entry point: the token check, hash routes, and the page-wide error handlers.

import { ensureToken, onBusy, onTokenNeeded, token } from "./api.js";
import { h, replace } from "./dom.js";
import { askPage } from "./pages/ask.js";
import { contextPage } from "./pages/context.js";
import { notebookPage } from "./pages/notebook.js";
import { notebooksPage } from "./pages/notebooks.js";
import { initReader } from "./reader.js";
import { clearNotices, setBusy, showError, tokenDialog } from "./ui.js";

const ROUTES = [
  [/^$/, () => notebooksPage],
  [/^nb\/([A-Za-z0-9_-]+)$/, () => notebookPage],
  [/^nb\/([A-Za-z0-9_-]+)\/ask$/, () => askPage],
  [/^nb\/([A-Za-z0-9_-]+)\/context$/, () => contextPage],
];

let generation = 0;

/** What a page gets: its container, crumbs setter, and whether it is still the page shown. */
function view() {
  const mine = ++generation;
  const main = document.getElementById("app");
  replace(main);
  replace(document.getElementById("crumbs"), crumbTrail([]));
  clearNotices();
  return {
    main,
    alive: () => mine === generation,
    crumbs: (...items) => replace(document.getElementById("crumbs"), crumbTrail(items)),
  };
}

function crumbTrail(items) {
  const trail = [h("a", { href: "#/" }, "Notebooks")];
  for (const [label, href] of items) {
    trail.push(h("span", { class: "sep", "aria-hidden": "true" }, "›"));
    trail.push(href ? h("a", { href }, label) : h("span", { "aria-current": "page" }, label));
  }
  return trail;
}

async function route() {
  const path = location.hash.replace(/^#\/?/, "").replace(/\/$/, "").split("?")[0];
  for (const [pattern, page] of ROUTES) {
    const match = pattern.exec(path);
    if (!match) continue;
    const current = view();
    try {
      await page()(current, ...match.slice(1));
    } catch (error) {
      if (current.alive()) {
        replace(current.main, h("p", { class: "empty" }, "This page could not be shown."));
        showError(error);
      }
    }
    document.getElementById("app").focus({ preventScroll: true });
    return;
  }
  const current = view();
  current.crumbs(["Not found"]);
  replace(current.main, h("p", { class: "empty" }, "There is no page at this address. ", h("a", { href: "#/" }, "See the notebooks.")));
}

async function start() {
  onBusy(setBusy);
  onTokenNeeded(async (reason) => token.set(await tokenDialog(reason)));
  initReader();
  window.addEventListener("unhandledrejection", (event) => showError(event.reason));
  window.addEventListener("error", (event) => showError(event.error || event.message));
  try {
    await ensureToken();
  } catch (error) {
    replace(document.getElementById("app"), h("p", { class: "empty" }, "The server cannot be reached."));
    showError(error);
    return;
  }
  window.addEventListener("hashchange", route);
  await route();
}

start();
