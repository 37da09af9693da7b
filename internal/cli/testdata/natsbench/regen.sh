#!/usr/bin/env bash
# Regenerates the checked-in `nats bench --help` pages that TestNatsBenchParity holds natsperf to.
# They come from natscli v0.5.1 (go install github.com/nats-io/natscli/nats@v0.5.1), whose bench
# command is cli/bench_command.go. Run from this directory:
#   NATS=~/go/bin/nats ./regen.sh
set -euo pipefail
NATS=${NATS:-nats}
"$NATS" --version | grep -qx 'v0.5.1' || { echo "want natscli v0.5.1, have $("$NATS" --version)" >&2; exit 1; }
for c in "" pub sub service "service request" "service serve" js "js pub" "js pub sync" "js pub async" \
	"js pub batch" "js pub atomic" "js pub fast" "js ordered" "js consume" "js fetch" "js get" \
	"js get sync" "js get batch" kv "kv put" "kv get"; do
	name=${c// /_}
	# kingpin wraps at $COLUMNS: a wide terminal keeps every flag on one line
	# shellcheck disable=SC2086
	COLUMNS=400 "$NATS" bench $c --help >"bench${name:+_$name}.txt" 2>&1
done
