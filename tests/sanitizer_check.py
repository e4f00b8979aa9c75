"""compute-sanitizer runs for the GPU suites: one tool over a small Python case, filtered to the
kernels whose names contain a given substring, with the tool's own summary parsed strictly."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys

import pytest


def run_sanitizer(tool: str, case_source: str, kernel_substring: str, tmp_path) -> str:
    """Runs `case_source` (which must print "sanitizer case done") under `compute-sanitizer
    --tool tool`, checking only kernels whose mangled name contains `kernel_substring`. Fails the
    calling test on any reported error or hazard (racecheck warnings included); skips only where
    the sanitizer refuses the device (gVisor). Returns the sanitizer's output."""
    exe = shutil.which("compute-sanitizer") or next(
        (p for p in ("/usr/local/cuda/bin/compute-sanitizer",) if os.path.exists(p)), None)
    assert exe, "compute-sanitizer not found on this GPU machine"
    script = tmp_path / ("%s_case.py" % tool)
    script.write_text(case_source)
    proc = subprocess.run(
        [exe, "--tool", tool, "--error-exitcode", "3", "--kernel-name", "kns=" + kernel_substring,
         sys.executable, str(script)],
        capture_output=True, text=True, timeout=1800, env=dict(os.environ))
    log = proc.stdout + proc.stderr
    print(proc.stdout[-4000:], proc.stderr[-4000:])
    if "Device not supported" in log:
        pytest.skip("compute-sanitizer does not support this device/runtime (gVisor); %s not run" % tool)
    assert proc.returncode == 0, "%s failed (rc %d)" % (tool, proc.returncode)
    assert "sanitizer case done" in proc.stdout
    if tool == "racecheck":
        # racecheck ends with "RACECHECK SUMMARY: N hazards displayed (E errors, W warnings)"
        # (and no "ERROR SUMMARY" line): every count must be 0, warnings (WAR/WAW hazards) included.
        m = re.search(r"RACECHECK SUMMARY: (\d+) hazards? displayed \((\d+) errors?, (\d+) warnings?\)", log)
        assert m, "no RACECHECK SUMMARY line in the racecheck output"
        assert m.groups() == ("0", "0", "0"), "racecheck: " + m.group(0)
    else:
        assert re.search(r"ERROR SUMMARY: 0 errors", log), "%s reported errors (or no ERROR SUMMARY line)" % tool
    return log
