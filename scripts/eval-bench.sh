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
    # The re-ingest's old evidence merged away before any question, as the stack's beat does in the background
    # (workers.maintenance): BM25's statistics then count the live evidence only, and two runs agree.
    .venv/bin/python -c "from core.settings import load_settings; from core.index import connect, merge_deleted_away
settings = load_settings(); left = merge_deleted_away(connect(settings), settings.opensearch.index_alias)
print(f'eval-bench: {left} deleted documents left after the merge' if left else 'eval-bench: merged, none deleted')"
}

table() {  # name, title, eval arguments...: the table on the terminal, the --json in $FIGURES/NAME.json
    local name=$1; echo; echo "== $2"; shift 2
    .venv/bin/evident eval "$@" --json > "$FIGURES/$name.json.part"
    mv "$FIGURES/$name.json.part" "$FIGURES/$name.json"
    .venv/bin/python -c 'import json, sys; from evident.evaluation import format_table
print(format_table(json.load(open(sys.argv[1], encoding="utf-8"))))' "$FIGURES/$name.json"
}

# The evaluations and the folders of their indices: scripts/evaluations.py, the one list (figures and ablation
# read it too). Each index is ingested before the first evaluation asking it.
while IFS=$'\t' read -r -u 3 -a line; do  # on fd 3: an ingest or eval reading stdin takes no line
    if [ "${line[0]}" = ingest ]; then
        ingest "${line[@]:1}"
    else
        export EVIDENT_OPENSEARCH_INDEX_ALIAS=${line[2]}
        table "${line[1]}" "${line[3]}" "${line[@]:4}"
    fi
done 3< <(.venv/bin/python scripts/evaluations.py --bench "$BENCH")

echo
.venv/bin/python scripts/figures.py
