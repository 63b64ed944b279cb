#!/usr/bin/env bash
# setup-test-env.sh — installs what Query Insight's test suites need on a fresh Debian 12 machine.
#
#   usage:  bash scripts/setup-test-env.sh            (as root, or with sudo available)
#   env:    QI_CODE_SERVER_PREFIX   where code-server goes (default ~/.cache/query-insight/code-server-<version>)
#           QI_CODE_SERVER_VERSION  default 4.100.3 (VS Code 1.100.3; needs Node 20)
#           SKIP_APT=1              leave apt alone (you installed the packages yourself)
#
# Idempotent: a second run only checks and prints. The last stdout line is the code-server binary;
# progress goes to stderr, so   CS=$(bash scripts/setup-test-env.sh)   works. The e2e tests find
# code-server at the same default prefix without being told (or through QI_CODE_SERVER).
#
# What the suites use:
#   integration  mariadbd + mariadb client (mariadb-server), nginx, pt-query-digest (percona-toolkit),
#                a private sshd on a loopback port for the SSH tunnel (openssh-server), Go (golang-go)
#                to build the small net/http/pprof app the CPU-profile test runs
#   e2e          code-server from npm (native modules built with build-essential, python3, libkrb5-dev),
#                Debian's chromium driven by playwright-core, ripgrep (see the workaround below)
set -euo pipefail

VERSION=${QI_CODE_SERVER_VERSION:-4.100.3}
PREFIX=${QI_CODE_SERVER_PREFIX:-$HOME/.cache/query-insight/code-server-$VERSION}
log() { printf '[setup-test-env] %s\n' "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

# ---- 1. Debian packages ------------------------------------------------------------------------
APT_PKGS=(ca-certificates git build-essential python3 libkrb5-dev ripgrep chromium
          mariadb-server mariadb-client nginx percona-toolkit openssh-server golang-go)
SUDO=""
[ "$(id -u)" = 0 ] || SUDO="sudo"
if [ "${SKIP_APT:-0}" != 1 ]; then
  missing=()
  for p in "${APT_PKGS[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    log "apt-get install ${missing[*]}"
    # why: the tests start their own private mariadbd and nginx on temp dirs and free loopback ports;
    # the distribution's services are not wanted. A policy-rc.d that answers 101 keeps the packages'
    # postinst scripts from starting them (Docker images ship one already; we only add it for the
    # install and only when none exists).
    added_policy=0
    if [ ! -e /usr/sbin/policy-rc.d ]; then
      printf '#!/bin/sh\nexit 101\n' | $SUDO tee /usr/sbin/policy-rc.d >/dev/null
      $SUDO chmod +x /usr/sbin/policy-rc.d
      added_policy=1
    fi
    $SUDO apt-get update -qq >&2
    status=0
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2 || status=$?
    [ "$added_policy" = 0 ] || $SUDO rm -f /usr/sbin/policy-rc.d
    [ "$status" = 0 ] || die "apt-get install failed"
  else
    log "Debian packages present: ${APT_PKGS[*]}"
  fi
  # why: on a machine with systemd the services may already run (installed earlier, or started by
  # a preset); stop and disable them so they hold no ports, memory or the default socket. The
  # system's ssh service is left alone (it may be how this machine is reached); the tests use their own sshd.
  for svc in mariadb nginx; do
    if command -v systemctl >/dev/null && [ -d /run/systemd/system ]; then
      if systemctl is-active --quiet "$svc" 2>/dev/null || systemctl is-enabled --quiet "$svc" 2>/dev/null; then
        log "stopping and disabling the system $svc service (tests run their own)"
        $SUDO systemctl disable --now "$svc" >&2 || true
      fi
    fi
  done
fi
for tool in rg mariadb-install-db mariadb nginx sshd ssh-keygen ssh-agent /usr/bin/chromium node npm; do
  command -v "$tool" >/dev/null || [ -x "$tool" ] || [ -x "/usr/sbin/$tool" ] || die "$tool not found after installing packages"
done
NODE_MAJOR=$(node -p 'process.versions.node.split(".")[0]')
[ "$NODE_MAJOR" = 20 ] || die "code-server $VERSION needs Node 20, found $(node --version)"

# ---- 2. code-server into a prefix ----------------------------------------------------------------
mkdir -p "$PREFIX"
PREFIX=$(cd "$PREFIX" && pwd)
PKG_DIR="$PREFIX/node_modules/code-server"
BIN="$PREFIX/node_modules/.bin/code-server"
RG_DEST="$PKG_DIR/lib/vscode/node_modules/@vscode/ripgrep/bin/rg"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

code_server_ok() {
  [ -x "$BIN" ] && [ -x "$RG_DEST" ] || return 1
  [ "$(node -p "require('$PKG_DIR/package.json').version" 2>/dev/null)" = "$VERSION" ] || return 1
  "$RG_DEST" --version >/dev/null 2>&1 || return 1
  # why: without --config, code-server writes ~/.config/code-server/config.yaml even for --version.
  "$BIN" --config "$WORK/config.yaml" --version >/dev/null 2>&1
}

if code_server_ok; then
  log "code-server $VERSION already installed in $PREFIX"
else
  # why: @vscode/ripgrep's postinstall downloads rg from GitHub, which CI machines may not reach.
  # Before downloading it looks for $TMPDIR/vscode-ripgrep-cache-<its version>/ripgrep-<tag>-<target>.tar.gz;
  # we put Debian's rg there. Both versions are read from the packages so another release works too.
  log "reading the @vscode/ripgrep version code-server $VERSION pins"
  ( cd "$WORK" && npm pack --silent "code-server@$VERSION" >/dev/null ) || die "npm pack code-server@$VERSION failed"
  tar -xzf "$WORK/code-server-$VERSION.tgz" -C "$WORK" package/lib/vscode/npm-shrinkwrap.json
  RG_PKG=$(node -p "require('$WORK/package/lib/vscode/npm-shrinkwrap.json').packages['node_modules/@vscode/ripgrep'].version")
  ( cd "$WORK" && npm pack --silent "@vscode/ripgrep@$RG_PKG" >/dev/null ) || die "npm pack @vscode/ripgrep@$RG_PKG failed"
  tar -xzf "$WORK/vscode-ripgrep-$RG_PKG.tgz" -C "$WORK" package/lib/postinstall.js
  RG_TAG=$(sed -n "s/^const VERSION = '\(.*\)';.*/\1/p" "$WORK/package/lib/postinstall.js")
  [ -n "$RG_TAG" ] || die "no ripgrep release tag in @vscode/ripgrep@$RG_PKG"
  case "$(node -p process.arch)" in
    x64) RG_TARGET=x86_64-unknown-linux-musl ;;
    arm64) RG_TARGET=aarch64-unknown-linux-musl ;;
    *) die "no ripgrep workaround for $(node -p process.arch)" ;;
  esac
  RG_CACHE_ROOT="$PREFIX/.rg-cache"
  mkdir -p "$RG_CACHE_ROOT/vscode-ripgrep-cache-$RG_PKG" "$WORK/rg"
  cp "$(command -v rg)" "$WORK/rg/rg"
  tar -czf "$RG_CACHE_ROOT/vscode-ripgrep-cache-$RG_PKG/ripgrep-$RG_TAG-$RG_TARGET.tar.gz" -C "$WORK/rg" rg

  [ -f "$PREFIX/package.json" ] || echo '{ "name": "query-insight-code-server", "private": true }' > "$PREFIX/package.json"
  # why: node-gyp would download Node's headers; point it at the local install when it has them.
  NODE_HOME=$(dirname "$(dirname "$(readlink -f "$(command -v node)")")")
  if [ -z "${npm_config_nodedir:-}" ] && [ -f "$NODE_HOME/include/node/node.h" ]; then export npm_config_nodedir="$NODE_HOME"; fi
  log "npm install code-server@$VERSION into $PREFIX (native builds: 1-3 min; log $PREFIX/install.log)"
  # why: npm_config_unsafe_perm — code-server's postinstall refuses to run as root without it;
  #      npm_config_yes — node-pty's postinstall runs `npx node-gyp`, which a `yes=false` npmrc cancels;
  #      a local install, not `-g --prefix`: the nested npm install in lib/vscode inherits -g and breaks.
  if ! ( cd "$PREFIX" && TMPDIR="$RG_CACHE_ROOT" npm_config_unsafe_perm=true npm_config_yes=true \
         npm install --no-audit --no-fund --foreground-scripts "code-server@$VERSION" ) > "$PREFIX/install.log" 2>&1; then
    tail -40 "$PREFIX/install.log" >&2
    die "npm install code-server failed (log: $PREFIX/install.log)"
  fi
  code_server_ok || { tail -40 "$PREFIX/install.log" >&2; die "code-server installed but does not run"; }
  log "installed code-server $VERSION"
fi
log "code-server: $BIN (the e2e tests look here; or set QI_CODE_SERVER)"
echo "$BIN"
