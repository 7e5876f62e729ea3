#!/usr/bin/env bash
# PostgreSQL side of a command's control events, in isolation: the admit command's two events (with their
# outbox rows) written as one statement per event (per-event.sql, the old ControlLog) vs ONE statement for
# all of them (one-statement.sql, ControlLog.appendAll now). pgbench, one client, generic plans, rounds
# alternated so both see the same background load; prints commands/s and the server's CPU per command
# (all processes of that postmaster, from /proc: the server must run on this machine).
# usage: bench/controller/events-sql.sh HOST PORT USER [rounds=5] [seconds=4]
# needs: a PostgreSQL you may create a database in (e.g. a throwaway initdb), psql and pgbench on PATH.
set -euo pipefail
cd "$(dirname "$0")"
H=$1; P=$2; U=$3; ROUNDS=${4:-5}; SECS=${5:-4}
DB=events_sql_$$
psql -q -h "$H" -p "$P" -U "$U" -d postgres -c "CREATE DATABASE $DB"
trap 'psql -q -h "$H" -p "$P" -U "$U" -d postgres -c "DROP DATABASE $DB"' EXIT
for f in ../../controller-pod/src/main/resources/db/migration/V*.sql events-sql/meetings.sql; do
  psql -q -h "$H" -p "$P" -U "$U" -d "$DB" -f "$f" >/dev/null
done
# the postmaster: parent of the checkpointer
PM=$(ps -o ppid= -p "$(psql -Atq -h "$H" -p "$P" -U "$U" -d "$DB" -c \
  "SELECT pid FROM pg_stat_activity WHERE backend_type = 'checkpointer'")" | tr -d ' ')
server_ticks() { # utime + stime of the postmaster, of its live children and (cutime + cstime) of its ended ones
  local t pid
  t=$(awk '{print $14 + $15 + $16 + $17}' "/proc/$PM/stat")
  for pid in $(ps -o pid= --ppid "$PM"); do
    t=$((t + $(awk '{print $14 + $15}' "/proc/$pid/stat" 2>/dev/null || echo 0)))
  done
  echo "$t"
}
HZ=$(getconf CLK_TCK)
for r in $(seq 1 "$ROUNDS"); do
  for s in per-event one-statement; do
    before=$(server_ticks)
    n=$(PGOPTIONS="-c plan_cache_mode=force_generic_plan" pgbench -n -h "$H" -p "$P" -U "$U" -M prepared -c 1 \
      -T "$SECS" -f "events-sql/$s.sql" "$DB" 2>&1 | awk '/number of transactions actually processed/ {print $NF}')
    sleep 1 # the backend's CPU reaches the postmaster's cutime once it has been reaped
    after=$(server_ticks)
    awk -v s="$s" -v r="$r" -v n="$n" -v t=$((after - before)) -v hz="$HZ" -v secs="$SECS" -v l="$(cut -d' ' -f1 /proc/loadavg)" \
      'BEGIN { printf "round %s  %-13s  %6.0f commands/s  server CPU %.3f ms per command  (load %s)\n", r, s, n / secs, t * 1000 / hz / n, l }'
  done
done
