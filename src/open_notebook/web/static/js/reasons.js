// Why a candidate was left out and what ended a selection, in words (from the manifest's codes).

const REASONS = {
  budget: "did not fit in the budget",
  duplicate_of: "duplicate of",
  below_min_score: "not relevant enough to the question",
  low_relevance: "much less relevant than the best passages",
  excluded_by_config: "excluded by the context settings",
  not_found: "not found",
};

// What ended a question's selection (the manifest's `stopped`).
const STOPPED = {
  budget: "Stopped because the budget is full.",
  relevance_floor: "Stopped because the rest is much less relevant than the best passages.",
  candidates_exhausted: "Everything that matches the question fits.",
};

export function stoppedText(stopped) {
  return STOPPED[stopped] || `Stopped: ${String(stopped).replaceAll("_", " ")}.`;
}

/**
 * A readable reason from the manifest's `code` or `code:detail`. `duplicate_of:<target>` names
 * what the row repeats: a passage by its handle (`#c2` of the same record, or of another record
 * by its title), or a record (its own: the row holds only words of the record's title).
 * `lookup` = {handles: Map(handle → row), ids: Map(id → row)} from the same manifest.
 */
export function reasonText(reason, row = null, lookup = null) {
  if (!reason) return "";
  const [code, ...rest] = String(reason).split(":");
  const detail = rest.join(":");
  if (code === "duplicate_of" && detail) return duplicateText(detail, row, lookup);
  const words = REASONS[code] || code.replaceAll("_", " ");
  return detail ? `${words} ${detail}` : words;
}

function duplicateText(target, row, lookup) {
  const hash = target.indexOf("#");
  if (hash >= 0) {
    const record = target.slice(0, hash);
    const kept = lookup && lookup.handles.get(target);
    const where = row && row.id === record ? `this ${row.type || "record"}` : kept && kept.title ? `“${kept.title}”` : record;
    return `repeats passage ${target.slice(hash)} of ${where}`;
  }
  if (row && row.id === target) return `repeats only the title of this ${row.type || "record"}`;
  const kept = lookup && lookup.ids.get(target);
  return `duplicate of ${kept && kept.title ? `“${kept.title}”` : target}`;
}

/** Rows by handle and by record id, for reasons that name another row. */
export function lookupOf(rows) {
  const handles = new Map();
  const ids = new Map();
  for (const row of rows) {
    if (row.handle && !handles.has(row.handle)) handles.set(row.handle, row);
    if (!ids.has(row.id)) ids.set(row.id, row);
  }
  return { handles, ids };
}
