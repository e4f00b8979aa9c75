#!/bin/sh
# Bazel stamping: the source revision and host compiler that _C.build_info() reports.
rev=$(git rev-parse HEAD 2>/dev/null || echo unknown)
if [ -n "$(git status --porcelain --untracked-files=no 2>/dev/null)" ]; then rev="$rev-dirty"; fi
echo "FLASHCORE_REVISION $rev"
