#!/usr/bin/env bash
# Signaling bytes per participant per second in one large meeting, steady state and during a join storm
# (issue 18). One controller process + embedded PostgreSQL + etcd + the stub SFU on loopback.
# usage: bench/roster/storm.sh [--quick] [controller jars...] [participants=1000] [steady-s=30] [rate=100] [storm-s=10]
# Several jars (e.g. old and new) are run one after another, alternating, ROUNDS times (default 1).
# --quick: 200 participants, 10 s steady, 100 joins/s for 5 s.
# Every resident watches the first roster page (roster_page, 50 ids) as the web app's People panel does; the storm
# line gives bytes per join per resident socket too (bench/roster/README.md, "paged roster").
set -euo pipefail
cd "$(dirname "$0")/../.."
export JAVA_HOME=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}
ARGS=(1000 30 100 10)
[ "${1:-}" = "--quick" ] && { ARGS=(200 10 100 5); shift; }
JARS=()
while [ $# -gt 0 ] && [[ "$1" == *.jar ]]; do JARS+=("$1"); shift; done
[ ${#JARS[@]} -eq 0 ] && JARS=(controller-pod/target/controller-pod.jar)
[ $# -gt 0 ] && ARGS=("$@")
if [ -z "${SKIP_BUILD:-}" ]; then ./mvnw -B -q -o -pl controller-pod,bench -am package -DskipTests; fi
CP=$(cat bench/target/classpath.txt)
for r in $(seq 1 "${ROUNDS:-1}"); do
  for jar in "${JARS[@]}"; do
    echo "=== round $r: $jar (load: $(cut -d' ' -f1-3 /proc/loadavg))"
    "$JAVA_HOME/bin/java" -XX:TieredStopAtLevel=1 -cp "bench/target/classes:$CP" dev.parley.bench.roster.SignalingStorm \
      "$jar" "${ARGS[@]}" 2>&1 | grep -E '^(setup|steady|storm|benchmark failed)' || true
  done
done
