#!/usr/bin/env bash
# The soak (bench/soak/README.md): the chaos platform from real processes (PostgreSQL, 3 etcd members, 2 controllers,
# 3 SFUs, TURN) carrying load-client meetings with churn, no faults; each pod's RSS, heap after a full GC, file
# descriptors and threads, etcd keys and PostgreSQL connections sampled, slopes reported and judged; after the run
# every resource must be back at its baseline.
#
#   bench/soak/run.sh --hours 1        one hour, a sample a minute, a meeting ended and replaced every 2 minutes
#   bench/soak/run.sh --quick          5 minutes, a sample every 15 s, churn every 30 s
#   bench/soak/run.sh --minutes 20
#
# Extra arguments go to Maven: -Dsoak.meetings=3 -Dsoak.size=3 -Dsoak.sampleSeconds=60 -Dsoak.churnSeconds=120.
# The pods' jars must be built: ./mvnw -B -o -DskipTests package -pl controller-pod,sfu-pod,turn-pod,recorder-pod -am
# The last line is "soak: <flat>/<judged> series flat; resources back to baseline: yes|NO; errors <n>"; the exit code
# is non-zero when a judged series grew, an error was counted or a resource did not come back.
set -uo pipefail
cd "$(dirname "$0")/../.."

minutes=60
while [[ $# -gt 0 ]]; do
  case "$1" in
    --quick) minutes=5; shift ;;
    --hours) minutes=$(awk -v h="$2" 'BEGIN { print h * 60 }'); shift 2 ;;
    --minutes) minutes=$2; shift 2 ;;
    *) break ;;
  esac
done
if [[ -z "${JAVA_HOME:-}" && -d /usr/lib/jvm/temurin-25-jdk-amd64 ]]; then
  export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
  export PATH="$JAVA_HOME/bin:$PATH"
fi
for jar in controller-pod/target/controller-pod.jar sfu-pod/target/sfu-pod.jar turn-pod/target/turn-pod.jar recorder-pod/target/recorder-pod.jar; do
  if [[ ! -f "$jar" ]]; then
    echo "$jar missing: ./mvnw -B -o -DskipTests package -pl controller-pod,sfu-pod,turn-pod,recorder-pod -am" >&2
    echo "soak: 0/0 series flat; resources back to baseline: NO; errors 0"
    exit 2
  fi
done
summary=e2e/target/soak/summary-soak.md
rm -f "$summary"
mkdir -p e2e/target/soak
log=e2e/target/soak/maven.log
echo "soak: $minutes minutes; progress in e2e/target/soak/soak.log, samples in e2e/target/soak/soak-samples.csv, Maven output in $log"
./mvnw -B -o -pl e2e -am verify -Dit.test=SoakIT -Dfailsafe.failIfNoSpecifiedTests=false -Dsoak.minutes="$minutes" \
  -Dtest=none -Dsurefire.failIfNoSpecifiedTests=false -Dit.reruns=0 "$@" > "$log" 2>&1
rc=$?
if [[ -f "$summary" ]]; then
  sed '$d' "$summary"
  line=$(tail -n 1 "$summary")
else
  tail -n 40 "$log"
  line="soak: 0/0 series flat; resources back to baseline: NO; errors 0"
  [[ $rc -eq 0 ]] && rc=1
fi
echo "$line"
exit $rc
