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
#   dc_sanitize new docs/results/<session>/scripts/case.py # memcheck + racecheck, in the background
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
# --kernel-name filter) while `python3 CASE` runs on BUILD's py tree; logs in $OUT/san_<tool>.log.
dc_sanitize() {
  local build=$1 case=$2 tool san
  san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
  for tool in memcheck racecheck; do
    (PYTHONPATH=$DC_AB/$build/py timeout "${DC_SAN_TIMEOUT:-400}" "$san" --tool $tool --error-exitcode 3 \
       --kernel-name "${DC_SAN_KERNELS:-kns=fwd_kernel}" python3 "$case" > "$OUT/san_$tool.log" 2>&1
     echo "== $tool rc=$?") &
  done
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
