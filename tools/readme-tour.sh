#!/usr/bin/env bash
# Runs README.md's commands as written, top to bottom: the first command of the opening block
# and every line of "A short tour", in a scratch directory. Background lines (`... &`) start,
# and the next line waits until they printed their first line on stdout (a server: "Running";
# a receiver: its start lines, printed once it subscribed), as a person at a terminal does
# before typing the next command. At the end those still running get SIGTERM and must exit 130
# (interrupted, results printed) or 0; those that ended on their own must have exited 0.
# Files the tour writes must land in results/, never in the repository root.
# `go test ./...` is left out: CI runs the tests in a step of their own.
set -uo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
pids=() names=() outs=()

finish() {
  local failed=0 i code
  for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
    if kill -0 "${pids[i]}" 2>/dev/null; then
      kill -TERM "${pids[i]}"
      wait "${pids[i]}"; code=$?
      [ "$code" = 0 ] || [ "$code" = 130 ] || { echo "FAIL: '${names[i]}' exited $code after SIGTERM"; failed=1; }
    else
      wait "${pids[i]}"; code=$?
      [ "$code" = 0 ] || { echo "FAIL: '${names[i]}' exited $code"; tail -5 "${outs[i]}.err"; failed=1; }
    fi
    echo "\$ ${names[i]} &   (background, exit $code, last lines)"; tail -3 "${outs[i]}" | sed 's/^/    /'
  done
  rm -rf "$work"
  return $failed
}

# README lines that belong to the tour: the opening ```sh block and the one after "## A short tour";
# a line ending in a backslash goes on to the next.
extract() {
  awk '/^## A short tour/ { tour = 1 }
       /^```sh/ { n++; inblock = 1; next }
       /^```/   { if (inblock && tour == 1) tour = 2; inblock = 0; next }
       inblock && (n == 1 || tour == 1) { print }' "$repo/README.md" |
    awk '{ sub(/^[[:space:]]+/, "") }
         /\\$/ { sub(/[[:space:]]*\\$/, " "); part = part $0; next }
         { print part $0; part = "" }'
}

if (exec 3<>/dev/tcp/127.0.0.1/4222) 2>/dev/null; then
  echo "README tour: 127.0.0.1:4222 is taken; the tour's 'natsperf server' needs it"; exit 1
fi
# The module as tracked (every top-level file and package: a new package needs no edit here);
# what the tour writes (./natsperf, results/) lands in the scratch directory only.
for f in $(git -C "$repo" ls-files | cut -d/ -f1 | sort -u); do ln -s "$repo/$f" "$work/$f"; done
cd "$work" || exit 1
start=$SECONDS
status=0
while IFS= read -r line; do
  cmd=$(sed -E 's/[[:space:]]+#[^"]*$//' <<<"$line") # drop a trailing comment
  case "$cmd" in "" | "#"* | "go test"*) continue ;; esac
  t0=$SECONDS
  if [[ "$cmd" =~ [^\&]\&[[:space:]]*$ ]]; then
    cmd=${cmd%&*}
    out="$work/bg${#pids[@]}.out"
    echo "\$ $cmd &"
    bash -c "exec $cmd" >"$out" 2>"$out.err" &
    pids+=($!) names+=("$cmd") outs+=("$out")
    until [ -s "$out" ]; do
      if ! kill -0 "${pids[-1]}" 2>/dev/null || ((SECONDS - t0 > 60)); then
        echo "FAIL: '$cmd' printed nothing within 60s"; cat "$out.err"; status=1; break 2
      fi
      sleep 0.1
    done
  else
    echo "\$ $cmd"
    if ! timeout 300 bash -o pipefail -c "$cmd" </dev/null >"$work/fg.out" 2>&1; then
      echo "FAIL: exit status $?"; cat "$work/fg.out"; status=1; break
    fi
    tail -3 "$work/fg.out" | sed 's/^/    /'
  fi
  echo "    ($((SECONDS - t0))s)"
done < <(extract)
# A reader runs the tour in a clone: whatever it writes belongs in results/ (ignored by git),
# never beside the tracked files.
for f in "$work"/*; do
  case "${f##*/}" in natsperf | results | bg*.out* | fg.out) continue ;; esac
  [ -L "$f" ] || { echo "FAIL: the tour left ${f##*/} in the repository root (write it under results/)"; status=1; }
done
finish || status=1
echo "README tour: $([ $status = 0 ] && echo passed || echo FAILED) in $((SECONDS - start))s"
exit $status
