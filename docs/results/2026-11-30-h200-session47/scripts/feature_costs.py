import json
base='/work/main/docs/results/2026-11-30-h200-session47/logs/call5/'
for mode in ('fwd','bwd'):
    d=json.load(open(base+f'feat_{mode}.json'))
    def key(r): return (r['head_dim'], r['causal'], r['seqlen'], r['heads'], r['heads_kv'], r['window'], r['softcap'], r['varlen'])
    recs={key(r): r for r in d['records']}
    def tf(r, be):
        b=r['backends'].get(be) or {}
        if mode=='fwd': return b.get('graph_tflops')
        ku=b.get('kernel_us')
        return r['flops']/(sum(ku.values())*1e-6)/1e12 if ku else None
    print(f"== {mode}: TFLOP/s of the needed FLOPs ({'kernel-only, CUDA-graph replay' if mode=='fwd' else 'all backward kernels of one call, torch.profiler'})")
    for hd in (64,128):
        H=32 if hd==64 else 16
        for c in (False,True):
            mixed=recs[(hd,c,4000,H,H,-1,0.0,'mixed')]; equal=recs[(hd,c,4096,H,H,-1,0.0,'equal')]; plain=recs[(hd,c,4096,H,H,-1,0.0,'')]
            cap=recs[(hd,c,4096,H,H,-1,30.0,'')]
            for be in ('flashcore','fa4'):
                print(f"d{hd} {'causal' if c else 'full  '} {be:9s} mixed/equal {tf(mixed,be)/tf(equal,be):.3f}  equal/padded {tf(equal,be)/tf(plain,be):.3f}  softcap cost (t/t - 1) {tf(plain,be)/tf(cap,be)-1:+.3f}")
    for hd in (64,128):
        for S in (4096,16384):
            g=recs.get((hd,True,S,32,8,-1,0.0,'')); m=recs.get((hd,True,S,32,32,-1,0.0,''))
            H=32 if hd==64 else 16
            w=recs.get((hd,True,S,H,H,4096,0.0,'')); pc=recs.get((hd,True,S,H,H,-1,0.0,''))
            for be in ('flashcore','fa4'):
                if g and m: print(f"d{hd} causal S{S} {be:9s} GQA 32/8 over MHA 32 (TFLOP/s) {tf(g,be)/tf(m,be):.3f}")
                if w and pc: print(f"d{hd} causal S{S} H{H} {be:9s} window 4096 over causal (TFLOP/s) {tf(w,be)/tf(pc,be):.3f}")
