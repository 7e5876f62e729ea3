#!/usr/bin/env bash
# SFU forwarded packets per core in an e2ee meeting beside a transport-mode meeting, side by side in one run (issue #16):
# SfuLoadBench with -Dbench.e2ee=true alternates transport and e2ee-shaped payloads (ABBA) against a fresh SFU each run.
# Last line: "sfu e2ee vs transport: forwarded packets per core <X> (median of <K> rounds; per round ...)".
# usage: bench/e2ee/sfu-forwarding.sh [--quick] [scenario=meetings] [n=10] [seconds=15] [rounds=4]
#   --quick: meetings 5, 10 s windows, 2 rounds (about 3 minutes). Per core is counted without the SFU JIT compiler threads
#   (on a shared 2-core machine C2 is still compiling in some windows and not others); both figures are printed.
set -euo pipefail
cd "$(dirname "$0")/../.."
export JAVA_HOME=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}
if [[ "${1:-}" == "--quick" ]]; then shift; set -- meetings 5 10 2; fi
MODE=${1:-meetings}; N=${2:-10}; SECS=${3:-15}; ROUNDS=${4:-4}
[[ -f sfu-pod/target/sfu-pod.jar && -f bench/target/classpath.txt ]] || ./mvnw -B -q -o -pl bench -am package -DskipTests
CP="bench/target/classes:$(cat bench/target/classpath.txt)"
exec "$JAVA_HOME/bin/java" -Dbench.e2ee=true -Dbench.rounds="$ROUNDS" -Dbench.warmup.max.seconds=20 -cp "$CP" \
  dev.parley.bench.media.SfuLoadBench "$MODE" "$N" "$SECS"
