# Session 40, device calls 4 and 5 (H200): FA4's wheels onto the GPU machine (../shared/anchors/fa4/README.md;
# fetched with `../shared/anchors/fa4/fetch.sh .fa4`, moved to .carry_fa4/fa4). The README's two
# halves (48 and 50 MB) were refused with this 16 MB tree (over 64 MiB a call), and call 6 then ran
# without FA4 (logs/call6_without_fa4). So the big wheel was re-split in three (each call follows
# the last within the machine's 30 s idle release):
#   cat fa4/a/cu13.part.aa fa4/b/cu13.part.ab > BIG; split -b 31000000 BIG cu13.part.
#   p1: cu13.part.aa; p2: cu13.part.ab; p3: cu13.part.ac + fa4/b/*.whl + fa4/b/BIG_WHEEL_NAME
#   call, carry .carry_fa4/p1:  mkdir -p /root/keep /root/keep/b && cp .carry_fa4/p1/* /root/keep/
#   call, carry .carry_fa4/p2:  cp .carry_fa4/p2/* /root/keep/b/
#   call, carry .carry_fa4/p3:  cp .carry_fa4/p3/* /root/keep/b/
# then call6.sh again (fa4_grid_h100.sh concatenates /root/keep/cu13.part.* and fa4/b/cu13.part.*).
