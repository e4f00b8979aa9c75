"""Session 52: fits exp2_poly's polynomial p(f) ~ 2^f on [0, 1), p(0) = 1, for the least relative
error (a linear program over 4,001 points), degrees 3 and 4; prints each fit's error evaluated in
float32 Horner form and the coefficients (c1, c2, ...)."""
import numpy as np
from scipy.optimize import linprog
f = np.linspace(0, 1, 4001)
y = 2.0 ** f
for deg in (3, 4):
    # p(f) = 1 + sum_{k=1..deg} c_k f^k ; minimise max |p/y - 1|; vars c1..cdeg, e
    A = np.stack([f ** k / y for k in range(1, deg + 1)], 1)
    b = 1 - 1 / y  # p/y - 1 = A c + 1/y - 1
    n = deg
    # A c - b <= e ; -(A c - b) <= e
    Aub = np.vstack([np.hstack([A, -np.ones((len(f), 1))]), np.hstack([-A, -np.ones((len(f), 1))])])
    bub = np.concatenate([b, -b])
    res = linprog(np.r_[np.zeros(n), 1.0], A_ub=Aub, b_ub=bub, bounds=[(None, None)] * n + [(0, None)], method="highs")
    c = res.x[:n]
    c32 = c.astype(np.float32)
    # evaluate in float32 Horner as the kernel would
    ff = f.astype(np.float32)
    # q = ((c_n f + c_{n-1}) f + ... + c_1) f ; p = q + 1
    q = c32[n - 1] * ff
    for k in range(n - 2, -1, -1):
        q = (q + c32[k]) * ff
    p = q + np.float32(1)
    err = np.max(np.abs(p.astype(np.float64) / y - 1))
    print(deg, "lp err", res.x[-1], "f32 err", err, "log2", np.log2(err), "p(1)", p[-1], [repr(float(x)) for x in c32])
