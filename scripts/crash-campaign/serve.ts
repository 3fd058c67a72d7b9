/**
 * One run of the real server, as an operator starts it: `node bin/homeagent.js serve --config FILE
 * --port 0 --no-terminal`, its stdout read line by line (the recovery line, the listening line, the
 * trace line at a clean shutdown) and its stderr (the log) appended to one file for the whole campaign.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { createInterface } from 'node:readline';

export interface Recovery {
  readonly events: number;
  readonly ms: number;
  readonly pending: number;
}

export interface ServeRun {
  readonly child: ChildProcess;
  readonly url: string;
  /** Every stdout line so far. */
  readonly stdout: readonly string[];
  /** The recovery line's figures; null on the first start of a data directory. */
  readonly recovery: Recovery | null;
  /** Wall time from the spawn to the listening line. */
  readonly startMs: number;
  /** Resolves when the process has exited: its code, or null and the signal. */
  readonly exited: Promise<{ readonly code: number | null; readonly signal: NodeJS.Signals | null }>;
}

const RECOVERY_LINE = /^recovered (\d+) events from (?:start|snapshot) in (\d+) ms; (\d+) tasks pending$/;
const TRACE_LINE = /^trace ([0-9a-f]{64}) \((\d+) events\)$/;

/** Starts serve and resolves once it listens; rejects, with the exit, when it stops before. */
export async function startServe(root: string, config: string, logFile: string): Promise<ServeRun> {
  const startedMs = performance.now();
  const log = openSync(logFile, 'a');
  const child = spawn(
    process.execPath,
    ['bin/homeagent.js', 'serve', '--config', config, '--port', '0', '--no-terminal'],
    {
      cwd: root,
      stdio: ['ignore', 'pipe', log],
    },
  );
  closeSync(log);
  const stdout: string[] = [];
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('close', (code, signal) => resolve({ code, signal })),
  );
  const url = await new Promise<string>((resolve, reject) => {
    void exited.then((e) =>
      reject(new Error(`serve exited ${String(e.code ?? e.signal)} before listening; stdout: ${stdout.join(' | ')}`)),
    );
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (line) => {
      stdout.push(line);
      const m = /^listening on (http:\/\/\S+)$/.exec(line);
      if (m?.[1] !== undefined) resolve(m[1]);
    });
  });
  const m = RECOVERY_LINE.exec(stdout[0] ?? '');
  return {
    child,
    url,
    stdout,
    recovery: m === null ? null : { events: Number(m[1]), ms: Number(m[2]), pending: Number(m[3]) },
    startMs: performance.now() - startedMs,
    exited,
  };
}

/** The `trace <hash> (<n> events)` line a clean shutdown prints, once the process has exited. */
export function traceLine(run: ServeRun): { readonly traceHash: string; readonly events: number } | null {
  for (const line of run.stdout) {
    const m = TRACE_LINE.exec(line);
    if (m?.[1] !== undefined) return { traceHash: m[1], events: Number(m[2]) };
  }
  return null;
}
