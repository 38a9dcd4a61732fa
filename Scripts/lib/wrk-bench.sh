# shellcheck shell=bash
# What the wrk benchmarks (Scripts/bench, Scripts/bench-core-share) share; sourced, not run.
# Sourcing makes a scratch folder, $work, and stops every server in the array pids on exit.
# The scripts set $session_count before they create sessions, and $duration before wrk_run.
# shellcheck disable=SC2154 # session_count and duration are the sourcing script's

work=$(mktemp -d)
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT
say() { echo "== $*" >&2; }

# start_server <name> <probe path> <command...>: starts the command on a free loopback
# port (each "{PORT}" in it replaced), waits until the probe path answers, and sets
# <name>_port and <name>_pid. The command's environment is the caller's.
start_server() {
    local name=$1 probe=$2; shift 2
    local port pid
    for _ in 1 2 3 4 5; do
        port=$(shuf -i 20000-40000 -n 1)
        "${@//\{PORT\}/$port}" >/dev/null 2>"$work/$name.err" &
        pid=$!
        for _ in $(seq 200); do
            if curl -fsS "http://127.0.0.1:$port$probe" >/dev/null 2>&1; then
                pids+=("$pid")
                printf -v "${name}_port" '%s' "$port"
                printf -v "${name}_pid" '%s' "$pid"
                return
            fi
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.05
        done
        kill "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
    echo "$name did not start: $(cat "$work/$name.err")" >&2
    exit 1
}

# bench_screens: a copy of the bundled screens (and their string tables) without the inbox
# and its message screen: the inbox's messages would make every session's state tens of
# kilobytes that each SQLite commit writes: these benchmarks measure the settings screen's events as they always did,
# and Scripts/bench-lists measures lists. Prints the copy's screens directory.
bench_screens() {
    mkdir -p "$work/fixtures"
    cp -r Fixtures/screens Fixtures/strings "$work/fixtures/"
    rm -f "$work/fixtures/screens/inbox.json" "$work/fixtures/screens/message.json"
    echo "$work/fixtures/screens"
}

# create_sessions <port> <file>: one POST per session on one keep-alive connection.
create_sessions() {
    local urls=()
    for _ in $(seq "$session_count"); do urls+=("http://127.0.0.1:$1/v1/sessions"); done
    curl -fsS -X POST -w '\n' "${urls[@]}" | grep -o '"session":"[^"]*"' | sed 's/"session":"//; s/"$//' >"$2"
    [ "$(wc -l <"$2")" -eq "$session_count" ] || { echo "could not create $session_count sessions" >&2; exit 1; }
}

# save_settings_screen <port> <sessions file> <file>: the settings screen of the file's first
# session, for the servers that answer GETs with its bytes.
save_settings_screen() {
    curl -fsS -H "X-Session: $(head -1 "$2")" "http://127.0.0.1:$1/v1/screens/settings" >"$3"
}

# save_switch_answer <port> <file>: a real switch event's answer (Bluetooth on, from a new
# session of its own) written to the file, for the servers that answer POSTs with its bytes.
save_switch_answer() {
    local session
    session=$(curl -fsS -X POST "http://127.0.0.1:$1/v1/sessions" | sed 's/.*"session":"//; s/".*//')
    curl -fsS -X POST -H "X-Session: $session" -H 'Content-Type: application/json' -d '{"row":"bluetooth","isOn":true}' \
        "http://127.0.0.1:$1/v1/screens/settings/switch" >"$2"
}

# cpu_ticks <pid>: the process's user + system CPU time so far, in clock ticks.
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
# user_ticks <pid>: the process's user CPU time so far, in clock ticks.
user_ticks() { awk '{print $14}' "/proc/$1/stat"; }
tick_us=$((1000000 / $(getconf CLK_TCK)))

# cpu_per_request <pid> <ticks before the run> <wrk output>: the process's CPU time during
# the run over the requests wrk counted, in microseconds (0 when wrk counted none).
cpu_per_request() { per_request "$(( $(cpu_ticks "$1") - $2 ))" "$3" "%.1f"; }

# user_per_request <pid> <user ticks before the run> <wrk output>: the same of user time only.
user_per_request() { per_request "$(( $(user_ticks "$1") - $2 ))" "$3" "%.2f"; }

# per_request <ticks> <wrk output> <format>: ticks over the requests wrk counted, in µs.
per_request() {
    awk -v t="$1" -v us="$tick_us" -v n="$(awk '/requests in/ {print $1}' "$2")" -v format="$3" \
        'BEGIN { if (n > 0) printf format, t * us / n; else print 0 }'
}

# wrk_run <server> <sessions file> <script> <connections>: one wrk run (-t2, $duration
# seconds, the script from Benchmarks/wrk) against the server start_server named <server>;
# prints "requests/s errors server-CPU-µs-a-request its-user-part" and leaves wrk's output
# in $work/wrk.txt. The user part is what a change to the server's own code moves; the
# system part (the kernel's TCP work, most of a GET) carries most of the
# machine's drift.
wrk_run() {
    local port_variable="${1}_port" pid_variable="${1}_pid" before user_before rps
    before=$(cpu_ticks "${!pid_variable}")
    user_before=$(user_ticks "${!pid_variable}")
    TABULA_SESSIONS="$2" TABULA_THREADS=2 wrk -t2 -c"$4" -d"${duration}s" --timeout 2s \
        -s "Benchmarks/wrk/$3" "http://127.0.0.1:${!port_variable}" >"$work/wrk.txt" 2>&1 || true
    rps=$(awk '/Requests\/sec/ {print $2}' "$work/wrk.txt")
    echo "${rps:-0} $(wrk_errors "$work/wrk.txt") $(cpu_per_request "${!pid_variable}" "$before" "$work/wrk.txt")" \
        "$(user_per_request "${!pid_variable}" "$user_before" "$work/wrk.txt")"
}

# wrk_errors <wrk output>: answers that were not 2xx plus socket errors.
wrk_errors() {
    awk '/non-2xx/ {n += $2} /Socket errors/ {gsub(/,/, ""); n += $4 + $6 + $8 + $10} END {print n + 0}' "$1"
}

# median_of <format> [<if none>]: the median of the numbers on standard input, printed with
# the format; with no numbers, <if none>, or 0 in the format.
median_of() {
    sort -g | awk -v format="$1\n" -v none="${2-}" '{v[NR] = $1} END {
        if (NR == 0 && none != "") print none
        else if (NR % 2) printf format, v[(NR + 1) / 2]
        else printf format, (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
