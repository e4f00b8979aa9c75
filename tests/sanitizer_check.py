"""compute-sanitizer runs for the GPU suites: one tool (or several at once) over a small Python
case, filtered to the kernels whose names contain a given substring, with each tool's own summary
parsed strictly."""

from __future__ import annotations

import os
import pathlib
import re
import shutil
import subprocess
import sys

import pytest

TOOLS = ("memcheck", "racecheck", "initcheck", "synccheck")


def sweep_selection(environ=None):
    """Which part of a sanitizer sweep this process runs: (tools, shard index, shard count).

    FLASHCORE_SANITIZER_TOOLS: a comma-separated subset of TOOLS (default: all four).
    FLASHCORE_SANITIZER_SHARD: "i/n", the i-th of n interleaved parts of the sweep's cases
    (default "0/1": all of them). A sweep longer than one process may run (a device call's time
    limit) is run as several: the parts of one tool in parallel processes or calls, each checked
    as strictly as the whole. Anything else raises ValueError naming the variable."""
    env = os.environ if environ is None else environ
    raw_tools = env.get("FLASHCORE_SANITIZER_TOOLS", "").strip()
    tools = tuple(t.strip() for t in raw_tools.split(",")) if raw_tools else TOOLS
    unknown = [t for t in tools if t not in TOOLS]
    if unknown or not tools:
        raise ValueError("FLASHCORE_SANITIZER_TOOLS=%r: expected a comma-separated subset of %s"
                         % (raw_tools, ", ".join(TOOLS)))
    raw_shard = env.get("FLASHCORE_SANITIZER_SHARD", "0/1").strip()
    m = re.fullmatch(r"(\d+)/(\d+)", raw_shard)
    if not m or int(m.group(2)) < 1 or int(m.group(1)) >= int(m.group(2)):
        raise ValueError("FLASHCORE_SANITIZER_SHARD=%r: expected i/n with 0 <= i < n" % raw_shard)
    return tools, int(m.group(1)), int(m.group(2))


def _executable() -> str:
    exe = shutil.which("compute-sanitizer") or next(
        (p for p in ("/usr/local/cuda/bin/compute-sanitizer",) if os.path.exists(p)), None)
    assert exe, "compute-sanitizer not found on this GPU machine"
    return exe


def _start(exe, tool, script, kernel_substring, log_path):
    # initcheck instruments every kernel: writes by a kernel left out of the filter (torch's randn
    # filling the inputs) are invisible to it, so every read of those inputs would be reported.
    only = [] if tool == "initcheck" else ["--kernel-name", "kns=" + kernel_substring]
    with open(log_path, "w") as log:
        return subprocess.Popen(
            [exe, "--tool", tool, "--error-exitcode", "3"] + only + [sys.executable, str(script)],
            stdout=log, stderr=subprocess.STDOUT, text=True, env=dict(os.environ))


def _problems(tool, returncode, log):
    """What is wrong with one finished run: a list of messages, empty when it is clean."""
    problems = []
    if returncode != 0:
        problems.append("%s exited with %d" % (tool, returncode))
    if "sanitizer case done" not in log:
        problems.append("%s: the case did not finish (no 'sanitizer case done')" % tool)
    if tool == "racecheck":
        # racecheck ends with "RACECHECK SUMMARY: N hazards displayed (E errors, W warnings)"
        # (and no "ERROR SUMMARY" line): every count must be 0, warnings (WAR/WAW hazards) included.
        m = re.search(r"RACECHECK SUMMARY: (\d+) hazards? displayed \((\d+) errors?, (\d+) warnings?\)", log)
        if not m:
            problems.append("racecheck: no RACECHECK SUMMARY line in its output")
        elif m.groups() != ("0", "0", "0"):
            problems.append("racecheck: " + m.group(0))
    elif not re.search(r"ERROR SUMMARY: 0 errors", log):
        problems.append("%s reported errors (or printed no ERROR SUMMARY line)" % tool)
    return problems


def run_sanitizers(tools, case_source: str, kernel_substring: str, tmp_path, timeout=1800) -> dict:
    """Runs `case_source` (which must print "sanitizer case done") under each of `tools` at once
    (one process per tool, all on this GPU), checking only kernels whose mangled name contains
    `kernel_substring` (initcheck: every kernel, see _start). Fails the calling test on any reported error or hazard (racecheck warnings
    included), naming every tool that reported; skips only where the sanitizer refuses the device
    (gVisor). FLASHCORE_SANITIZER_TIMEOUT_S overrides the per-tool timeout. Each tool's whole
    output is kept as <tool>.log in the test's undeclared outputs (else in tmp_path), written as
    it runs, so a run cut short still shows how far it got. Returns {tool: its output}."""
    timeout = int(os.environ.get("FLASHCORE_SANITIZER_TIMEOUT_S", timeout))
    exe = _executable()
    script = tmp_path / "sanitizer_case.py"
    script.write_text(case_source)
    log_dir = pathlib.Path(os.environ.get("TEST_UNDECLARED_OUTPUTS_DIR") or tmp_path)
    log_dir.mkdir(parents=True, exist_ok=True)
    procs = {}
    for tool in tools:
        procs[tool] = _start(exe, tool, script, kernel_substring, log_dir / ("%s.log" % tool))
    logs, problems = {}, []
    for tool, proc in procs.items():
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            problems.append("%s did not finish within %d s" % (tool, timeout))
        logs[tool] = (log_dir / ("%s.log" % tool)).read_text()
        print("=== compute-sanitizer --tool %s (rc %s), last lines:\n%s" % (tool, proc.returncode, logs[tool][-3000:]))
    if any("Device not supported" in log for log in logs.values()):
        pytest.skip("compute-sanitizer does not support this device/runtime (gVisor); %s not run" % ", ".join(tools))
    for tool in tools:
        problems += _problems(tool, procs[tool].returncode, logs[tool])
    assert not problems, "; ".join(problems)
    return logs


def run_sanitizer(tool: str, case_source: str, kernel_substring: str, tmp_path) -> str:
    """One tool: see run_sanitizers. Returns the sanitizer's output."""
    return run_sanitizers([tool], case_source, kernel_substring, tmp_path)[tool]
