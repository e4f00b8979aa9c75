"""Session 7: the four sanitizers over the sm90a forward instantiations (every head dim: the packed-batch
tile order of this session changed all of them), through the sanitizer suite's own case and checks (tests/gpu_sanitizer_test.py,
tests/sanitizer_check.py). Usage: python3 san_fwd90.py <runfiles> [tool ...]"""
import json, os, pathlib, sys, tempfile
R = sys.argv[1]
sys.path[:0] = [R + "/_main/py", R + "/_main/tests"]
import torch
import flashcore
import gpu_sanitizer_test as g
from sanitizer_check import TOOLS, run_sanitizers
info = flashcore.build_info()
todo, skipped = g.runnable_instantiations(info, torch.cuda.get_device_capability())
ARCH = os.environ.get("SAN_ARCH", "sm90a")
todo = [t for t in todo if t[0] == "fwd" and t[1] == ARCH]
print("sweeping %d %s forward instantiations: %s" % (len(todo), ARCH, todo), flush=True)
case = g.CASE.replace("__TODO__", repr(json.dumps(todo))).replace("__FEATURES__", repr(json.dumps(g.FEATURE_VARIANTS)))
case = case.replace("__PREDICATED__", repr(json.dumps(g.PREDICATED_HEAD_DIMS)))
out = pathlib.Path(os.environ.get("OUT", tempfile.mkdtemp()))
os.environ["TEST_UNDECLARED_OUTPUTS_DIR"] = str(out)
try:
    logs = run_sanitizers(sys.argv[2:] or TOOLS, case, "flashcore", pathlib.Path(tempfile.mkdtemp()))
except BaseException as e:  # pytest.fail raises a BaseException subclass
    print("SANITIZER FAILURE:", str(e)[:3000]); sys.exit(1)
for tool, log in logs.items():
    covered = [l for l in log.splitlines() if l.startswith("covered ")]
    rejected = [l for l in log.splitlines() if l.startswith("rejected ")]
    ok_cov = bool(covered) and sorted(tuple(x) for x in json.loads(covered[-1][8:])) == sorted(todo)
    print(tool, "covered all:", ok_cov, "| rejected:", rejected[-1:] if rejected else "none printed",
          "|", [l for l in log.splitlines() if "SUMMARY" in l][-1:])
