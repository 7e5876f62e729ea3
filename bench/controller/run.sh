#!/usr/bin/env bash
# Control-plane benchmark: one controller process + embedded PostgreSQL + etcd on this machine (loopback).
# usage: bench/controller/run.sh [seconds] [workers] [attendees-per-meeting]
set -euo pipefail
cd "$(dirname "$0")/../.."
export JAVA_HOME=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}
./mvnw -B -q -pl controller-pod,bench -am package -DskipTests
CP=$(./mvnw -B -q -pl bench dependency:build-classpath -Dmdep.outputFile=/dev/stdout)
"$JAVA_HOME/bin/java" -cp "bench/target/classes:$CP" dev.parley.bench.controller.ControllerLoadBenchmark \
  controller-pod/target/controller-pod.jar "${1:-30}" "${2:-32}" "${3:-5}"
