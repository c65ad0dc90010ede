#!/bin/sh
# Lay out the TypeScript reference and our W1 driver in OUT (outside this repository) and bundle them.
#   sh bench/reference/setup.sh REFERENCE_GIT_DIR OUT       e.g. a clone of toninfo/deepseek-harness, /tmp/ref
# Then: node OUT/w1.mjs 10000 plain
set -eu
ref=$1; out=$2; here=$(cd "$(dirname "$0")" && pwd)
commit=3fe196a751
mkdir -p "$out/shims"
out=$(cd "$out" && pwd); repo=$(cd "$here/../.." && pwd)
case "$out/" in
  "$repo"/*) echo "OUT must be outside this repository" >&2; rmdir "$out/shims" "$out" 2>/dev/null || true; exit 2 ;;
esac
if [ -d "$ref/.git" ]; then gitdir="$ref/.git"; else gitdir="$ref"; fi
git --git-dir="$gitdir" archive "$commit" packages/core/session packages/llm/llm | tar -x -C "$out"
cp "$here/w1.ts" "$out/w1.ts"
cp "$here/shims/cordis.ts" "$here/shims/dsh-llm.ts" "$out/shims/"
cd "$out"
[ -f package.json ] || echo '{ "name": "w1-reference", "private": true, "type": "module" }' > package.json
npm install --no-audit --no-fund --silent esbuild@0.25
npx esbuild w1.ts --bundle --platform=node --format=esm --log-level=warning --tsconfig-raw='{}' \
  --alias:cordis=./shims/cordis.ts --alias:@deepseek-ai/dsh-llm=./shims/dsh-llm.ts --outfile=w1.mjs
echo "ready: node $out/w1.mjs T plain|compact"
