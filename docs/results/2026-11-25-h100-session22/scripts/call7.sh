# Session 22 call 7 (H100): kernel-only A/B, HEAD's forward (base) against the step order per head
# dim (hv: halves together except at 128, whose SASS is HEAD's: its rows are the noise control),
# $DT (default bf16), alternating processes, $REPS rounds.
set -u
DT=${DT:-bf16}
OUT=/tmp/ab_$DT CARRY=.carry_s22g VARIANTS="base hv" REPS=${REPS:-3} \
  AB_ARGS="--dtype $DT --dims 64,128,96,192,256 --passes fwd --seqlens 1024,4096,16384 --rep 20" \
  bash tools/bench/ab_kernels.sh
mkdir -p $OUT/$DT && cp /tmp/ab_$DT/ab.log $OUT/$DT/
