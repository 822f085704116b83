#!/usr/bin/env bash
# Instructions per dice roll and per player turn, counted by callgrind (deterministic: the same
# on every machine and under any load). See benches/README.md, "Session 9, issue 15".
#
#   bash benches/callgrind.sh                 # both workloads, default game counts
#   bash benches/callgrind.sh mc 400          # one workload, GAMES games
#   KEEP=1 bash benches/callgrind.sh full     # keep callgrind.out.* for callgrind_annotate
#   bash benches/callgrind.sh vec-heuristic   # a learner's VecGame step (issue 17), GAMES games
#   bash benches/callgrind.sh vec-random 1024 # stepped 100 times (benches/vecstep.rs)
#
# Workloads (rust_core/sim/src/workload.rs): `mc` is the MC-equal game (official rules, 100
# rounds, no houses or hotels, the never-trading heuristic bot); `full` is the official rules
# with four default heuristic bots. Only the simulation itself is counted (--toggle-collect).
set -euo pipefail
cd "$(dirname "$0")/.."
command -v valgrind >/dev/null || { echo "valgrind is needed (apt-get install -y valgrind)" >&2; exit 2; }

cargo build --release --quiet -p lanopoly-sim --example count --example vecstep
bin=target/release/examples/count
out_dir=${KEEP:+.}
out_dir=${out_dir:-$(mktemp -d)}

run() { # WORKLOAD GAMES
    local name=$1 games=$2 file="$out_dir/callgrind.out.$1"
    local stdout stderr
    stderr=$(valgrind --tool=callgrind --callgrind-out-file="$file" --toggle-collect='*count::measured*' \
        "$bin" "$name" "$games" 2>&1 >/tmp/count.$$.out) || { echo "$stderr" >&2; exit 1; }
    stdout=$(cat /tmp/count.$$.out); rm -f /tmp/count.$$.out
    local instr rolls turns
    instr=$(grep -o 'Collected : [0-9]*' <<<"$stderr" | grep -o '[0-9]*$')
    rolls=$(grep -o '[0-9]* rolls' <<<"$stdout" | grep -o '^[0-9]*')
    turns=$(grep -o '[0-9]* turns' <<<"$stdout" | grep -o '^[0-9]*')
    echo "$(head -1 <<<"$stdout")"
    awk -v i="$instr" -v r="$rolls" -v t="$turns" -v n="$name" \
        'BEGIN { printf "  %s: %d instructions, %.0f per roll, %.0f per turn\n", n, i, i / r, i / t }'
    [[ -n ${KEEP:-} ]] && echo "  kept $file (callgrind_annotate --inclusive=yes $file)"
    return 0
}

vec() { # vec-OPPONENT GAMES: instructions per learner step of `VecGame(GAMES, learner=0)`
    local file="$out_dir/callgrind.out.$1" opponent=${1#vec-} stdout stderr instr steps
    stderr=$(valgrind --tool=callgrind --callgrind-out-file="$file" --toggle-collect='*vecstep::measured*' \
        target/release/examples/vecstep "$opponent" "$2" 100 2>&1 >/tmp/count.$$.out) || { echo "$stderr" >&2; exit 1; }
    stdout=$(cat /tmp/count.$$.out); rm -f /tmp/count.$$.out
    instr=$(grep -o 'Collected : [0-9]*' <<<"$stderr" | grep -o '[0-9]*$')
    steps=$(grep -o '[0-9]* learner steps' <<<"$stdout" | grep -o '^[0-9]*')
    echo "$(head -1 <<<"$stdout")"
    awk -v i="$instr" -v s="$steps" -v n="$1" 'BEGIN { printf "  %s: %d instructions, %.0f per learner step\n", n, i, i / s }'
    [[ -n ${KEEP:-} ]] && echo "  kept $file (callgrind_annotate --inclusive=yes $file)"
    return 0
}

if [[ $# -ge 1 && $1 == vec-* ]]; then
    vec "$1" "${2:-1024}"
elif [[ $# -ge 1 ]]; then
    run "$1" "${2:-200}"
else
    run mc 200
    run full 200
fi
[[ -n ${KEEP:-} ]] || rm -rf "$out_dir"
