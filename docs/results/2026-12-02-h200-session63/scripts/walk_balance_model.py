"""Session 63: balance models of the forward walk (static round-robin of causal pairs, dynamic and
static snake variants of single tiles; cost = key blocks + ov a tile), dense paper shapes (2048
tiles) and the packed 64 x 100..4000 batch. Each printed ratio is the mean CTA load over the
largest."""
import heapq
import random
def sim_dynamic(costs, G):
    h=[(0.0,i) for i in range(G)]; heapq.heapify(h)
    for c in costs:
        t,i=heapq.heappop(h); heapq.heappush(h,(t+c,i))
    ts=[t for t,_ in h]; return sum(ts)/len(ts)/max(ts), max(ts)
def sim_static(items, G):
    loads=[0.0]*G
    for j,c in enumerate(items): loads[j%G]+=c
    return sum(loads)/G/max(loads), max(loads)
G=132; ov=1.5
for H,m in ((16,128),(64,32),(16*4,32)):
    singles=[c+ov for h in range(H) for c in range(m,0,-1)]
    pairs=[]
    for h in range(H):
        for k in range((m+1)//2):
            a=m-k; b=k+1
            pairs.append(a+ov+(b+ov if b<a or (b==a and False) else (0 if b==a else b+ov)))
    tot=sum(singles)
    print("H",H,"m",m,"static pairs",sim_static(pairs,G)[0],"dyn singles head-major",sim_dynamic(singles,G)[0],
          "dyn pairs", sim_dynamic(pairs,G)[0], "ideal", tot/G)
print()
def pairs_of(m, H):
    out=[]
    for h in range(H):
        for k in range((m+1)//2):
            a=m-k; b=k+1
            out.append(a+ov+(0 if b==a else b+ov))
    return out
for H,m in ((16,128),(64,32),(32,64),(256,8),(128,16)):
    tot=sum(c+ov for c in range(1,m+1))*H
    best=None
    res=[]
    for L in (1,2,4,8,16,32):
        if L>H: continue
        items=pairs_of(m,H-L)+sorted([c+ov for h in range(L) for c in range(m,0,-1)],reverse=True)
        r=sim_dynamic(items,G)[0]; res.append((L,round(r,4)))
    print("H",H,"m",m,"static pairs %.4f"%sim_static(pairs_of(m,H),G)[0],res)
print("static snake tail")
def snake_tail(m,H,G,extra_rounds=1):
    npairs=H*((m+1)//2); ppr=(m+1)//2
    P=(npairs//G - extra_rounds)*G
    if P<0: P=0
    loads=[0.0]*G
    for j in range(P): loads[j%G]+=m+1+2*ov
    singles=[]
    for j in range(P,npairs):
        k=j%ppr; a=m-k; b=k+1
        singles.append(a+ov)
        if b!=a: singles.append(b+ov)
    singles.sort(reverse=True)
    for i,c in enumerate(singles):
        r,p=divmod(i,G); cta=p if r%2==0 else G-1-p
        loads[cta]+=c
    return sum(loads)/G/max(loads)
for H,m in ((16,128),(64,32),(32,64),(256,8),(128,16),(8,256)):
    print("H",H,"m",m,[round(snake_tail(m,H,G,e),4) for e in (0,1,2,3)])
print("whole-head tail, rank snake")
def head_tail(m,H,G,L):
    ppr=(m+1)//2
    P=(H-L)*ppr
    loads=[0.0]*G
    for j in range(P):
        k=j%ppr; a=m-k; b=k+1
        loads[j%G]+= a+ov+(0 if b==a else b+ov)
    s=P%G
    T=L*m
    for i in range(T):
        level=i//L; c=m-level
        r,p=divmod(i,G); rank=p if r%2==0 else G-1-p
        cta=(rank+s)%G
        loads[cta]+=c+ov
    return sum(loads)/G/max(loads)
for H,m in ((16,128),(64,32),(32,64),(256,8),(128,16),(8,256),(4,512)):
    res=[]
    for L in (1,2,3,4,6,8,12,16,24,32,48,64):
        if L<=H: res.append((L,round(head_tail(m,H,G,L),4)))
    print("H",H,"m",m,res)
print("round tail variants: sorted vs longs-then-shorts-reversed")
def round_tail(m,H,G,e,mode):
    npairs=H*((m+1)//2); ppr=(m+1)//2
    P=max(npairs//G - e,0)*G
    loads=[0.0]*G
    for j in range(P): loads[j%G]+=m+1+2*ov
    longs=[];shorts=[]
    for j in range(P,npairs):
        k=j%ppr; a=m-k; b=k+1
        longs.append(a+ov)
        if b!=a: shorts.append(b+ov)
    if mode=='sorted': singles=sorted(longs+shorts,reverse=True)
    else: singles=longs+shorts[::-1]
    for i,c in enumerate(singles):
        r,p=divmod(i,G); cta=p if r%2==0 else G-1-p
        loads[cta]+=c
    return round(sum(loads)/G/max(loads),4)
for H,m in ((16,128),(64,32),(32,64),(256,8),(128,16),(8,256),(4,512)):
    print("H",H,"m",m,[(e,round_tail(m,H,G,e,'sorted'),round_tail(m,H,G,e,'ls')) for e in (1,2)])
rng=random.Random(13); L=[rng.randint(100,4000) for _ in range(64)]

def items(bm,bn,H,pairs=True):
    out=[]
    for l in sorted(L,reverse=True):
        m=(l+bm-1)//bm
        costs=[min(((i+1)*bm+bn-1)//bn,(l+bn-1)//bn) for i in range(m)]  # causal key blocks of tile i
        for h in range(H):
            if pairs:
                for k in range((m+1)//2):
                    a=costs[m-1-k]; b=costs[k]
                    out.append(a+ov+(b+ov if k<m-1-k else 0))
            else:
                out += [c+ov for c in sorted(costs,reverse=True)]
    return out
def rr(it):
    loads=[0]*G
    for j,c in enumerate(it): loads[j%G]+=c
    return sum(loads)/G/max(loads)
def snake(it):
    loads=[0]*G
    for j,c in enumerate(it):
        r,p=divmod(j,G); loads[p if r%2==0 else G-1-p]+=c
    return sum(loads)/G/max(loads)
for name,bm,bn,H in (("d64 192x128",192,128,32),("d64 128x128",128,128,32),("d128",128,128,16)):
    it=items(bm,bn,H)
    print(name,"items",len(it),"rr %.4f snake %.4f"%(rr(it),snake(it)))
it=items(128,128,16)
loads=[0]*G
for j,c in enumerate(it):
    r,p=divmod(j,G); loads[p if r%2==0 else G-1-p]+=c
print(max(loads),min(loads),sum(loads)/G, len(it)%G)
# monotonic?
print(sum(1 for a,b in zip(it,it[1:]) if b>a), it[:5], it[-5:])
import heapq
def lpt(it):
    h=[(0,i) for i in range(G)]
    for c in it:
        t,i=heapq.heappop(h); heapq.heappush(h,(t+c,i))
    ts=[t for t,_ in h]; return sum(ts)/G/max(ts)
for name,bm,bn,H in (("d64 192x128",192,128,32),("d128",128,128,16)):
    it=items(bm,bn,H)
    print(name,"greedy-in-order %.4f sorted-greedy %.4f sorted-snake %.4f"%(lpt(it),lpt(sorted(it,reverse=True)),snake(sorted(it,reverse=True))))
def items2(bm,bn,H):
    # per sequence: all heads' pairs, then all heads' middle singles
    out=[]
    for l in sorted(L,reverse=True):
        m=(l+bm-1)//bm
        costs=[min(((i+1)*bm+bn-1)//bn,(l+bn-1)//bn) for i in range(m)]
        ps=[];mids=[]
        for h in range(H):
            for k in range((m+1)//2):
                a=costs[m-1-k]; b=costs[k]
                if k<m-1-k: ps.append(a+b+2*ov)
                else: mids.append(a+ov)
        out+=ps+mids
    return out
for name,bm,bn,H in (("d64 192x128",192,128,32),("d128",128,128,16)):
    print(name,"snake natural %.4f  snake mids-last %.4f"%(snake(items(bm,bn,H)),snake(items2(bm,bn,H))))
