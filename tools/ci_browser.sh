#!/usr/bin/env bash
# Install what the operator console's browser tests need: Debian's chromium (driven by
# Playwright for Python, which `make test` installs with the dev extras; no browser is ever
# downloaded by Playwright itself).
#
# Idempotent and quiet: does nothing when chromium is on PATH. Otherwise runs `apt-get
# update` (quietly) and installs chromium. Unlike ci_packages.sh it fails when it cannot:
# .ci/run sets ETG_REQUIRE_BROWSER=1, so the browser tests would fail anyway, and saying
# why here is clearer. Safe to run by hand (as root, or with password-less sudo).
set -u

if command -v chromium >/dev/null 2>&1; then
    echo "ci_browser.sh: chromium is installed"
    exit 0
fi

if ! command -v apt-get >/dev/null 2>&1; then
    echo "ci_browser.sh: error: apt-get not found; install chromium by hand" >&2
    exit 1
fi

as_root=""
if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1 && sudo -n true >/dev/null 2>&1; then
        as_root="sudo -n"
    else
        echo "ci_browser.sh: error: not root and no password-less sudo (sudo apt-get install chromium)" >&2
        exit 1
    fi
fi

apt() {
    $as_root env DEBIAN_FRONTEND=noninteractive apt-get "$@" >/dev/null 2>&1
}

echo "ci_browser.sh: installing chromium"
apt update -qq || echo "ci_browser.sh: warning: apt-get update failed; trying the install" >&2
if ! apt install -y -qq --no-install-recommends chromium; then
    echo "ci_browser.sh: error: apt-get install chromium failed" >&2
    exit 1
fi
echo "ci_browser.sh: installed chromium"
