#!/usr/bin/env bash
# The package as a user gets it: `npm pack`, then the tarball installed into an empty project — with
# its runtime dependencies only, as `npm install homeagent` would — and used there:
#  - the tarball holds dist/ with its declarations, and no sources, tests, benches, CI or mutation files;
#  - `npx homeagent --version`, and the README's main job on the scenario shipped in the package;
#  - a sweep on two workers, and the shrinker on a failing scenario (fast-check ships as a dependency);
#  - the library imported from an .mjs file: its trace hash is the command's;
#  - a consumer's .ts type-checked with TypeScript 5, @types/node 20, strict, module nodenext and
#    skipLibCheck false, so the shipped declarations and those they reach must all check.
# Not part of `npm test`: the install compiles better-sqlite3 (about 70 s). .ci/run calls it after the
# tests. `--keep` keeps the temporary project and prints where it is.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
keep=false
[ "${1:-}" = "--keep" ] && keep=true

work=$(mktemp -d "${TMPDIR:-/tmp}/homeagent-pack-check-XXXXXX")
if $keep; then echo "pack-check: working in $work"; else trap 'rm -rf "$work"' EXIT; fi
step() { echo "pack-check: $*"; }
fail() {
  echo "pack-check: FAILED: $*" >&2
  exit 1
}

version=$(node -p "require('./package.json').version")
typescript=$(node -p "require('./package.json').devDependencies.typescript")
types_node=$(node -p "require('./package.json').devDependencies['@types/node']")
case "$typescript" in 5.*) ;; *) fail "the consumer check wants TypeScript 5, package.json has $typescript" ;; esac
case "$types_node" in 20.*) ;; *) fail "the consumer check wants @types/node 20, package.json has $types_node" ;; esac

step "npm pack (prepack builds dist/)"
npm pack --silent --pack-destination "$work" >/dev/null
tarball="$work/homeagent-$version.tgz"
[ -f "$tarball" ] || fail "npm pack wrote no $tarball"
listing=$(tar tzf "$tarball")
files=$(printf '%s\n' "$listing" | wc -l)
unpacked=$(tar xzOf "$tarball" | wc -c)
step "$(basename "$tarball"): $(wc -c <"$tarball") bytes, $files files, $unpacked bytes unpacked"
[ "$unpacked" -lt 8000000 ] || fail "unpacked size $unpacked is not under 8 MB"
for needed in package/dist/index.js package/dist/index.d.ts package/dist/testing/index.d.ts \
  package/dist/cli/main.js package/bin/homeagent.js package/scenarios/e4-priority-stress.json \
  package/README.md package/LICENSE package/docs/library.md; do
  printf '%s\n' "$listing" | grep -qx "$needed" || fail "the tarball has no $needed"
done
unwanted=$(printf '%s\n' "$listing" |
  grep -E '^package/(src|test|bench|properties|tools|\.github|\.ci|coverage|reports)/|\.map$|\.test\.|build-stamp\.json|golden' ||
  true)
[ -z "$unwanted" ] || fail "the tarball holds files a user does not need:
$unwanted"

step "npm install the tarball into an empty project (runtime dependencies only; better-sqlite3 may compile)"
mkdir "$work/consumer"
cd "$work/consumer"
npm init -y >/dev/null
npm pkg set type=module
npm install --no-audit --no-fund --silent "$tarball"
[ ! -e node_modules/homeagent/src ] || fail "the installed package has src/"
[ ! -e node_modules/tsx ] || fail "tsx was installed, but it is a development dependency"
[ ! -e node_modules/typescript ] || fail "typescript was installed, but it is a development dependency"

step "npx homeagent --version"
got=$(npx --no-install homeagent --version)
[ "$got" = "$version" ] || fail "--version printed '$got', not $version"

scenario=node_modules/homeagent/scenarios/e4-priority-stress.json
step "npx homeagent sim run $scenario"
npx --no-install homeagent sim run "$scenario"
cli_hash=$(npx --no-install homeagent sim run "$scenario" --json | node -e \
  'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).traceHash))')

step "a sweep on two workers"
npx --no-install homeagent sim sweep node_modules/homeagent/scenarios/e5-nested-to-the-bound.json \
  --seeds 1..4 --workers 2 | tail -1

step "the shrinker (fast-check ships) on a failing scenario"
cat >failing.json <<'EOF'
{
  "version": 1,
  "name": "failing",
  "inputs": [
    { "id": "q", "class": "queued", "text": "hello" },
    { "id": "r", "class": "queued", "text": "again" }
  ],
  "expect": { "replyContains": { "q": "goodbye" } }
}
EOF
code=0
npx --no-install homeagent sim sweep failing.json --seeds 1..2 --shrink shrunk >shrink.log 2>&1 || code=$?
grep -A2 '^shrink:' shrink.log || true
[ "$code" = 1 ] || fail "the failing sweep exited $code, not 1: $(cat shrink.log)"
[ -f shrunk/failing-seed-1-replycontains-q.json ] || fail "the shrinker wrote no regression file: $(cat shrink.log)"

step "the library from an .mjs file"
cat >consumer.mjs <<'EOF'
import { loadScenarioFile, runScenario } from 'homeagent';
import { expectScenarioPasses, scenario } from 'homeagent/testing';

const report = await runScenario(await loadScenarioFile('node_modules/homeagent/scenarios/e4-priority-stress.json'));
await expectScenarioPasses(scenario('smoke').input('q', { text: 'hello' }).expect({ terminal: { q: 'done' } }));
console.log(report.traceHash);
EOF
lib_hash=$(node consumer.mjs)
[ "$lib_hash" = "$cli_hash" ] || fail "the library's trace hash $lib_hash is not the command's $cli_hash"
step "trace hash $lib_hash from both the command and the library"

step "type-check a consumer .ts: typescript@$typescript, @types/node@$types_node, strict, nodenext, skipLibCheck false"
npm install --no-audit --no-fund --silent --save-dev "typescript@$typescript" "@types/node@$types_node"
cat >tsconfig.json <<'EOF'
{
  "compilerOptions": {
    "target": "ES2022",
    "module": "nodenext",
    "moduleResolution": "nodenext",
    "strict": true,
    "skipLibCheck": false,
    "noEmit": true,
    "types": ["node"]
  },
  "files": ["consumer.ts"]
}
EOF
cp "$root/scripts/pack-check-consumer.ts" consumer.ts
npx --no-install tsc -p .
step "ok"
