#!/usr/bin/env bash
# One meeting of 1,000 participants on the local platform with real parts (issue 18): the controller jar with etcd
# and embedded PostgreSQL, SFU process(es) (sfus=3: three in three regions, joined by the controller's relays), participants joining over REST +
# the signaling socket as the SDK does, 10 simulcast cameras, 30 microphones, the rest receiving; steady state and a
# join storm; every receiver checked for at most N audio streams and at most its page of video. bench/large/README.md.
# Defaults (README "What was scaled"): one SFU with an 8 GB heap, packet rates /10, page 6, a storm of 200 joins.
# usage: bench/large/run.sh [--quick] [name=value ...]   (LargeMeeting's options, e.g. participants=600 pace=4)
# --quick: 200 participants, 10 s steady, a storm of 100 joins at 100/s (under 2 minutes on a quiet machine).
set -euo pipefail
cd "$(dirname "$0")/../.."
export JAVA_HOME=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}
ARGS=(participants=1000 sfus=1 pace=10 setup=16 steady=20 storm=2 sfuheap=8g)
[ "${1:-}" = "--quick" ] && { ARGS=(participants=200 sfus=1 pace=10 setup=16 steady=10 storm=1); shift; }
if [ -z "${SKIP_BUILD:-}" ]; then nice -n 10 ./mvnw -B -q -o -pl controller-pod,sfu-pod,bench -am package -DskipTests; fi
CP=$(cat bench/target/classpath.txt)
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
exec nice -n 10 "$JAVA_HOME/bin/java" -Xmx3g -XX:+UseParallelGC -cp "bench/target/classes:$CP" \
  dev.parley.bench.large.LargeMeeting "${ARGS[@]}" "$@"
