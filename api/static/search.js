// The search page: the question and its filters live in the address (?q=...&space=ENG&date_from=...), so a
// search can be shared and reloaded; the conversation lives in the tab and is shown as a removable chip.
const PAGE_SIZE = 10;  // results per page unless the address says (?k=20); "More results" asks for the next page
const TURNS_SENT = 4;  // earlier questions sent with a search: older ones fade out anyway
const FILTERS = {space: "Space", kind: "Type", lang: "Language", author: "Author"};  // facets the API counts
const DATES = {date_from: "Updated from", date_to: "Updated until"};
const SORTS = {relevance: "Best match", updated: "Newest first"};  // the API's orders; the first is its default
const conversation = [];
// One id per browser tab, so the search log can tell a session's searches apart (no cookie, no user).
const session = sessionStorage.getItem("evident-session")
  || (crypto.randomUUID ? crypto.randomUUID() : Math.random().toString(36).slice(2) + Date.now().toString(36));
sessionStorage.setItem("evident-session", session);
const byId = id => document.getElementById(id);
const form = byId("search-form"), q = byId("q");
// What the results list holds: its pages' links (a later page never repeats one: a deeper search can rank a page
// of the first among the next), the results asked for so far, and how many the search found.
let lastSearchId = "", shownUrls = new Set(), asked = 0, total = 0, sentHistory = [];
let state = fromAddress(location.search);
// Only http(s) links without credentials are clickable: a javascript:, relative or user:password@ URL from a bad
// source stays plain text (the API already drops them: this holds for an API that did not).
function safeUrl(u) {
  try { const p = new URL(u); return ["http:", "https:"].includes(p.protocol) && !p.username && !p.password ? p.href : ""; }
  catch { return ""; }
}
function esc(s) { return String(s).replace(/[&<>"]/g, c => ({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;"}[c])); }
function fromAddress(search) {
  const p = new URLSearchParams(search);
  return {q: (p.get("q") || "").trim(), typed: p.get("typed") || "", k: Number(p.get("k")) || PAGE_SIZE,
          filters: Object.fromEntries(Object.keys(FILTERS).map(name => [name, p.getAll(name)])),
          dates: Object.fromEntries(Object.keys(DATES).map(name => [name, p.get(name) || ""])),
          sort: p.get("sort") in SORTS ? p.get("sort") : "relevance"};
}
function address(s) {
  const p = new URLSearchParams({q: s.q});
  for (const [name, values] of Object.entries(s.filters)) values.forEach(v => p.append(name, v));
  for (const [name, value] of Object.entries(s.dates)) if (value) p.set(name, value);
  if (s.sort !== "relevance") p.set("sort", s.sort);
  if (s.typed) p.set("typed", s.typed);
  if (s.k !== PAGE_SIZE) p.set("k", s.k);
  return "?" + p;
}
function filtered() { return Object.values(state.filters).some(v => v.length) || Object.values(state.dates).some(Boolean); }
function day(iso) {  // "2024-09-16T10:00:00Z" -> "16 Sep 2024", as the reader's browser writes dates
  const d = new Date(iso);
  return isNaN(d) ? "" : d.toLocaleDateString(undefined, {day: "numeric", month: "short", year: "numeric"});
}
// The chip says what the next question follows: the conversation's first question (its topic) and its last; a
// question the API read on its own (``new_topic``: its words match nothing here) begins the conversation anew.
function renderFollowing() {
  const first = conversation[0], last = conversation.at(-1);
  const said = !last ? "" : conversation.length === 1 && first.fresh ? `New topic: ${first.q}`
    : `Following: ${first.q}${conversation.length > 1 ? ` → ${last.q}` : ""}`;
  const chain = conversation.map(t => t.q).join(" → ");
  byId("following").innerHTML = last ? `<span class="chip" title="${esc(chain)}">${esc(said)} `
    + `<button type="button" class="remove" aria-label="Stop following: ${esc(last.q)}">×</button></span>` : "";
}
// The query with each mistyped word replaced by the word the API searched beside it.
function corrected(query, spelling) {
  return query.replace(/[\p{L}\p{N}'-]+/gu, w => spelling[w.toLowerCase()] || w);
}
function renderSuggestion(data) {
  const better = corrected(data.query, data.spelling || {});
  const el = byId("suggestion");
  if (state.typed) {
    el.innerHTML = `Showing results for <b>${esc(state.q)}</b>. Search instead for `
      + `<a class="undo" href="${esc(address({...state, q: state.typed, typed: ""}))}">${esc(state.typed)}</a>`;
  } else if (better !== data.query) {
    el.innerHTML = `Did you mean <a class="did-you-mean" href="${esc(address({...state, q: better, typed: data.query}))}">`
      + `${esc(better)}</a>?`;
  } else {
    el.innerHTML = "";
  }
}
// The card's unit as a reader takes it in: a table row as its headers and values, a definition as its term and
// meaning, a sentence or list item in bold within the sentences around it, a page fact as written.
function answerText(a) {
  // A row, or two rows answering together (one a line of the context), each as its headers and values.
  const rows = (a.kind === "table_row" && a.context ? a.context : a.text).split("\n")
    .map(row => row.split(" · ").map(pair => pair.split(/: (.*)/s)));
  if (a.kind === "table_row" && rows.every(pairs => pairs.every(([, value]) => value !== undefined))) {
    return rows.map(pairs => `<dl class="answer-text answer-row">${pairs.map(([name, value]) =>
      `<dt>${esc(name)}</dt><dd>${esc(value)}</dd>`).join("")}</dl>`).join("");
  }
  const [term, meaning] = a.kind === "definition" ? a.text.split(/: (.*)/s) : [];
  if (meaning) return `<p class="answer-text"><b>${esc(term)}</b>: ${esc(meaning)}</p>`;
  const at = a.context ? a.context.indexOf(a.text) : -1;  // the unit in bold within its neighbours
  return at < 0 ? `<p class="answer-text">${esc(a.text)}</p>`
    : `<p class="answer-text">${esc(a.context.slice(0, at))}<b>${esc(a.text)}</b>`
      + `${esc(a.context.slice(at + a.text.length))}</p>`;
}
let cardEvidence = null;  // the evidence the answer card shows: its result does not repeat it as its snippet
function renderAnswer(data) {
  const a = data.answer, el = byId("answer");
  cardEvidence = a && data.verdict !== "none" ? a.evidence_id : null;
  if (a && data.verdict !== "none") {
    const source = safeUrl(a.url) ? `<a href="${esc(safeUrl(a.url))}">${esc(a.title)}</a>` : esc(a.title);
    el.innerHTML = `<section class="answer" aria-label="Answer">${answerText(a)}
      <p class="answer-source">From ${source}${a.heading_path.length ? " › " + esc(a.heading_path.join(" › ")) : ""}</p>
      <p class="answer-feedback" aria-live="polite">Did this answer your question?
        <button type="button" data-helpful="true">Yes</button> <button type="button" data-helpful="false">No</button></p>
      </section>`;
  } else if (data.hits.length && data.verdict === "none" && data.answer !== undefined) {
    el.innerHTML = `<p class="no-match">No good match for “${esc(data.query)}”. The closest pages:</p>`;
  } else if (data.verdict === "none" && data.answer !== undefined && !filtered()) {
    // No page holds any word of it (a page's vector neighbours alone are no closest pages): nothing is listed.
    el.innerHTML = `<p class="no-match">No good match for “${esc(data.query)}”: no page holds any of its words.</p>
      <p>Check the spelling, or ask with other words.</p>`;
  } else {
    el.innerHTML = "";
  }
  byId("results").classList.toggle("closest", data.verdict === "none" && data.answer !== undefined);
}
const languages = Intl.DisplayNames ? new Intl.DisplayNames([navigator.language, "en"], {type: "language"}) : null;
// A filter's value in words: "Table row" for table_row, "German" for de, "Operations" for the space OPS.
function facetValue(name, value, data) {
  if (name === "kind") return (data.kind_labels || {})[value] || value.replace(/_/g, " ");
  if (name === "space") return (data.space_names || {})[value] || value;
  if (name === "lang" && languages) { try { return languages.of(value) || value; } catch { return value; } }
  return value;
}
function renderFilters(data) {
  const sets = Object.entries(FILTERS).map(([name, title]) => {
    const counted = data.facets[name] || {};
    const values = [...new Set([...state.filters[name], ...Object.keys(counted)])];
    if (!values.length) return "";
    return `<fieldset><legend>${title}</legend>${values.map(v => `<label><input type="checkbox" name="${name}"
      value="${esc(v)}"${state.filters[name].includes(v) ? " checked" : ""}> ${esc(facetValue(name, v, data))}${counted[v] ? ` <span class="count">${counted[v]}</span>` : ""}</label>`).join("")}</fieldset>`;
  });
  const dates = Object.entries(DATES).map(([name, title]) =>
    `<label>${title} <input type="date" name="${name}" value="${esc(state.dates[name])}"></label>`).join("");
  // "Newest first" orders the pages that match by their last update; those that match nothing stay below them.
  const sort = `<fieldset><legend>Sort</legend><label class="visually-hidden" for="sort">Sort results</label>
    <select id="sort" name="sort">${Object.entries(SORTS).map(([value, title]) =>
      `<option value="${value}"${state.sort === value ? " selected" : ""}>${title}</option>`).join("")}</select></fieldset>`;
  byId("filters").innerHTML = `<form id="filter-form" aria-label="Filters">${sort}${sets.join("")}<fieldset><legend>Date</legend>
    ${dates}</fieldset>${filtered() ? '<button type="button" id="clear-filters">Clear filters</button>' : ""}</form>`;
}
function hitHtml(h, rank) {
  const link = safeUrl(h.url);
  const facts = [h.space_name || h.space, h.updated && `Updated ${day(h.updated)}`, h.author && `by ${h.author}`].filter(Boolean);
  // The result whose evidence the answer card shows says so in place of that evidence's kind, heading and snippet,
  // and lists the page's other evidence under its title.
  const answered = Boolean(h.evidence_id) && h.evidence_id === cardEvidence;
  return `<article class="hit">
    ${link ? `<a class="title" data-rank="${rank}" href="${esc(link)}">${esc(h.title)}</a>` : `<span class="title">${esc(h.title)}</span>`}
    <span class="kind">${answered ? "Answer above" : esc(h.label || h.kind)}</span>
    <div class="path">${esc([...h.breadcrumb, ...(answered ? [] : h.heading_path)].join(" › "))}</div>
    ${facts.length ? `<div class="facts">${facts.map(esc).join(" · ")}</div>` : ""}
    ${answered ? "" : `<div class="snippet">${h.snippet}</div>`}
    ${h.more.map(m => `<div class="more"><span class="kind">${esc(m.label || m.kind)}</span> ${esc(m.heading_path.join(" › "))} ${m.snippet}</div>`).join("")}
    ${h.duplicates.length ? `<div class="also-in">Also in: ${h.duplicates.map(d => (safeUrl(d.url)
      ? `<a href="${esc(safeUrl(d.url))}">${esc(d.title)}</a>` : esc(d.title)) + (d.space ? ` (${esc(d.space)})` : "")).join(", ")}</div>` : ""}
  </article>`;
}
// Results the API judged no match (verdict "none") below a matching first one are set apart under "Less related
// pages", in their order; when nothing matches, the whole list is the closest pages (``renderAnswer``).
function setApart(data, hits) {
  return data.verdict === "none" ? [] : hits.filter(h => h.verdict === "none");
}
function showHits(hits, firstRank, apart) {  // appended to the list, each under its heading
  const results = byId("results"), html = list => list.map(h => hitHtml(h, firstRank + hits.indexOf(h))).join("");
  let less = results.querySelector(".less-related");
  const matching = hits.filter(h => !apart.includes(h));
  if (less) less.insertAdjacentHTML("beforebegin", html(matching));
  else results.insertAdjacentHTML("beforeend", html(matching));
  if (!apart.length) return;
  if (!less) {
    results.insertAdjacentHTML("beforeend", '<section class="less-related" aria-labelledby="less-title">'
      + '<h2 id="less-title">Less related pages</h2></section>');
    less = results.querySelector(".less-related");
  }
  less.insertAdjacentHTML("beforeend", html(apart));
}
// Asks for a page of results: a new question (it joins the conversation), or the same one filtered or paged on.
async function run({page = 1, question = false} = {}) {
  if (question) sentHistory = conversation.slice(-TURNS_SENT).map(({q, results, opened}) => ({q, results, opened}));
  const body = {q: state.q, k: state.k, page, sort: state.sort, history: sentHistory, session, ...state.filters};
  for (const [name, value] of Object.entries(state.dates)) if (value) body[name] = value;
  const resp = await fetch("/api/search", {method: "POST", headers: {"Content-Type": "application/json"},
                                            body: JSON.stringify(body)});
  const data = await resp.json();
  const results = byId("results");
  if (!resp.ok) { results.innerHTML = `<p class="error">${esc(data.error || resp.statusText)}</p>`; return; }
  lastSearchId = data.search_id;
  if (page > 1) {
    const fresh = data.hits.filter(h => !shownUrls.has(h.url));
    showHits(fresh, shownUrls.size + 1, setApart(data, fresh));
    fresh.forEach(h => shownUrls.add(h.url));
    asked = page * state.k;
  } else {
    const expanded = Object.entries(data.acronyms || {}).map(([typed, meant]) => `${meant} (for ${typed})`).join(", ");
    total = data.total; shownUrls = new Set(data.hits.map(h => h.url)); asked = state.k;
    byId("meta").textContent = `${data.total} page${data.total === 1 ? "" : "s"} · ${data.took_ms} ms`
      + (expanded ? ` · also searched for: ${expanded}` : "")
      + (data.resolved_query !== data.query ? ` · searched for: ${data.resolved_query}` : "")
      + data.warnings.map(w => ` · ${w}`).join("");  // a stage that could not run, a phrase no page holds
    renderSuggestion(data);
    renderAnswer(data);
    renderFilters(data);
    const saidAbove = !filtered() && data.answer !== undefined;  // "No good match", over the answer's place
    results.innerHTML = data.hits.length || saidAbove ? ""
      : `<p>No results for “${esc(data.query)}”${filtered() ? " with these filters" : ""}.</p>`;
    showHits(data.hits, 1, setApart(data, data.hits));
  }
  byId("more").hidden = asked >= total || !data.hits.length;
  if (question) {
    if (data.new_topic) conversation.length = 0;
    conversation.push({q: state.q, results: data.hits.slice(0, 3).map(h => ({url: h.url, title: h.title})), opened: [],
                       fresh: Boolean(data.new_topic)});
    renderFollowing();
  }
}
function go(next, how) {  // the address follows what is searched
  state = next;
  q.value = state.q;
  history.replaceState(null, "", address(state));
  return run(how);
}
// A result opened: counted on its search's log line (click-through by rank), without delaying the visit.
byId("results").addEventListener("click", e => {
  const link = e.target.closest("a.title");
  if (!link || !lastSearchId) return;
  const click = {search_id: lastSearchId, url: link.href, rank: Number(link.dataset.rank)};
  // The conversation remembers what was opened: a follow-up is about that page.
  if (conversation.length) conversation[conversation.length - 1].opened.push(link.href);
  navigator.sendBeacon("/api/click", new Blob([JSON.stringify(click)], {type: "application/json"}));
});
// The asker's word on the answer card, kept on its search's log line: the console lists the cards marked not helpful.
byId("answer").addEventListener("click", async e => {
  const button = e.target.closest(".answer-feedback button");
  if (!button || !lastSearchId) return;
  const line = button.parentElement;
  const resp = await fetch("/api/feedback", {method: "POST", headers: {"Content-Type": "application/json"},
    body: JSON.stringify({search_id: lastSearchId, helpful: button.dataset.helpful === "true"})});
  line.textContent = resp.ok ? "Thank you: noted." : "Your answer could not be noted; please try again later.";
});
// "Did you mean" and its undo stand in for the question just asked: they replace its turn, not follow it.
byId("suggestion").addEventListener("click", e => {
  const link = e.target.closest("a");
  if (!link) return;
  e.preventDefault();
  conversation.pop();
  renderFollowing();
  go(fromAddress(new URL(link.href).search), {question: true});
});
byId("following").addEventListener("click", e => {
  if (!e.target.closest("button.remove")) return;
  conversation.length = 0;  // the next question is asked on its own
  renderFollowing();
  q.focus();
});
byId("filters").addEventListener("change", e => {
  const input = e.target;
  const next = {...state, typed: "", filters: {...state.filters}, dates: {...state.dates}};
  if (input.name === "sort") {
    next.sort = input.value;
  } else if (input.type === "checkbox") {
    next.filters[input.name] = input.checked ? [...next.filters[input.name], input.value]
      : next.filters[input.name].filter(v => v !== input.value);
  } else {
    next.dates[input.name] = input.value;
  }
  go(next, {});
});
byId("filters").addEventListener("click", e => {
  if (e.target.id === "clear-filters") go({...state, typed: "", filters: fromAddress("").filters, dates: fromAddress("").dates}, {});
});
byId("more").addEventListener("click", () => run({page: asked / state.k + 1}));
// Pages by title as the box is typed in (``/api/suggest``), in a list under it (the combobox pattern): the arrow keys
// choose one and Enter opens it; Enter without a choice searches, as a click on a title opens it.
const TITLES_DELAY_MS = 150;  // a pause in typing: one request per word typed, not per key
const TITLES_MIN_CHARS = 2;  // a letter alone starts too many titles to help
const titles = byId("titles");
let titleTimer = 0, titleRound = 0, titled = [], chosen = -1;
function showTitles(list) {  // an empty list closes it, and drops an answer still on its way
  if (!list.length) { clearTimeout(titleTimer); titleRound++; }
  titled = list; chosen = -1;
  titles.innerHTML = list.map((t, i) => `<li role="option" id="title-${i}" aria-selected="false">`
    + `<span>${esc(t.title)}</span><span class="space">${esc(t.space_name || t.space)}</span></li>`).join("");
  titles.hidden = !list.length;
  q.setAttribute("aria-expanded", String(!titles.hidden));
  q.removeAttribute("aria-activedescendant");
}
function choose(index) {
  chosen = index;
  [...titles.children].forEach((li, i) => li.setAttribute("aria-selected", String(i === index)));
  if (index < 0) q.removeAttribute("aria-activedescendant"); else q.setAttribute("aria-activedescendant", `title-${index}`);
}
q.addEventListener("input", () => {
  clearTimeout(titleTimer);
  const typed = q.value.trim();
  if (typed.length < TITLES_MIN_CHARS) { showTitles([]); return; }
  titleTimer = setTimeout(async () => {
    const round = ++titleRound;
    const resp = await fetch(`/api/suggest?${new URLSearchParams({q: typed})}`);
    const found = resp.ok ? (await resp.json()).suggestions.filter(t => safeUrl(t.url)) : [];
    if (round === titleRound && q.value.trim() === typed) showTitles(found);
  }, TITLES_DELAY_MS);
});
q.addEventListener("keydown", e => {
  if (titles.hidden) return;
  if (e.key === "ArrowDown" || e.key === "ArrowUp") {
    e.preventDefault();
    choose(Math.max(-1, Math.min(titled.length - 1, chosen + (e.key === "ArrowDown" ? 1 : -1))));
  } else if (e.key === "Escape") {
    showTitles([]);
  } else if (e.key === "Enter" && chosen >= 0) {
    e.preventDefault();
    location.assign(safeUrl(titled[chosen].url));
  }
});
titles.addEventListener("mousedown", e => e.preventDefault());  // the box keeps the focus while a title is clicked
titles.addEventListener("click", e => {
  const li = e.target.closest("li");
  if (li) location.assign(safeUrl(titled[[...titles.children].indexOf(li)].url));
});
q.addEventListener("blur", () => showTitles([]));
form.addEventListener("submit", e => {
  e.preventDefault();
  showTitles([]);
  if (!q.value.trim()) return;
  go({...state, q: q.value.trim(), typed: ""}, {question: true});
});
renderFollowing();
if (state.q) { q.value = state.q; run({question: true}); }
