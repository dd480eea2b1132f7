// Evident's embeddable search box, for an intranet's own pages:
//   <script src="https://evident.example/static/widget.js" data-endpoint="https://evident.example" defer></script>
// The box goes into the element named by data-target (a CSS selector), else into the first
// <div data-evident-search>, else where the script tag stands (in <body>) or at the end of <body>.
// It asks data-endpoint's /api/search (cross-origin: the page's origin must be in the API's [api] cors_origins)
// and records an opened result with /api/click, as the search page does. It runs in the host page, so it
// builds every node with DOM calls and textContent: nothing the API answers is inserted as markup there.
// It follows a conversation as the search page does: each search sends the tab's earlier questions, what
// they showed and which result was opened (kept in sessionStorage, so a follow-up asked on the page a result
// led to still has them), until its chip ("Following: ... ×") is removed or half an hour passes without a search.
// The results float over the host page, below the box, instead of pushing the page down; an answer card, when the
// API gives one, comes first among them. As the box is typed in, the list offers pages by title (``/api/suggest``)
// until Enter searches.
(() => {
  "use strict";
  const RESULTS_SHOWN = 8;  // pages under the box: what fits at a glance; the search page pages through the rest
  const script = document.currentScript;
  const endpoint = (script.dataset.endpoint || new URL(script.src).origin).replace(/\/+$/, "");
  const uid = "evident-" + Math.random().toString(36).slice(2, 10);
  // One id per browser tab and host page, so the search log can tell a session's searches apart (no cookie).
  const SESSION_KEY = "evident-widget-session";
  const session = sessionStorage.getItem(SESSION_KEY) || uid + Date.now().toString(36);
  sessionStorage.setItem(SESSION_KEY, session);
  const CONVERSATION_KEY = "evident-widget-conversation";
  const TURNS_SENT = 4;  // earlier questions sent with a search, as the search page sends: older ones fade out anyway
  const RESULTS_REMEMBERED = 3;  // of each turn's results: the prior leans on the first, or on the one opened
  const IDLE_MS = 30 * 60 * 1000;  // a search half an hour after the last one starts a new conversation
  const OPENED_SENT = 10;  // opened results a turn keeps, the last ones: what the API takes (more is refused)
  const TITLES_DELAY_MS = 150;  // a pause in typing before pages are offered by title: one request a word, not a key
  const TITLES_MIN_CHARS = 2;  // a letter alone starts too many titles to help
  function conversation() {
    let saved = null;
    try { saved = JSON.parse(sessionStorage.getItem(CONVERSATION_KEY)); } catch { saved = null; }
    const fresh = saved && Array.isArray(saved.turns) && Date.now() - saved.at < IDLE_MS;
    return fresh ? saved : {turns: [], at: Date.now()};
  }
  function remember(turns) {
    sessionStorage.setItem(CONVERSATION_KEY, JSON.stringify({turns: turns.slice(-TURNS_SENT), at: Date.now()}));
  }

  function node(tag, className, text) {
    const el = document.createElement(tag);
    if (className) el.className = className;
    if (text !== undefined) el.textContent = text;
    return el;
  }
  // A result link is only ever absolute http(s) without credentials: a javascript:, data:, relative or
  // user:password@ URL stays plain text (the API already drops them: this holds for an API that did not).
  function openable(url) {
    let parsed;
    try { parsed = new URL(url); } catch { return null; }
    const web = parsed.protocol === "http:" || parsed.protocol === "https:";
    return web && !parsed.username && !parsed.password ? parsed.href : null;
  }
  // The API's snippet is escaped text with <mark> around matched words: parsed inert (DOMParser runs nothing),
  // then rebuilt from its text, keeping only the marks.
  function snippet(html, className) {
    const out = node("div", className);
    for (const part of new DOMParser().parseFromString(html, "text/html").body.childNodes) {
      out.append(part.nodeName === "MARK" ? node("mark", "", part.textContent) : part.textContent);
    }
    return out;
  }

  const stylesheet = node("link");
  stylesheet.rel = "stylesheet";
  stylesheet.href = new URL("widget.css", script.src).href;
  document.head.append(stylesheet);

  const box = node("div", "evident-widget");
  const form = node("form", "evident-form");
  form.setAttribute("role", "search");
  const input = node("input", "evident-input");
  Object.assign(input, {type: "search", placeholder: script.dataset.placeholder || "Search the intranet…",
                        autocomplete: "off"});
  const list = node("ul", "evident-results");
  list.id = uid + "-results";
  list.setAttribute("role", "listbox");
  list.setAttribute("aria-label", "Search results");
  list.hidden = true;
  for (const [name, value] of Object.entries({"role": "combobox", "aria-label": "Search the intranet",
      "aria-autocomplete": "list", "aria-expanded": "false", "aria-controls": list.id})) {
    input.setAttribute(name, value);
  }
  const button = node("button", "evident-button", "Search");
  button.type = "submit";
  const status = node("div", "evident-status");
  status.setAttribute("role", "status");
  // The question a follow-up is about, as a chip: removing it asks the next question on its own.
  const newTopic = node("button", "evident-new-topic");
  newTopic.type = "button";
  // What the next question follows: the conversation's first question (its topic) and its last.
  // A question the API read on its own (``new_topic``: its words match nothing here) begins the conversation anew.
  function showFollowing(turns) {
    const first = turns[0], last = turns[turns.length - 1];
    newTopic.hidden = !last;
    if (!last) return;
    const said = turns.length === 1 && first.fresh ? `New topic: ${first.q}`
      : `Following: ${first.q}${turns.length > 1 ? ` → ${last.q}` : ""}`;
    newTopic.replaceChildren(`${said} `, node("span", "evident-remove", "×"));
    newTopic.title = turns.map(turn => turn.q).join(" → ");
    newTopic.setAttribute("aria-label", `Stop following: ${last.q}`);
  }
  showFollowing(conversation().turns);
  const meta = node("div", "evident-meta");
  meta.append(status, newTopic);
  form.append(input, button);
  box.append(form, meta, list);
  const target = document.querySelector(script.dataset.target || "[data-evident-search]");
  if (target) target.append(box);
  else if (script.closest("body")) script.before(box);
  else document.body.append(box);

  let options = [], active = -1, searchId = "", asked = 0, titleTimer = 0;
  let cardEvidence = null;  // the evidence the answer card shows (``answerOption``)

  function expand(open) {
    list.hidden = !open || !options.length;
    input.setAttribute("aria-expanded", String(!list.hidden));
    if (list.hidden) activate(-1);
  }
  function activate(index) {
    if (options[active]) options[active].setAttribute("aria-selected", "false");
    active = index;
    if (options[active]) {
      options[active].setAttribute("aria-selected", "true");
      input.setAttribute("aria-activedescendant", options[active].id);
      options[active].scrollIntoView({block: "nearest"});
    } else {
      input.removeAttribute("aria-activedescendant");
    }
  }
  function recordClick(option) {
    const talk = conversation();  // the follow-up is about the page opened, on this page or the next
    if (talk.turns.length) {
      const turn = talk.turns[talk.turns.length - 1];
      turn.opened = [...turn.opened.filter(url => url !== option.dataset.url), option.dataset.url];
      remember(talk.turns);
    }
    const body = JSON.stringify({search_id: searchId, url: option.dataset.url, rank: Number(option.dataset.rank)});
    // keepalive: the request outlives the page the visit leaves; a lost click costs a statistic, not the visit
    fetch(endpoint + "/api/click", {method: "POST", mode: "cors", credentials: "include", keepalive: true,
                                    headers: {"Content-Type": "application/json"}, body}).catch(() => {});
  }
  function option(hit, index) {
    const item = node("li", "evident-option");
    item.id = `${uid}-option-${index}`;
    item.setAttribute("role", "option");
    item.setAttribute("aria-selected", "false");
    // The title is text, not a link: an option holds no control of its own (the listbox pattern); choosing the
    // option, by click or by Enter, opens its page.
    const url = openable(hit.url);
    const title = node("span", "evident-title", hit.title);
    if (url) {
      Object.assign(item.dataset, {url, rank: String(index + 1)});
    } else {
      item.setAttribute("aria-disabled", "true");
    }
    const facts = [hit.space_name || hit.space, hit.updated && `updated ${hit.updated.slice(0, 10)}`, hit.author && `by ${hit.author}`]
      .filter(Boolean).join(" · ");
    // the card above the list shows this evidence already: its page says so in place of the evidence's kind,
    // heading and snippet, and lists its other evidence
    const answered = Boolean(hit.evidence_id) && hit.evidence_id === cardEvidence;
    item.append(title, node("span", "evident-kind", answered ? "Answer above" : hit.label || hit.kind),
                node("div", "evident-path", [...hit.breadcrumb, ...(answered ? [] : hit.heading_path)].join(" › ")),
                ...(facts ? [node("div", "evident-facts", facts)] : []),
                ...(answered ? [] : [snippet(hit.snippet, "evident-snippet")]));
    for (const more of hit.more) {  // the page's other matching evidence, grouped under it as the API answers
      const line = snippet(more.snippet, "evident-more");
      line.prepend(node("span", "evident-kind", more.label || more.kind), " " + more.heading_path.join(" › ") + " ");
      item.append(line);
    }
    if (hit.duplicates && hit.duplicates.length) {  // near-duplicate pages the API folded into this one
      item.append(node("div", "evident-also-in", "Also in: " + hit.duplicates
        .map(d => d.space ? `${d.title} (${d.space})` : d.title).join(", ")));
    }
    return item;
  }
  // A line over the results the API judged no match (verdict "none"): below those that match, or, when none does,
  // over the closest pages. The status line, which is read out, says the same.
  function separator(text) {
    const line = node("li", "evident-separator", text);
    line.setAttribute("aria-hidden", "true");
    return line;
  }
  // The answer card (the API's ``answer``), first in the list: its unit and where it comes from; choosing it opens
  // that page, the first result's, and is recorded as a click on the first result.
  function answerOption(answer) {
    const item = node("li", "evident-option evident-answer");
    item.id = `${uid}-answer`;
    item.setAttribute("role", "option");
    item.setAttribute("aria-selected", "false");
    const url = openable(answer.url);
    if (url) Object.assign(item.dataset, {url, rank: "1"});
    else item.setAttribute("aria-disabled", "true");
    // two table rows answering together come one a line of the context
    const shown = answer.kind === "table_row" && answer.context ? answer.context : answer.text;
    item.append(node("div", "evident-answer-text", shown), node("span", "evident-title", answer.title),
                node("span", "evident-kind", "Answer"), node("div", "evident-path", answer.heading_path.join(" › ")));
    return item;
  }
  // A page offered by its title as the box is typed in (``/api/suggest``): opened like a result, but no search's.
  function titleOption(page, index) {
    const item = node("li", "evident-option evident-offered");
    item.id = `${uid}-title-${index}`;
    item.setAttribute("role", "option");
    item.setAttribute("aria-selected", "false");
    item.dataset.url = page.url;
    item.append(node("span", "evident-title", page.title),
                ...(page.space_name || page.space ? [node("span", "evident-facts", page.space_name || page.space)] : []));
    return item;
  }
  async function offerTitles(typed) {
    const mine = ++asked;  // a search asked meanwhile wins
    let found = [];
    try {
      const resp = await fetch(`${endpoint}/api/suggest?${new URLSearchParams({q: typed})}`,
                               {mode: "cors", credentials: "include"});
      found = resp.ok ? (await resp.json()).suggestions.filter(page => openable(page.url)) : [];
    } catch { return; }  // titles are a help: the search itself says when the service cannot be reached
    if (mine !== asked || input.value.trim() !== typed || !found.length) return;
    options = found.map(titleOption);
    list.replaceChildren(separator("Pages by title"), ...options);
    status.className = "evident-status";
    status.textContent = `${found.length} page${found.length === 1 ? "" : "s"} by title · Enter searches`;
    status.title = "";
    expand(true);
  }
  function openOption(index) {
    const item = options[index];
    if (!item || !item.dataset.url) return;
    if (item.dataset.rank) recordClick(item);  // a result of a search; a page offered by title is none
    window.location.assign(item.dataset.url);
  }
  async function search(query) {
    const mine = ++asked;  // a slower earlier answer never replaces a later one
    status.className = "evident-status";
    status.textContent = "Searching…";
    const earlier = conversation().turns.map(turn => ({q: turn.q, results: turn.results,
                                                      opened: turn.opened.slice(-OPENED_SENT)}));
    const body = JSON.stringify({q: query, k: RESULTS_SHOWN, session, history: earlier});
    let resp, data;
    try {
      resp = await fetch(`${endpoint}/api/search`, {method: "POST", mode: "cors", credentials: "include",
                                                    headers: {"Content-Type": "application/json"}, body});
      data = await resp.json();
    } catch (error) {
      if (mine !== asked) return;
      options = [];
      expand(false);
      status.className = "evident-status evident-error";
      status.textContent = `Search is not available from this page (${error.message}). `
        + "The search service must list this site among its allowed origins.";
      return;
    }
    if (mine !== asked) return;
    if (!resp.ok) {
      options = [];
      expand(false);
      status.className = "evident-status evident-error";
      status.textContent = data.error || resp.statusText;
      return;
    }
    searchId = data.search_id;
    const card = data.answer && data.verdict !== "none" ? [answerOption(data.answer)] : [];
    cardEvidence = card.length ? data.answer.evidence_id : null;
    const noMatch = data.verdict === "none" && data.hits.length > 0;
    const matching = noMatch ? [] : data.hits.filter(h => h.verdict !== "none");
    const apart = data.hits.filter(h => !matching.includes(h));
    const listed = hits => hits.map(h => option(h, data.hits.indexOf(h)));  // ranks as the API ranked them
    const [above, below] = [listed(matching), listed(apart)];
    options = [...card, ...above, ...below];
    list.replaceChildren(...card, ...above,
                         ...(below.length ? [separator(noMatch ? "Closest pages" : "Less related")] : []), ...below);
    const plural = earlier.length > 1 ? "s" : "";
    const following = data.new_topic ? " · asked on its own, as a new topic"
      : earlier.length ? ` · following ${earlier.length} earlier question${plural}` : "";
    const spelling = [...Object.values(data.spelling || {}), ...Object.values(data.acronyms || {})].join(", ");
    const found = noMatch ? `No good match for “${query}”`
      : data.total ? `${data.total} page${data.total === 1 ? "" : "s"}`
        + (above.length && below.length ? ` · ${below.length} less related below` : "")
      : data.verdict === "none" ? `No good match for “${query}”: no page holds any of its words` : "No results.";
    status.textContent = found + following
      + (spelling ? ` · also searched for: ${spelling}` : "")
      + (data.warnings.length ? ` · ${data.warnings[0]}` : "");
    status.title = data.resolved_query !== data.query ? `searched for: ${data.resolved_query}` : "";
    const turns = [...(data.new_topic ? [] : earlier), {q: query, opened: [], fresh: Boolean(data.new_topic),
                   results: data.hits.slice(0, RESULTS_REMEMBERED).map(h => ({url: h.url, title: h.title}))}];
    remember(turns);
    showFollowing(turns);
    expand(true);
  }

  newTopic.addEventListener("click", () => {
    sessionStorage.removeItem(CONVERSATION_KEY);
    showFollowing([]);
    status.textContent = "";
    options = [];
    list.replaceChildren();
    expand(false);
    input.value = "";
    input.focus();
  });

  form.addEventListener("submit", e => {
    e.preventDefault();
    clearTimeout(titleTimer);
    if (active >= 0) openOption(active);
    else if (input.value.trim()) search(input.value.trim());
  });
  input.addEventListener("keydown", e => {
    if (e.key === "ArrowDown" || e.key === "ArrowUp") {
      e.preventDefault();
      if (!options.length) return;
      if (list.hidden) expand(true);
      const step = e.key === "ArrowDown" ? 1 : -1;
      activate(Math.min(options.length - 1, Math.max(-1, active + step)));  // above the first: back to typing
    } else if (e.key === "Escape") {
      e.preventDefault();
      if (!list.hidden) expand(false);
      else input.value = "";
    }
  });
  input.addEventListener("input", () => {
    activate(-1);
    clearTimeout(titleTimer);
    const typed = input.value.trim();
    if (typed.length >= TITLES_MIN_CHARS) titleTimer = setTimeout(() => offerTitles(typed), TITLES_DELAY_MS);
  });
  list.addEventListener("click", e => {
    const item = e.target.closest(".evident-option");
    if (item) openOption(options.indexOf(item));
  });
  box.addEventListener("focusout", e => { if (!box.contains(e.relatedTarget)) expand(false); });
  input.addEventListener("focus", () => expand(true));
})();
