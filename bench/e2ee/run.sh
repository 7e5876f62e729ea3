#!/usr/bin/env bash
# Rotation-time benchmark of e2ee key management (README.md next to this file). Needs the controller and SFU jars
# (./mvnw -B -pl controller-pod,sfu-pod -am -DskipTests package), etcd, PostgreSQL (embedded) and Chromium.
set -euo pipefail
cd "$(dirname "$0")/../.."
./mvnw -B -q -pl e2e -am verify -Dtest=NoSuchTest -Dsurefire.failIfNoSpecifiedTests=false \
  -Dit.test=E2eeRotationBenchIT -Dfailsafe.failIfNoSpecifiedTests=false -Dparley.bench.e2ee=true "$@"
grep -h "e2ee rotation bench" e2e/target/failsafe-reports/*E2eeRotationBenchIT-output.txt
