#!/bin/sh
# System packages the test suite needs beyond the virtual environment:
#   chromium   - Debian's Chromium, driven by Playwright (executable_path=/usr/bin/chromium)
#                in tests/browser/ (Playwright's own browser download does not work here);
#   bubblewrap - bwrap, the sandbox the verification of scores runs student code in;
#   postgresql - the server a throwaway gradebook cluster is started from in tests/grading (the
#                fixture starts and stops it itself; the package's own service is not used);
#   nodejs, npm - for JupyterHub's configurable-http-proxy, which `python3 dev.py setup` installs
#                with npm (tests/hub).
# Idempotent and quiet: installs only what is missing, only as root with apt-get; otherwise it
# says what is missing and exits 0 (the tests that need it then skip with a reason).
set -u

missing=""
[ -x /usr/bin/chromium ] || missing="$missing chromium"
command -v bwrap >/dev/null 2>&1 || missing="$missing bubblewrap"
ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || missing="$missing postgresql"
command -v npm >/dev/null 2>&1 || missing="$missing nodejs npm"

if [ -z "$missing" ]; then
    echo "install-system-deps: chromium, bubblewrap, postgresql and npm already installed"
    exit 0
fi
if [ "$(id -u)" != "0" ]; then
    echo "install-system-deps: not root, not installing:$missing (tests that need them will skip)"
    exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
    echo "install-system-deps: no apt-get here, not installing:$missing (tests that need them will skip)"
    exit 0
fi

log="${TMPDIR:-/tmp}/install-system-deps.$$.log"
echo "install-system-deps: installing$missing with apt-get"
if DEBIAN_FRONTEND=noninteractive apt-get update -qq >"$log" 2>&1 \
   && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >>"$log" 2>&1; then
    echo "install-system-deps: installed$missing"
    rm -f "$log"
else
    echo "install-system-deps: apt-get failed, not installed:$missing (tests that need them will skip); last lines of $log:"
    tail -n 5 "$log" | sed 's/^/  /'
fi
exit 0
