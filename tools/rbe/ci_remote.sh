#!/usr/bin/env bash
# tools/rbe/ci_remote.sh - CI check of remote execution (no GPU needed), run by .ci/run:
#   1. tools/remote up on ephemeral loopback ports, in a throw-away state dir, with a CPU worker
#      and a relay worker advertising gpu=h200;
#   2. part of //tests:cpu with --config=rbe in a separate output base (no disk cache): every test
#      passes and the CPU worker's log shows the actions it executed;
#   3. clean --expunge of that output base, same command: every test "(cached)", no new execution;
#   4. the relay: //tools/rbe:relay_probe_test for gpu=h200 is exported, run by action_runner.py
#      (the GPU side, here on the CPU), imported, and Bazel reports it PASSED; then the verdict
#      survives a restart: tools/remote down, up, clean --expunge, the same test is
#      "(cached) PASSED" with nothing executed (the relay exports nothing, no worker runs);
#   5. the same test action for gpu=h100 is not answered by the gpu=h200 result: no worker has
#      h100, so it fails within the queue timeout, and the relay exported nothing new;
#   6. a CAS cleanup (BuildGrid's, down to 0 bytes) evicts every blob: the gpu=h200 test goes
#      through the relay again (a miss, not a broken hit), and no verdict left in Redis is served
#      with a blob missing (tools/rbe/verdict_check.py asks the ActionCache for each one);
#   7. the shared-service set-up of docs/REMOTE.md section 6a (mutual TLS, JWT, the ACL under
#      which CI writes verdicts and developers only read them, tools/rbe/tls_tunnel.py) is
#      checked against this BuildGrid by tools/rbe/shared_service_check.py;
#   8. everything started is stopped, the state and the output base are removed.
# Usage: tools/rbe/ci_remote.sh [TARGET...]   (default: two tests of //tests:cpu without nvcc)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

TARGETS=("$@")
[ ${#TARGETS[@]} -gt 0 ] || TARGETS=(//tools/bench:attention_lib_test //tools/gpu_bundle:bundle_selftest)
QUEUE_TIMEOUT=${CI_REMOTE_QUEUE_TIMEOUT:-15}

say() { printf '== remote: %s\n' "$*"; }
fail() { printf '== remote: FAILED: %s\n' "$*"; exit 1; }

TMP=$(mktemp -d "${TMPDIR:-/tmp}/flashcore-ci-remote.XXXXXX")
export FLASHCORE_REMOTE_STATE=$TMP/state
OB=$TMP/output_base
BZ=(tools/bazel "--output_base=$OB")
cleanup() {
  rc=$?
  if [ -d "$OB" ]; then "${BZ[@]}" shutdown > /dev/null 2>&1 || true; fi
  tools/remote down --purge > /dev/null 2>&1 || true
  if [ $rc != 0 ] && [ -d "$TMP" ]; then
    for f in "$FLASHCORE_REMOTE_STATE"/logs/*.log; do
      [ -f "$f" ] && { echo "---- $(basename "$f") (last 15 lines)"; tail -n 15 "$f"; }
    done
  fi
  rm -rf "$TMP"
  exit $rc
}
trap cleanup EXIT

t0=$SECONDS
# BuildGrid's scheduler needs a PostgreSQL server: part of this machine kind's image; where it is
# missing, CI (root, Debian) installs the distribution's package, as tests needing a server do.
if ! ls /usr/lib/postgresql/*/bin/initdb > /dev/null 2>&1 && [ -z "${FLASHCORE_PG_BIN:-}" ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get > /dev/null; then
    say "no PostgreSQL server here: apt-get install postgresql"
    { apt-get -q update && DEBIAN_FRONTEND=noninteractive apt-get -q install -y --no-install-recommends postgresql; } \
      > "$TMP/apt.log" 2>&1 || { tail -20 "$TMP/apt.log"; fail "could not install PostgreSQL"; }
  fi
fi
stack_up() {  # tools/remote up on an ephemeral port; sets PORT and RBE (the flags that reach it)
  tools/remote up --ephemeral --relay h200 --queue-timeout "$QUEUE_TIMEOUT" < /dev/null | tee "$TMP/up.txt"
  PORT=$(sed -n 's#^endpoint: grpc://127.0.0.1:\([0-9]*\).*#\1#p' "$TMP/up.txt")
  [ -n "$PORT" ] || fail "no endpoint in the output of tools/remote up"
  RBE=(--config=rbe "--remote_executor=grpc://127.0.0.1:$PORT" --disk_cache= --jobs=2 --test_summary=short)
}
stack_up
say "stack up on 127.0.0.1:$PORT in $((SECONDS - t0)) s"
WLOGS=$FLASHCORE_REMOTE_STATE/logs/worker-cpu  # one log per job slot: worker-cpu0.log, -cpu1.log, ...
RLOG=$FLASHCORE_REMOTE_STATE/logs/relay-h200.log
runs() { cat "$1"*.log 2>/dev/null | grep -c 'Runner exited with code' || true; }

# --- 2. remote execution ------------------------------------------------------------------
t=$SECONDS
"${BZ[@]}" test "${RBE[@]}" "${TARGETS[@]}" < /dev/null 2>&1 | tee "$TMP/run1.txt" | grep -E 'PASSED|FAILED|processes|Executed'
[ "${PIPESTATUS[0]}" = 0 ] || fail "tools/bazel test --config=rbe ${TARGETS[*]}"
n1=$(runs "$WLOGS")
remote=$(sed -n 's/.*processes: .* \([0-9]*\) remote\.$/\1/p; s/.*processes: .* \([0-9]*\) remote,.*/\1/p' "$TMP/run1.txt" | tail -1)
[ "$n1" -gt 0 ] || fail "the CPU worker's log shows no executed action"
say "run 1: ${remote:-?} remote processes; the CPU worker's log has $n1 runner execution(s) ($((SECONDS - t)) s)"

# --- 3. after clean --expunge: all cached ----------------------------------------------------
"${BZ[@]}" clean --expunge < /dev/null > /dev/null 2>&1
t=$SECONDS
"${BZ[@]}" test "${RBE[@]}" "${TARGETS[@]}" < /dev/null 2>&1 | tee "$TMP/run2.txt" | grep -E 'PASSED|FAILED|processes|Executed'
[ "${PIPESTATUS[0]}" = 0 ] || fail "second tools/bazel test --config=rbe"
n2=$(runs "$WLOGS")
[ "$n2" = "$n1" ] || fail "after clean --expunge the worker executed $((n2 - n1)) more action(s)"
for tg in "${TARGETS[@]}"; do
  grep -qE "^$tg +\(cached\) PASSED" "$TMP/run2.txt" || fail "$tg is not '(cached) PASSED' after clean --expunge"
done
grep -q "Executed 0 out of ${#TARGETS[@]} test" "$TMP/run2.txt" || fail "tests were executed again"
say "run 2 (after clean --expunge): all ${#TARGETS[@]} tests (cached) PASSED, no new execution ($((SECONDS - t)) s)"

# --- 4. relay round trip for gpu=h200 ---------------------------------------------------------
PROBE=//tools/rbe:relay_probe_test
OUTBOX=$FLASHCORE_REMOTE_STATE/relay/outbox
relay_round_trip() {  # NAME: the probe for gpu=h200 through the relay; Bazel's output in $TMP/NAME.txt
  local name=$1 bzpid
  "${BZ[@]}" test "${RBE[@]}" --extra_execution_platforms=//tools/rbe:probe_h200 "$PROBE" < /dev/null \
    "--build_event_json_file=$TMP/$name.bep.json" > "$TMP/$name.txt" 2>&1 &
  bzpid=$!
  for _ in $(seq 240); do
    ls "$OUTBOX"/*.action.tar.gz > /dev/null 2>&1 && break
    kill -0 $bzpid 2> /dev/null || break
    sleep 0.5
  done
  ls "$OUTBOX"/*.action.tar.gz > /dev/null 2>&1 || { cat "$TMP/$name.txt"; fail "the relay exported no action"; }
  mkdir -p "$TMP/$name.gpu/in" "$TMP/$name.gpu/out"
  tools/remote relay export "$TMP/$name.gpu/in"
  # what the GPU machine runs (standard library only)
  python3 "$TMP/$name.gpu/in/action_runner.py" --out "$TMP/$name.gpu/out" "$TMP/$name.gpu/in"
  tools/remote relay import "$TMP/$name.gpu/out"
  wait $bzpid || { cat "$TMP/$name.txt"; fail "the relayed test did not pass"; }
  grep -E "$PROBE +PASSED" "$TMP/$name.txt" || { cat "$TMP/$name.txt"; fail "no PASSED for the relayed test"; }
}
t=$SECONDS
relay_round_trip probe200
grep -q 'imported ' "$RLOG" || fail "the relay worker's log shows no import"
say "relay: exported, run by action_runner.py, imported, PASSED ($((SECONDS - t)) s)"
line=$(tools/remote report "$TMP/probe200.bep.json"); echo "$line"
case $line in "GPU tests: 1 executed, 0 cached;"*) ;; *) fail "cost line after the relayed run: $line" ;; esac
# ... and the verdict for gpu=h200 outlives the server: down, up (the ActionCache is in Redis,
# the CAS index in PostgreSQL), clean --expunge, and it comes from the cache with nothing run
t=$SECONDS
tools/remote down < /dev/null > /dev/null
stack_up > /dev/null
grep -E '^  (CAS|ActionCache):' "$TMP/up.txt"
say "stack restarted on 127.0.0.1:$PORT in $((SECONDS - t)) s"
exported_before=$(grep -c 'exported ' "$RLOG" || true)
n_before=$(runs "$WLOGS")
"${BZ[@]}" clean --expunge < /dev/null > /dev/null 2>&1
"${BZ[@]}" test "${RBE[@]}" --extra_execution_platforms=//tools/rbe:probe_h200 "$PROBE" < /dev/null \
  "--build_event_json_file=$TMP/bep2.json" > "$TMP/probe200b.txt" 2>&1 || { cat "$TMP/probe200b.txt"; fail "re-run of the relayed test"; }
grep -E "$PROBE +\(cached\) PASSED" "$TMP/probe200b.txt" || fail "the relayed verdict was not served from the cache after a restart"
grep -q "Executed 0 out of 1 test" "$TMP/probe200b.txt" || fail "the relayed test was executed again after a restart"
line=$(tools/remote report "$TMP/bep2.json"); echo "$line"
case $line in "GPU tests: 0 executed, 1 cached;"*) ;; *) fail "cost line after the cached run: $line" ;; esac
[ "$(grep -c 'exported ' "$RLOG" || true)" = "$exported_before" ] || fail "the relay exported the action again after a restart"
[ "$(runs "$WLOGS")" = "$n_before" ] || fail "a worker executed an action after the restart"
say "restart: down, up, clean --expunge: (cached) PASSED, nothing executed ($((SECONDS - t)) s)"

# --- 5. gpu=h100 is not answered by the gpu=h200 result ---------------------------------------
t=$SECONDS
exported_before=$(grep -c 'exported ' "$RLOG" || true)
rc=0
"${BZ[@]}" test "${RBE[@]}" --extra_execution_platforms=//tools/rbe:probe_h100 "$PROBE" < /dev/null \
  > "$TMP/probe100.txt" 2>&1 || rc=$?
grep -E "PASSED|FAILED|queued|UNAVAILABLE|Executed" "$TMP/probe100.txt" | head -5 || true
[ $rc != 0 ] || fail "gpu=h100 passed with no h100 worker: it was answered from the gpu=h200 result"
grep -q "(cached)" "$TMP/probe100.txt" && fail "gpu=h100 was served from the cache"
grep -q "queued for too long" "$TMP/probe100.txt" || fail "gpu=h100 did not fail with the queue timeout"
[ "$(grep -c 'exported ' "$RLOG" || true)" = "$exported_before" ] || fail "the h200 relay took the h100 action"
say "gpu=h100: not answered by the gpu=h200 result; no h100 worker, failed after $((SECONDS - t)) s"

# --- 6. CAS cleanup: evicted outputs make a miss, never a broken hit ---------------------------
t=$SECONDS
tools/remote cas-cleanup --to 0 --keep-recent 0 < /dev/null | tee "$TMP/evict.txt"
grep -q -- '-> 0.0 MB in 0 blobs' "$TMP/evict.txt" || fail "the CAS cleanup did not evict every blob"
exported_before=$(grep -c 'exported ' "$RLOG" || true)
"${BZ[@]}" clean < /dev/null > /dev/null 2>&1
# the gpu=h200 verdict's outputs are gone: the test goes to the GPU (the relay) again
relay_round_trip probe200c
grep -q "(cached)" "$TMP/probe200c.txt" && fail "the relayed test was served from the cache after its outputs were evicted"
[ "$(grep -c 'exported ' "$RLOG" || true)" -gt "$exported_before" ] || fail "after the CAS cleanup the relay exported nothing"
line=$(tools/remote report "$TMP/probe200c.bep.json"); echo "$line"
case $line in "GPU tests: 1 executed, 0 cached;"*) ;; *) fail "cost line after the CAS cleanup: $line" ;; esac
VENV_PY=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["venv"])' "$FLASHCORE_REMOTE_STATE/processes.json")/bin/python3
"$VENV_PY" tools/rbe/verdict_check.py "$FLASHCORE_REMOTE_STATE" | tee "$TMP/verdicts.txt"
[ "${PIPESTATUS[0]}" = 0 ] || fail "tools/rbe/verdict_check.py"
grep -qE ' [1-9][0-9]* refused \(blobs evicted\), 0 broken hits' "$TMP/verdicts.txt" \
  || fail "expected verdicts refused for their evicted blobs and no broken hit"
say "CAS cleanup: every blob evicted; the relayed test ran again (miss), no broken hit ($((SECONDS - t)) s)"

# --- 7. the shared-service configuration (TLS, JWT, ACL, tunnel) against this BuildGrid -----
t=$SECONDS
"$VENV_PY" tools/rbe/shared_service_check.py > "$TMP/shared.txt" 2>&1 || { cat "$TMP/shared.txt"; fail "tools/rbe/shared_service_check.py"; }
grep -E '^(ok|FAIL) ' "$TMP/shared.txt"
say "shared-service set-up: $(tail -1 "$TMP/shared.txt") ($((SECONDS - t)) s)"

say "all checks passed in $((SECONDS - t0)) s"
