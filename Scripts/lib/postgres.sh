# shellcheck shell=bash
# shellcheck disable=SC2154,SC2034 # $work is the sourcing script's; database_url is for it
# A throw-away PostgreSQL cluster for the benchmarks; sourced, not run. The sourcing script
# has a scratch folder, $work, and calls stop_postgres when it exits.

as_postgres() { if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }

pg_stop=""

# start_postgres: initialises and starts a cluster in $work/pg on a free port and creates a
# database; sets database_url. Not to be called in a subshell: stop_postgres must see pg_stop.
start_postgres() {
    local bin pg_port
    bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
    mkdir -p "$work/pg"
    if [ "$(id -u)" -eq 0 ]; then chown postgres "$work" "$work/pg"; fi
    as_postgres "$bin/initdb" -D "$work/pg/data" -U tabula --auth=trust -E UTF8 >/dev/null
    pg_port=$((20000 + RANDOM % 20000))
    as_postgres "$bin/pg_ctl" -D "$work/pg/data" -l "$work/pg/log" -o "-p $pg_port -k $work/pg -c listen_addresses=127.0.0.1" -w start >/dev/null
    pg_stop="as_postgres $bin/pg_ctl -D $work/pg/data stop -m fast"
    as_postgres "$bin/createdb" -h 127.0.0.1 -p "$pg_port" -U tabula tabula
    database_url="postgresql://tabula@127.0.0.1:$pg_port/tabula"
}

stop_postgres() {
    if [ -n "$pg_stop" ]; then eval "$pg_stop" >/dev/null 2>&1 || true; fi
    pg_stop=""
}
