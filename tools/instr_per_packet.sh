#!/usr/bin/env bash
# Instructions per delivered packet (valgrind callgrind: deterministic, unlike
# CPU time) for the reference dumbbell of crates/ccsim-core/examples/quick.rs.
#   tools/instr_per_packet.sh [BINARY]      (default: target/profiling/examples/quick)
# Build the binary first: cargo build --profile profiling --example quick -p ccsim-core
set -euo pipefail
BIN=${1:-target/profiling/examples/quick}
CASES=${CASES:-"100:10:newreno 100:10:cubic 100:10:bbr 1000:3:newreno 1000:3:cubic 1000:3:bbr 2500:2:newreno 10000:1:newreno 10000:1:cubic 10000:1:bbr"}
printf "%-8s %-8s %6s %10s %14s %10s\n" cc Mb/s sim_s pkts instructions instr/pkt
for c in $CASES; do
  IFS=: read -r rate secs cc <<<"$c"
  out=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null "$BIN" 10 "$rate" "$secs" sack "$cc" 2>&1)
  ir=$(grep -oE "Collected : [0-9]+" <<<"$out" | awk '{print $3}')
  pk=$(grep -oE "delivered [0-9]+ pkts" <<<"$out" | awk '{print $2}')
  printf "%-8s %-8s %6s %10s %14s %10.0f\n" "$cc" "$rate" "$secs" "$pk" "$ir" "$(echo "$ir / $pk" | bc -l)"
done
