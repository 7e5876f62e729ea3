#!/usr/bin/env bash
# The PostgreSQL floor of one join: what the cheapest possible database work of a join costs on this machine.
# Starts a throwaway PostgreSQL (Debian's binaries, an unprivileged user, fsync/synchronous_commit/full_page_writes
# off like the bench's embedded server), applies the controller's schema (controller-pod migrations V*.sql),
# then runs with pgbench, alternating in rounds:
#   select1  one autocommit `SELECT 1` per transaction (the cheapest transaction there is)
#   tpcb     pgbench's built-in TPC-B-like transaction (3 UPDATEs, 1 SELECT, 1 INSERT; scale = clients)
#   join     floor/join.sql: the minimal write set of ONE join as three requests, each ONE transaction of ONE
#            statement (join: seats + participant + event + outbox; admit: participant + command + 2 events +
#            2 outbox rows; transport: generation bump + attempt row)
#   join-nofk the same with foreign-key checks off (session_replication_role=replica): what the ~9 FK checks
#            per join (one per inserted row referencing meetings / participants) cost
# and prints per variant transactions/s and the server's CPU per transaction (postmaster + all its processes,
# ended ones included, from /proc), for join also per join (= 3 transactions).
# usage: bench/controller/floor.sh [clients=4] [seconds=10] [rounds=3]
# needs: /usr/lib/postgresql/*/bin (initdb, pg_ctl, postgres), psql and pgbench; run as root it uses the
# `postgres` system user (or nobody) for the server.
set -euo pipefail
cd "$(dirname "$0")"
CLIENTS=${1:-4}; SECS=${2:-10}; ROUNDS=${3:-3}
PGBIN=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
HZ=$(getconf CLK_TCK)
DIR=$(mktemp -d /tmp/parley-floor.XXXXXX)
chmod 755 "$DIR"
PORT=$(( 20000 + RANDOM % 20000 ))
if [ "$(id -u)" = 0 ]; then
  RUNAS=postgres; id postgres >/dev/null 2>&1 || RUNAS=nobody
  chown "$RUNAS" "$DIR"
  as_server() { runuser -u "$RUNAS" -- "$@"; }
else
  as_server() { "$@"; }
fi
as_server "$PGBIN/initdb" -D "$DIR/data" -U bench --auth=trust -E UTF8 >/dev/null
as_server "$PGBIN/pg_ctl" -D "$DIR/data" -l "$DIR/log" -w -o "-p $PORT -k $DIR -c listen_addresses=127.0.0.1 \
  -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c shared_buffers=128MB -c max_connections=50" start >/dev/null
trap 'as_server "$PGBIN/pg_ctl" -D "$DIR/data" -m immediate stop >/dev/null 2>&1 || true; rm -rf "$DIR"' EXIT
export PGHOST=127.0.0.1 PGPORT=$PORT PGUSER=bench
psql -q -d postgres -c "CREATE DATABASE floor" -c "CREATE DATABASE tpcb"
for f in ../../controller-pod/src/main/resources/db/migration/V*.sql floor/seed.sql; do
  psql -q -v ON_ERROR_STOP=1 -d floor -f "$f" >/dev/null
done
pgbench -q -i -s "$CLIENTS" tpcb >/dev/null 2>&1
PM=$(head -1 "$DIR/data/postmaster.pid")
server_ticks() { # utime + stime of the postmaster, of its live children and (cutime + cstime) of its ended ones
  local t pid
  t=$(awk '{print $14 + $15 + $16 + $17}' "/proc/$PM/stat")
  for pid in $(ps -o pid= --ppid "$PM"); do
    t=$((t + $(awk '{print $14 + $15}' "/proc/$pid/stat" 2>/dev/null || echo 0)))
  done
  echo "$t"
}
echo "PostgreSQL $("$PGBIN/postgres" --version | awk '{print $3}'), fsync/synchronous_commit/full_page_writes off," \
  "$CLIENTS clients, $SECS s per run, generic plans (-M prepared, plan_cache_mode=force_generic_plan)"
RESULTS=$DIR/results
for r in $(seq 1 "$ROUNDS"); do
  for v in select1 tpcb join join-nofk; do
    opts="-c plan_cache_mode=force_generic_plan"
    case $v in
      select1) args=(-f floor/select1.sql floor); per=1 ;;
      tpcb) args=(-b tpcb-like tpcb); per=1 ;;
      join) args=(-f floor/join.sql floor); per=3 ;;
      join-nofk) args=(-f floor/join.sql floor); per=3; opts="$opts -c session_replication_role=replica" ;;
    esac
    sleep 1
    before=$(server_ticks)
    out=$(PGOPTIONS="$opts" pgbench -n -M prepared -c "$CLIENTS" -j 1 -T "$SECS" "${args[@]}" 2>&1) || true
    sleep 1 # the backends' CPU reaches the postmaster's cutime once they have been reaped
    after=$(server_ticks)
    n=$(awk '/number of transactions actually processed/ {print $NF}' <<< "$out" | cut -d/ -f1)
    failed=$(awk '/number of failed transactions/ {print $5}' <<< "$out")
    if [ -z "$n" ] || [ "$n" = 0 ] || grep -q "aborted\|ERROR" <<< "$out"; then
      echo "round $r $v: pgbench failed:"; echo "$out" | tail -15; exit 1
    fi
    awk -v v="$v" -v r="$r" -v n="$n" -v per="$per" -v t=$((after - before)) -v hz="$HZ" -v secs="$SECS" -v f="${failed:-0}" \
      -v l="$(cut -d' ' -f1 /proc/loadavg)" 'BEGIN {
        ms = t * 1000 / hz / n
        printf "round %s  %-9s %7.0f scripts/s  %7.0f xacts/s  server CPU %.3f ms per script (%.3f per xact) -> %5.0f scripts per server CPU-s  failed %s  (load %s)\n",
          r, v, n / secs, n * per / secs, ms, ms / per, 1000 / ms, f, l }' | tee -a "$RESULTS"
  done
done
# the join script really wrote what it claims: every attempted join admitted with a transport, and per join
# 3 control events, 3 outbox rows, 1 command, 1 transport attempt, 1 seat in the meeting and the tenant
joins=$(awk '$3 ~ /^join/ {s += $4} END {print s * '"$SECS"'}' "$RESULTS")
psql -At -d floor -c "SELECT (SELECT count(*) FROM meeting_participants WHERE admission_state = 'admitted' AND transport_generation = 1),
  (SELECT count(*) FROM control_events), (SELECT count(*) FROM outbox_events), (SELECT count(*) FROM commands),
  (SELECT count(*) FROM transport_attempts), (SELECT sum(active_participants) FROM meetings),
  (SELECT sum(active_participants) FROM tenant_usage), (SELECT count(*) FROM meeting_participants)" \
  | awk -F'|' -v j="$joins" '{ ok = ($1 == $8 && $2 == 3 * $1 && $3 == 3 * $1 && $4 == $1 && $5 == $1 && $6 == $1 && $7 == $1)
      printf "check: %d joins written (pgbench counted ~%d): admitted with transport %d, control events %d, outbox rows %d, commands %d, attempts %d, seats %d/%d -> %s\n",
        $8, j, $1, $2, $3, $4, $5, $6, $7, ok ? "consistent" : "INCONSISTENT" }'
echo "median over $ROUNDS rounds (server CPU-ms per script; a join script = one join = 3 transactions):"
awk '{ v = $3; ms[v] = ms[v] " " $10; xs[v] = xs[v] " " $4 }
  function med(s,   a, n, i, j, t) { n = split(s, a, " "); for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
  END { for (v in ms) { m = med(ms[v]); printf "  %-9s %.3f ms per script, %.0f scripts/s; at 1000 per second: %.2f cores of server CPU\n", v, m, med(xs[v]), m } }' "$RESULTS" | sort
