#!/usr/bin/env bash
# The SFU source's cost on top of the loopback source (bench/recorder/README.md): in one JVM, N recordings
# subscribe through a real SFU process over DTLS-SRTP and M recordings read plain RTP on loopback; per-thread CPU
# during the media separates receive/decrypt/control work from the shared pipeline.
#
#   bench/recorder/run-sfu.sh              # 4 SFU recordings, 2 loopback recordings, 30 s of media
#   SFU_RECORDINGS=8 LOOP_RECORDINGS=2 SECONDS_OF_MEDIA=60 bench/recorder/run-sfu.sh
#
# Loopback only. Needs etcd and ffmpeg.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
export JAVA_HOME=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}
WORK=$(mktemp -d /tmp/parley-recorder-sfu-bench.XXXXXX)
./mvnw -B -q -pl recorder-pod -am test-compile dependency:build-classpath -Dmdep.outputFile="$WORK/cp.txt" -Dmdep.includeScope=test
"$JAVA_HOME/bin/java" -Xmx512m --enable-native-access=ALL-UNNAMED \
  -cp "recorder-pod/target/test-classes:recorder-pod/target/classes:$(cat "$WORK/cp.txt")" \
  dev.parley.recorder.bench.SfuSourceCost "${SFU_RECORDINGS:-4}" "${LOOP_RECORDINGS:-2}" "${SECONDS_OF_MEDIA:-30}" \
  2>"$WORK/bench.log" | tee "$WORK/results.txt"
echo "results: $WORK/results.txt (log: $WORK/bench.log)"
