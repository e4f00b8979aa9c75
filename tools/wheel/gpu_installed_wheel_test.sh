#!/usr/bin/env bash
# On a GPU machine (no Bazel): pip-install a flashcore wheel into a fresh venv over the machine's
# torch and run the GPU oracles (tests/gpu_attention_test.py, tests/gpu_attention_bwd_test.py) and
# the forward's API and runtime suite (tests/gpu_attention_api_test.py) against the installed package.
#
#   bash tools/wheel/gpu_installed_wheel_test.sh WHEEL [OUT_DIR] [EXPECTED_GPU_NAME]
#
# The venv is made with --system-site-packages; if the machine's python3 is itself a venv
# (its torch then is not in the base interpreter's site-packages), a .pth file adds that
# python3's site-packages too. The test file runs from a temp dir, so only the installed
# flashcore can be imported (checked before the suites run). OUT_DIR gets one log and junit xml
# per suite, pip output and the installed build_info().
set -euo pipefail
wheel=$(realpath "$1"); out=$(realpath -m "${2:-/tmp/flashcore-wheel-gpu}"); gpu=${3:-H200}
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
mkdir -p "$out"
work=$(mktemp -d /tmp/flashcore-wheel-gpu.XXXXXX)
python3 -c 'import sys, torch; print("host python", sys.version.split()[0], "torch", torch.__version__)' | tee "$out/env.txt"
torch_site=$(python3 -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
python3 -m venv --system-site-packages "$work/venv" 2> "$out/venv.err" \
  || python3 -m venv --system-site-packages --without-pip "$work/venv"
vpy=$work/venv/bin/python3
echo "$torch_site" > "$("$vpy" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')/flashcore_host_site.pth"
pip_opts=(install --no-deps --no-index --no-cache-dir --disable-pip-version-check "$wheel")
if "$vpy" -m pip --version > /dev/null 2>&1; then             # the venv's own pip
  "$vpy" -m pip "${pip_opts[@]}" 2>&1 | tee "$out/pip.txt"
elif python3 -m pip --version > /dev/null 2>&1; then          # the host's pip, aimed at the venv
  python3 -m pip --python "$vpy" "${pip_opts[@]}" 2>&1 | tee "$out/pip.txt"
else                                                          # a uv-made python3 has no pip
  uv pip install --python "$vpy" --no-deps --offline "$wheel" 2>&1 | tee "$out/pip.txt"
fi
[ "${PIPESTATUS[0]}" = 0 ] || { echo "gpu_installed_wheel_test: installing $wheel failed" >&2; exit 1; }
# The suites and the helper modules they import (fwd_oracle, bwd_oracle, oracle_constants,
# sanitizer_check, error_log, gpu_suite_env).
cp "$repo/tests/gpu_attention_test.py" "$repo/tests/gpu_attention_api_test.py" "$repo/tests/gpu_attention_bwd_test.py" \
  "$repo/tests/fwd_oracle.py" "$repo/tests/bwd_oracle.py" "$repo/tests/oracle_constants.py" \
  "$repo/tests/sanitizer_check.py" "$repo/tests/error_log.py" "$repo/tests/gpu_suite_env.py" "$work/"
cd "$work"
"$vpy" - "$work/venv" > "$out/build_info.json" <<'PY'
import json, os, sys, flashcore, torch
venv = os.path.realpath(sys.argv[1])
assert os.path.realpath(flashcore.__file__).startswith(venv + os.sep), "not the installed flashcore: " + flashcore.__file__
info = flashcore.build_info()
assert info["from_wheel"], "flashcore/_build_info.json missing: not installed from a wheel"
info["flashcore_file"] = flashcore.__file__
info["torch"] = torch.__version__
info["device"] = torch.cuda.get_device_name()
print(json.dumps(info, indent=1, sort_keys=True))
PY
python3 -c 'import json, sys; i = json.load(open(sys.argv[1])); print("installed", i["flashcore_file"], "revision", i["revision"], "tag", i["wheel_tag"], "on", i["device"], "torch", i["torch"])' "$out/build_info.json"
rc=0
for suite in gpu_attention_test gpu_attention_api_test gpu_attention_bwd_test; do
  mkdir -p "$out/$suite"
  FLASHCORE_EXPECTED_GPU=$gpu TEST_UNDECLARED_OUTPUTS_DIR=$out/$suite XML_OUTPUT_FILE=$out/$suite.xml \
    "$vpy" "$suite.py" > "$out/$suite.log" 2>&1 || rc=$?
  echo "--- $suite"; tail -n 15 "$out/$suite.log"
done
echo "gpu_installed_wheel_test: exit $rc"
exit "$rc"
