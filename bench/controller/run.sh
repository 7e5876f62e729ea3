#!/usr/bin/env bash
# Control-plane benchmark: one controller process + embedded PostgreSQL + etcd on this machine (loopback).
# usage: bench/controller/run.sh [seconds=30] [workers=32] [attendees-per-meeting=5] [warmup-seconds=20]
set -euo pipefail
cd "$(dirname "$0")/../.."
export JAVA_HOME=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}
./mvnw -B -q -pl controller-pod,bench -am package -DskipTests
# the bench build writes its runtime classpath to bench/target/classpath.txt
CP=$(cat bench/target/classpath.txt)
# the bench JVM (load generator + stub SFU) with C1 only unless BENCH_JVM_OPTS says otherwise (README, sixth session)
"$JAVA_HOME/bin/java" ${BENCH_JVM_OPTS--XX:TieredStopAtLevel=1} -cp "bench/target/classes:$CP" dev.parley.bench.controller.ControllerLoadBenchmark \
  controller-pod/target/controller-pod.jar "${1:-30}" "${2:-32}" "${3:-5}" "${4:-20}"
