#!/usr/bin/env bash
# Side-by-side TURN relay benchmark on loopback: coturn (turnserver 4.6.x) and Parley TURN, each loaded by several
# turnutils_uclient processes at rising rates, one after the other at every level, in one run.
#
# Reports per server and level: relayed packets/s, server CPU seconds per million relayed packets (utime+stime from
# /proc/<pid>/stat, all threads), loss and average RTT as measured by uclient, and the Parley/coturn ratio.
#
# Each level is measured REPEATS (5) times with the servers alternating (coturn, parley, coturn, parley, ...); the
# verdict per level is the median of the per-round ratios, printed with their min and max.
#
# The last line is the verdict: "turn vs coturn: parley/coturn packets per CPU-second <lowest per-level median> (median
# of <K> rounds)".
#
# Usage: bench/turn/run.sh [--quick] [levels...]   (levels are per-session packet intervals in ms; default "20 10 5 2";
#        --quick: "20" and REPEATS=3, about 4 minutes with the warm-up)
# Env:   REPEATS (rounds per level, default 5), JAR (the Parley jar, default turn-pod/target/turn-pod.jar), PROCS (uclient processes, default 4), SESSIONS (sessions per process, default 10), SECONDS_PER_LEVEL (5),
#        MSG_BYTES (160), PARLEY_LOOPS (Parley event loops; unset: the pod's default), WARMUP_ROUNDS (4),
#        WARMUP_SESSIONS (sessions per uclient in warm-up rounds, default 6x SESSIONS),
#        PARLEY_JAVA_OPTS (JVM flags; default those of turn-pod/Dockerfile), KEEP=1 keeps the work directory (uclient
#        outputs, server logs), BASELINE_JAR (an older turn-pod.jar, e.g. main's: measured as a third server "base" in
#        the same run, to compare old and new Parley side by side; see README.md; BASELINE_JAVA_OPTS: its JVM flags,
#        default PARLEY_JAVA_OPTS; BASELINE_ENV: extra NAME=VALUE environment for it), THREAD_CPU=1 prints each server's
#        CPU ticks per thread group (event loops, JIT, GC+VM, other) before and after every level, on stderr.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
JAR="${JAR:-$ROOT/turn-pod/target/turn-pod.jar}"   # JAR=: a copy, so rebuilding during a run is safe
JAVA="${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}/bin/java"
# --quick: one rate (z=20 ms, where Parley's margin has been smallest), 3 rounds: under 5 minutes with the warm-up
QUICK=0
if [[ "${1:-}" == --quick ]]; then QUICK=1; shift; fi
if [[ $# -gt 0 ]]; then LEVELS=("$@"); elif [[ $QUICK == 1 ]]; then LEVELS=(20); else LEVELS=(20 10 5 2); fi
PROCS="${PROCS:-4}"
SESSIONS="${SESSIONS:-10}"
SECONDS_PER_LEVEL="${SECONDS_PER_LEVEL:-5}"
MSG_BYTES="${MSG_BYTES:-160}"
PARLEY_LOOPS="${PARLEY_LOOPS:-}"
# The JVM flags of the deployed image: those of turn-pod/Dockerfile's ENTRYPOINT (between "java" and "-jar")
DEPLOYED_JAVA_OPTS="$(grep '^ENTRYPOINT' "$ROOT/turn-pod/Dockerfile" | sed -E 's/.*"java",(.*)"-jar".*/\1/; s/[",]/ /g' | xargs)"
PARLEY_JAVA_OPTS="${PARLEY_JAVA_OPTS:-$DEPLOYED_JAVA_OPTS}"
if [[ $QUICK == 1 ]]; then REPEATS="${REPEATS:-3}"; else REPEATS="${REPEATS:-5}"; fi
SECRET="bench-secret-$RANDOM$RANDOM"
HZ="$(getconf CLK_TCK)"

COTURN_PORT=35478; PARLEY_PORT=36478; PARLEY_INTERNAL=36479; PEER_PORT=35480; BASE_PORT=37478; BASE_INTERNAL=37479
BASELINE_JAR="${BASELINE_JAR:-}"
[[ -z "$BASELINE_JAR" || -f "$BASELINE_JAR" ]] || { echo "BASELINE_JAR $BASELINE_JAR not found" >&2; exit 1; }

for bin in turnserver turnutils_uclient turnutils_peer; do
  command -v "$bin" >/dev/null || { echo "missing $bin (apt-get install coturn)" >&2; exit 1; }
done
if [[ ! -f "$JAR" ]]; then
  echo "building $JAR"
  (cd "$ROOT" && ./mvnw -B -q -pl turn-pod -am package -DskipTests)
fi

WORK="$(mktemp -d /tmp/parley-turn-bench.XXXXXX)"
PIDS=()
cleanup() {
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  sleep 0.5
  for p in "${PIDS[@]}"; do kill -9 "$p" 2>/dev/null || true; done
  [[ "${KEEP:-0}" == 1 ]] && echo "work dir: $WORK" || rm -rf "$WORK"
}
trap cleanup EXIT

turnserver -n --listening-ip=127.0.0.1 --relay-ip=127.0.0.1 --listening-port=$COTURN_PORT \
  --min-port=49152 --max-port=65535 --use-auth-secret --static-auth-secret="$SECRET" --realm=parley \
  --allow-loopback-peers --no-cli --no-tls --no-dtls --userdb="$WORK/turndb" --pidfile="$WORK/turnserver.pid" \
  --log-file=stdout --simple-log --no-software-attribute >"$WORK/coturn.log" 2>&1 &
COTURN_PID=$!; PIDS+=("$COTURN_PID")

# start_parley JAR PORT INTERNAL_PORT RELAY_PORTS LOG [JAVA_OPTS] [NAME=VALUE ...: extra environment]
start_parley() {
  env ${7:-} PARLEY_BIND_ADDRESS=127.0.0.1 PARLEY_TURN_PORT=$2 PARLEY_TURN_SECRETS="$SECRET" PARLEY_TURN_REALM=parley \
    PARLEY_TURN_RELAY_PORTS=$4 PARLEY_TURN_ALLOWED_PEERS=127.0.0.1:$PEER_PORT-$((PEER_PORT + 1)) PARLEY_INTERNAL_PORT=$3 \
    ${PARLEY_LOOPS:+PARLEY_TURN_EVENT_LOOPS=$PARLEY_LOOPS} PARLEY_TURN_MAX_ALLOCATIONS_PER_USER=100000 \
    PARLEY_TURN_MAX_BPS_PER_ALLOCATION=1000000000 \
    "$JAVA" ${6:-$PARLEY_JAVA_OPTS} -jar "$1" >"$5" 2>&1 &
}
start_parley "$JAR" $PARLEY_PORT $PARLEY_INTERNAL 40000-44999 "$WORK/parley.log"
PARLEY_PID=$!; PIDS+=("$PARLEY_PID")
SERVERS=(coturn parley)
if [[ -n "$BASELINE_JAR" ]]; then
  start_parley "$BASELINE_JAR" $BASE_PORT $BASE_INTERNAL 45000-48999 "$WORK/base.log" "${BASELINE_JAVA_OPTS:-$PARLEY_JAVA_OPTS}" "${BASELINE_ENV:-}"
  BASE_PID=$!; PIDS+=("$BASE_PID")
  SERVERS=(coturn base parley)
fi

turnutils_peer -L 127.0.0.1 -p $PEER_PORT >"$WORK/peer.log" 2>&1 &
PIDS+=("$!")
disown "${PIDS[@]}"   # servers are killed by cleanup; no "Killed" job notices, and no bare wait may wait for them
sleep 3
kill -0 "$COTURN_PID" || { cat "$WORK/coturn.log"; exit 1; }
kill -0 "$PARLEY_PID" || { cat "$WORK/parley.log"; exit 1; }
[[ -z "$BASELINE_JAR" ]] || kill -0 "$BASE_PID" || { cat "$WORK/base.log"; exit 1; }
echo "pids: coturn $COTURN_PID parley $PARLEY_PID${BASELINE_JAR:+ base $BASE_PID}"

# server_level NAME INTERVAL_MS: run_level for one of SERVERS
server_level() {
  case $1 in
    coturn) run_level coturn "$COTURN_PID" $COTURN_PORT "$2" ;;
    parley) run_level parley "$PARLEY_PID" $PARLEY_PORT "$2" ;;
    base) run_level base "$BASE_PID" $BASE_PORT "$2" ;;
  esac
}

cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
# thread_ticks PID: "group ticks" per thread group (event loops, JIT compilers, GC, other), for THREAD_CPU=1
thread_ticks() {
  for t in /proc/"$1"/task/*; do
    printf '%s %s\n' "$(tr ' ' _ < "$t/comm")" "$(awk '{print $14 + $15}' "$t/stat" 2>/dev/null || echo 0)"
  done | awk '{ g = ($1 ~ /IoEv|EventLoop|epoll/) ? "loops" : ($1 ~ /^C[12]_Comp/) ? "jit" : ($1 ~ /GC|G1|VM_Thread/) ? "gc+vm" : "other"; t[g] += $2 }
              END { for (g in t) printf "%s=%d ", g, t[g] }'
}

# run_level NAME PID PORT INTERVAL_MS -> prints "relayed_pps cpu_s_per_M loss_pct rtt_ms offered_pps"
run_level() {
  local name=$1 pid=$2 port=$3 z=$4
  local n=$(( SECONDS_PER_LEVEL * 1000 / z ))
  local before after t0 t1
  before=$(cpu_ticks "$pid"); t0=$(date +%s.%N)
  [[ "${THREAD_CPU:-0}" != 1 ]] || echo "$name z=$z threads before: $(thread_ticks "$pid")" >&2
  local outs=() clients=()
  for i in $(seq 1 "$PROCS"); do
    local out="$WORK/$name-z$z-$i.out"; outs+=("$out")
    turnutils_uclient -c -W "$SECRET" -u "bench$i" -e 127.0.0.1 -r $PEER_PORT -p "$port" \
      -m "$SESSIONS" -n "$n" -l "$MSG_BYTES" -z "$z" 127.0.0.1 >"$out" 2>&1 &
    clients+=("$!")
  done
  wait "${clients[@]}" || true
  t1=$(date +%s.%N); after=$(cpu_ticks "$pid")
  [[ "${THREAD_CPU:-0}" != 1 ]] || echo "$name z=$z threads after:  $(thread_ticks "$pid")" >&2
  awk -v hz="$HZ" -v ticks=$((after - before)) -v t0="$t0" -v t1="$t1" -v offered=$(( PROCS * SESSIONS * 1000 / z )) '
    /tot_send_msgs=[0-9]+, tot_recv_msgs=/ { split($0, a, /tot_send_msgs=|, tot_recv_msgs=/); s[FILENAME]=a[2]+0; r[FILENAME]=a[3]+0 }
    /Total lost packets/ { match($0, /Total lost packets [0-9]+/); l[FILENAME]=substr($0, RSTART+19, RLENGTH-19)+0 }
    /Average round trip delay/ { match($0, /delay [0-9.]+/); rtt[FILENAME]=substr($0, RSTART+6, RLENGTH-6)+0 }
    END {
      for (f in s) { S+=s[f]; R+=r[f]; L+=l[f]; RT+=rtt[f]*r[f] }
      relayed = S + R; secs = t1 - t0; cpu = ticks / hz
      printf "%.0f %.2f %.3f %.2f %d %d %d\n", relayed/secs, (relayed>0 ? cpu/(relayed/1e6) : -1), (S>0 ? 100*(S-R)/S : 100), (R>0 ? RT/R : -1), offered, S, R
    }' "${outs[@]}"
}

# A JVM compiles its hot paths during the first ~100k packets, and its allocation paths (auth, relay socket set-up
# and close) over the first few hundred allocations; a relay runs for days, so measure it warm. coturn gets the same
# load so both have touched their allocation paths. Warm-up is not measured, so all servers are warmed at once.
# Warm-up rounds use WARMUP_SESSIONS per process (default 6x SESSIONS: ~960 allocations per server) at z=10ms: the JIT
# compiles the request handler with C2 after ~5000 STUN requests (~800 sessions; one ~0.6 s compilation, once per
# process), which with 3x SESSIONS fell into a measured level.
echo "warm-up: ${WARMUP_ROUNDS:=4} rounds at z=10ms with ${WARMUP_SESSIONS:=$((6 * SESSIONS))} sessions per uclient, all servers at once"
for _ in $(seq 1 "$WARMUP_ROUNDS"); do
  warm=()
  for srv in "${SERVERS[@]}"; do SESSIONS=$WARMUP_SESSIONS server_level "$srv" 10 >/dev/null 2>&1 & warm+=("$!"); done
  wait "${warm[@]}"   # not a bare wait: the servers are background jobs too
done

RESULTS="$WORK/results.txt"
# Each level is measured REPEATS times, the servers alternating (coturn, parley, coturn, parley, ... or coturn, base,
# parley, ...), so drift in the machine's load falls on both; the verdict is the median of the per-round ratios.
echo "measuring: ${REPEATS} rounds per level, servers alternating: ${SERVERS[*]}"
printf "%-9s %5s %-7s %10s %12s %14s %8s %8s\n" level round server offered_pps relayed_pps cpu_s_per_M loss_% rtt_ms | tee "$RESULTS"
for z in "${LEVELS[@]}"; do
  for round in $(seq 1 "$REPEATS"); do
    for srv in "${SERVERS[@]}"; do
      r=$(server_level "$srv" "$z")
      read -r pps cpu loss rtt offered sent recvd <<< "$r"
      printf "%-9s %5s %-7s %10s %12s %14s %8s %8s\n" "z=${z}ms" "$round" "$srv" "$offered" "$pps" "$cpu" "$loss" "$rtt" | tee -a "$RESULTS"
    done
  done
done

echo
echo "Parley/coturn per level: coturn cpu_s_per_M / Parley cpu_s_per_M in each round (>1: Parley relays more packets"
echo "per CPU-second); median, min and max over the ${REPEATS} rounds; loss = worst round"
awk '
  { key=$1; rd=$2; v[key, rd, $3]=$6; if ($7 > worst[key, $3]) worst[key, $3]=$7; if (!(key in seen)) { seen[key]=1; order[++n]=key }
    if (rd > R) R = rd; if ($3 == "base") hasb = 1 }
  # ratios KEY SRV A: fills A with the per-round coturn/SRV ratios of level KEY, sorted; returns their count
  function ratios(key, srv, a,   i, m, t, j, k) {
    m = 0
    for (i = 1; i <= R; i++) if (v[key, i, srv] > 0) a[++m] = v[key, i, "coturn"] / v[key, i, srv]
    for (j = 2; j <= m; j++) { t = a[j]; for (k = j - 1; k >= 1 && a[k] > t; k--) a[k + 1] = a[k]; a[k + 1] = t }
    return m
  }
  function median(key, srv,   a, m) {
    m = ratios(key, srv, a)
    return m == 0 ? -1 : (m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2)
  }
  function stats(key, srv,   a, m) {
    m = ratios(key, srv, a)
    return m == 0 ? "-" : sprintf("%.2f [%.2f-%.2f]", median(key, srv), a[1], a[m])
  }
  END { printf "%-9s %24s %12s %12s", "level", "ratio median [min-max]", "coturn_loss%", "parley_loss%"
        if (hasb) printf " %24s %10s", "base ratio", "base_loss%"; printf "\n"
        for (i = 1; i <= n; i++) { k = order[i]
          printf "%-9s %24s %12.3f %12.3f", k, stats(k, "parley"), worst[k, "coturn"], worst[k, "parley"]
          if (hasb) printf " %24s %10.3f", stats(k, "base"), worst[k, "base"]; printf "\n"
          md = median(k, "parley"); if (md >= 0 && (verdict == "" || md < verdict)) verdict = md }
        printf "%.2f %d\n", (verdict == "" ? 0 : verdict), R > verdict_file }
' verdict_file="$WORK/verdict" <(tail -n +2 "$RESULTS")
[[ -z "$BASELINE_JAR" ]] || echo "base: BASELINE_JAR ($BASELINE_JAR) with ${BASELINE_JAVA_OPTS:-the same JVM flags}${BASELINE_ENV:+ and $BASELINE_ENV}, measured in this run"
echo
echo "parley JVM flags: $PARLEY_JAVA_OPTS"
echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg); coturn $(turnserver --version 2>&1 | head -1); $("$JAVA" -version 2>&1 | head -1)"
# The verdict, last line: the lowest of the per-rate medians (the target holds at every rate only if it holds here)
read -r verdict rounds < "$WORK/verdict"
echo "turn vs coturn: parley/coturn packets per CPU-second $verdict (median of $rounds rounds)"
