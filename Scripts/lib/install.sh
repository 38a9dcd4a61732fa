# shellcheck shell=bash
# Installs what a script needs on Debian: sourced by Scripts/serve and Scripts/test, not run.

# require_packages <package>...: installs the Debian packages that are missing, with apt-get
# as root (quietly, without recommends). Not root: prints the exact command to run and exits 2.
require_packages() {
    local missing=() package
    for package in "$@"; do
        dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
    done
    ((${#missing[@]})) || return 0
    if [ "$(id -u)" -ne 0 ]; then
        echo "missing Debian packages: ${missing[*]}" >&2
        echo "install them, then run this again:" >&2
        echo "  sudo apt-get update && sudo apt-get install -y --no-install-recommends ${missing[*]}" >&2
        exit 2
    fi
    echo "== installing ${missing[*]}" >&2
    apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
}

# require_pypi <kind>:<name>=<PyPI package>...: installs the PyPI packages that are missing,
# with pip; <kind> is "module" (a Python module to import) or "command" (a program on the
# PATH) and says how to tell.
require_pypi() {
    local entry check name package
    for entry in "$@"; do
        check=${entry%%=*}
        package=${entry#*=}
        name=${check#*:}
        case $check in
            module:*) python3 -c "import $name" 2>/dev/null && continue ;;
            command:*) command -v "$name" >/dev/null && continue ;;
            *) echo "require_pypi: $check is neither module:NAME nor command:NAME" >&2; exit 2 ;;
        esac
        require_pip
        echo "== installing $package (PyPI)" >&2
        python3 -m pip install --quiet "${pip_flags[@]}" "$package" >&2 || {
            echo "could not install $package: run  python3 -m pip install ${pip_flags[*]} $package  and try again" >&2
            exit 2
        }
    done
}

# require_pip: makes sure python3 has pip (Debian's python3-pip when it lacks it) and sets
# pip_flags: Debian's own python3 is marked externally managed (PEP 668), and pip installs
# into it only when told to.
require_pip() {
    command -v python3 >/dev/null && python3 -m pip --version >/dev/null 2>&1 || require_packages python3 python3-pip
    pip_flags=()
    if python3 -c 'import os, sys, sysconfig; sys.exit(0 if os.path.exists(os.path.join(sysconfig.get_path("stdlib"), "EXTERNALLY-MANAGED")) else 1)'; then
        pip_flags=(--break-system-packages)
    fi
}

# The build's libraries: libmicrohttpd, SQLite, libpq and libcurl headers, and pkg-config to
# find them; and ICU, which serving string tables loads (with dlopen, so the build needs no headers).
# shellcheck disable=SC2034 # read by the scripts that source this file
build_packages=(pkg-config libmicrohttpd-dev libsqlite3-dev libpq-dev libcurl4-openssl-dev libicu72)
