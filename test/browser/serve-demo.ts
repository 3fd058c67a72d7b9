/**
 * `homeagent serve --model demo`, spawned as a user runs it, for the live page's browser tests and its
 * screenshot: on a free port, with a bearer token, without the terminal channel, and with the demo
 * model's pace (`--demo-chunk-ms`; 0 for tests that only wait for tasks to end).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { REPO_ROOT } from '../cli/run-bin.ts';

export interface Serve {
  readonly url: string;
  readonly child: ChildProcess;
  readonly exited: Promise<number | null>;
}

export function spawnServe(opts: {
  token: string;
  dataDir: string;
  demoChunkMs: number;
  /** A file for `--trace`. */
  trace?: string;
}): Promise<Serve> {
  const child = spawn(
    process.execPath,
    [
      'bin/homeagent.js',
      'serve',
      '--model',
      'demo',
      '--demo-chunk-ms',
      String(opts.demoChunkMs),
      '--port',
      '0',
      '--no-terminal',
      '--data-dir',
      opts.dataDir,
      ...(opts.trace === undefined ? [] : ['--trace', opts.trace]),
    ],
    {
      cwd: REPO_ROOT,
      env: { ...process.env, HOMEAGENT_TOKEN: opts.token },
      stdio: ['ignore', 'pipe', 'ignore'],
    },
  );
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    createInterface({ input: child.stdout ?? process.stdin }).on('line', (line) => {
      const m = /^listening on (http:\/\/\S+)$/.exec(line);
      if (m !== null) resolve({ url: m[1] ?? '', child, exited });
    });
  });
}
