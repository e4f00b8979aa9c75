"""Session 45: tools/bench/ab_kernels.py with the sm90a forward's tile forced by the --label's
prefix ("long": the long-rows tile, "dflt": the default tile; a head dim or mask without a long-rows
tile runs the default one either way), so that one build's two tiles alternate in dc_ab's rounds
(DC_AB_CMD="python3 .../ab_tile.py")."""
import runpy
import sys

from flashcore import _attention

label = sys.argv[sys.argv.index("--label") + 1]
_attention._set_forced_fwd_tile({"long": "long_rows", "dflt": "default"}[label.split("_")[0]])
sys.argv[0] = "tools/bench/ab_kernels.py"
runpy.run_path("tools/bench/ab_kernels.py", run_name="__main__")
