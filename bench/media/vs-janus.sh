#!/usr/bin/env bash
# Media forwarding side by side: the Parley SFU and Janus 1.1 (VideoRoom plugin), driven by the same load client
# (dev.parley.bench.janus.SideBySideBench on bench.media's publishers/subscribers: ICE, DTLS 1.2, SRTP, one VP8 stream
# + Opus per publisher, no simulcast on either side). Servers alternate (ABBA) over several rounds per offered load.
#
# Per run: packets received by all subscribers per CPU-second of the server process (utime + stime from
# /proc/<pid>/stat over the same window), loss at the receivers, end-to-end latency p50/p99 (send time in every
# payload). Last line: "sfu vs janus: parley/janus packets per CPU-second <X> (median of <K> rounds)".
#
# Usage: bench/media/vs-janus.sh [--quick]
#   --quick   one scenario (1 publisher -> 100 subscribers), two rounds per server, 10 s windows (about 3 minutes, under 5)
#   (none)    1 -> 50 / 100 / 150 and 5 / 10 / 20 four-person meetings, three rounds each, 20 s windows (about 40 minutes)
# Env: JANUS_IP (the address Janus gathers its ICE candidate on; default: the first global IPv4 address of an
#      interface that is up; Janus never uses a loopback interface), JANUS_RTP_PORTS (41000-41999),
#      JANUS_HTTP_PORT (18188, must match bench/media/janus/janus.transport.http.jcfg), ROUNDS, WINDOW (seconds),
#      SFU_JAR (default sfu-pod/target/sfu-pod.jar), JAVA_HOME (a JDK 25), EXTRA_JAVA_OPTS (e.g. -Dbench.janus.debug=true)
# Logs: target/janus-bench/janus.log (Janus), target/sfu-bench-sfu.log (SFU); results appended to
#       target/sfu-vs-janus-results.txt.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$ROOT"
JAVA_HOME="${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}"
JAVA="$JAVA_HOME/bin/java"
CONF="$ROOT/bench/media/janus"
PLUGINS=/usr/lib/x86_64-linux-gnu/janus/plugins      # Debian's path, named in $CONF/janus.jcfg

if ! command -v janus >/dev/null; then
  if [[ "$(id -u)" == 0 ]]; then
    echo "installing Debian's janus package"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq janus >/dev/null
  else
    echo "janus is not installed; run: sudo apt-get install -y janus" >&2
    exit 1
  fi
fi
JANUS_VERSION="$(janus --help 2>&1 | sed -n 's/^Janus version: [0-9]* (\(.*\))$/\1/p')"
[[ "$JANUS_VERSION" == 1.1.* ]] || echo "warning: janus $JANUS_VERSION (the bench was written against 1.1.2)" >&2
[[ -f "$PLUGINS/libjanus_videoroom.so" ]] || {
  echo "no $PLUGINS/libjanus_videoroom.so: on another architecture, edit the *_folder paths in $CONF/janus.jcfg" >&2; exit 1; }

JANUS_IP="${JANUS_IP:-$(ip -4 -o addr show scope global up 2>/dev/null | awk '{print $4}' | cut -d/ -f1 | head -1)}"
[[ -n "$JANUS_IP" ]] || { echo "no non-loopback IPv4 address is up; set JANUS_IP (Janus skips loopback interfaces)" >&2; exit 1; }

SFU_JAR="${SFU_JAR:-sfu-pod/target/sfu-pod.jar}"
if [[ ! -f "$SFU_JAR" || ! -f bench/target/classpath.txt || ! -d bench/target/classes/dev/parley/bench/janus ]]; then
  echo "building bench and sfu-pod"
  ./mvnw -B -q -o -pl bench -am package -DskipTests
fi
CP="bench/target/classes:$(cat bench/target/classpath.txt)"

echo "janus $JANUS_VERSION ($(command -v janus)), config $CONF, ICE on $JANUS_IP, RTP ${JANUS_RTP_PORTS:-41000-41999}; sfu $SFU_JAR; $(nproc) cores, load avg $(cut -d' ' -f1-3 /proc/loadavg)"
# shellcheck disable=SC2086  # EXTRA_JAVA_OPTS is a list of options
exec "$JAVA" -Dsfu.jar="$SFU_JAR" -Djanus.config="$CONF" -Djanus.ip="$JANUS_IP" \
  -Djanus.rtp.ports="${JANUS_RTP_PORTS:-41000-41999}" -Djanus.http.port="${JANUS_HTTP_PORT:-18188}" \
  ${ROUNDS:+-Dbench.rounds=$ROUNDS} ${WINDOW:+-Dbench.window.seconds=$WINDOW} ${EXTRA_JAVA_OPTS:-} \
  -cp "$CP" dev.parley.bench.janus.SideBySideBench "$@"
