#!/usr/bin/env bash
# scripts/ycsb-reference.sh — a maintainer's step, never part of the build or the tests: rewrite
# the reference tables of tests/data/ycsb/ from the real YCSB.
#
#   scripts/ycsb-reference.sh [OUT_DIR]        (default: tests/data/ycsb of this checkout)
#
# It fetches YCSB 0.17.0's core jar and the jars it loads (site.ycsb:core:0.17.0 from Maven
# Central, with `mvn dependency:copy-dependencies` on a throwaway pom; Maven keeps its usual
# copy in ~/.m2) into a temporary directory, compiles scripts/YcsbReference.java against them
# and runs it: CoreWorkload's doTransaction for workloads a-f, each request distribution and a
# zipfian constant of 0.8, counted into small CSV tables (docs/guide/traces.md, "YCSB: the
# reference"). Only the tables are written into OUT_DIR; nothing downloaded is committed; the
# temporary directory is removed on exit. Needs Java 17+, Maven 3 and the network; about seven
# minutes of CPU, most of it the run with theta 0.8 summing YCSB's zeta over 10^10 items, as
# YCSB does. javac warns that the driver uses sun.misc.Unsafe (to read the thread's
# ThreadLocalRandom seed for the draw tables): expected.
#
# tests/traces/test_ycsb.cpp compares FlashPQ's ycsb generator with these tables. After
# rewriting them, run `build/flashpq_tests "[ycsb]"` and commit the tables with the figures.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/.." && pwd)"
out="${1:-$repo/tests/data/ycsb}"
version=0.17.0

for tool in java javac mvn; do
  command -v "$tool" >/dev/null || { echo "ycsb-reference: needs $tool on PATH" >&2; exit 1; }
done

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

cat >"$work/pom.xml" <<EOF
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>flashpq.reference</groupId>
  <artifactId>ycsb-reference</artifactId>
  <version>1</version>
  <dependencies>
    <dependency>
      <groupId>site.ycsb</groupId>
      <artifactId>core</artifactId>
      <version>$version</version>
    </dependency>
  </dependencies>
</project>
EOF
(cd "$work" && mvn -q -B -Dstyle.color=never dependency:copy-dependencies -DoutputDirectory="$work/lib")
classpath="$(ls "$work"/lib/*.jar | tr '\n' ':')"

mkdir -p "$work/classes" "$out"
javac -nowarn -d "$work/classes" -cp "$classpath" "$here/YcsbReference.java"
java -Xmx2g -cp "$work/classes:$classpath" YcsbReference "$out" \
  "scripts/ycsb-reference.sh (YcsbReference.java; java $(java -version 2>&1 | head -1 | cut -d'"' -f2))"
echo "ycsb-reference: wrote $(ls "$out" | wc -l) tables to $out" >&2
