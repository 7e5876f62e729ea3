#!/usr/bin/env bash
# Concurrent recordings per core: N recorder processes (the real jar) each record one VP8 + one Opus track
# from an ffmpeg RTP publisher (stream copy, so the publisher costs almost nothing) into real s3proxy, with
# real etcd. Measures the CPU of the recorder processes and their ffmpeg children (bash `times`, which counts
# waited-for descendants) while segmenting, and again after finalize (per-track files + composite MP4).
#
#   bench/recorder/run.sh                      # N in "1 2 4", 30 s of media, 10 s segments
#   COUNTS="1 4 8" SECONDS_OF_MEDIA=60 bench/recorder/run.sh
#
# Loopback only. Needs etcd, ffmpeg, curl, python3; builds recorder-pod if its jar is missing.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
export JAVA_HOME=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}
JAVA="$JAVA_HOME/bin/java"
COUNTS=${COUNTS:-"1 2 4"}
MEDIA=${SECONDS_OF_MEDIA:-30}
SEGMENT=${SEGMENT_SECONDS:-10}
TILE=${TILE:-640x360}
JAR=${JAR:-recorder-pod/target/recorder-pod.jar}
WORK=$(mktemp -d /tmp/parley-recorder-bench.XXXXXX)
RESULTS=${RESULTS:-$WORK/results.txt}
PIDS=()
cleanup() { for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; }
trap cleanup EXIT

freeport() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
freeudp() { python3 -c 'import socket; s=socket.socket(socket.AF_INET,socket.SOCK_DGRAM); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
cpu_of_tree() { # CPU seconds (user+sys) of a pid and all its live descendants, from /proc
  python3 - "$1" <<'PY'
import os, sys
tick = os.sysconf("SC_CLK_TCK")
stats = {}
for d in os.listdir("/proc"):
    if d.isdigit():
        try:
            f = open(f"/proc/{d}/stat").read().rsplit(")", 1)[1].split()
            stats[int(d)] = (int(f[1]), int(f[11]) + int(f[12]))
        except OSError:
            pass
todo, total = [int(sys.argv[1])], 0
while todo:
    p = todo.pop()
    if p in stats:
        total += stats[p][1]
        todo += [c for c, (pp, _) in stats.items() if pp == p]
print(total / tick)
PY
}

if [ ! -f "$JAR" ]; then ./mvnw -B -q -pl recorder-pod -am package -DskipTests; fi
./mvnw -B -q -pl recorder-pod test-compile dependency:build-classpath -Dmdep.outputFile="$WORK/cp.txt" -Dmdep.includeScope=test

# etcd and s3proxy on loopback
EP=$(freeport); PP=$(freeport)
etcd --name bench --data-dir "$WORK/etcd" --listen-client-urls "http://127.0.0.1:$EP" \
  --advertise-client-urls "http://127.0.0.1:$EP" --listen-peer-urls "http://127.0.0.1:$PP" \
  --initial-advertise-peer-urls "http://127.0.0.1:$PP" --initial-cluster "bench=http://127.0.0.1:$PP" \
  --log-level error > "$WORK/etcd.log" 2>&1 &
PIDS+=($!)
"$JAVA" -cp "recorder-pod/target/test-classes:recorder-pod/target/classes:$(cat "$WORK/cp.txt")" \
  dev.parley.recorder.testing.S3ProxyMain > "$WORK/s3proxy.log" 2>&1 &
PIDS+=($!)
for _ in $(seq 100); do grep -q S3_ENDPOINT "$WORK/s3proxy.log" 2>/dev/null && break; sleep 0.2; done
S3=$(grep S3_ENDPOINT "$WORK/s3proxy.log" | cut -d= -f2)

# one pre-encoded sample of the full length, published with -c copy (-re and -stream_loop don't mix)
ffmpeg -hide_banner -loglevel error -y -f lavfi -i "testsrc2=size=640x360:rate=30" -f lavfi \
  -i "sine=frequency=440:sample_rate=48000" -t "$MEDIA" -c:v libvpx -deadline realtime -cpu-used 8 -b:v 800k -g 30 \
  -c:a libopus -b:a 48k "$WORK/sample.webm"

echo "recorders media_s segment_s cpu_segmenting_s cpu_finalize_s ready rec_per_core_segmenting rec_per_core_with_composite" | tee "$RESULTS"
for N in $COUNTS; do
  WRAPS=(); PORTS=(); PUBS=()
  for i in $(seq "$N"); do
    VP=$(freeudp); AP=$(freeudp); IP=$(freeport)
    PORTS+=("$IP")
    env PARLEY_RECORDING_JOB_ID="bench-$N-$i-$$" PARLEY_RECORDING_GENERATION=1 PARLEY_POD_NAME="bench-$i" \
      PARLEY_ETCD_ENDPOINTS="http://127.0.0.1:$EP" PARLEY_S3_ENDPOINT="$S3" PARLEY_S3_BUCKET=bench \
      PARLEY_S3_ACCESS_KEY=parley-test-access PARLEY_S3_SECRET_KEY=parley-test-secret \
      PARLEY_RECORDER_CREATE_BUCKET=true PARLEY_RECORDER_RTP_TRACKS="cam:vp8:$VP,mic:opus:$AP" \
      PARLEY_RECORDER_SEGMENT_SECONDS="$SEGMENT" PARLEY_RECORDER_SPOOL_DIR="$WORK/spool" PARLEY_RECORDER_TILE="$TILE" \
      PARLEY_INTERNAL_PORT="$IP" \
      bash -c "'$JAVA' -Xmx256m -jar '$JAR' > '$WORK/rec-$N-$i.log' 2>&1; times > '$WORK/times-$N-$i.txt'" &
    WRAPS+=($!)
    echo "$VP $AP" > "$WORK/ports-$N-$i"
  done
  for IP in "${PORTS[@]}"; do
    for _ in $(seq 300); do curl -sf "http://127.0.0.1:$IP/readyz" >/dev/null && break; sleep 0.2; done
  done
  START_CPU=0.0
  for i in $(seq "$N"); do
    read -r VP AP < "$WORK/ports-$N-$i"
    ffmpeg -hide_banner -loglevel error -re -i "$WORK/sample.webm" \
      -map 0:v -c copy -f rtp -payload_type 96 "rtp://127.0.0.1:$VP" \
      -map 0:a -c copy -f rtp -payload_type 111 "rtp://127.0.0.1:$AP" \
      > "$WORK/pub-$N-$i.log" 2>&1 &
    PUBS+=($!)
  done
  # CPU before media (JVM start-up, lease, manifest) is not segmenting work
  for w in "${WRAPS[@]}"; do START_CPU=$(python3 -c "print($START_CPU + $(cpu_of_tree "$w"))"); done
  for p in "${PUBS[@]}"; do wait "$p" || true; done
  SEG_CPU=0.0
  for w in "${WRAPS[@]}"; do SEG_CPU=$(python3 -c "print($SEG_CPU + $(cpu_of_tree "$w"))"); done
  SEG_CPU=$(python3 -c "print($SEG_CPU - $START_CPU)")
  for IP in "${PORTS[@]}"; do curl -sf -X POST "http://127.0.0.1:$IP/stop" >/dev/null || true; done
  for w in "${WRAPS[@]}"; do wait "$w" || true; done
  TOTAL=0.0
  for i in $(seq "$N"); do
    # second line of `times`: children's user and system time, e.g. "0m12.345s 0m1.234s"
    t=$(sed -n 2p "$WORK/times-$N-$i.txt" | python3 -c 'import sys,re; print(sum(int(m)*60+float(s) for m,s in re.findall(r"(\d+)m([\d.]+)s", sys.stdin.read())))')
    TOTAL=$(python3 -c "print($TOTAL + $t)")
  done
  READY=$(grep -l "finished as ready" "$WORK"/rec-"$N"-*.log 2>/dev/null | wc -l)
  FIN=$(python3 -c "print(round(max(0.0, $TOTAL - $SEG_CPU - $START_CPU), 1))")
  python3 - "$N" "$MEDIA" "$SEGMENT" "$SEG_CPU" "$FIN" "$READY" <<'PY' | tee -a "$RESULTS"
import sys
n, media, seg, seg_cpu, fin, ready = int(sys.argv[1]), float(sys.argv[2]), sys.argv[3], float(sys.argv[4]), float(sys.argv[5]), sys.argv[6]
per_core_seg = (n * media) / seg_cpu if seg_cpu > 0 else float("inf")
per_core_all = (n * media) / (seg_cpu + fin) if seg_cpu + fin > 0 else float("inf")
print(f"{n} {media:.0f} {seg} {seg_cpu:.1f} {fin} {ready}/{n} {per_core_seg:.1f} {per_core_all:.1f}")
PY
done
echo "results: $RESULTS (logs in $WORK)"
