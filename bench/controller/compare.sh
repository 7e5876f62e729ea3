#!/usr/bin/env bash
# Before/after on the same machine in ONE run: alternates controller jars (A, B, ..., A, B, ...) so that all
# of them see the same background load. Prints each round's summary lines, then (with 2+ rounds) the median
# and range per variant of joins/s and of the CPU-ms per join of each process.
# usage: bench/controller/compare.sh A.jar B.jar [C.jar ...] [seconds=20] [workers=32] [attendees=5] [rounds=2] [warmup=10]
# BENCH_CLASSES="dirA dirB ..." alternates bench class directories too (each jar with each: e.g. the old and the
# new load generator against the same controller jar); default bench/target/classes.
# An entry DIR#OPT,OPT runs that bench with those JVM options instead of BENCH_JVM_OPTS (e.g. the old bench
# with the JVM's defaults: "/tmp/old-classes# bench/target/classes").
# BENCH_JVM_OPTS: options of the bench JVM (load generator + stub SFU); default -XX:TieredStopAtLevel=1 (C1 only:
# its own compiled code is barely slower and C2 compilation was ~40 % of the bench JVM's CPU — README, sixth session).
set -euo pipefail
cd "$(dirname "$0")/../.."
export JAVA_HOME=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}
JARS=()
while [ $# -gt 0 ] && [[ "$1" == *.jar ]]; do JARS+=("$1"); shift; done
SECS=${1:-20}; WORKERS=${2:-32}; ATT=${3:-5}; ROUNDS=${4:-2}; WARM=${5:-10}
read -r -a CLASSES <<< "${BENCH_CLASSES:-bench/target/classes}"
CP=$(cat bench/target/classpath.txt)
SUMMARY=$(mktemp)
trap 'rm -f "$SUMMARY" "$SUMMARY.run"' EXIT
for r in $(seq 1 "$ROUNDS"); do
  for jar in "${JARS[@]}"; do
    for entry in "${CLASSES[@]}"; do
      classes=${entry%%#*}
      opts=${BENCH_JVM_OPTS--XX:TieredStopAtLevel=1}
      [[ "$entry" == *#* ]] && opts=${entry#*#} && opts=${opts//,/ }
      variant="$jar"
      [ "${#CLASSES[@]}" -gt 1 ] && variant="$jar [$entry]"
      echo "=== round $r: $variant (bench JVM options: ${opts:-none}; load: $(cut -d' ' -f1-3 /proc/loadavg))"
      "$JAVA_HOME/bin/java" $opts -cp "$classes:$CP" dev.parley.bench.controller.ControllerLoadBenchmark \
        "$jar" "$SECS" "$WORKERS" "$ATT" "$WARM" 2>&1 \
        | grep -E '^(joins|  [a-z_]+ |controller CPU|SFU requests|  (parley_)?authorization_enforcement_lag_seconds\{|PostgreSQL|benchmark failed)' \
        > "$SUMMARY.run" || true
      cat "$SUMMARY.run"
      awk -v v="$variant" '
            /^joins/ { for (i = 1; i <= NF; i++) if ($i == "joins/s;") js = $(i - 1) }
            /^controller CPU: / { for (i = 1; i <= NF; i++) if ($i == "CPU-s" && $(i + 1) == "per") { c = $(i - 1); break } }
            /^controller CPU without JIT/ { for (i = 1; i <= NF; i++) if ($i == "CPU-s") { nj = $(i - 1); break } }
            /^PostgreSQL CPU:/ { n = 0; for (i = 1; i <= NF; i++) if ($i == "CPU-s") { x[++n] = $(i - 1) } pg = x[1]; et = x[2]; lg = x[3] }
            /^PostgreSQL transactions/ { for (i = 1; i <= NF; i++) if ($i == "per") xa = $(i - 1) }
            END { if (js != "") printf "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", v, js, c, nj, pg, et, lg, xa }' "$SUMMARY.run" >> "$SUMMARY"
    done
  done
done
if [ "$ROUNDS" -gt 1 ] || [ "$(wc -l < "$SUMMARY")" -gt 1 ]; then
  echo "=== summary per variant over $ROUNDS round(s): median [min-max]; CPU in ms per join"
  awk -F'\t' '
    function med(s,   a, n, i, j, t) { n = split(s, a, " "); for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
      return sprintf("%s [%s-%s]", (n % 2 ? a[(n + 1) / 2] : sprintf("%.2f", (a[n / 2] + a[n / 2 + 1]) / 2)), a[1], a[n]) }
    { if (!($1 in seen)) { seen[$1] = 1; order[++k] = $1 } for (f = 2; f <= 8; f++) col[$1, f] = col[$1, f] " " $f; cnt[$1]++ }
    END { for (i = 1; i <= k; i++) { v = order[i]
      printf "%s (%d runs)\n  joins/s %s | controller %s (w/o JIT %s) | PostgreSQL %s | etcd %s | load gen + stub %s | xacts/join %s\n",
        v, cnt[v], med(col[v, 2]), med(col[v, 3]), med(col[v, 4]), med(col[v, 5]), med(col[v, 6]), med(col[v, 7]), med(col[v, 8]) } }' "$SUMMARY"
fi
