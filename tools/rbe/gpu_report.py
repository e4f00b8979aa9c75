"""Cost accounting of GPU tests from a Build Event Protocol JSON file (tools/remote report and
tools/remote test; docs/REMOTE.md section 5)."""

import json


def bep_events(bep_path):
    """The events of a Build Event Protocol JSON file (one object per line; torn lines skipped)."""
    with open(bep_path) as f:
        for line in f:
            try:
                yield json.loads(line)
            except ValueError:
                continue


def gpu_report(bep_path):
    tags, results = {}, {}
    for ev in bep_events(bep_path):
        i = ev.get("id", {})
        if "targetConfigured" in i and "configured" in ev:
            tags[i["targetConfigured"]["label"]] = ev["configured"].get("tag", [])
        elif "testResult" in i and "testResult" in ev:
            results.setdefault(i["testResult"]["label"], []).append(ev["testResult"])
    ex = ca = 0
    sec_ex = sec_saved = 0.0
    kinds = {}
    for label, rs in results.items():
        kind = next((t[4:] for t in tags.get(label, []) if t.startswith("gpu-")), None)
        if not kind:
            continue
        for r in rs:
            dur = int(r.get("testAttemptDurationMillis", 0) or 0) / 1000.0
            cached = bool(r.get("cachedLocally") or r.get("executionInfo", {}).get("cachedRemotely"))
            kinds[kind] = kinds.get(kind, 0) + 1
            if cached:
                ca += 1
                sec_saved += dur
            else:
                ex += 1
                sec_ex += dur
    return ("GPU tests: %d executed, %d cached; GPU-seconds: %.1f used, %.1f saved by the cache (%s)"
            % (ex, ca, sec_ex, sec_saved, ", ".join("%s x%d" % kv for kv in sorted(kinds.items())) or "no GPU test"))


def bep_tags(bep_path):
    return {ev["id"]["targetConfigured"]["label"]: ev["configured"].get("tag", [])
            for ev in bep_events(bep_path) if "targetConfigured" in ev.get("id", {}) and "configured" in ev}
