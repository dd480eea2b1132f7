#!/usr/bin/env bash
# The ranking figures of docs/ranking.md, reproduced: the bench alone in its own index, ingested by its own worker
# from a Redis database of its own (so from empty keyword statistics, and without the demo's sample pages
# competing), then every question file evaluated, with the naive baseline beside the conversation reading; the
# same for evalsets/harborlane, another organisation's wiki. Each evaluation's --json is kept in build/figures/,
# and scripts/figures.py writes them into the table of docs/ranking.md at the end. Needs the stack running
# (`make demo` or `evident services up`); about ten minutes on two cores. The indices stay (aliases evalbench and
# evalharbor) for `evident eval --misses` afterwards, with EVIDENT_OPENSEARCH_INDEX_ALIAS set to one of them.
# EVAL_INGEST=0 evaluates the indices an earlier run left, ingesting nothing: for a change to search alone.
set -euo pipefail
cd "$(dirname "$0")/.."
BENCH=${BENCH:-../shared/bench}
read -r REDIS_PORT STACK_REDIS_URL < <(.venv/bin/python -c \
    "from core.settings import load_settings; s = load_settings(); print(s.services.redis_port, s.redis.url)")
export EVIDENT_REDIS_URL="redis://127.0.0.1:${REDIS_PORT}/${EVAL_REDIS_DB:-7}"
if [ "$EVIDENT_REDIS_URL" = "$STACK_REDIS_URL" ]; then  # its database is emptied below: never the stack's own
    echo "eval-bench: EVAL_REDIS_DB is the stack's Redis database ($STACK_REDIS_URL); choose another" >&2
    exit 2
fi
FIGURES=build/figures  # one NAME.json per evaluation, the names scripts/figures.py reads
mkdir -p "$FIGURES"
rm -f "$FIGURES"/*.json  # never a table mixing this run's figures with an earlier run's
worker=""
trap '[ -n "$worker" ] && kill "$worker" 2>/dev/null' EXIT  # a failed ingest or Ctrl-C leaves no worker behind

ingest() {  # alias, folders...: a fresh ingest into the alias by a worker of its own, stopped afterwards
    local alias=$1; shift
    export EVIDENT_OPENSEARCH_INDEX_ALIAS=$alias
    [ "${EVAL_INGEST:-1}" = 0 ] && return
    .venv/bin/python -c "import os, sys, redis; from core.jobs import JobStore
try: JobStore.from_url(os.environ['EVIDENT_REDIS_URL']).clear_database()
except redis.RedisError as exc: sys.exit(f'eval-bench: Redis does not answer ({exc}); start the stack: make demo')"
    .venv/bin/evident worker --hostname "$alias@%h" > "/tmp/evident-worker-$alias.log" 2>&1 &
    worker=$!
    .venv/bin/evident ingest --force "$@"
    kill "$worker"; wait "$worker" 2>/dev/null || true
    worker=""
}

table() {  # name, title, eval arguments...: the table on the terminal, the --json in $FIGURES/NAME.json
    local name=$1; echo; echo "== $2"; shift 2
    .venv/bin/evident eval "$@" --json > "$FIGURES/$name.json.part"
    mv "$FIGURES/$name.json.part" "$FIGURES/$name.json"
    .venv/bin/python -c 'import json, sys; from evident.evaluation import format_table
print(format_table(json.load(open(sys.argv[1], encoding="utf-8"))))' "$FIGURES/$name.json"
}

ingest evalbench "$BENCH/wiki/pages" "$BENCH/pdf"
for file in questions conversations; do
    table "$file-raw" "$file.jsonl, raw question with history" "$BENCH/$file.jsonl" --field question
    table "$file-completed" "$file.jsonl, completed question" "$BENCH/$file.jsonl" --field completed_question
    table "$file-baseline" "$file.jsonl, naive baseline (previous question prepended)" "$BENCH/$file.jsonl" \
        --field question --conversation prev-question
done
table talvik-standalone "evalsets/talvik-standalone.jsonl" evalsets/talvik-standalone.jsonl --field question
table talvik-conversations-raw "evalsets/talvik-conversations.jsonl, raw" evalsets/talvik-conversations.jsonl \
    --field question
table talvik-conversations-completed "evalsets/talvik-conversations.jsonl, completed" \
    evalsets/talvik-conversations.jsonl --field completed_question
table talvik-conversations-baseline "evalsets/talvik-conversations.jsonl, naive baseline" \
    evalsets/talvik-conversations.jsonl --field question --conversation prev-question
table talvik-standalone-de "evalsets/talvik-standalone.de.jsonl" evalsets/talvik-standalone.de.jsonl --field question
table talvik-conversations-de-raw "evalsets/talvik-conversations.de.jsonl, raw" \
    evalsets/talvik-conversations.de.jsonl --field question
table talvik-conversations-de-completed "evalsets/talvik-conversations.de.jsonl, completed" \
    evalsets/talvik-conversations.de.jsonl --field completed_question

HARBOR=evalsets/harborlane
ingest evalharbor "$HARBOR/pages"
table harborlane-raw "harborlane, raw" "$HARBOR/harborlane-conversations.jsonl" --field question
table harborlane-completed "harborlane, completed" "$HARBOR/harborlane-conversations.jsonl" --field completed_question
table harborlane-baseline "harborlane, naive baseline" "$HARBOR/harborlane-conversations.jsonl" --field question \
    --conversation prev-question
table harborlane-de-raw "harborlane .de, raw" "$HARBOR/harborlane-conversations.de.jsonl" --field question
table harborlane-de-completed "harborlane .de, completed" "$HARBOR/harborlane-conversations.de.jsonl" \
    --field completed_question
# Out of corpus: one organisation's questions asked of the other's index (evident eval leaves out any whose gold
# page that index holds): no first page is right, and the verdict should say so.
table ooc-questions-on-harbor "bench questions.jsonl asked of harborlane (out of corpus)" "$BENCH/questions.jsonl" \
    --out-of-corpus
export EVIDENT_OPENSEARCH_INDEX_ALIAS=evalbench
table ooc-harborlane-on-bench "harborlane asked of the bench (out of corpus)" "$HARBOR/harborlane-conversations.jsonl" \
    --out-of-corpus

echo
.venv/bin/python scripts/figures.py
