PHASES="paper_bwd" T_END=520 CARRY=.carry_fa4 bash tools/bench/fa4_grid_h100.sh  # after staging fa4/a and fa4/b/cu13.part.ab into /root/keep (calls 5-6)
