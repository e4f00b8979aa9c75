"""The loops of a cuobjdump -sass listing with at least 30 MUFU in their body (a forward kernel's
key-block loops), found by backward branches, each printed with its opcodes run-length encoded.
    python3 sass_loops.py FILE.sass FUNCTION_NAME_REGEX"""
import re,sys
path,fn_pat=sys.argv[1],sys.argv[2]
txt=open(path).read().split('\n')
funcs=[];cur=None
for l in txt:
    m=re.search(r'Function : (\S+)',l)
    if m: cur=[m.group(1),[]]; funcs.append(cur); continue
    m=re.match(r'\s*/\*([0-9a-f]{4,})\*/\s+(.*?);',l)
    if m and cur: cur[1].append((int(m.group(1),16),m.group(2).strip()))
for name,ins in funcs:
    if not re.search(fn_pat,name): continue
    addr={a:i for i,(a,_) in enumerate(ins)}
    for i,(a,s) in enumerate(ins):
        t=None
        mm=re.search(r'0x([0-9a-f]+)',s) if 'BRA' in s else None
        if mm: t=int(mm.group(1),16)
        if t is not None and t<a and t in addr:
            body=ins[addr[t]:i+1]
            nm=sum('MUFU' in x for _,x in body)
            if nm<30: continue
            print(f"== {name[-80:]} loop {t:x}-{a:x}: {len(body)} instrs, MUFU {nm}, F2FP {sum('F2FP' in x for _,x in body)}, BRA {sum(' BRA' in ' '+x for _,x in body)}")
            prev=None;cnt=0;out=[]
            for _,x in body:
                op=[w for w in x.split() if not w.startswith('@')][0]
                op=op if any(op.startswith(k) for k in ('HGMMA','WARPGROUP','SYNCS','BAR','BRA','VOTE')) else op.split('.')[0]
                if op==prev: cnt+=1
                else:
                    if prev: out.append(f"{prev}x{cnt}")
                    prev=op;cnt=1
            out.append(f"{prev}x{cnt}")
            print(' '.join(out))
