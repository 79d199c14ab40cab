#!/usr/bin/env bash
# Ensure the system libraries Qt (PySide6 wheels) needs are present (DESIGN.md section 8).
#
# - Nothing missing: prints nothing, exits 0 (one dpkg-query call and one Python start-up).
# - Missing, root, apt-get available: apt-get update + apt-get install of exactly the missing packages.
# - Missing, not root (or no apt-get): prints the exact command to run and exits 0 with a warning.
# - macOS: the Qt wheels bundle everything; nothing to do.
#
# Environment: PYTHON (default python3) is the interpreter `make` will use to create .venv.
set -eu

PYTHON="${PYTHON:-python3}"

# Needed by Qt's offscreen platform (tests, `arbor screenshot`).
OFFSCREEN_PKGS="libegl1 libgl1 libglib2.0-0 libfontconfig1 libdbus-1-3 libxkbcommon0 fonts-dejavu-core"
# Additionally needed for a real window (X11 / Xvfb).
WINDOW_PKGS="xvfb libxkbcommon-x11-0 libx11-xcb1 libxcb-cursor0 libxcb-icccm4 libxcb-keysyms1
libxcb-image0 libxcb-randr0 libxcb-render-util0 libxcb-shape0 libxcb-xfixes0 libxcb-xkb1
libxcb-sync1 libxcb-shm0 xauth"
# Headless Chromium: `make test` loads an exported page in a real browser (tests/export). Debian's
# package; Ubuntu ships it only as a snap, so there it is reported missing with the command to run.
BROWSER_PKGS="chromium"
# The real git: `make test` checks that git reads the checkpoint store Arbor writes (tests/workspace)
# and that find/grep honour a repository's ignore rules (tests/tools). Arbor itself never runs git.
TEST_PKGS="git"

warn() { printf 'system-deps: warning: %s\n' "$*" >&2; }
info() { printf 'system-deps: %s\n' "$*" >&2; }

case "$(uname -s)" in
Darwin)
    info "macOS: the PySide6 wheels bundle Qt; no system packages are needed."
    exit 0
    ;;
esac

if ! command -v dpkg-query >/dev/null 2>&1; then
    warn "not a Debian/Ubuntu system (no dpkg-query); cannot check system packages."
    warn "Qt needs: EGL, OpenGL, GLib, fontconfig, D-Bus, xkbcommon and a font; for a window also"
    warn "Xvfb or an X server, xkbcommon-x11 and the xcb libraries (see DESIGN.md section 8)."
    exit 0
fi

# Does $PYTHON have a working `-m venv` (Debian's python3 needs python3-venv for ensurepip)?
EXTRA_PKGS=""
if ! command -v "$PYTHON" >/dev/null 2>&1; then
    EXTRA_PKGS="python3 python3-venv"
elif ! "$PYTHON" -c 'import venv, ensurepip' >/dev/null 2>&1; then
    EXTRA_PKGS="python3-venv"
fi

ALL_PKGS="$OFFSCREEN_PKGS $WINDOW_PKGS $BROWSER_PKGS $TEST_PKGS $EXTRA_PKGS"

# One dpkg-query for everything. Ubuntu 24.04 renamed some libraries with a "t64" suffix
# (libglib2.0-0 -> libglib2.0-0t64), so a package also counts as present under that name.
query_names=""
for p in $ALL_PKGS; do query_names="$query_names $p ${p}t64"; done
query_installed() {
    # shellcheck disable=SC2086
    dpkg-query -W -f='${Package} ${Status}\n' $query_names 2>/dev/null |
        awk '$NF == "installed" { sub(/:.*/, "", $1); print $1 }' || true
}
installed="$(query_installed)"

is_installed() {
    printf '%s\n' "$installed" | grep -qxF -e "$1" -e "${1}t64"
}

missing_from() {
    out=""
    for p in $1; do
        is_installed "$p" || out="$out $p"
    done
    printf '%s' "${out# }"
}

missing="$(missing_from "$ALL_PKGS")"
[ -z "$missing" ] && exit 0

cmd="apt-get install -y --no-install-recommends $missing"

if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    warn "missing system packages: $missing"
    if command -v apt-get >/dev/null 2>&1; then
        warn "install them with:"
        printf '\n    sudo apt-get update && sudo %s\n\n' "$cmd" >&2
    else
        warn "no apt-get found; install the packages above with your package manager."
    fi
    warn "continuing; Qt may fail to start until they are installed."
    exit 0
fi

info "installing: $missing"
if apt-get update && DEBIAN_FRONTEND=noninteractive $cmd; then
    exit 0
fi

# apt failed (offline, broken mirror...). Fail only if what tests/offscreen use is still missing.
installed="$(query_installed)"
still_required="$(missing_from "$OFFSCREEN_PKGS $EXTRA_PKGS")"
still_window="$(missing_from "$WINDOW_PKGS $BROWSER_PKGS")"
if [ -n "$still_required" ]; then
    printf 'system-deps: error: apt-get failed; still missing: %s\n' \
        "$still_required${still_window:+ $still_window}" >&2
    exit 1
fi
warn "apt-get failed; still missing: $still_window (offscreen Qt is fine; a real window needs the X"
warn "libraries, the exported-page test needs chromium)."
exit 0
