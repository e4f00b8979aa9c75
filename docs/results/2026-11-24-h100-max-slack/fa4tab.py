import json, sys
def tf(b, key):
    if not b or b.get('error') or b.get('unsupported'): return None
    return b.get('graph_tflops') or b.get('tflops') if key=='fwd' else b.get('tflops')
for f in sys.argv[1:]:
    d=json.load(open(f)); mode=d['records'][0]['mode']
    print('==', f, mode)
    rat={'fa4':[], 'cudnn':[], 'flash':[]}
    for r in d['records']:
        B=r['backends']; fc=tf(B.get('flashcore'),mode)
        if fc is None: continue
        feats = ','.join(r['features']) if r['features'] else ''
        row=f"{r['dtype']} d{r['head_dim']} {'causal' if r['causal'] else 'full'} S{r['seqlen']} {feats}"
        out=[]
        for k in ('fa4','cudnn','flash'):
            o=tf(B.get(k),mode)
            if o: rat[k].append((fc/o,row)); out.append(f"{k} {o:6.1f} ({fc/o:.2f})")
            else: out.append(f"{k}   n/a      ")
        print(f"{row:40s} fc {fc:6.1f}  " + '  '.join(out))
    for k,v in rat.items():
        if v: 
            xs=sorted(x for x,_ in v); print(f"  fc/{k}: {xs[0]:.2f}-{xs[-1]:.2f} median {xs[len(xs)//2]:.2f} n={len(xs)}")
