# Session 35, device calls 2 + 3 (and again 7 + 8): FA4's wheels onto the GPU machine, one half per
# call (../shared/anchors/fa4/README.md; fetched here with `../shared/anchors/fa4/fetch.sh
# .carry_fa4/fa4`). The README's second call carries fa4/b beside the bundle; with this tree (11.6
# MB) that is over the 64 MiB a call takes, so fa4/b travels alone and the benchmark call (4, 9)
# carries only the bundle. Each call must follow the last within the machine's 30 s idle release.
#   call 2 / 7, carry .carry_fa4/fa4/a:
mkdir -p /root/keep && cp .carry_fa4/fa4/a/* /root/keep/
#   call 3 / 8, carry .carry_fa4/fa4/b:
mkdir -p /root/keep/b && cp .carry_fa4/fa4/b/* /root/keep/b/
