#!/usr/bin/env bash
# Where coturn and Parley TURN spend CPU, one after the other under the same turnutils_uclient load (see README.md,
# "Fourth session"). Starts coturn, Parley TURN and a turnutils_peer on loopback (ports 35578/36578/35580, so it
# can run next to run.sh), warms both up (3 parallel rounds of 4 uclients x 30 sessions at z=10ms), then:
#
#   bench/turn/profile.sh stat  Z SECONDS   perf stat (task-clock, context switches) of each server for SECONDS of
#                                           steady load (4 uclients x 10 sessions, one packet per Z ms each)
#   bench/turn/profile.sh setup             6 rounds of 40 sessions that send 2 packets each: CPU per 40 allocations
#                                           (all threads, ns precision from /proc/<pid>/task/*/schedstat) and
#                                           Parley's per-thread split (event loop, C1, C2, GC)
#   bench/turn/profile.sh idle  SECONDS     CPU and wake-ups of each server while nothing is offered (Parley's per
#                                           thread), 3 times
#
# Env: JAR (default turn-pod/target/turn-pod.jar), PARLEY_JAVA_OPTS (default: turn-pod/Dockerfile's, as run.sh), PARLEY_LOOPS,
#      JFR=1 (setup: records Parley's JIT compilations of any length; prints the longest, with their total per tier).
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
MODE=${1:?usage: profile.sh stat Z SECONDS | setup | idle SECONDS}
JAVA_BIN="${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}/bin"
JAR="${JAR:-$ROOT/turn-pod/target/turn-pod.jar}"
# the deployed JVM flags (turn-pod/Dockerfile's ENTRYPOINT), as run.sh
JOPTS="${PARLEY_JAVA_OPTS:-$(grep '^ENTRYPOINT' "$ROOT/turn-pod/Dockerfile" | sed -E 's/.*"java",(.*)"-jar".*/\1/; s/[",]/ /g' | xargs)}"
SECRET="prof-secret-$RANDOM$RANDOM"; CPORT=35578; PPORT=36578; PEER=35580
W="$(mktemp -d /tmp/parley-turn-profile.XXXXXX)"

turnserver -n --listening-ip=127.0.0.1 --relay-ip=127.0.0.1 --listening-port=$CPORT --min-port=49152 \
  --max-port=65535 --use-auth-secret --static-auth-secret="$SECRET" --realm=parley --allow-loopback-peers --no-cli \
  --no-tls --no-dtls --userdb="$W/db" --pidfile="$W/pid" --log-file=stdout --simple-log --no-software-attribute \
  >"$W/coturn.log" 2>&1 & C=$!
env PARLEY_BIND_ADDRESS=127.0.0.1 PARLEY_TURN_PORT=$PPORT PARLEY_TURN_SECRETS="$SECRET" PARLEY_TURN_REALM=parley \
  PARLEY_TURN_RELAY_PORTS=43000-44999 PARLEY_TURN_ALLOWED_PEERS=127.0.0.1:$PEER-$((PEER + 1)) PARLEY_INTERNAL_PORT=36579 \
  PARLEY_TURN_MAX_ALLOCATIONS_PER_USER=100000 PARLEY_TURN_MAX_BPS_PER_ALLOCATION=1000000000 \
  ${PARLEY_LOOPS:+PARLEY_TURN_EVENT_LOOPS=$PARLEY_LOOPS} "$JAVA_BIN/java" $JOPTS -jar "$JAR" >"$W/parley.log" 2>&1 & P=$!
turnutils_peer -L 127.0.0.1 -p $PEER >/dev/null 2>&1 & PE=$!
# SIGKILL: SIGTERM would make the pod drain its lingering allocations first
trap 'kill -9 $C $P $PE 2>/dev/null; rm -rf "$W"' EXIT
sleep 3

# load PORT Z MESSAGES SESSIONS: 4 uclient processes, waited for by pid (never a bare wait: the servers are jobs too)
load() {
  local ps=()
  for i in 1 2 3 4; do
    turnutils_uclient -c -W "$SECRET" -u "p$i" -e 127.0.0.1 -r $PEER -p "$1" -m "$4" -n "$3" -l 160 -z "$2" 127.0.0.1 \
      >"$W/u$1-$i.out" 2>&1 & ps+=("$!")
  done
  wait "${ps[@]}" || true
}
cpu_ms() { cat /proc/"$1"/task/*/schedstat 2>/dev/null | awk '{s += $1} END {printf "%d", s / 1e6}'; }
threads() { for t in /proc/"$1"/task/*; do echo "$(tr ' ' _ < "$t/comm") $(cut -d' ' -f1 "$t/schedstat")"; done; }
pid_of() { [[ $1 == coturn ]] && echo $C || echo $P; }
port_of() { [[ $1 == coturn ]] && echo $CPORT || echo $PPORT; }

for _ in 1 2 3; do load $CPORT 10 400 30 & a=$!; load $PPORT 10 400 30 & b=$!; wait $a $b; done

case $MODE in
  idle)
    # CPU and wake-ups (schedstat: ns on CPU, times scheduled in) of each process, and Parley's per thread
    runs() { cat /proc/"$1"/task/*/schedstat 2>/dev/null | awk '{s += $3} END {printf "%d", s}'; }
    tsnap() { for t in /proc/"$P"/task/*; do echo "$(tr ' ' _ < "$t/comm")@${t##*/} $(cut -d' ' -f1,3 "$t/schedstat")"; done | sort; }
    for _ in 1 2 3; do
      a=$(cpu_ms $C); b=$(cpu_ms $P); ra=$(runs $C); rb=$(runs $P); tsnap >"$W/i0"; sleep "${2:?seconds}"; tsnap >"$W/i1"
      echo "idle ${2}s: coturn $(( $(cpu_ms $C) - a )) ms / $(( $(runs $C) - ra )) wake-ups, parley $(( $(cpu_ms $P) - b )) ms / $(( $(runs $P) - rb )) wake-ups"
      join "$W/i0" "$W/i1" | awk '$5 > $3 { printf "    parley %-32s %6.2f ms %4d wake-ups\n", $1, ($4 - $2) / 1e6, $5 - $3 }'
    done ;;
  setup)
    if [[ "${JFR:-0}" == 1 ]]; then
      sed '/"jdk.Compilation"/,/<\/event>/s/[0-9]* ms</0 ms</' "$(dirname "$JAVA_BIN")/lib/jfr/profile.jfc" >"$W/comp.jfc"
      "$JAVA_BIN/jcmd" $P JFR.start name=comp filename="$W/comp.jfr" settings="$W/comp.jfc" >/dev/null
    fi
    for r in 1 2 3 4 5 6; do
      for name in coturn parley; do
        pid=$(pid_of $name); a=$(cpu_ms "$pid"); threads "$pid" >"$W/t0"
        load "$(port_of $name)" 20 2 10
        threads "$pid" >"$W/t1"
        split=""
        [[ $name == coturn ]] || split=$(paste "$W/t0" "$W/t1" | awk '$1 == $3 { d = ($4 - $2) / 1e6; if (d >= 2) printf " %s=%.0f", $1, d }')
        echo "round $r, 40 sessions: $name $(( $(cpu_ms "$pid") - a )) ms CPU${split:+ (threads, ms:$split)}"
      done
    done
    if [[ "${JFR:-0}" == 1 ]]; then
      "$JAVA_BIN/jcmd" $P JFR.dump name=comp filename="$W/comp.jfr" >/dev/null
      "$JAVA_BIN/jfr" print --events jdk.Compilation "$W/comp.jfr" | awk '
        /duration/ { d = $3; u = $4 } /compileLevel/ { l = $3 } /method =/ { m = $3 }
        /inlinedBytes/ { ms = (u == "ms") ? d : (u == "s") ? d * 1000 : (u == "us") ? d / 1000 : d / 1e6;
                         tot[l] += ms; n[l]++; printf "%8.1f ms  tier %s  %s\n", ms, l, m }
        END { for (k in tot) printf "total tier %s: %.0f ms in %d compilations\n", k, tot[k], n[k] > "/dev/stderr" }' \
        | sort -rn | head -15
    fi ;;
  stat)
    z=${2:?Z}; secs=${3:?seconds}
    for name in coturn parley; do
      pid=$(pid_of $name)
      load "$(port_of $name)" "$z" $(( (secs + 6) * 1000 / z )) 10 & l=$!
      sleep 5
      perf stat -e task-clock,context-switches -p "$pid" -- sleep "$secs" 2>&1 | grep -E 'task-clock|context' | sed "s/^/$name /"
      wait $l
      echo "$name loss: $(grep -ho 'Total lost packets [0-9]*' "$W"/u"$(port_of $name)"-*.out | awk '{s += $4} END {print s + 0}') packets"
    done ;;
  *) echo "unknown mode $MODE" >&2; exit 2 ;;
esac
