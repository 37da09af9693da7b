#!/usr/bin/env bash
# Alternates natsperf JetStream/KV workloads with bare nats.go jetstream loops (tools/jsbare)
# against one standalone server; prints msgs/sec of each and the ratio natsperf/bare.
set -euo pipefail
NP=${NP:-/tmp/np}; BARE=${BARE:-/tmp/jsbare}; ROUNDS=${ROUNDS:-3}; PORT=${PORT:-4333}
URL=nats://127.0.0.1:$PORT
$NP server --port $PORT >/dev/null 2>&1 & SRV=$!
trap 'kill $SRV' EXIT
sleep 2
rate() { python3 -c 'import json,sys; r=json.load(sys.stdin); print(int(sum(g["aggregate"]["msgs_per_sec"] for g in r["groups"])))'; }
np() { $NP "$@" -s $URL --json --no-progress 2>/dev/null | rate; }
bench() { # name, natsperf args, bare args
  local name=$1 npargs=$2 bareargs=$3 a=0 b=0
  for i in $(seq $ROUNDS); do
    x=$(np $npargs); y=$($BARE -s $URL $bareargs)
    echo "  $name round $i: natsperf $x bare $y"
    a=$((a+x)); b=$((b+y))
  done
  python3 -c "print('$name: natsperf %d msgs/s, bare %d msgs/s, ratio %.2f' % ($a/$ROUNDS, $b/$ROUNDS, $a/$b))"
}
N=${N:-50000}
$NP js pub async bare -s $URL --create --stream benchstream --msgs $N --json >/dev/null 2>&1   # stream for the readers
bench "js pub sync"  "js pub sync bare --stream benchstream --msgs 10000" "-op pub-sync -msgs 10000"
bench "js pub async"          "js pub async bare --stream benchstream --msgs $N" "-op pub-async -msgs $N"
bench "js pub batch (100)"    "js pub batch bare --stream benchstream --msgs $N --batch 100" "-op pub-batch -msgs $N -batch 100"
bench "js ordered"            "js ordered --msgs $N" "-op ordered -msgs $N"
bench "js consume"            "js consume --msgs $N" "-op consume -msgs $N"
bench "js fetch"              "js fetch --msgs $N" "-op fetch -msgs $N"
bench "js get sync"           "js get sync --msgs 10000" "-op get-sync -msgs 10000"
bench "js get batch"          "js get batch --msgs $N" "-op get-batch -msgs $N"
bench "kv put"                "kv put --msgs 10000" "-op kv-put -msgs 10000"
bench "kv get"                "kv get --msgs 10000" "-op kv-get -msgs 10000"
