const conversation = [];
// One id per browser tab, so the search log can tell a session's searches apart (no cookie, no user).
const session = sessionStorage.getItem("evident-session")
  || (crypto.randomUUID ? crypto.randomUUID() : Math.random().toString(36).slice(2) + Date.now().toString(36));
sessionStorage.setItem("evident-session", session);
let lastSearchId = "";
const form = document.getElementById("search-form");
const q = document.getElementById("q");
// Only http(s) links without credentials are clickable: a javascript:, relative or user:password@ URL from a bad
// source stays plain text (the API already drops them: this holds for an API that did not).
function safeUrl(u) {
  try { const p = new URL(u); return ["http:", "https:"].includes(p.protocol) && !p.username && !p.password ? p.href : ""; }
  catch { return ""; }
}
function esc(s) { return String(s).replace(/[&<>"]/g, c => ({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;"}[c])); }
function renderHistory() {
  document.getElementById("history").textContent = conversation.length
    ? "Conversation: " + conversation.map(t => t.q).join(" → ") : "";
}
async function run(query) {
  const body = {q: query, k: 10, history: conversation.slice(-4), session};
  const resp = await fetch("/api/search", {method: "POST", headers: {"Content-Type": "application/json"},
                                            body: JSON.stringify(body)});
  const data = await resp.json();
  const results = document.getElementById("results");
  if (!resp.ok) { results.innerHTML = `<p class="error">${esc(data.error || resp.statusText)}</p>`; return; }
  const spelling = Object.entries({...data.spelling, ...data.acronyms})
    .map(([typed, meant]) => `${meant} (for ${typed})`).join(", ");
  document.getElementById("meta").textContent =
    `${data.total} pages · ${data.took_ms} ms` + (spelling ? ` · also searched for: ${spelling}` : "")
    + (data.resolved_query !== data.query ? ` · searched for: ${data.resolved_query}` : "");
  lastSearchId = data.search_id;
  results.innerHTML = data.hits.map((h, i) => `
    <div class="hit">
      ${safeUrl(h.url) ? `<a class="title" data-rank="${i + 1}" href="${esc(safeUrl(h.url))}">${esc(h.title)}</a>` : `<span class="title">${esc(h.title)}</span>`}<span class="kind">${esc(h.kind)}</span>
      <div class="path">${esc([...h.breadcrumb, ...h.heading_path].join(" › "))}</div>
      <div class="snippet">${h.snippet}</div>
      ${h.more.map(m => `<div class="more"><span class="kind">${esc(m.kind)}</span> ${esc(m.heading_path.join(" › "))} ${m.snippet}</div>`).join("")}
      ${h.duplicates.length ? `<div class="also-in">Also in: ${h.duplicates.map(d => (safeUrl(d.url)
        ? `<a href="${esc(safeUrl(d.url))}">${esc(d.title)}</a>` : esc(d.title)) + (d.space ? ` (${esc(d.space)})` : "")).join(", ")}</div>` : ""}
    </div>`).join("") || "<p>No results.</p>";
  conversation.push({q: query, results: data.hits.slice(0, 3).map(h => ({url: h.url, title: h.title})), opened: []});
  renderHistory();
}
// A result opened: counted on its search's log line (click-through by rank), without delaying the visit.
document.getElementById("results").addEventListener("click", e => {
  const link = e.target.closest("a.title");
  if (!link || !lastSearchId) return;
  const click = {search_id: lastSearchId, url: link.href, rank: Number(link.dataset.rank)};
  // The conversation remembers what was opened: a follow-up is about that page.
  if (conversation.length) conversation[conversation.length - 1].opened.push(link.href);
  navigator.sendBeacon("/api/click", new Blob([JSON.stringify(click)], {type: "application/json"}));
});
form.addEventListener("submit", e => {
  e.preventDefault();
  if (!q.value.trim()) return;
  history.replaceState(null, "", "?q=" + encodeURIComponent(q.value.trim()));
  run(q.value.trim());
});
const initial = new URLSearchParams(location.search).get("q");
if (initial) { q.value = initial; run(initial); }
document.getElementById("new-conversation").addEventListener("click", () => {
  conversation.length = 0; renderHistory(); document.getElementById("results").innerHTML = ""; q.focus();
});
