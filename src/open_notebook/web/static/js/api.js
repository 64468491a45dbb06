// The one way the page talks to the JSON API: bearer token, readable errors, SSE, uploads.

const TOKEN_KEY = "open-notebook-token";

/** An API failure with the server's own words (`detail`) and its code. */
export class ApiError extends Error {
  constructor(status, code, detail, field) {
    super(detail || `the server answered ${status}`);
    this.status = status;
    this.code = code || "error";
    this.field = field || null;
  }
}

export const token = {
  get: () => sessionStorage.getItem(TOKEN_KEY),
  set: (value) => sessionStorage.setItem(TOKEN_KEY, value),
  clear: () => sessionStorage.removeItem(TOKEN_KEY),
};

// Set by the app: asks for a token (with a reason) and resolves once one is stored.
let askForToken = async () => {
  throw new ApiError(401, "unauthorized", "this server needs an access token");
};
export function onTokenNeeded(handler) {
  askForToken = handler;
}

let pending = 0;
let busyListener = () => {};
export function onBusy(listener) {
  busyListener = listener;
}
function busy(delta) {
  pending += delta;
  busyListener(pending > 0);
}

function headers(extra = {}) {
  const value = token.get();
  return value ? { ...extra, Authorization: `Bearer ${value}` } : extra;
}

async function errorOf(response) {
  let body = null;
  try {
    body = await response.json();
  } catch {
    // Not JSON (a proxy's page, a cut connection): say what we know.
  }
  const detail = body && typeof body.detail === "string" ? body.detail : null;
  const code = body && body.error;
  const field = body && body.field;
  return new ApiError(response.status, code, detail || `${response.status} ${response.statusText}`, field);
}

/** Whether this server needs a token and whether the stored one is right (never a 401). */
export async function authStatus() {
  const response = await fetch("/api/auth", { headers: headers() });
  if (!response.ok) throw await errorOf(response);
  return response.json();
}

/** Ask for a token until the server accepts one. */
export async function ensureToken() {
  let status = await authStatus();
  while (!status.authenticated) {
    const reason = token.get() ? `${status.detail}: check the value and try again` : null;
    await askForToken(reason);
    status = await authStatus();
  }
  return status;
}

async function send(path, init) {
  busy(+1);
  try {
    for (let attempt = 0; ; attempt++) {
      let response;
      try {
        response = await fetch(path, { ...init, headers: headers(init.headers) });
      } catch (cause) {
        throw new ApiError(0, "network", `the server cannot be reached (${cause.message})`);
      }
      if (response.status === 401 && attempt < 3) {
        const error = await errorOf(response);
        token.clear();
        await askForToken(error.message);
        continue;
      }
      if (!response.ok) throw await errorOf(response);
      return response;
    }
  } finally {
    busy(-1);
  }
}

/** JSON in, JSON out: api("/api/notebooks"), api(path, {method: "POST", json: {...}}). */
export async function api(path, { method = "GET", json, signal } = {}) {
  const init = { method, signal, headers: {} };
  if (json !== undefined) {
    init.body = JSON.stringify(json);
    init.headers["Content-Type"] = "application/json";
  }
  const response = await send(path, init);
  if (response.status === 204) return null;
  return response.json();
}

/** Delete the record at `path` (fetch upper-cases the standard method names). */
export function deleteRecord(path) {
  return api(path, { method: "delete" });
}

/**
 * POST and read server-sent events: onEvent(type, data) for each; resolves with the `done`
 * event's data. An `error` event becomes an ApiError.
 */
export async function streamEvents(path, json, onEvent, signal) {
  const response = await send(path, {
    method: "POST",
    body: JSON.stringify(json),
    headers: { "Content-Type": "application/json", Accept: "text/event-stream" },
    signal,
  });
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  let done = null;
  busy(+1);
  try {
    for (;;) {
      const { value, done: finished } = await reader.read();
      if (value) buffer += value;
      let cut;
      while ((cut = buffer.indexOf("\n\n")) >= 0) {
        const frame = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        const event = parseFrame(frame);
        if (!event) continue;
        if (event.type === "error") {
          throw new ApiError(500, event.data.error, event.data.detail);
        }
        if (event.type === "done") done = event.data;
        onEvent(event.type, event.data);
      }
      if (finished) break;
    }
  } finally {
    busy(-1);
  }
  if (!done) throw new ApiError(0, "stream_cut", "the answer stopped before it was complete; try again");
  return done;
}

function parseFrame(frame) {
  let type = "message";
  const data = [];
  for (const line of frame.split("\n")) {
    if (line.startsWith("event:")) type = line.slice(6).trim();
    else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
  }
  if (!data.length) return null;
  return { type, data: JSON.parse(data.join("\n")) };
}

/**
 * Upload one file (multipart) with progress: onProgress(fraction) while the bytes go out; the
 * promise resolves with the added source once the server has extracted, chunked and embedded it.
 */
export function upload(file, notebookId, onProgress) {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open("POST", "/api/sources/upload");
    const value = token.get();
    if (value) xhr.setRequestHeader("Authorization", `Bearer ${value}`);
    xhr.upload.onprogress = (event) => {
      if (event.lengthComputable) onProgress(event.loaded / event.total);
    };
    xhr.upload.onload = () => onProgress(1);
    xhr.onerror = () => reject(new ApiError(0, "network", "the upload was cut off: the server cannot be reached"));
    xhr.onload = () => {
      let body = null;
      try {
        body = JSON.parse(xhr.responseText);
      } catch {
        body = null;
      }
      if (xhr.status >= 200 && xhr.status < 300) resolve(body);
      else reject(new ApiError(xhr.status, body && body.error, (body && body.detail) || `${xhr.status} ${xhr.statusText}`));
    };
    const form = new FormData();
    form.append("file", file, file.name);
    if (notebookId) form.append("notebook_id", notebookId);
    busy(+1);
    xhr.onloadend = () => busy(-1);
    xhr.send(form);
  });
}
