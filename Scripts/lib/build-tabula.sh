# shellcheck shell=bash
# Installs what the build needs when it is missing (as root; otherwise prints the command
# and exits 2), builds `tabula` and sets `tabula` to its path. Sourced by Scripts/serve and
# Scripts/preview with `root` set to the checkout.
# shellcheck source=Scripts/lib/install.sh
. "${root:?}/Scripts/lib/install.sh"

require_packages "${build_packages[@]}"
echo "== building tabula (the first build takes a few minutes)" >&2
swift build --package-path "$root" --product tabula >&2
# shellcheck disable=SC2034 # used by the scripts that source this file
tabula="$(swift build --package-path "$root" --show-bin-path)/tabula"
