#!/usr/bin/env bash
# Runs the suites that must hold on any Kubernetes API server against a real kube-apiserver with
# etcd (KINDEX_APISERVER=real), built from source by build.sh (cached after the first build).
# Suites: @kindex/testing's conformance suite and the launcher's own test, then integration-tests.
# Without Go: fails under CI=true (the real-server run is required there), else notes it and exits 0.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
here="$root/scripts/real-apiserver"

if ! command -v go >/dev/null 2>&1; then
  if [ "${CI:-}" = "true" ]; then
    echo "real-apiserver/ci.sh: the Go toolchain ('go') is not installed, so kube-apiserver and etcd cannot be built; CI requires the suites on the real server" >&2
    exit 1
  fi
  echo "real-apiserver/ci.sh: note: Go not installed, suites not run on a real kube-apiserver (install Go to run them)"
  exit 0
fi

start=$SECONDS
"$here/build.sh"
echo "real-apiserver/ci.sh: binaries ready in $((SECONDS - start))s"

export KINDEX_APISERVER=real
# Each mocha run appends its counts here (scripts/summary-reporter.cjs); summed at the end.
export KINDEX_TEST_TALLY="$(mktemp -d)/tally.jsonl"
failed=()
# run_suite <dir relative to the root> <spec glob>...
run_suite() {
  local dir="$1"; shift
  local specs=() glob matches
  # Only globs that match files: a suite not written yet is not a failure.
  for glob in "$@"; do
    matches=( $(cd "$root/$dir" && shopt -s globstar nullglob && echo $glob) )
    [ "${#matches[@]}" -gt 0 ] && specs+=("$glob")
  done
  if [ "${#specs[@]}" -eq 0 ]; then
    echo "=== $dir on the real server: no test files yet ==="
    return
  fi
  echo "=== $dir on the real server: ${specs[*]} ==="
  local t=$SECONDS
  if (cd "$root/$dir" && npx mocha --config "$here/mocharc.cjs" "${specs[@]}"); then
    echo "=== $dir on the real server: passed in $((SECONDS - t))s ==="
  else
    echo "=== $dir on the real server: FAILED after $((SECONDS - t))s ==="
    failed+=("$dir")
  fi
}

run_suite packages/testing 'src/conformance/**/*.test.ts' 'src/real-apiserver/**/*.test.ts' 'src/test-api-server-options.test.ts' 'src/helpers/create-namespaces-per-shard.test.ts'
run_suite packages/informer 'src/source/**/*.test.ts' 'src/fleet/**/*.test.ts' 'src/controller/**/*.test.ts' 'src/reflector/reflector.test.ts' 'src/reflector/reflector-cbor.test.ts' 'src/server/**/*.test.ts' 'src/logging/**/*.test.ts' 'src/dependent/**/*.test.ts' 'src/cache/**/*.test.ts' 'src/sharding/operator-sharding.test.ts' 'src/lease/kube-leases.test.ts' 'src/rbac/**/*.test.ts' 'src/operator/**/*.test.ts' 'src/events/**/*.test.ts' 'src/client/kube-client-list.test.ts' 'src/client/kube-client-type-meta.test.ts' 'src/client/kube-api-error.test.ts' 'src/crd/**/*.test.ts' 'src/webhook/**/*.test.ts' 'src/manifests/**/*.test.ts' 'src/kubeconfig/load-kube-config-server.test.ts'
run_suite integration-tests 'src/**/*.test.ts'

# A project made by `npm create kindex` from a loopback registry: its suite on the real server,
# its manifests applied, the operator run as its ServiceAccount to a Ready custom resource.
echo "=== create-kindex in-cluster on the real server ==="
t=$SECONDS
if node "$root/scripts/ci/check-create-kindex-in-cluster.mjs"; then
  echo "=== create-kindex in-cluster on the real server: passed in $((SECONDS - t))s ==="
else
  echo "=== create-kindex in-cluster on the real server: FAILED after $((SECONDS - t))s ==="
  failed+=("scripts/ci/check-create-kindex-in-cluster.mjs")
fi

if [ "${#failed[@]}" -gt 0 ]; then
  echo "real-apiserver/ci.sh: failed on the real server: ${failed[*]}" >&2
else
  echo "real-apiserver/ci.sh: all suites passed on the real server"
fi

# The closing lines for the real-server tier, like the README test command's, printed last: the
# failed tests by name, then the total.
node "$root/scripts/test-tally.mjs" real-server "$KINDEX_TEST_TALLY"
[ "${#failed[@]}" -eq 0 ]
