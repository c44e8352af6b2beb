#!/usr/bin/env bash
# Regenerates the scratch Go modules that pin the kube-apiserver (and kube-controller-manager) and
# etcd versions kindex tests against. Run it only to change versions; build.sh builds from the committed go.mod/go.sum.
#   scripts/real-apiserver/update-modules.sh 1.36.3 3.6.8
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
kube="${1:?usage: update-modules.sh <kubernetes version, e.g. 1.36.3> <etcd version, e.g. 3.6.8>}"
etcd="${2:?usage: update-modules.sh <kubernetes version> <etcd version>}"
staging="0.${kube#1.}"
export GOTOOLCHAIN=local GOFLAGS=-mod=mod

# k8s.io/kubernetes requires its staging modules at v0.0.0 and replaces them with ./staging paths;
# replace directives of a dependency are ignored, so this module must point each one at the
# published v0.X.Y release instead. The list comes from the release's own go.mod so that new
# staging modules are picked up; modules never published (sample-cli-plugin) are not needed by
# kube-apiserver or kube-controller-manager and are left out.
mkdir -p "$here/kube-apiserver"
{
  printf 'module kindex.local/real-apiserver/kube-apiserver\n\ngo 1.26.0\n\n'
  # kube-controller-manager shares the module (and most compiled packages) with kube-apiserver.
  printf 'tool (\n\tk8s.io/kubernetes/cmd/kube-apiserver\n\tk8s.io/kubernetes/cmd/kube-controller-manager\n)\n\n'
  printf 'require k8s.io/kubernetes v%s\n\nreplace (\n' "$kube"
  curl -fsS "https://proxy.golang.org/k8s.io/kubernetes/@v/v$kube.mod" |
    sed -n 's/^\t\(k8s\.io\/[a-z0-9-]*\) => \.\/staging\/.*/\1/p' |
    while read -r mod; do
      if curl -fsS -o /dev/null "https://proxy.golang.org/$mod/@v/v$staging.info" 2>/dev/null; then
        printf '\t%s => %s v%s\n' "$mod" "$mod" "$staging"
      fi
    done
  printf ')\n'
} > "$here/kube-apiserver/go.mod"
rm -f "$here/kube-apiserver/go.sum"
(cd "$here/kube-apiserver" && go mod tidy)

mkdir -p "$here/etcd"
{
  printf 'module kindex.local/real-apiserver/etcd\n\ngo 1.26.0\n\n'
  printf 'tool go.etcd.io/etcd/server/v3\n\nrequire go.etcd.io/etcd/server/v3 v%s\n' "$etcd"
} > "$here/etcd/go.mod"
rm -f "$here/etcd/go.sum"
(cd "$here/etcd" && go mod tidy)
