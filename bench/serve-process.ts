/**
 * What the serve benchmarks share: a server (or its baseline) as a separate process on 127.0.0.1,
 * ready once it prints its listening line, and autocannon's load of `POST /v1/inputs`, every request
 * with a text of its own (the kernel de-duplicates repeats from other channels; autocannon's
 * `idReplacement` sends nothing on 8.0.0, so `setupRequest` does it).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import autocannon from 'autocannon';

const START_TIMEOUT_MS = 30_000;

export interface ServeProcess {
  readonly child: ChildProcess;
  readonly url: string;
  /** The stdout lines up to and with the listening line. */
  readonly lines: readonly string[];
}

/** Starts `node <args>` in `cwd`; resolves once it prints `listening on <url>`. */
export function startServeProcess(name: string, args: readonly string[], cwd: string): Promise<ServeProcess> {
  const child = spawn(process.execPath, [...args], { cwd, stdio: ['ignore', 'pipe', 'ignore'] });
  const lines: string[] = [];
  return new Promise((resolveStart, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`${name} did not start in ${START_TIMEOUT_MS} ms`)),
      START_TIMEOUT_MS,
    );
    child.on('exit', (code) => reject(new Error(`${name} exited ${String(code)} before listening`)));
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (line) => {
      lines.push(line);
      const m = /^listening on (\S+)/.exec(line);
      if (m?.[1] === undefined) return;
      clearTimeout(timer);
      resolveStart({ child, url: m[1], lines });
    });
  });
}

/** SIGTERM, and resolves once the process has closed. */
export async function stopServeProcess(child: ChildProcess): Promise<void> {
  const closed = new Promise((resolveClose) => child.once('close', resolveClose));
  child.kill('SIGTERM');
  await closed;
}

let sent = 0;

/** `connections` clients posting inputs to `url` for `durationS` seconds. */
export function loadInputs(url: string, connections: number, durationS: number): Promise<autocannon.Result> {
  return autocannon({
    url: `${url}/v1/inputs`,
    connections,
    duration: durationS,
    requests: [
      {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        setupRequest: (req) => ({ ...req, body: JSON.stringify({ text: `hello ${(sent += 1)}` }) }),
      },
    ],
  });
}
