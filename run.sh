#!/usr/bin/env bash
# One entry point that sets everything up on a fresh machine (a JDK 17, the venv, the
# project) and then runs what you ask for:
#   ./run.sh demo      generate + restore the flagship program (INTERVAL_JOIN_EARLY_FIRE)
#                      and run the bundled orders example on local Spark
#   ./run.sh test          the test suite, the restore gate included (CI runs it)
#   ./run.sh cluster-test  the cluster tests: Spark in Docker, a worker killed (CI runs it too)
#   ./run.sh cluster       the whole restore gate on a Spark cluster in Docker
#   ./run.sh <cmd...>  any command inside the venv, e.g. ./run.sh harness audit
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"

say() { printf '\033[1m==> %s\033[0m\n' "$*" >&2; }

java_major() {
  java -version 2>&1 | sed -n 's/.*version "\([0-9]*\).*/\1/p' | head -n 1
}

ensure_java() {
  # A JDK, not only a JVM: streamplan's values source is Java, compiled on first use (javac).
  if command -v java >/dev/null 2>&1 && [ "$(java_major)" -ge 17 ] 2>/dev/null \
      && command -v javac >/dev/null 2>&1 && command -v jar >/dev/null 2>&1; then
    return
  fi
  say "installing a JDK 17 (Spark needs a JVM; streamplan's values source is compiled with javac)"
  if command -v apt-get >/dev/null 2>&1; then
    SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq openjdk-17-jdk-headless >/dev/null
  else
    echo "error: a JDK 17+ (java, javac, jar) is required and apt-get is not available; install one and retry" >&2
    exit 1
  fi
}

# The gate report's browser test (tests/test_gate_report.py) renders the page in headless
# Chromium: `test` installs it when missing, as Java.
ensure_chromium() {
  if command -v chromium >/dev/null 2>&1; then
    return
  fi
  if command -v apt-get >/dev/null 2>&1; then
    say "installing Chromium (the gate report's browser test)"
    SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >/dev/null
  else
    echo "warning: chromium is missing and apt-get is not available; the browser test will skip" >&2
  fi
}

# The cluster tests (tests/test_cluster.py) and `cluster` run Spark in Docker containers:
# ci/docker-engine installs Debian's docker.io and debootstrap and starts dockerd when missing.
# A machine that cannot run an engine makes those tests fail with its reason.
ensure_docker() {
  bash ci/docker-engine || echo "warning: no Docker engine; the cluster tests will fail with the reason" >&2
}

ensure_venv() {
  local stamp=".venv/.installed-$(sha256sum pyproject.toml | cut -c1-16)"
  if [ ! -x .venv/bin/python ]; then
    say "creating .venv"
    python3 -m venv .venv
  fi
  if [ ! -f "$stamp" ]; then
    say "installing streamplan and its dependencies into .venv"
    .venv/bin/python -m pip install -q --upgrade pip
    .venv/bin/python -m pip install -q -e ".[test]"
    rm -f .venv/.installed-* && touch "$stamp"
  fi
}

ensure_java
ensure_venv
export PATH="$PWD/.venv/bin:$PATH"
export PYSPARK_PYTHON="$PWD/.venv/bin/python"

case "${1:-demo}" in
  demo)
    say "flagship program: generate a fixture, then restore it (into a temp dir)"
    python -m harness demo
    say "bundled example: examples/orders"
    work="$(mktemp -d)"
    (cd examples/orders && streamplan compile orders.sql -o "$work/plan.json" \
       && streamplan explain "$work/plan.json" \
       && streamplan execute "$work/plan.json" --checkpoint "$work/checkpoint")
    ;;
  test)
    shift
    ensure_chromium
    python -m pytest -q -m "not cluster" "$@"
    ;;
  cluster-test)
    # Its own command (~10 minutes: image build, a cluster, three driver processes), so the
    # suite stays well under 30 minutes; .ci/run runs both.
    shift
    ensure_docker
    python -m pytest -q -m cluster "$@"
    ;;
  cluster)
    shift
    bash ci/docker-engine
    exec bash ci/gate --cluster "$@"
    ;;
  *)
    exec "$@"
    ;;
esac
