# The skeleton of a device call that checks and A/Bs carried builds, for a call script to source
# (a session's docs/results/<session>/scripts/callN.sh). It runs on the GPU machine, in the
# repository root, with the run tool's $OUT.
#
#   CARRY: the carried folder: bundle/gpu_<kind>_bundle.tar.gz (the build under test) and one
#     <build>.tar.xz per build to time, each a py tree (tar cJf new.tar.xz -C <bundle>/runfiles/_main py).
#   DC_DEADLINE: seconds from sourcing after which timed steps are skipped (default 480), so
#     that the call ends inside the run tool's limit with what it has.
#
#   . tools/bench/device_call.sh
#   dc_unpack head new                                     # -> /tmp/ab/<build>/py
#   dc_sanitize new tools/bench/san_case.py --dims 80 ...  # memcheck + racecheck, in the background
#   dc_sanitizer_sweep                                     # the whole four-tool sweep on the bundle
#   dc_suites "gpu_h200:240 gpu_h200_features:280"         # then waits for the sanitizers
#   dc_ab 2 head new -- --dtype bf16 --dims 128 --passes fwd  # ab_kernels.py rounds, builds alternating
#   dc_table head new                                      # best per row and build, ratios to the first
#   dc_finish                                              # $OUT packed into call.tgz
set -u
: "${OUT:?OUT: the output folder of the run tool}"
CARRY=${CARRY:?CARRY: the carried folder}
DC_DEADLINE=${DC_DEADLINE:-480}
DC_T0=$(date +%s)
DC_AB=/tmp/ab

dc_elapsed() { echo $(( $(date +%s) - DC_T0 )); }

# Each build's py tree from $CARRY/<build>.tar.xz into $DC_AB/<build>.
dc_unpack() {
  local b
  for b in "$@"; do
    mkdir -p "$DC_AB/$b" && tar xJf "$CARRY/$b.tar.xz" -C "$DC_AB/$b" || return 1
  done
}

# compute-sanitizer memcheck and racecheck over the forward kernels (DC_SAN_KERNELS, a
# --kernel-name filter) while `python3 CASE ARGS...` runs on BUILD's py tree (tools/bench and tests
# on the path: tools/bench/san_case.py takes its checks from tests/features_case.py); logs in
# $OUT/san_<tool>.log.
dc_sanitize() {
  local build=$1 case=$2 tool san
  shift 2
  san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
  for tool in memcheck racecheck; do
    (PYTHONPATH=$DC_AB/$build/py:tools/bench:tests timeout "${DC_SAN_TIMEOUT:-400}" "$san" --tool $tool \
       --error-exitcode 3 --kernel-name "${DC_SAN_KERNELS:-kns=fwd_kernel}" python3 "$case" "$@" \
       > "$OUT/san_$tool.log" 2>&1
     echo "== $tool rc=$?") &
  done
}

# The whole four-tool sanitizer sweep (tests/gpu_sanitizer_test.py: every instantiation this GPU
# runs x its feature variants) from $CARRY/bundle, in parallel parts, one bundle run.py process each
# (FLASHCORE_SANITIZER_TOOLS / _SHARD): racecheck in DC_RACE_SHARDS parts (default 8), memcheck +
# initcheck + synccheck in DC_MIS_SHARDS (default 3), each limited to DC_SWEEP_LIMIT seconds (470).
# On an H200 (session 49) the parts took 271-354 s. Each part's summary lines are printed; its logs
# go to $OUT/sweep_logs.tgz.
dc_sanitizer_sweep() {
  local w=/tmp/dc_sweep limit=${DC_SWEEP_LIMIT:-470} kind=${DC_KIND:-h200} i
  mkdir -p $w && tar xzf "$CARRY/bundle/gpu_${kind}_bundle.tar.gz" -C $w || return 1
  dc_sweep_part() {  # TOOLS I N
    local tools=$1 tag=${1//,/_}_$2
    (cd $w && FLASHCORE_SANITIZER_TOOLS=$tools FLASHCORE_SANITIZER_SHARD=$2/$3 FLASHCORE_SANITIZER_TIMEOUT_S=$limit \
       timeout $((limit + 20)) python3 bundle/run.py --only gpu_${kind}_sanitizer --timeout $((limit + 10)) \
       --out $w/out_$tag > $w/run_$tag.log 2>&1; echo "== sweep $tools $2/$3 rc=$? at $(dc_elapsed) s")
  }
  for i in $(seq 0 $((${DC_RACE_SHARDS:-8} - 1))); do dc_sweep_part racecheck $i ${DC_RACE_SHARDS:-8} & done
  for i in $(seq 0 $((${DC_MIS_SHARDS:-3} - 1))); do
    dc_sweep_part memcheck,initcheck,synccheck $i ${DC_MIS_SHARDS:-3} &
  done
  wait
  local t
  for t in $w/out_*/tests/gpu_${kind}_sanitizer/test.log; do
    echo "-- $t"
    grep -hE "this run:|covered|passed|failed|RACECHECK SUMMARY|ERROR SUMMARY|did not finish" $t | cut -c1-200 | tail -8
  done
  tar czf "$OUT/sweep_logs.tgz" -C $w $(cd $w && ls -d out_* run_*.log)
}

# The named suites from $CARRY/bundle (tools/bench/gpu_suites.sh), then the sanitizers' verdicts.
dc_suites() {
  SUITES_WORK=/tmp/dc_suites CARRY=$CARRY/bundle SUITES="$1" OUT=$OUT/suites \
    bash tools/bench/gpu_suites.sh 2>&1 | tail -12
  wait
  local tool
  for tool in memcheck racecheck; do
    [ -f "$OUT/san_$tool.log" ] || continue
    echo "-- $tool"; grep -E "SUMMARY|Error|error" "$OUT/san_$tool.log" | head -5
  done
  echo "checks done at $(dc_elapsed) s"
}

# ROUNDS rounds of a timing command, the builds alternating within each round, labelled
# <build>_r<round> and appended to $OUT/ab.txt: dc_ab ROUNDS BUILD... -- ARGS runs
# `python3 tools/bench/ab_kernels.py --label LABEL ARGS` on each build's py tree (DC_AB_CMD
# replaces "python3 tools/bench/ab_kernels.py": any benchmark that takes --label and prints
# ab_table.py's lines). Runs past DC_DEADLINE are skipped, and say so.
dc_ab() {
  local rounds=$1 builds=() r b
  shift
  while [ $# -gt 0 ] && [ "$1" != "--" ]; do builds+=("$1"); shift; done
  [ $# -gt 0 ] && shift
  for r in $(seq 1 "$rounds"); do
    for b in "${builds[@]}"; do
      if [ "$(dc_elapsed)" -gt "$DC_DEADLINE" ]; then echo "deadline: skipped ${b}_r$r $*"; continue; fi
      PYTHONPATH=$DC_AB/$b/py:tools/bench timeout "${DC_AB_TIMEOUT:-120}" ${DC_AB_CMD:-python3 tools/bench/ab_kernels.py} \
        --label "${b}_r$r" "$@" >> "$OUT/ab.txt" 2>&1
    done
  done
}

# Best reading per row and build in $OUT/ab.txt, each build's ratio to the first named.
dc_table() {
  python3 tools/bench/ab_table.py "$OUT/ab.txt" "$@"
  echo "A/B done at $(dc_elapsed) s"
}

# Everything under $OUT as one call.tgz (the run tool returns files under $OUT).
dc_finish() {
  echo "all done at $(dc_elapsed) s"
  tar czf /tmp/dc_call.tgz -C "$OUT" . && rm -rf "${OUT:?}"/* && mv /tmp/dc_call.tgz "$OUT/call.tgz"
}
