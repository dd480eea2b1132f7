"""``evident eval``: P@1, hit@5 and MRR by page URL over a questions file, through the same Searcher as the API,
and the figures of the answers' verdicts and cards (``evident.verdict_figures``); the same P@1 holds a new index
to the alias's before ``evident reindex --gate`` swaps it in (``reindex_gate``)."""
from __future__ import annotations

import hashlib
import json
from collections import defaultdict
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable, Iterable

from opensearchpy.exceptions import OpenSearchException

from core.settings import PROJECT_ROOT
from evident.verdict_figures import card_rates, format_verdicts, verdict_figures
from ingest.principals import principals
from search.searcher import SearchRequest, Searcher, Turn
from search.verdict import NONE

BREAKDOWNS = ("answer_source", "lang", "complexity", "turn", "split")  # split: the half of ``split_of``
HISTORY_RESULTS = 3  # results of a turn a follow-up sees, as the search page keeps them (api/static/index.html)
ERROR_CHARS = 300  # enough to name the cause of a failed search, not its whole server trace
PART_DECIMALS = 4  # a miss's score parts are read by eye, and four places tell the lists apart
SPLITS = ("tune", "holdout")
GATE_DECIMALS = 9  # a fall of P@1 compared with the margin as counts over n are: no float residue decides
GOLD_CHECKED = 500  # gold URLs looked up in one terms query: far below OpenSearch's limit of 65,536 terms
ANSWERED_ELSEWHERE = PROJECT_ROOT / "evalsets" / "answered-elsewhere.jsonl"
# How a raw follow-up meets its conversation: ``state`` is the Searcher's own conversation handling;
# ``prev-question`` is the naive baseline (the previous raw question prepended, no other history);
# ``none`` asks each question alone.
CONVERSATION_MODES = ("state", "prev-question", "none")


@dataclass
class Figures:
    n: int = 0
    p_at_1: float = 0.0
    hit_at_5: float = 0.0
    mrr: float = 0.0

    def as_dict(self) -> dict:
        return {"n": self.n, "p_at_1": round(self.p_at_1, 4), "hit_at_5": round(self.hit_at_5, 4),
                "mrr": round(self.mrr, 4)}


def figures(ranks: list[int | None]) -> Figures:
    """Ranks are 1-based positions of the first gold page, None when it was not returned."""
    n = len(ranks)
    if not n:
        return Figures()
    return Figures(n=n, p_at_1=sum(r == 1 for r in ranks) / n,
                   hit_at_5=sum(r is not None and r <= 5 for r in ranks) / n,
                   mrr=sum(1.0 / r for r in ranks if r) / n)


def normalize_url(url: str) -> str:
    """Wiki results may carry a #heading fragment; a PDF keeps its #page=N."""
    base, _, fragment = url.partition("#")
    return url if fragment.startswith("page=") else base


def first_gold_rank(urls: list[str], gold: list[str]) -> int | None:
    gold_set = {normalize_url(g) for g in gold}
    seen: list[str] = []
    for url in urls:
        url = normalize_url(url)
        if url in seen:
            continue
        seen.append(url)
        if url in gold_set:
            return len(seen)
    return None


@dataclass
class Outcome:
    question: dict
    rank: int | None
    urls: list[str] = field(default_factory=list)
    leaked: bool = False  # a restricted gold page was shown to someone outside its group
    error: str = ""  # the search failed: counted as a miss, named in the report, and the run goes on
    asked: str = ""  # the text searched, as it was sent
    resolved: str = ""  # the question as the Searcher read it with the conversation (carried terms included)
    scores: dict[str, float] = field(default_factory=dict)  # each returned page's shown score, by URL
    contributions: dict[str, dict[str, float]] = field(default_factory=dict)  # with ``explain``: by page URL
    verdict: str = NONE  # the answer's verdict, confidence and signal (``search.verdict``)
    confidence: float = 0.0
    signal: float = 0.0
    follow_up: bool = False  # read with terms carried from earlier turns: judged through the follow-up map
    card: dict | None = None  # the answer card, as the API sends it
    # The gold page ranked 2nd to 10th below a first page that matches, judged none itself: the search page shows it
    # under "Less related pages".
    set_apart: bool = False


def load_questions(path: str | Path) -> list[dict]:
    questions = []
    for n, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            questions.append(json.loads(line))
        except ValueError as exc:
            raise ValueError(f"{path}:{n}: not a JSON object ({exc})") from exc
    return questions


def split_of(conv_id: str) -> str:
    """The half a conversation belongs to, fixed by its id alone: ``tune`` when the SHA-1 of the id is even,
    else ``holdout``. Mechanisms are tuned on the one half and reported untouched on the other."""
    return SPLITS[int(hashlib.sha1(conv_id.encode("utf-8")).hexdigest(), 16) % 2]


def in_split(questions: list[dict], split: str | None) -> list[dict]:
    """The questions of the conversations in ``split`` (all of them without one)."""
    if split is None:
        return questions
    if split not in SPLITS:
        raise ValueError(f"split {split!r}: not one of {', '.join(SPLITS)}")
    return [q for q in questions if split_of(q.get("conv_id", q.get("id", ""))) == split]


def answered_elsewhere(path: Path = ANSWERED_ELSEWHERE) -> dict[tuple[str, str], list[str]]:
    """(question id, question) -> the pages of another organisation's wiki that answer it as asked, found by hand
    (``evalsets/answered-elsewhere.jsonl``): a generic question ("How far in advance must a vacation be
    requested?") that the other wiki answers for its own staff is no out-of-corpus question there."""
    out: dict[tuple[str, str], list[str]] = {}
    for n, row in enumerate(load_questions(path) if path.is_file() else [], start=1):
        if not all(isinstance(row.get(key), str) for key in ("id", "question", "answered_by")):
            raise ValueError(f"{path}: entry {n} needs the strings id, question and answered_by")
        out.setdefault((row["id"], row["question"]), []).append(row["answered_by"])
    return out


def out_of_corpus(client, index: str, questions: list[dict],
                  elsewhere: dict[tuple[str, str], list[str]] | None = None) -> tuple[list[dict], list[str]]:
    """The questions none of whose gold pages the index holds (asked of another organisation's corpus, no page
    answers them), and the ids of those left out because it holds one. A page of ``elsewhere`` (by default
    ``answered_elsewhere``) that answers the question counts as one of its gold pages."""
    elsewhere = answered_elsewhere() if elsewhere is None else elsewhere
    questions = [{**q, "gold_urls": [*q.get("gold_urls", []),
                                     *elsewhere.get((q.get("id", ""), q.get("question", "")), [])]}
                 for q in questions]
    gold = sorted({normalize_url(url) for q in questions for url in q.get("gold_urls", [])})
    held: set[str] = set()
    for start in range(0, len(gold), GOLD_CHECKED):
        response = client.search(index=index, body={
            "size": 0, "query": {"terms": {"url": gold[start:start + GOLD_CHECKED]}},
            "aggs": {"urls": {"terms": {"field": "url", "size": GOLD_CHECKED}}}})
        held.update(b["key"] for b in response["aggregations"]["urls"]["buckets"])
    kept = [q for q in questions if not held & {normalize_url(url) for url in q.get("gold_urls", [])}]
    return kept, [q.get("id", "") for q in questions if q not in kept]


def run(searcher: Searcher, questions: Iterable[dict], field_name: str = "completed_question", k: int = 10,
        overrides: dict | None = None, progress: Callable[[int], None] | None = None,
        conversation: str = "state", explain: bool = False) -> list[Outcome]:
    """Ask each question; with the raw ``question`` field earlier turns of a conversation are its history,
    read as ``conversation`` (one of ``CONVERSATION_MODES``) says; to ``explain`` (``--misses``) each outcome
    keeps every ranked page's score parts."""
    if conversation not in CONVERSATION_MODES:
        raise ValueError(f"conversation mode {conversation!r}: not one of {', '.join(CONVERSATION_MODES)}")
    overrides = dict(overrides or {})
    if conversation != "state":
        overrides["use_history"] = False
    history: dict[str, list[Turn]] = defaultdict(list)
    outcomes = []
    for n, q in enumerate(sorted(questions, key=lambda q: (q.get("conv_id", ""), q.get("turn", 1))), start=1):
        text = q.get(field_name) or q["question"]
        conv = q.get("conv_id", q.get("id", ""))
        turns = history[conv] if field_name == "question" else []
        asked = text
        if conversation == "prev-question" and turns:
            text = f"{turns[-1].query} {text}"
        groups = principals([q["restricted_to"]]) if q.get("restricted_to") else []
        try:
            response = searcher.search(SearchRequest(query=text, k=k, groups=groups, history=list(turns),
                                                     explain=explain, **overrides))
            leaked = bool(groups) and leaks(searcher, SearchRequest(query=text, k=k, history=list(turns),
                                                                    **overrides), q.get("gold_urls", []))
        except OpenSearchException as exc:
            outcomes.append(Outcome(q, None, error=f"{type(exc).__name__}: {exc}"[:ERROR_CHARS], asked=text))
            history[conv].append(Turn(asked, []))
            continue
        finally:
            if progress:
                progress(n)
        urls = [h.url for h in response.hits]
        rank = first_gold_rank(urls, q.get("gold_urls", []))
        outcomes.append(Outcome(q, rank, urls, leaked, asked=text,
                                resolved=response.resolved_query, scores={h.url: h.score for h in response.hits},
                                contributions=response.contributions, verdict=response.verdict,
                                confidence=response.confidence, signal=response.signal,
                                follow_up=response.follow_up,
                                card=vars(response.answer) if response.answer else None,
                                set_apart=bool(rank and rank > 1 and response.verdict != NONE
                                               and response.hits[rank - 1].verdict == NONE)))
        history[conv].append(Turn(asked, [{"url": h.url, "title": h.title} for h in response.hits[:HISTORY_RESULTS]]))
    return outcomes


def searcher_on(searcher: Searcher, index: str) -> Searcher:
    """A Searcher like ``searcher`` (its models shared, not loaded again) that searches ``index``."""
    settings = replace(searcher.settings, opensearch=replace(searcher.settings.opensearch, index_alias=index))
    return Searcher(settings, searcher.client, searcher.embedder, searcher.lemmatizer, searcher.lexicon,
                    searcher.reranker, searcher.rewriter, searcher.multilingual_embedder)


def reindex_gate(searcher: Searcher, questions: list[dict], margin: float,
                 field_name: str = "completed_question") -> Callable[[str], tuple[bool, dict]]:
    """The gate of ``evident reindex --gate`` (``core.index.reindex``): the questions asked of the alias as it
    is (``searcher``) and of the new index; the swap is refused when P@1 falls by more than ``margin``."""
    if not questions:
        raise ValueError("no questions to hold the new index to")

    def gate(new_index: str) -> tuple[bool, dict]:
        current = figures([o.rank for o in run(searcher, questions, field_name)]).p_at_1
        new = figures([o.rank for o in run(searcher_on(searcher, new_index), questions, field_name)]).p_at_1
        fell = round(current - new, GATE_DECIMALS)
        return fell <= margin, {"questions": len(questions), "p_at_1_current": round(current, 4),
                                "p_at_1_new": round(new, 4), "margin": margin}
    return gate


def leaks(searcher: Searcher, as_outsider: SearchRequest, gold: list[str]) -> bool:
    """Ask again as an outsider: a restricted gold page must not appear at all."""
    return first_gold_rank([h.url for h in searcher.search(as_outsider).hits], gold) is not None


def report(outcomes: list[Outcome]) -> dict:
    result = figures([o.rank for o in outcomes]).as_dict()
    restricted = [o for o in outcomes if o.question.get("restricted_to")]
    result["restricted"] = {"n": len(restricted), "leaks": sum(o.leaked for o in restricted)}
    result["failed"] = [{"id": o.question.get("id", ""), "error": o.error} for o in outcomes if o.error]
    for name in BREAKDOWNS:
        groups: dict[str, list[Outcome]] = defaultdict(list)
        for o in outcomes:
            if name == "split" and "conv_id" in o.question:
                groups[split_of(o.question["conv_id"])].append(o)
            elif name in o.question:
                groups[str(o.question[name])].append(o)
        result[f"by_{name}"] = {key: {**figures([o.rank for o in found]).as_dict(), "cards": card_rates(found)}
                                for key, found in sorted(groups.items())}
    result.update(verdict_figures(outcomes, lambda o: split_of(o.question.get("conv_id", o.question.get("id", "")))))
    return result


def format_table(result: dict) -> str:
    restricted = result.get("restricted", {})
    lines = [f"restricted questions: {restricted.get('n', 0)}, restricted page shown to an outsider: "
             f"{restricted.get('leaks', 0)}",
             *(f"search failed (counted as a miss): {f['id']}: {f['error']}" for f in result.get("failed", [])),
             f"{'':24} {'n':>4} {'P@1':>6} {'hit@5':>6} {'MRR':>6}  cards right / wrong of shown",
             f"{'overall':24} {result['n']:>4} {result['p_at_1']:>6.3f} {result['hit_at_5']:>6.3f} "
             f"{result['mrr']:>6.3f}"]
    for name in BREAKDOWNS:
        for key, f in result.get(f"by_{name}", {}).items():
            cards = f.get("cards", {})
            lines.append(f"{name + '=' + key:24} {f['n']:>4} {f['p_at_1']:>6.3f} {f['hit_at_5']:>6.3f} "
                         f"{f['mrr']:>6.3f}" + (f"  {cards['right']:.3f} / {cards['wrong_of_shown']:.3f}"
                                                 if cards else ""))
    return "\n".join(lines + format_verdicts(result))


def misses(outcomes: list[Outcome]) -> list[dict]:
    """Why each question missed: what was asked and how it was read, the gold page (its rank, None when not
    returned) and the page ranked first, each with its score and what each ranked list and prior added."""
    out = []
    for o in outcomes:
        if o.rank == 1:
            continue
        pages = [_page(o, _gold_url(o), o.rank), _page(o, o.urls[0], 1) if o.urls else None]
        named = [name for page in reversed(pages) if page for name in page["contributions"]]
        for page in pages:  # a list or prior that gave one of the two pages nothing shows as 0 on the other
            if page and page["contributions"]:
                page["contributions"] = {name: page["contributions"].get(name, 0.0) for name in dict.fromkeys(named)}
        out.append({"id": o.question.get("id", ""), "conv_id": o.question.get("conv_id", ""),
                    "turn": o.question.get("turn", 1), "question": o.asked, "resolved_query": o.resolved,
                    "error": o.error, "gold": pages[0], "first": pages[1]})
    return out


def _gold_url(o: Outcome) -> str:
    """The gold page returned first, else the first gold page named."""
    gold = o.question.get("gold_urls", [])
    if o.rank:
        return next(u for u in o.urls if first_gold_rank([u], gold) == 1)
    return gold[0] if gold else ""


def _page(o: Outcome, url: str, rank: int | None) -> dict:
    """One page of a miss: its score as shown (else its parts' sum) and its parts by list and prior."""
    by_page = {normalize_url(u): parts for u, parts in reversed(o.contributions.items())}
    parts = {name: round(amount, PART_DECIMALS) for name, amount in by_page.get(normalize_url(url), {}).items()}
    score = o.scores.get(url, sum(by_page.get(normalize_url(url), {}).values()))
    return {"url": url, "rank": rank, "score": round(score, PART_DECIMALS), "contributions": parts}


def format_misses(missed: list[dict]) -> str:
    """The misses as the table's closing lines: per miss the question, then the gold and the first page."""
    lines = []
    for m in missed:
        lines.append(f"miss {m['id']} (conversation {m['conv_id']}, turn {m['turn']}): {m['question']}"
                     + (f"  [read as: {m['resolved_query']}]" if m["resolved_query"] not in ("", m["question"]) else "")
                     + (f"  [search failed: {m['error']}]" if m["error"] else ""))
        for role, page in (("gold", m["gold"]), ("first", m["first"])):
            if page:
                rank = "not in top k" if page["rank"] is None else f"rank {page['rank']}"
                parts = ", ".join(f"{name} {amount:+.4f}" for name, amount in page["contributions"].items())
                lines.append(f"  {role:5} {rank:>12}  {page['score']:.4f}  {page['url']}\n"
                             f"        {parts or 'not among the ranked candidates'}")
    return "\n".join(lines)
