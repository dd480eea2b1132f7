// The admin console: every figure comes from the admin endpoints (GET /api/admin/summary, /api/admin/sources,
// /api/ingest/errors); a failed file can be queued again, a source synced now.
// Everything shown is built with DOM calls: what the API answers is only ever text or an attribute value.
const REFRESH_MS = 30000;  // figures refresh every half minute: an ingest moves, nobody waits on it
const BUSY_REFRESH_MS = 5000;  // sources refresh this often while one syncs: counts move, the list stays cheap
const WATCH_MS = 600000;  // a sync asked for here is awaited 10 minutes at most (it may sit behind an ingest)
const SVG = "http://www.w3.org/2000/svg";
const tokenForm = document.getElementById("token-form");
const problem = document.getElementById("problem");
const watched = new Map();  // source name -> {syncs: its count when "Sync now" was clicked, until: ms}
let sourcesTimer = null;

class Refused extends Error {}  // the caller is no admin: the token form is shown, nothing else happens
function headers() {
  const token = sessionStorage.getItem("evident-admin-token");
  return token ? {"Authorization": "Bearer " + token} : {};
}
// [response, its JSON] of an admin endpoint, asked with the admin token if one was given here.
async function call(url, init = {}) {
  const resp = await fetch(url, {...init, headers: {...headers(), ...init.headers}});
  const data = await resp.json();
  if (resp.status === 401 || resp.status === 403) {
    problem.textContent = data.error; tokenForm.hidden = false; throw new Refused(data.error);
  }
  return [resp, data];
}
function el(tag, attrs = {}, ...children) {  // children: nodes or text; null, false and "" are left out
  const node = tag.startsWith("svg:") ? document.createElementNS(SVG, tag.slice(4)) : document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, value);
  node.append(...children.filter(c => c || c === 0));
  return node;
}
function show(id, ...children) { document.getElementById(id).replaceChildren(...children); }
function row(cell, ...values) {
  return el("tr", {}, ...values.map(v => el(cell, {}, v instanceof Node ? v : String(v))));
}
function figure(label, value) { return el("span", {class: "figure"}, el("b", {}, String(value)), label); }
function counts(title, table) {  // table: [[label, count], ...], most first
  return el("div", {}, el("h3", {}, title),
            el("table", {}, ...(table.length ? table.map(([k, v]) => row("td", k, v)) : [row("td", "none")])));
}
const CHART_HEIGHT = 40;  // SVG units of the busiest minute's bar; CSS stretches the chart to its box
function clock(epochSeconds) {
  return new Date(epochSeconds * 1000).toLocaleTimeString([], {hour: "2-digit", minute: "2-digit"});
}
function when(isoOrEpoch) {  // a date and time as the admin's browser writes them
  const date = typeof isoOrEpoch === "number" ? new Date(isoOrEpoch * 1000) : new Date(isoOrEpoch);
  return date.toLocaleString([], {month: "short", day: "numeric", hour: "2-digit", minute: "2-digit"});
}
// One bar a minute, as high as its share of the busiest minute; a minute with nothing to show has no bar.
// Plain SVG attributes, no inline style: the console's CSP allows none.
function perMinute(title, minutes, key, unit) {
  const peak = Math.max(0, ...minutes.map(m => m[key] || 0)), scale = Math.max(1, peak);
  const bars = minutes.map((m, i) => {
    if (!m[key]) return null;
    const height = CHART_HEIGHT * m[key] / scale;
    return el("svg:rect", {x: i, y: CHART_HEIGHT - height, width: 0.8, height},
              el("svg:title", {}, `${clock(m.at)}: ${m[key]} ${unit}`));
  });
  const from = minutes.length ? clock(minutes[0].at) : "", to = minutes.length ? clock(minutes.at(-1).at) : "";
  return el("figure", {class: `chart ${key}`}, el("figcaption", {}, `${title} per minute · at most ${peak}`),
            el("svg:svg", {role: "img", "aria-label": `${title} per minute, ${from} to ${to}, at most ${peak}`,
                           viewBox: `0 0 ${minutes.length} ${CHART_HEIGHT}`, preserveAspectRatio: "none"}, ...bars),
            el("div", {class: "axis"}, el("span", {}, from), el("span", {}, to)));
}
function render(data) {
  const ix = data.index, s = data.searches;
  document.getElementById("flower").href = data.flower;
  document.getElementById("alias").textContent = data.alias ? `· index ${data.alias}` : "";
  show("index", figure("evidence", ix.evidence), figure("MB on disk", (ix.size_bytes / 1048576).toFixed(1)),
       figure("deleted, awaiting upkeep", ix.deleted),
       el("div", {class: "columns"}, counts("by kind", ix.by_kind), counts("by space", ix.by_space)));
  const minutes = data.queue.minutes, hours = Math.round(minutes.length / 60);
  show("queue", figure("files waiting", data.queue.waiting),
       figure(`files finished, last ${hours} h`, minutes.reduce((sum, m) => sum + m.finished, 0)));
  show("activity", perMinute("files finished", minutes, "finished", "finished"),
       perMinute("queue length", minutes, "waiting", "waiting"));
  show("jobs", row("th", "job", "files", "indexed", "unchanged", "failed"),
       ...data.jobs.map(j => row("td", j.job_id, j.total, j.done, j.skipped, j.failed)));
  show("errors", row("th", "file", "reason", ""), ...data.errors.map(e => row("td", e.file, e.reason,
       e.path ? el("button", {class: "retry", "data-job": e.job, "data-file": e.file}, "Retry") : "")));
  const rate = s.searches ? Math.round(100 * s.clicked / s.searches) + "%" : "–";
  const cards = s.cards;  // the answer cards shown, and the askers' word on them
  show("searches", figure("searches", s.searches), figure("with a click", rate), figure("answer cards", cards.shown),
       figure("marked helpful", cards.helpful), figure("marked not helpful", cards.not_helpful),
       el("div", {class: "columns"}, counts("top queries", s.top), counts("zero-hit queries", s.zero_hit),
          counts("no-click queries", s.no_click), counts("first click by rank", s.first_click_by_rank),
          counts("answers marked not helpful", s.not_helpful)));
  document.getElementById("updated").textContent = "updated " + new Date().toLocaleTimeString();
}

// ---- live sources: what each reads, what its last sync did, the one under way, its last error
const MAIN_COUNTS = ["added", "updated", "deleted", "failed", "requests"];  // always shown, 0 when not counted
function countLine(tally = {}, keys = MAIN_COUNTS) { return keys.map(k => `${k} ${tally[k] || 0}`).join(" · "); }
function note(text) { return el("div", {class: "meta"}, text); }
function otherCounts(tally = {}) {  // unchanged, skipped, listed, attachments, ... as the source's kind counts them
  const others = Object.keys(tally).filter(k => !MAIN_COUNTS.includes(k));
  return others.length ? note(countLine(tally, others)) : null;
}
function reads(source) {  // what a source reads, as `evident sources add` took it
  const o = source.options;
  const scope = o.cql ? `CQL: ${o.cql}` : o.spaces ? `spaces ${[].concat(o.spaces).join(", ")}`
    : o.sitemap ? `sitemap ${o.sitemap}` : "";
  return el("td", {class: "source"}, el("b", {}, source.name), el("span", {class: "kind"}, source.kind),
            el("div", {class: "where"}, o.url || o.start || ""), scope && note(scope));
}
function lastSync(source) {
  const last = source.last_sync, syncs = note(`${source.syncs} sync${source.syncs === 1 ? "" : "s"}`);
  if (!last) return el("td", {class: "last-sync"}, "never", syncs);
  return el("td", {class: "last-sync"}, el("div", {}, `finished ${when(last.finished)}${last.full ? " (full)" : ""}`),
            el("div", {class: "counts"}, countLine(last.counts)), otherCounts(last.counts), syncs);
}
function nextSync(source) {
  const every = source.every_seconds, interval = every % 3600 ? `${every / 60} min` : `${every / 3600} h`;
  if (!source.next_sync) return el("td", {class: "next-sync"}, "only when asked");
  return el("td", {class: "next-sync"}, source.next_sync === "now" ? "now" : when(source.next_sync),
            note(`every ${interval}`));
}
function now(source) {  // the sync under way, one cut short that the next continues, or one asked for here
  const busy = source.under_way, cut = source.cut_short;
  if (busy) {
    return el("td", {class: "now running"}, `syncing: ${busy.phase || "starting"}`,
              busy.started && ` since ${when(busy.started)}`, el("div", {class: "counts"}, countLine(busy.counts)));
  }
  if (source.running) return el("td", {class: "now running"}, "syncing");
  if (watched.has(source.name)) return el("td", {class: "now"}, "sync queued");
  if (cut) return el("td", {class: "now"}, `cut short in ${cut.phase || "its start"}; the next sync continues it`);
  return el("td", {class: "now"}, "idle");
}
function lastError(source) {  // the source's recorded errors come with it, newest first
  const last = source.errors[0];
  const underWay = (source.under_way || source.cut_short || {}).error;
  if (underWay) return el("td", {class: "last-error error"}, underWay);
  if (!last) return el("td", {class: "last-error"}, "none");
  const earlier = source.last_sync && last.at * 1000 < new Date(source.last_sync.started).getTime();
  return el("td", {class: "last-error error"}, `${last.file}: ${last.reason}`,
            note(`${when(last.at)}${earlier ? ", before the last sync" : ""}`));
}
function syncButton(source) {  // not while the source syncs or a sync asked for here waits: it would be a no-op
  const busy = source.running || watched.has(source.name);
  return el("td", {}, el("button", {class: "sync", "data-source": source.name, "data-syncs": source.syncs,
                                    ...(busy ? {disabled: ""} : {})}, "Sync now"));
}
function renderSources(listed) {
  document.getElementById("sources-none").hidden = listed.length > 0;
  document.getElementById("sources").hidden = listed.length === 0;
  show("sources", row("th", "source", "items", "last sync", "next sync", "now", "last error", ""),
       ...listed.map(source => el("tr", {"data-source": source.name}, reads(source),
         el("td", {class: "items"}, String(source.items)), lastSync(source), nextSync(source), now(source),
         lastError(source), syncButton(source))));
}
async function loadSources() {
  const [resp, listed] = await call("/api/admin/sources");
  if (!resp.ok) { problem.textContent = listed.error || resp.statusText; return; }
  for (const source of listed) {  // a sync asked for here is awaited until the source counts one more
    const asked = watched.get(source.name);
    if (asked && (source.syncs > asked.syncs || Date.now() > asked.until)) watched.delete(source.name);
  }
  for (const name of watched.keys()) if (!listed.some(s => s.name === name)) watched.delete(name);
  renderSources(listed);
  clearTimeout(sourcesTimer);
  if (watched.size || listed.some(s => s.running)) sourcesTimer = setTimeout(refreshSources, BUSY_REFRESH_MS);
}
function refreshSources() { loadSources().catch(ignoreRefused); }
function ignoreRefused(e) { if (!(e instanceof Refused)) throw e; }

async function load() {
  const [[resp, data]] = await Promise.all([call("/api/admin/summary"), loadSources()]);
  if (!resp.ok) { problem.textContent = data.error || resp.statusText; return; }
  problem.textContent = ""; tokenForm.hidden = true;
  document.getElementById("console").hidden = false;
  render(data);
}
function refresh() { load().catch(ignoreRefused); }
tokenForm.addEventListener("submit", e => {
  e.preventDefault();
  sessionStorage.setItem("evident-admin-token", document.getElementById("token").value);
  refresh();
});
async function retry(button) {  // a failed file queued again: the button gives way to the new job's id
  const body = JSON.stringify({job: button.dataset.job, file: button.dataset.file});
  const [resp, data] = await call("/api/ingest/retry",
                                  {method: "POST", headers: {"Content-Type": "application/json"}, body});
  button.replaceWith(resp.ok ? "queued as job " + data.job_id : data.error);
}
async function syncNow(button) {  // the source's sync queued; its row shows it queued, then running, then done
  const name = button.dataset.source;
  button.disabled = true;
  const [resp, data] = await call(`/api/admin/sources/${encodeURIComponent(name)}/sync`, {method: "POST"});
  if (resp.ok) watched.set(name, {syncs: Number(button.dataset.syncs), until: Date.now() + WATCH_MS});
  else problem.textContent = data.error || resp.statusText;
  await loadSources();
}
document.getElementById("errors").addEventListener("click", e => {
  const button = e.target.closest("button.retry");
  if (button) retry(button).catch(ignoreRefused);
});
document.getElementById("sources").addEventListener("click", e => {
  const button = e.target.closest("button.sync");
  if (button) syncNow(button).catch(ignoreRefused);
});
refresh();
setInterval(refresh, REFRESH_MS);
