/**
 * `homeagent sim view <trace.jsonl> [-o timeline.html]`: the timeline of a trace file as one
 * self-contained HTML page, and the pieces `sim run --html` and `sim sweep --html-dir` share with it.
 *
 * The page is always built from a trace file, the one the user asked for with `--trace` or a scratch
 * file deleted afterwards, so that `sim view` on a saved trace and `sim run --html` draw the same page.
 * Exit codes: 0 written, 2 unusable input (an unreadable file, no event line, an unwritable output).
 */
import type { Command } from 'commander';
import { randomUUID } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Problem } from '../sim/scenario/index.ts';
import { renderTimeline, type RenderedTimeline } from '../view/index.ts';
import { EXIT_OK, EXIT_UNUSABLE, formatProblems, writeStdout, type ExitCode } from './cli-io.ts';
import { outputFileProblem, type NamedInput } from './output-file.ts';

export interface SimViewFlags {
  readonly output?: string;
}

export function registerSimView(sim: Command): void {
  sim
    .command('view')
    .description('draw the timeline of a trace file as one self-contained HTML page (exit 0 written, 2 unusable input)')
    .argument('<trace.jsonl>', 'a trace written by `sim run --trace` (a header line, then one JSON line per event)')
    .option('-o, --output <file.html>', 'where to write the page (default: the trace file with .html)')
    .action(async (trace: string, flags: SimViewFlags) => {
      process.exitCode = await simView(trace, flags);
    });
}

export async function simView(trace: string, flags: SimViewFlags): Promise<ExitCode> {
  const output = flags.output ?? defaultOutput(trace);
  const problems: Problem[] = [];
  const outputProblem = htmlPathProblem(output, '--output', [{ what: 'trace file', path: trace }]);
  if (outputProblem !== null) problems.push(outputProblem);
  let text = '';
  try {
    text = readFileSync(trace, 'utf8');
  } catch (err) {
    problems.push({ path: '', message: `cannot read ${trace}: ${err instanceof Error ? err.message : String(err)}` });
  }
  const rendered = problems.length === 0 ? renderTimeline(text, basename(trace)) : null;
  if (rendered !== null && rendered.model.events === 0) {
    problems.push({ path: '', message: `${trace} has no trace event line${listed(rendered.model.problems)}` });
  }
  if (rendered === null || problems.length > 0) {
    process.stderr.write(`${formatProblems(`homeagent sim view ${trace}`, problems)}\n`);
    return EXIT_UNUSABLE;
  }
  const written = writePage(rendered, output);
  const skipped = written.problems.length === 0 ? '' : `\nskipped unreadable lines: ${written.problems.join('; ')}`;
  await writeStdout(`${timelineLine(written)}${skipped}\n`);
  return EXIT_OK;
}

/** What a written page holds, for the line that links it. */
export interface WrittenTimeline {
  readonly path: string;
  readonly events: number;
  readonly bytes: number;
  readonly problems: readonly string[];
}

/** Renders trace text and writes the page (an empty trace still gets a page, so callers decide). */
export function writeTimeline(traceText: string, htmlPath: string): WrittenTimeline {
  return writePage(renderTimeline(traceText), htmlPath);
}

function writePage(rendered: RenderedTimeline, htmlPath: string): WrittenTimeline {
  writeFileSync(htmlPath, rendered.html);
  return {
    path: htmlPath,
    events: rendered.model.events,
    bytes: Buffer.byteLength(rendered.html),
    problems: rendered.model.problems,
  };
}

/** `timeline: file:///…/out.html  (2787 events, 243 KiB)`. */
export function timelineLine(w: WrittenTimeline): string {
  return `timeline: ${timelineLink(w)}`;
}

/** `file:///…/out.html  (2787 events, 243 KiB)`: a file URL, which most terminals open on click. */
export function timelineLink(w: WrittenTimeline): string {
  return `${pathToFileURL(resolve(w.path)).href}  (${w.events} events, ${Math.ceil(w.bytes / 1024)} KiB)`;
}

/**
 * The trace file a run writes so that its timeline can be drawn: the user's `--trace` when given, else
 * a scratch file that `write` deletes once the page is written.
 */
export class TimelineTrace {
  readonly tracePath: string;
  private readonly scratch: boolean;

  constructor(
    private readonly htmlPath: string,
    userTrace: string | undefined,
  ) {
    this.scratch = userTrace === undefined;
    this.tracePath = userTrace ?? join(tmpdir(), `homeagent-timeline-${randomUUID()}.jsonl`);
  }

  /** Draws the page from the trace the run wrote. */
  write(): WrittenTimeline {
    try {
      return writeTimeline(readFileSync(this.tracePath, 'utf8'), this.htmlPath);
    } finally {
      this.discard();
    }
  }

  /** Deletes the scratch trace, if any (also when the run never happened). */
  discard(): void {
    if (this.scratch) rmSync(this.tracePath, { force: true });
  }
}

/**
 * Whether the page can be written, checked without creating it: an unusable input must not leave an
 * empty page behind, nor overwrite `inputs` (the trace it is drawn from, the scenario file).
 */
export function htmlPathProblem(path: string, flag: string, inputs: readonly NamedInput[] = []): Problem | null {
  return outputFileProblem(path, flag, 'page', inputs);
}

function defaultOutput(trace: string): string {
  return `${trace.replace(/\.jsonl?$/, '')}.html`;
}

function listed(problems: readonly string[]): string {
  return problems.length === 0 ? '' : ` (${problems.join('; ')})`;
}
