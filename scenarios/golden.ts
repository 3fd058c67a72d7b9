/**
 * The golden trace hashes of scenarios/ (docs/spec.md §12.4): `npx tsx scenarios/golden.ts [--update-golden]`.
 *
 * Without a flag it runs every scenario with its own seed and compares its trace hash with
 * golden.json: it prints every difference (changed, missing, stale) and exits 1 if there is one.
 * With `--update-golden` it rewrites golden.json from the runs and prints what changed, so that a
 * deliberate change of behaviour is recorded deliberately. A scenario whose expectations fail is
 * reported in both modes (and makes the check fail), but its hash is still recorded on update:
 * the hash describes what the code does, the expectations what it should do.
 */
import { writeFileSync } from 'node:fs';
import {
  describeFailures,
  GOLDEN_PATH,
  listScenarioFiles,
  readGolden,
  runScenarioFile,
  type Golden,
} from './harness.ts';

const UPDATE_FLAG = '--update-golden';

async function main(argv: readonly string[]): Promise<number> {
  const unknown = argv.filter((a) => a !== UPDATE_FLAG);
  if (unknown.length > 0) {
    process.stderr.write(
      `unknown argument(s): ${unknown.join(' ')}\nusage: tsx scenarios/golden.ts [${UPDATE_FLAG}]\n`,
    );
    return 2;
  }
  const update = argv.includes(UPDATE_FLAG);
  const golden = readGolden();
  const fresh: Golden = {};
  const notOk: string[] = [];
  for (const file of listScenarioFiles()) {
    const report = await runScenarioFile(file);
    fresh[file.name] = report.traceHash;
    if (!report.ok) {
      notOk.push(file.name);
      process.stdout.write(`NOT OK   ${file.name}\n${indent(describeFailures(report))}\n`);
    }
  }

  const changes = diff(golden, fresh);
  for (const line of changes) process.stdout.write(`${line}\n`);
  const total = Object.keys(fresh).length;
  if (update) {
    if (changes.length > 0) writeFileSync(GOLDEN_PATH, `${JSON.stringify(fresh, null, 2)}\n`);
    process.stdout.write(
      changes.length === 0
        ? `golden.json unchanged (${total} scenarios)\n`
        : `golden.json updated: ${changes.length} change(s), ${total} scenarios\n`,
    );
  } else {
    process.stdout.write(
      changes.length === 0
        ? `all ${total} trace hashes match golden.json\n`
        : `${changes.length} difference(s) with golden.json; run \`npm run golden -- ${UPDATE_FLAG}\` if the change is deliberate\n`,
    );
  }
  if (notOk.length > 0) process.stdout.write(`${notOk.length} scenario(s) not ok: ${notOk.join(', ')}\n`);
  return (!update && changes.length > 0) || notOk.length > 0 ? 1 : 0;
}

/** One line per scenario whose recorded hash differs from the fresh one, in name order. */
function diff(golden: Golden, fresh: Golden): string[] {
  const names = [...new Set([...Object.keys(golden), ...Object.keys(fresh)])].sort();
  const lines: string[] = [];
  for (const name of names) {
    const before = golden[name];
    const after = fresh[name];
    if (before === after) continue;
    if (before === undefined) lines.push(`added    ${name}: ${after ?? ''}`);
    else if (after === undefined) lines.push(`removed  ${name}: ${before} (no scenario file)`);
    else lines.push(`changed  ${name}: ${before} -> ${after}`);
  }
  return lines;
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((l) => `    ${l}`)
    .join('\n');
}

process.exitCode = await main(process.argv.slice(2));
