#!/usr/bin/env bash
# Coverage-guided fuzzing of every network parser: each Jazzer @FuzzTest of the modules below runs in fuzzing mode
# through Jazzer's command line (the JUnit run of the default suite only replays the seeds), until it has done
# RUNS executions or TIME seconds, whichever comes first. The corpus of each target is kept in the repository under
# bench/fuzz/corpus/<target>/ (minimised with libFuzzer's -merge=1 after the run), so the next run starts where this
# one stopped and the default suite's regression runs stay small.
#
# usage: bench/fuzz/run.sh [--quick] [--runs N] [--time SECONDS] [--jobs J] [filter]
#   default: 10,000,000 executions or 1,800 s per target (issue #20's bar); --quick: 200,000 or 60 s.
#   filter: a substring of the target names (e.g. Stun, rtp) to run only those.
# Prints one line per target (wall seconds include Jazzer's start, ~1 min; exec/s is libFuzzer's average while fuzzing) and ends with `fuzz: <clean>/<targets> targets without findings, <executions> executions`.
# A finding (crash, hang, out-of-memory) keeps its input under target/fuzz/findings/<target>/ and makes the exit code 1.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
export JAVA_HOME=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}
RUNS=10000000; TIME=1800; FILTER=""
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) RUNS=200000; TIME=60 ;;
    --runs) RUNS=$2; shift ;;
    --time) TIME=$2; shift ;;
    *) FILTER=$1 ;;
  esac
  shift
done
MODULES="media-core sfu-pod turn-pod recorder-pod controller-pod bench"
OUT=$ROOT/target/fuzz
mkdir -p "$OUT"

echo "fuzz: building test classes of $MODULES ..."
./mvnw -B -q -pl "$(echo $MODULES | tr ' ' ',')" -am test-compile \
  dependency:build-classpath -Dmdep.includeScope=test -Dmdep.outputFile=target/fuzz-classpath.txt >"$OUT/build.log" 2>&1 \
  || { tail -n 40 "$OUT/build.log"; echo "fuzz: build failed (log: $OUT/build.log)"; exit 2; }

# Targets: module|class|method for every @FuzzTest method in the modules' test sources.
targets() {
  local m f cls
  for m in $MODULES; do
    while IFS= read -r f; do
      cls=$(sed -n 's/^package \(.*\);/\1/p' "$f" | head -n 1).$(basename "$f" .java)
      awk '/@FuzzTest/ { want = 1; next } want && /void [a-zA-Z0-9_]+\(/ {
             match($0, /void [a-zA-Z0-9_]+\(/); print substr($0, RSTART + 5, RLENGTH - 6); want = 0 }' "$f" \
        | while read -r meth; do echo "$m|$cls|$meth"; done
    done < <(grep -rl '@FuzzTest' "$m/src/test/java" 2>/dev/null | sort)
  done
}

TOTAL_EXECS=0; CLEAN=0; COUNT=0; FAILED=()
printf '%-40s %12s %10s %10s %s\n' target executions 'wall s' exec/s findings
while IFS='|' read -r module cls meth; do
  name="${cls##*.}.$meth"
  [ -n "$FILTER" ] && [[ "$name" != *"$FILTER"* ]] && continue
  COUNT=$((COUNT + 1))
  cp="$ROOT/$module/target/test-classes:$ROOT/$module/target/classes:$(cat "$ROOT/$module/target/fuzz-classpath.txt")"
  corpus="$ROOT/bench/fuzz/corpus/$name"; work="$OUT/work/$name"; findings="$OUT/findings/$name"
  mkdir -p "$corpus" "$findings"; rm -rf "$work"; mkdir -p "$work"
  log="$OUT/$name.log"
  start=$(date +%s)
  set +e
  JAZZER_FUZZ=1 "$JAVA_HOME/bin/java" -Xmx1g -cp "$cp" com.code_intelligence.jazzer.Jazzer \
    --target_class="$cls" --target_method="$meth" --instrument='dev.parley.**' --custom_hook_excludes='**' \
    -runs="$RUNS" -max_total_time="$TIME" -timeout="${FUZZ_TIMEOUT:-10}" -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$findings/" "$work" "$corpus" >"$log" 2>&1
  rc=$?
  set -e
  secs=$(( $(date +%s) - start ))
  execs=$(sed -n 's/^stat::number_of_executed_units: *\([0-9]*\).*/\1/p' "$log" | tail -n 1)
  [ -z "$execs" ] && execs=$(sed -n 's/.*Done \([0-9]*\) runs in.*/\1/p' "$log" | tail -n 1)
  execs=${execs:-0}
  rate=$(sed -n 's/^stat::average_exec_per_sec: *\([0-9]*\).*/\1/p' "$log" | tail -n 1)
  nfind=$(find "$findings" -type f | wc -l)
  if [ "$rc" = 0 ] && [ "$nfind" = 0 ] && [ "$execs" -gt 0 ]; then CLEAN=$((CLEAN + 1)); verdict=0
  else verdict="$nfind (exit $rc, log $log)"; FAILED+=("$name"); fi
  # Keep a minimised corpus in the repository: merge what this run found into the kept corpus.
  if [ -n "$(ls -A "$work")" ]; then
    "$JAVA_HOME/bin/java" -Xmx1g -cp "$cp" com.code_intelligence.jazzer.Jazzer \
      --target_class="$cls" --target_method="$meth" --instrument='dev.parley.**' --custom_hook_excludes='**' \
      -merge=1 "$corpus" "$work" >"$OUT/$name.merge.log" 2>&1 || true
  fi
  TOTAL_EXECS=$((TOTAL_EXECS + execs))
  printf '%-40s %12s %10s %10s %s\n' "$name" "$execs" "$secs" "${rate:-?}" "$verdict"
done < <(targets)

[ "$COUNT" -gt 0 ] || { echo "fuzz: no target matched '$FILTER'"; exit 2; }
echo "fuzz: $CLEAN/$COUNT targets without findings, $TOTAL_EXECS executions"
[ ${#FAILED[@]} -eq 0 ]
