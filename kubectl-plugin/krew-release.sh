#!/usr/bin/env bash
# Builds the krew release archive of kubectl-parley reproducibly and writes its sha256 (and version/uri) into
# krew/parley.yaml. Run from the repository root after `./mvnw -pl kubectl-plugin -am package`:
#   kubectl-plugin/krew-release.sh 0.1.0
# The archive is byte-identical for the same jar: sorted entries, owner 0, mtime 0, gzip without name/time.
# The jar itself is reproducible because kubectl-plugin/pom.xml pins project.build.outputTimestamp.
set -euo pipefail
version="${1:?usage: kubectl-plugin/krew-release.sh VERSION (e.g. 0.1.0)}"
root="$(cd "$(dirname "$0")/.." && pwd)"
jar="$root/kubectl-plugin/target/kubectl-parley.jar"
manifest="$root/krew/parley.yaml"
[[ -f "$jar" ]] || { echo "missing $jar: run ./mvnw -pl kubectl-plugin -am package first" >&2; exit 1; }
out="$root/kubectl-plugin/target/krew"
stage="$out/stage"
rm -rf "$out" && mkdir -p "$stage"
install -m 0755 "$root/kubectl-plugin/kubectl-parley" "$stage/kubectl-parley"
install -m 0644 "$jar" "$stage/kubectl-parley.jar"
archive="$out/kubectl-parley-$version.tar.gz"
tar --sort=name --owner=0 --group=0 --numeric-owner --mtime=@0 --format=ustar -C "$stage" -cf - \
    kubectl-parley kubectl-parley.jar | gzip -n -9 > "$archive"
sum="$(sha256sum "$archive" | cut -d' ' -f1)"
sed -i -E \
    -e "s|^(  version: ).*|\1v$version|" \
    -e "s|(uri: https://github.com/parley-dev/parley/releases/download/)v[^/]+/kubectl-parley-[^ ]+\.tar\.gz|\1v$version/kubectl-parley-$version.tar.gz|" \
    -e "s|^(      sha256: ).*|\1\"$sum\"|" "$manifest"
echo "$archive"
echo "sha256 $sum written to krew/parley.yaml"
