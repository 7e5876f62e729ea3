#!/usr/bin/env bash
# A/B of two Parley TURN builds or settings (and optionally coturn) under the same steady turnutils_uclient load, the
# servers alternating, with exact counts instead of one ratio: CPU ms and wake-ups of the whole process (schedstat),
# and with PERF=1 `perf stat` of task-clock, context switches and the relay's syscalls (sendto, sendmmsg, recvmsg,
# recvmmsg, epoll waits, futex, getsockopt) over the same window. Syscall and wake-up counts per packet hardly depend
# on the machine's load; CPU ms does (see README.md, "Sixth session").
#
#   A_JAR=a.jar [A_ENV="NAME=VALUE ..."] B_JAR=b.jar [B_ENV=...] [C=1: coturn too] [PERF=1] bench/turn/ab.sh Z SECONDS ROUNDS
#
# Load: 4 uclients x 10 sessions, one 160-byte packet per Z ms each (as run.sh), measured for SECONDS after 4 s.
# Ports 34478-34498, 34580, relay ports 40000-43999: not at the same time as run.sh.
set -uo pipefail
Z=${1:?usage: ab.sh Z SECONDS ROUNDS}; SECS=${2:?seconds}; ROUNDS=${3:?rounds}
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
JOPTS="${PARLEY_JAVA_OPTS:-$(grep '^ENTRYPOINT' "$ROOT/turn-pod/Dockerfile" | sed -E 's/.*"java",(.*)"-jar".*/\1/; s/[",]/ /g' | xargs)}"
J="${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}/bin/java"
SECRET="ab-$RANDOM$RANDOM"; PEER=34580; W=$(mktemp -d /tmp/parley-turn-ab.XXXXXX)
# start NAME PORT INTERNAL_PORT RELAY_PORTS JAR ENV
start() {
  env $6 PARLEY_BIND_ADDRESS=127.0.0.1 PARLEY_TURN_PORT=$2 PARLEY_TURN_SECRETS="$SECRET" PARLEY_TURN_REALM=parley \
    PARLEY_TURN_RELAY_PORTS=$4 PARLEY_TURN_ALLOWED_PEERS=127.0.0.1:$PEER-$((PEER + 1)) PARLEY_INTERNAL_PORT=$3 \
    PARLEY_TURN_MAX_ALLOCATIONS_PER_USER=100000 PARLEY_TURN_MAX_BPS_PER_ALLOCATION=1000000000 \
    "$J" $JOPTS -jar "$5" >"$W/$1.log" 2>&1 &
}
start a 34478 34479 40000-41999 "${A_JAR:?A_JAR}" "${A_ENV:-}"; A=$!
start b 34488 34489 42000-43999 "${B_JAR:?B_JAR}" "${B_ENV:-}"; B=$!
turnutils_peer -L 127.0.0.1 -p $PEER >/dev/null 2>&1 & PE=$!
CO=""
if [[ "${C:-0}" == 1 ]]; then
  turnserver -n --listening-ip=127.0.0.1 --relay-ip=127.0.0.1 --listening-port=34498 --min-port=49152 --max-port=65535 \
    --use-auth-secret --static-auth-secret="$SECRET" --realm=parley --allow-loopback-peers --no-cli --no-tls --no-dtls \
    --userdb="$W/turndb" --pidfile="$W/turnserver.pid" --log-file=stdout --simple-log --no-software-attribute \
    >"$W/coturn.log" 2>&1 & CO=$!
fi
# SIGKILL: SIGTERM would make the pods drain their allocations first
trap 'kill -9 $A $B $PE $CO 2>/dev/null; rm -rf "$W"' EXIT
for _ in $(seq 60); do [[ $(cat "$W/a.log" "$W/b.log" | grep -c "TURN listening") == 2 ]] && break; sleep 1; done

# load PORT Z MESSAGES SESSIONS: 4 uclient processes, waited for by pid (the servers are jobs too)
load() {
  local ps=()
  for i in 1 2 3 4; do
    turnutils_uclient -c -W "$SECRET" -u "p$i" -e 127.0.0.1 -r $PEER -p "$1" -m "$4" -n "$3" -l 160 -z "$2" 127.0.0.1 \
      >"$W/u$1-$i.out" 2>&1 & ps+=("$!")
  done
  wait "${ps[@]}" || true
}
cpu() { cat /proc/"$1"/task/*/schedstat 2>/dev/null | awk '{s += $1; w += $3} END {printf "%d %d", s / 1e6, w}'; }

SERVERS="34478:$A:a 34488:$B:b"; [[ -z "$CO" ]] || SERVERS="34498:$CO:coturn $SERVERS"
for _ in 1 2 3; do   # warm-up, all at once (as run.sh)
  ws=(); for s in $SERVERS; do load "${s%%:*}" 10 400 30 & ws+=("$!"); done; wait "${ws[@]}"
done
for r in $(seq 1 "$ROUNDS"); do
  for s in $SERVERS; do
    IFS=: read -r port pid name <<<"$s"
    load "$port" "$Z" $(( (SECS + 6) * 1000 / Z )) 10 & l=$!
    sleep 4; read -r c0 w0 <<<"$(cpu "$pid")"
    if [[ "${PERF:-0}" == 1 ]]; then
      ev=task-clock,context-switches
      for e in sendto sendmmsg recvmsg recvmmsg epoll_pwait epoll_pwait2 epoll_wait futex getsockopt; do ev+=",syscalls:sys_enter_$e"; done
      perf stat -x, -e "$ev" -p "$pid" -- sleep "$SECS" 2>&1 \
        | awk -F, -v n="$name" '$1 + 0 > 0 { sub(/syscalls:sys_enter_/, "", $3); printf "%s=%.0f ", $3, $1 } END { print "(" n ", perf stat)" }'
    else
      sleep "$SECS"
    fi
    read -r c1 w1 <<<"$(cpu "$pid")"
    wait $l
    lost=$(cat "$W"/u"$port"-*.out | grep -o 'Total lost packets [0-9]*' | awk '{s += $4} END {print s + 0}')
    echo "round $r $name: $((c1 - c0)) ms CPU, $((w1 - w0)) wake-ups in ${SECS} s; lost $lost packets"
  done
done
