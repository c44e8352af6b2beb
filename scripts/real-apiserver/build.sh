#!/usr/bin/env bash
# Builds kube-apiserver, kube-controller-manager and etcd from the Go module proxy at the versions pinned by the scratch
# modules beside this script, into ~/.cache/kindex/<binary>-<version>/ (never into the repo).
# A binary is rebuilt only when it is missing or its module's go.sum changed, so a second run
# takes seconds. The builds run at the lowest CPU priority: the machine is shared.
#   scripts/real-apiserver/build.sh            # all three binaries
#   KINDEX_CACHE_DIR=/elsewhere build.sh       # another cache root (the launcher reads the same variable)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cache="${KINDEX_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/kindex}"

if ! command -v go >/dev/null 2>&1; then
  echo "build.sh: the Go toolchain ('go') is not on PATH; it is needed to build kube-apiserver and etcd" >&2
  exit 127
fi

# Prints the version the scratch module requires for a module path, for example v1.36.3.
required_version() {
  awk -v m="$2" '($1 == "require" && $2 == m) { print $3 } ($1 == m && $2 ~ /^v/) { print $2 }' "$here/$1/go.mod"
}

# build <scratch dir> <main package> <required module> <binary name> [extra -ldflags]
build() {
  local dir="$1" pkg="$2" module="$3" name="$4" ldflags="${5:-}"
  local version out stamp sum
  version="$(required_version "$dir" "$module" | head -n1)"
  [ -n "$version" ] || { echo "build.sh: no 'require $module' in $here/$dir/go.mod" >&2; exit 1; }
  out="$cache/$name-$version"
  stamp="$out/go.sum.sha256"
  sum="$(sha256sum "$here/$dir/go.sum" | cut -d' ' -f1)"
  if [ -x "$out/$name" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$sum" ]; then
    echo "build.sh: $name $version is cached at $out/$name"
    return
  fi
  echo "build.sh: building $name $version (this can take a long time cold) ..."
  mkdir -p "$out"
  local start=$SECONDS
  # GOTOOLCHAIN=local: never download another Go toolchain behind our back.
  # -mod=readonly: the committed go.sum is the source of truth; a mismatch is an error, not an edit.
  # -trimpath and no VCS stamping keep the binary independent of this checkout.
  (cd "$here/$dir" && GOTOOLCHAIN=local CGO_ENABLED=0 GOFLAGS="-mod=readonly -buildvcs=false" \
    nice -n 19 go build -trimpath -ldflags="-s -w $ldflags" -o "$out/$name.tmp" "$pkg")
  mv -f "$out/$name.tmp" "$out/$name"
  echo "$sum" > "$stamp"
  echo "build.sh: built $name $version in $((SECONDS - start))s -> $out/$name"
}

build etcd go.etcd.io/etcd/server/v3 go.etcd.io/etcd/server/v3 etcd
kube_version="$(required_version kube-apiserver k8s.io/kubernetes | head -n1)"
kube_minor="${kube_version#v1.}"; kube_minor="${kube_minor%%.*}"
# Built outside the Kubernetes repo, the binary would report v0.0.0-master on /version; stamp the
# release it really is, as the official build does.
kube_ldflags="-X k8s.io/component-base/version.gitVersion=$kube_version -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=$kube_minor -X k8s.io/component-base/version.gitTreeState=clean"
build kube-apiserver k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes kube-apiserver "$kube_ldflags"
# The garbage collector and namespace controller of the real tier. Same scratch module and so the
# same k8s.io/kubernetes version: it reuses most of kube-apiserver's compiled packages.
build kube-apiserver k8s.io/kubernetes/cmd/kube-controller-manager k8s.io/kubernetes kube-controller-manager "$kube_ldflags"
