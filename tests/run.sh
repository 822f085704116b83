#!/usr/bin/env bash
# Install what the tests need, then run every test and check: Rust (fmt, clippy, cargo test) and
# Python (pytest, ruff, mypy, stubtest). This is the test command of the README and of .ci/run.
set -euo pipefail
cd "$(dirname "$0")/.."

# Nothing in a test may listen or multicast beyond loopback (see shared NOTES: LANOPOLY_INTERFACES).
export LANOPOLY_INTERFACES="${LANOPOLY_INTERFACES:-127.0.0.1}"
export PYTHONDONTWRITEBYTECODE=1
export XDG_CONFIG_HOME="$(mktemp -d)"  # no test reads or writes the console choices of the machine's user

step() { printf '\n== %s\n' "$*"; }

step "install the package and the test tools"
python3 -m pip install --disable-pip-version-check -q -e '.[test]'

step "rust: format and lints"
cargo fmt --all --check
cargo clippy --workspace --all-targets --quiet -- -D warnings

step "rust: tests"
cargo test -p lanopoly-engine -p lanopoly-sim -p lanopoly-sig --quiet
# The bot-strength tests at full size (2000 and 300 games) need optimised code.
cargo test -p lanopoly-sim --release --quiet --test strength --test search

step "python: lint and types"
python3 -m ruff check python tests benches
python3 -m ruff format --check python tests benches
python3 -m mypy
python3 -m mypy.stubtest lanopoly._core --allowlist tests/stubtest_allowlist.txt

step "python: tests"
python3 -m pytest -q tests --ignore=tests/net --ignore=tests/test_console_lan.py

step "python: LAN protocol in simulation (10,000 seeded games with faults and cheaters, no sockets)"
LANOPOLY_SIM_GAMES="${LANOPOLY_SIM_GAMES:-10000}" python3 -m pytest -q tests/net/test_sim.py

step "python: LAN tests (real peers as processes on loopback and in network namespaces)"
python3 -m pytest -q tests/net tests/test_console_lan.py --ignore=tests/net/test_sim.py
