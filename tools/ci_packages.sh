#!/usr/bin/env bash
# Install the Debian packages the tests and tools use: the RNG lab tools that
# `etg rng report` runs (ent, rngtest, dieharder: packages ent, rng-tools5, dieharder),
# PostgreSQL for the floor store's tests and `etg floor up` (package postgresql, whose
# initdb/pg_ctl/postgres live in /usr/lib/postgresql/<version>/bin), and for the install
# kit's tests systemd-analyze (package systemd: `systemd-analyze verify` of every unit) and
# Xvfb with the X client libraries the kiosk test reads the screen with (xvfb, libx11-6,
# libxfixes3, libxss1), and Debian's stock sqlite3 CLI, which the durability tests open
# read-write against a live log (package sqlite3).
#
# Idempotent: does nothing when every tool is already there. Otherwise runs
# `apt-get update` once (quietly) and installs only the missing packages. It never fails the
# build: without apt-get, without root (and no password-less sudo), or when apt-get fails,
# it prints a warning to stderr and exits 0; `etg rng report` then marks the missing tools
# NOT RUN, and the floor tests fail if ETG_REQUIRE_POSTGRES=1 (as .ci/run sets it) or are
# skipped otherwise (the install kit's: ETG_REQUIRE_SYSTEMD=1, ETG_REQUIRE_XVFB=1). Called
# from .ci/run and `make packages`; safe to run by hand.
set -u

# tool (or lib:<soname>) -> package that provides it
tools=(ent rngtest dieharder initdb systemd-analyze Xvfb lib:libX11.so.6 lib:libXfixes.so.3
    lib:libXss.so.1 sqlite3)
packages=(ent rng-tools5 dieharder postgresql systemd xvfb libx11-6 libxfixes3 libxss1 sqlite3)

warn() {
    echo "ci_packages.sh: warning: $*" >&2
}

# A tool is there when it is on PATH, or (PostgreSQL's) in Debian's versioned folder; a
# library when the dynamic linker knows it.
present() {
    case "$1" in
        lib:*) ldconfig -p 2>/dev/null | grep -q "${1#lib:} " && return 0 || return 1 ;;
    esac
    command -v "$1" >/dev/null 2>&1 && return 0
    compgen -G "/usr/lib/postgresql/*/bin/$1" >/dev/null 2>&1
}

missing=()
for i in "${!tools[@]}"; do
    if ! present "${tools[$i]}"; then
        missing+=("${packages[$i]}")
    fi
done

if [ "${#missing[@]}" -eq 0 ]; then
    echo "ci_packages.sh: ent, rngtest, dieharder, postgresql, systemd, xvfb and sqlite3 are installed"
    exit 0
fi

if ! command -v apt-get >/dev/null 2>&1; then
    warn "apt-get not found; cannot install ${missing[*]}"
    exit 0
fi

# `sudo -n` when not root (never prompts); nothing when root.
as_root=""
if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1 && sudo -n true >/dev/null 2>&1; then
        as_root="sudo -n"
    else
        warn "not root and no password-less sudo; cannot install ${missing[*]}" \
            "(run: sudo apt-get install ${missing[*]})"
        exit 0
    fi
fi

apt() {
    $as_root env DEBIAN_FRONTEND=noninteractive apt-get "$@" >/dev/null 2>&1
}

echo "ci_packages.sh: installing ${missing[*]}"
if ! apt update -qq; then
    warn "apt-get update failed; trying the install with the existing package lists"
fi
if ! apt install -y -qq --no-install-recommends "${missing[@]}"; then
    warn "apt-get install ${missing[*]} failed"
    exit 0
fi
echo "ci_packages.sh: installed ${missing[*]}"
exit 0
