#!/usr/bin/env bash
# Before/after on the same machine in ONE run: alternates controller jars (A, B, ..., A, B, ...) so that all
# of them see the same background load. Prints each round's summary lines.
# usage: bench/controller/compare.sh A.jar B.jar [C.jar ...] [seconds=20] [workers=32] [attendees=5] [rounds=2] [warmup=10]
set -euo pipefail
cd "$(dirname "$0")/../.."
export JAVA_HOME=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}
JARS=()
while [ $# -gt 0 ] && [[ "$1" == *.jar ]]; do JARS+=("$1"); shift; done
SECS=${1:-20}; WORKERS=${2:-32}; ATT=${3:-5}; ROUNDS=${4:-2}; WARM=${5:-10}
CP=$(cat bench/target/classpath.txt)
for r in $(seq 1 "$ROUNDS"); do
  for jar in "${JARS[@]}"; do
    echo "=== round $r: $jar (load: $(cut -d' ' -f1-3 /proc/loadavg))"
    "$JAVA_HOME/bin/java" -cp "bench/target/classes:$CP" dev.parley.bench.controller.ControllerLoadBenchmark \
      "$jar" "$SECS" "$WORKERS" "$ATT" "$WARM" 2>&1 \
      | grep -E '^(joins|  [a-z_]+ |controller CPU|  authorization_enforcement_lag_seconds\{|PostgreSQL|benchmark failed)' || true
  done
done
