// Whether dist/ was compiled from the sources as they are now. The build (scripts/build.js) writes a
// fingerprint of its inputs into dist/build-stamp.json after the compiler succeeded; the launcher
// recomputes it at every start and runs dist/ only when both agree, so a stale build never runs.
//
// The fingerprint lists every input file with its size and modification time: one stat per file,
// about a millisecond for the whole tree, where hashing the contents would read every byte. Any edit,
// checkout, added or deleted file changes it. It is taken before the compiler reads the sources, so an
// edit made while the build runs leaves the stamp behind the sources and the build is not used.
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The build's inputs besides src/: the compiler's configuration and the build script itself. */
const CONFIG_FILES = ['tsconfig.json', 'tsconfig.build.json', 'scripts/build.js'];
const STAMP_FILE = join('dist', 'build-stamp.json');
const STAMP_VERSION = 1;

/** "path size mtimeMs" per input file, sorted by path, one per line. */
export function sourceFingerprint(root) {
  const lines = [];
  const walk = (relative) => {
    for (const entry of readdirSync(join(root, relative), { withFileTypes: true })) {
      const path = `${relative}/${entry.name}`;
      if (entry.isDirectory()) walk(path);
      else lines.push(describe(root, path));
    }
  };
  walk('src');
  for (const file of CONFIG_FILES) lines.push(describe(root, file));
  return lines.sort().join('\n');
}

function describe(root, path) {
  const stat = statSync(join(root, path), { throwIfNoEntry: false });
  return stat === undefined ? `${path} missing` : `${path} ${stat.size} ${stat.mtimeMs}`;
}

/** Records that dist/ holds the output of the sources described by `fingerprint`. */
export function writeStamp(root, fingerprint) {
  writeFileSync(join(root, STAMP_FILE), `${JSON.stringify({ version: STAMP_VERSION, fingerprint })}\n`);
}

export function stampPath(root) {
  return join(root, STAMP_FILE);
}

/** True when dist/ is the output of the current sources; false when it is missing, partial or stale. */
export function isBuildCurrent(root) {
  let stamp;
  try {
    stamp = JSON.parse(readFileSync(join(root, STAMP_FILE), 'utf8'));
  } catch {
    return false; // no build, or one interrupted before its stamp was written
  }
  if (stamp === null || typeof stamp !== 'object' || stamp.version !== STAMP_VERSION) return false;
  try {
    return stamp.fingerprint === sourceFingerprint(root);
  } catch {
    return false; // src/ unreadable: let the source path report it
  }
}
