#!/usr/bin/env bash
# Install the RNG lab tools that `etg rng report` runs: ent, rngtest and dieharder
# (Debian/Ubuntu packages ent, rng-tools5, dieharder).
#
# Idempotent: does nothing when every tool is already on PATH. Otherwise runs
# `apt-get update` once (quietly) and installs only the missing packages. It never fails the
# build: without apt-get, without root (and no password-less sudo), or when apt-get fails,
# it prints a warning to stderr and exits 0; `etg rng report` then marks the missing tools
# NOT RUN. Called from .ci/run; safe to run by hand.
set -u

# tool on PATH -> package that provides it
tools=(ent rngtest dieharder)
packages=(ent rng-tools5 dieharder)

warn() {
    echo "ci_packages.sh: warning: $*" >&2
}

missing=()
for i in "${!tools[@]}"; do
    if ! command -v "${tools[$i]}" >/dev/null 2>&1; then
        missing+=("${packages[$i]}")
    fi
done

if [ "${#missing[@]}" -eq 0 ]; then
    echo "ci_packages.sh: ent, rngtest and dieharder are installed"
    exit 0
fi

if ! command -v apt-get >/dev/null 2>&1; then
    warn "apt-get not found; cannot install ${missing[*]} (the RNG report marks them NOT RUN)"
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
    warn "apt-get install ${missing[*]} failed (the RNG report marks them NOT RUN)"
    exit 0
fi
echo "ci_packages.sh: installed ${missing[*]}"
exit 0
