"""One eager autograd backward per backend and row between cudaProfilerStart / Stop, after
warm-up calls (FA4 JIT-compiles on its first call), for `ncu --profile-from-start off`: each
backend's backward kernels, launch statistics beside one another on the same tensors.
Rows: dtype:head_dim:causal|full:seqlen (paper grid: 16k tokens, hidden 2048).
Run with the attention bundle's tools/bench on PYTHONPATH (fa4_grid_h100.sh sets it)."""
import sys

import torch

import attention_backends as ab
import attention_config as ac


def main(argv):
    backends = argv[1].split(",")
    for spec in argv[2:]:
        dt, d, c, s = spec.split(":")
        d, s = int(d), int(s)
        shape = ac.Shape("paper", dt, d, c == "causal", s, max(1, ac.TOTAL_TOKENS // s), ac.HIDDEN // d)
        inp = ab.make_inputs(shape, seed=1, mode="bwd")
        for b in backends:
            with ab.backend_context(b):
                fn = ab.make_fn(b, inp, shape, "bwd")
                for _ in range(3):
                    fn()
                torch.cuda.synchronize()
                torch.cuda.nvtx.range_push(f"{b} {spec}")
                torch.cuda.cudart().cudaProfilerStart()
                fn()
                torch.cuda.synchronize()
                torch.cuda.cudart().cudaProfilerStop()
                torch.cuda.nvtx.range_pop()
            print("profiled", b, spec, flush=True)
            del fn
        del inp
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main(sys.argv)
