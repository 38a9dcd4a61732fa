# shellcheck shell=bash
# Checks of the benchmark scripts' environment knobs; sourced, not run. No side effects.

# require_whole_numbers <script> <KNOB:variable>...: exits 2, naming the knob, unless each
# variable holds a whole number above 0.
require_whole_numbers() {
    local script=$1 knob variable
    shift
    for knob in "$@"; do
        variable=${knob#*:}
        [[ "${!variable}" =~ ^[1-9][0-9]*$ ]] || { echo "$script: ${knob%%:*} takes a whole number above 0, not '${!variable}'" >&2; exit 2; }
    done
}
