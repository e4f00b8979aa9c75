"""Session 63: does the packed (sorted varlen) walk with paired middles and the snake visit every tile
exactly once? A Python copy of build_varlen_order / TileScheduler::next / decode (sorted branch,
kBalancedWalk) over random sorted block counts, heads, grids and both item sizes. Prints "ok N"."""
import random
def check(ms, heads, G, tpi):
    # sorted sequences with m blocks each (already in order)
    ends=[];acc=0
    for m in ms:
        ph = m//2 if tpi==2 else m
        acc += heads*ph + ((heads+1)//2 if (tpi==2 and m%2) else 0)
        ends.append(acc)
    N=acc
    grid=min(G,N) if N>0 else 1
    seen={}
    for c in range(grid):
        w=c*tpi
        while w < N*tpi:
            item = w>>1 if tpi==2 else w
            lo=0
            while ends[lo] <= item: lo+=1
            m=ms[lo]; local=item-(ends[lo-1] if lo else 0)
            ph = m//2 if tpi==2 else m
            if tpi==2 and local >= heads*ph:
                h=2*(local-heads*ph)+(w&1); mb=m//2
                if h<heads: seen[(lo,h,mb)]=seen.get((lo,h,mb),0)+1
            else:
                h=local//max(ph,1); k=local-h*ph
                if tpi==1: mb=m-1-k; seen[(lo,h,mb)]=seen.get((lo,h,mb),0)+1
                else:
                    lb=m-1-k
                    mb = lb if w%2==0 else k
                    if w%2==0 or k<lb: seen[(lo,h,mb)]=seen.get((lo,h,mb),0)+1
            # next
            if tpi==2 and not (w&1): w+=1; continue
            r1=(w>>1 if tpi==2 else w)//grid+1
            w=(r1*grid+((grid-1-c) if r1&1 else c))*tpi
    exp={(s,h,b) for s,m in enumerate(ms) for h in range(heads) for b in range(m)}
    assert set(seen)==exp and all(v==1 for v in seen.values()), (ms,heads,G,tpi)
rng=random.Random(1); n=0
for _ in range(3000):
    ms=sorted([rng.choice([0,1,2,3,rng.randint(1,40)]) for _ in range(rng.randint(1,12))],reverse=True)
    heads=rng.randint(1,9); G=rng.choice([1,3,7,132])
    for tpi in (1,2): check(ms,heads,G,tpi); n+=1
print("ok",n)
