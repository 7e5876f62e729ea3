#!/usr/bin/env bash
# Time to join (issue #19, README.md next to this file): N joins of a headless Chromium participant into a meeting with
# one publisher, on this tree's build and an older one side by side in the same run; prints the SDK's per-step join
# timeline (p50/p95) and a last line `join time: new p50 … p95 …; old …; new/old …`.
#
#   bench/join/run.sh [--quick] [--joins N] [--old GIT_REF | --old none] [--no-build]
#
# --quick = 5 joins per build. --old defaults to `main`: its controller and SFU jars are built once per commit under
# target/bench-join-old/<commit> (an exported tree, offline Maven; nothing is installed into ~/.m2).
set -euo pipefail
cd "$(dirname "$0")/../.."
JOINS=20; OLD_REF=main; BUILD=1
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) JOINS=5 ;;
    --joins) JOINS="$2"; shift ;;
    --old) OLD_REF="$2"; shift ;;
    --no-build) BUILD=0 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
export JAVA_HOME="${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}"
if [ "$BUILD" = 1 ]; then
  nice -n 5 ./mvnw -B -o -q -pl controller-pod,sfu-pod -am -DskipTests package
fi
OLD_PROPS=()
if [ "$OLD_REF" != none ]; then
  OLD_SHA=$(git rev-parse "$OLD_REF^{commit}")
  OLD_DIR="$PWD/target/bench-join-old/$OLD_SHA"
  if [ ! -f "$OLD_DIR/controller-pod/target/controller-pod.jar" ] || [ ! -f "$OLD_DIR/sfu-pod/target/sfu-pod.jar" ]; then
    rm -rf "$OLD_DIR"; mkdir -p "$OLD_DIR"
    git archive "$OLD_SHA" | tar -x -C "$OLD_DIR"
    (cd "$OLD_DIR" && nice -n 5 ./mvnw -B -o -q -pl controller-pod,sfu-pod -am -DskipTests package)
  fi
  echo "old build: $OLD_REF ($OLD_SHA)"
  OLD_PROPS=(-Dparley.bench.join.oldControllerJar="$OLD_DIR/controller-pod/target/controller-pod.jar"
             -Dparley.bench.join.oldSfuJar="$OLD_DIR/sfu-pod/target/sfu-pod.jar")
fi
echo "new build: $(git rev-parse --short HEAD)$(git diff --quiet HEAD || echo ' + uncommitted changes')"
nice -n 5 ./mvnw -B -o -q -pl e2e -am verify -Dtest=NoSuchTest -Dsurefire.failIfNoSpecifiedTests=false \
  -Dit.test=JoinTimeBenchIT -Dfailsafe.failIfNoSpecifiedTests=false -Dit.reruns=0 -Dparley.bench.join=true \
  -Dparley.bench.join.count="$JOINS" "${OLD_PROPS[@]}"
grep -h "^join time\|^  " e2e/target/failsafe-reports/*JoinTimeBenchIT-output.txt | grep -v "^  at " || true
