/**
 * `homeagent sim merge <summary.json>… [--json]` (docs/spec.md §12.1): combines the `sim sweep --json`
 * summaries of the shards of one sweep (`--shard 1/n` … `n/n`, typically one per CI job) into the
 * summary of the whole sweep, with the totals the unsharded sweep gives (sweep-summary.ts says what
 * must agree and how the rates are recomputed).
 *
 * Output as `sim sweep`'s: the readable summary, or with `--json` the merged document alone on stdout.
 * Exit 0 when no seed of the merged sweep failed, 1 when one did, 2 on unusable input (an unreadable
 * file, a document that is not a summary, or summaries that are not the shards of one sweep).
 */
import type { Command } from 'commander';
import { readFileSync } from 'node:fs';
import type { Problem } from '../sim/scenario/index.ts';
import {
  EXIT_FAILED,
  EXIT_OK,
  EXIT_UNUSABLE,
  formatProblems,
  unusableDocument,
  writeJson,
  writeStdout,
  type ExitCode,
} from './cli-io.ts';
import { mergeSummaries, type SweepSummary } from './sweep-summary.ts';
import { parseSweepSummary } from './sweep-summary-schema.ts';
import { formatSweepSummary } from './sweep-summary-text.ts';

export interface SimMergeFlags {
  readonly json?: boolean;
}

export function registerSimMerge(sim: Command): void {
  sim
    .command('merge')
    .description(
      'combine the --json summaries of the shards of one sweep into one (exit 0 no failure, 1 some, 2 unusable input)',
    )
    .argument('<summary.json...>', 'summaries written by `homeagent sim sweep --json`, one per shard')
    .option('--json', 'print the merged summary as one JSON document on stdout, and nothing else')
    .action(async (files: string[], flags: SimMergeFlags) => {
      process.exitCode = await simMerge(files, flags);
    });
}

export async function simMerge(files: readonly string[], flags: SimMergeFlags): Promise<ExitCode> {
  const problems: Problem[] = [];
  const parts: SweepSummary[] = [];
  for (const file of files) {
    const read = readSummary(file);
    if (read.ok) parts.push(read.summary);
    else problems.push(...read.problems);
  }
  const merged = problems.length === 0 ? mergeSummaries(parts) : null;
  if (merged !== null && !merged.ok) problems.push(...merged.problems.map((message) => ({ path: '', message })));
  if (merged === null || !merged.ok) {
    if (flags.json === true) await writeJson(unusableDocument(problems));
    else process.stderr.write(`${formatProblems('homeagent sim merge', problems)}\n`);
    return EXIT_UNUSABLE;
  }
  const summary = merged.summary;
  if (flags.json === true) await writeJson(summary);
  else await writeStdout(formatSweepSummary(summary));
  return summary.failures.length === 0 ? EXIT_OK : EXIT_FAILED;
}

function readSummary(file: string): { ok: true; summary: SweepSummary } | { ok: false; problems: Problem[] } {
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    return { ok: false, problems: [{ path: file, message: `cannot read a JSON document: ${why}` }] };
  }
  const parsed = parseSweepSummary(value);
  if (parsed.ok) return parsed;
  return {
    ok: false,
    problems: parsed.problems.map((p) => ({
      path: p.path === '' ? file : `${file}: ${p.path}`,
      message: `${p.message} (is it a \`homeagent sim sweep --json\` summary?)`,
    })),
  };
}
