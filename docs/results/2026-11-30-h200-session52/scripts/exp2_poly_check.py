"""Session 52: exp2_poly checked on the CPU in numpy float32, in the kernel's operation order (the
round-down add emulated from float64), x in [-130, 33] plus -inf and NaN: relative error, exact 0
below -127, NaN kept."""
import numpy as np
f32=np.float32
def fadd_rd(a,b):
    # exact sum in float64 then round toward -inf to float32
    s=a.astype(np.float64)+np.float64(b)
    r=s.astype(np.float32)
    up = r.astype(np.float64) > s
    r[up]=np.nextafter(r[up], f32(-np.inf))
    return r
def poly(x,deg):
    x=np.where(np.isnan(x), x, np.maximum(x, f32(-127))).astype(f32)
    t=fadd_rd(x, 12582912.0)
    f=(x-(t-f32(12582912.0))).astype(f32)
    if deg==3:
        c=[0.07706724107265472,0.22764497995376587,0.6951166391372681,1.0]
    else:
        c=[0.013425154611468315,0.0522453747689724,0.24127855896949768,0.6930451393127441,1.0]
    p=f32(c[0])
    for k in c[1:]:
        p=(p*f+f32(k)).astype(f32)  # not fused, close enough
    tb=t.view(np.uint32).astype(np.uint64)
    e=((tb*(1<<23)+(127<<23)) % (1<<32)).astype(np.uint32).view(f32)
    return (p*e).astype(f32)
x=np.concatenate([np.linspace(-130,33,2000001).astype(f32), np.array([-np.inf,np.nan,-126.5,-127,-126,0,8,32],f32)])
for d in (3,4):
    with np.errstate(all='ignore'):
        y=poly(x,d); ref=np.exp2(x.astype(np.float64))
    ok=(x>=-126)&np.isfinite(x)
    rel=np.abs(y[ok]/ref[ok]-1)
    print(d,"max rel",rel.max(), "below -127 zero:", np.all(y[(x<-127)]==0), "nan:", np.isnan(y[x!=x]), "tail", y[-8:])
