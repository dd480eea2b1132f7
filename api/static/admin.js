// The admin console: every figure comes from GET /api/admin/summary; a failed file can be queued again.
const REFRESH_MS = 30000;  // figures refresh every half minute: an ingest moves, nobody waits on it
const tokenForm = document.getElementById("token-form");
const problem = document.getElementById("problem");
function esc(s) { return String(s).replace(/[&<>"]/g, c => ({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;"}[c])); }
function headers() {
  const token = sessionStorage.getItem("evident-admin-token");
  return token ? {"Authorization": "Bearer " + token} : {};
}
function figure(label, value) { return `<span class="figure"><b>${esc(value)}</b>${esc(label)}</span>`; }
function counts(title, table) {  // table: [[label, count], ...], most first
  const rows = table.map(([k, v]) => `<tr><td>${esc(k)}</td><td>${esc(v)}</td></tr>`).join("");
  return `<div><h3>${esc(title)}</h3><table>${rows || "<tr><td>none</td></tr>"}</table></div>`;
}
const CHART_HEIGHT = 40;  // SVG units of the busiest minute's bar; CSS stretches the chart to its box
function clock(epochSeconds) {
  return new Date(epochSeconds * 1000).toLocaleTimeString([], {hour: "2-digit", minute: "2-digit"});
}
// One bar a minute, as high as its share of the busiest minute; a minute with nothing to show has no bar.
// Plain SVG attributes, no inline style: the console's CSP allows none.
function perMinute(title, minutes, key, unit) {
  const peak = Math.max(0, ...minutes.map(m => m[key] || 0)), scale = Math.max(1, peak);
  const bars = minutes.map((m, i) => {
    if (!m[key]) return "";
    const height = CHART_HEIGHT * m[key] / scale;
    return `<rect x="${i}" y="${CHART_HEIGHT - height}" width="0.8" height="${height}">
      <title>${esc(clock(m.at))}: ${esc(m[key])} ${esc(unit)}</title></rect>`;
  }).join("");
  const from = minutes.length ? clock(minutes[0].at) : "", to = minutes.length ? clock(minutes.at(-1).at) : "";
  const label = `${title} per minute, ${from} to ${to}, at most ${peak}`;
  return `<figure class="chart ${esc(key)}"><figcaption>${esc(title)} per minute · at most ${esc(peak)}</figcaption>
    <svg role="img" aria-label="${esc(label)}" viewBox="0 0 ${minutes.length} ${CHART_HEIGHT}"
         preserveAspectRatio="none">${bars}</svg>
    <div class="axis"><span>${esc(from)}</span><span>${esc(to)}</span></div></figure>`;
}
function render(data) {
  const ix = data.index, s = data.searches;
  document.getElementById("flower").href = data.flower;
  document.getElementById("index").innerHTML = figure("evidence", ix.evidence)
    + figure("MB on disk", (ix.size_bytes / 1048576).toFixed(1))
    + `<div class="columns">${counts("by kind", ix.by_kind)}${counts("by space", ix.by_space)}</div>`;
  const minutes = data.queue.minutes, hours = Math.round(minutes.length / 60);
  document.getElementById("queue").innerHTML = figure("files waiting", data.queue.waiting)
    + figure(`files finished, last ${hours} h`, minutes.reduce((sum, m) => sum + m.finished, 0));
  document.getElementById("activity").innerHTML = perMinute("files finished", minutes, "finished", "finished")
    + perMinute("queue length", minutes, "waiting", "waiting");
  document.getElementById("jobs").innerHTML = "<tr><th>job</th><th>files</th><th>indexed</th><th>unchanged</th><th>failed</th></tr>"
    + data.jobs.map(j => `<tr><td>${esc(j.job_id)}</td><td>${esc(j.total)}</td><td>${esc(j.done)}</td>
        <td>${esc(j.skipped)}</td><td>${esc(j.failed)}</td></tr>`).join("");
  document.getElementById("errors").innerHTML = "<tr><th>file</th><th>reason</th><th></th></tr>"
    + data.errors.map(e => `<tr><td>${esc(e.file)}</td><td>${esc(e.reason)}</td><td>${e.path
        ? `<button class="retry" data-job="${esc(e.job)}" data-file="${esc(e.file)}">Retry</button>` : ""}</td></tr>`).join("");
  const rate = s.searches ? Math.round(100 * s.clicked / s.searches) + "%" : "–";
  document.getElementById("searches").innerHTML = figure("searches", s.searches) + figure("with a click", rate)
    + `<div class="columns">${counts("top queries", s.top)}${counts("zero-hit queries", s.zero_hit)}
       ${counts("no-click queries", s.no_click)}${counts("first click by rank", s.first_click_by_rank)}</div>`;
  document.getElementById("updated").textContent = "updated " + new Date().toLocaleTimeString();
}
async function load() {
  const resp = await fetch("/api/admin/summary", {headers: headers()});
  const data = await resp.json();
  if (resp.status === 401 || resp.status === 403) {
    problem.textContent = data.error; tokenForm.hidden = false; return;
  }
  if (!resp.ok) { problem.textContent = data.error || resp.statusText; return; }
  problem.textContent = ""; tokenForm.hidden = true;
  document.getElementById("console").hidden = false;
  render(data);
}
tokenForm.addEventListener("submit", e => {
  e.preventDefault();
  sessionStorage.setItem("evident-admin-token", document.getElementById("token").value);
  load();
});
document.getElementById("errors").addEventListener("click", async e => {
  const button = e.target.closest("button.retry");
  if (!button) return;
  const resp = await fetch("/api/ingest/retry", {method: "POST", headers: {...headers(), "Content-Type": "application/json"},
                                                 body: JSON.stringify({job: button.dataset.job, file: button.dataset.file})});
  const data = await resp.json();
  button.replaceWith(document.createTextNode(resp.ok ? "queued as job " + data.job_id : data.error));
});
load();
setInterval(load, REFRESH_MS);
