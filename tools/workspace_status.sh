#!/bin/sh
# Bazel workspace status. STABLE_FLASHCORE_REVISION is read only by the stamped wheel's
# _build_info.json (tools/wheel/build_info.py): a stable key, so that action re-runs on every new
# commit and the revision is never stale. Nothing that _C.so or a test depends on reads it.
rev=$(git rev-parse HEAD 2>/dev/null || echo unknown)
if [ -n "$(git status --porcelain --untracked-files=no 2>/dev/null)" ]; then rev="$rev-dirty"; fi
echo "STABLE_FLASHCORE_REVISION $rev"
