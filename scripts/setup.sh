#!/usr/bin/env bash
# Sets up a fresh machine for svc: system packages (when root) and npm dependencies (native addon built from source).
set -euo pipefail
cd "$(dirname "$0")/.."

# Debian packages: the reference tools and real components the lab and the tests use.
APT_PACKAGES=(prometheus iputils-ping iputils-tracepath mtr-tiny dnsutils nftables iproute2 libcap2-bin openssl chromium
  python3 make g++ buildah podman runc victoria-metrics conntrack)
missing=()
for pkg in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if [ "${#missing[@]}" -gt 0 ]; then
  if [ "$(id -u)" = 0 ]; then
    echo "setup: installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  else
    echo "setup: not root; install these Debian packages for the full lab and test suite: ${missing[*]}" >&2
  fi
fi

echo "setup: npm ci"
npm ci --no-fund --no-audit
echo "setup: npm run build (agent, controller and console bundles; the web app)"
npm run build
echo "setup: done"
