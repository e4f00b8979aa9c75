"""Session 63: does the sorted tail visit every causal tile exactly once? A Python copy of
TileScheduler::walk_divisors / next / decode_tail (kernels/hopper/tile_scheduler.cuh), plain
division for FastDivide, over m query blocks x (batch, head)s x grids. Prints "ok N"."""
def fd(d): return d  # plain division stands in for FastDivide
def check(m, bh_count, G):
    ppr=(m+1)//2; dense_items=ppr*bh_count
    if dense_items*2 <= 0: return
    grid=min(G,dense_items)
    rounds_before=dense_items//grid-1
    P=max(rounds_before,0)*grid
    bh0=P//ppr; k0=P-bh0*ppr; full=bh_count-1-bh0
    T=m-2*k0+full*m
    tail_start=2*P; walk_end=2*P+2*((T+grid-1)//grid)*grid
    seen={}
    for c in range(grid):
        w=2*c
        while w<walk_end:
            if w>=tail_start:
                u=(w-tail_start)>>1; r=u//grid; cc=u-r*grid; assert cc==c
                i=r*grid+((grid-1-cc) if r&1 else cc)
                if i<T:
                    top=k0*full; mid=(m-2*k0)*(full+1)
                    if i<top: lv=i//max(full,1); bh=bh0+1+i-lv*full
                    elif i<top+mid: j=i-top; q=j//(full+1); lv=k0+q; bh=bh0+j-q*(full+1)
                    else: j=i-top-mid; q=j//max(full,1); lv=m-k0+q; bh=bh0+1+j-q*full
                    t=(bh,m-1-lv); seen[t]=seen.get(t,0)+1
                w+=2*grid
            else:
                item=w>>1; bh=item//ppr; k=item-bh*ppr; lb=m-1-k
                if w%2==0: t=(bh,lb); seen[t]=seen.get(t,0)+1
                elif k<lb: t=(bh,k); seen[t]=seen.get(t,0)+1
                w = w+(grid-1)*2+1 if (w&1) else w+1
    exp={(b,mb) for b in range(bh_count) for mb in range(m)}
    assert set(seen)==exp and all(v==1 for v in seen.values()), (m,bh_count,G)
import itertools
n=0
for m in range(1,70):
    for bh in (1,2,3,5,16,33,64,130,300):
        for G in (1,7,132,114):
            if m*bh> G: check(m,bh,G); n+=1
print("ok",n)
