/**
 * docs/spec.md §13.4 and STYLE rule 14: without an OTLP target, serve never loads the OpenTelemetry SDK or
 * its exporter (they are CommonJS packages, so what was loaded shows in the require cache). Checked in a
 * process of its own: other tests in this one load them.
 */
import { execFile } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, SPAWN_TIMEOUT_MS } from '../cli/run-bin.ts';

const SCRIPT = `
import { createRequire } from 'node:module';
import { PassThrough } from 'node:stream';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
const { createServer } = await import('./src/server/create-server.ts');
const { resolveSettings } = await import('./src/server/settings.ts');
const configured = process.argv[1] === 'on';
const env = configured ? { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9' } : {};
const r = resolveSettings({ model: 'demo', demoChunkMs: '0', port: '0', terminal: false, dataDir: mkdtempSync(join(tmpdir(), 'ha-lazy-')) }, env);
if (!r.ok) throw new Error(JSON.stringify(r.problems));
const s = await createServer(r.settings, { log: () => {}, stdin: new PassThrough(), stdout: new PassThrough(), env, onFatal: () => {} });
await fetch(s.url + '/v1/inputs', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"text":"hi"}' });
await s.shutdown('over');
const loaded = Object.keys(createRequire(import.meta.url).cache).filter((k) => /@opentelemetry[\\\\/](sdk-trace|exporter-trace-otlp-http)/.test(k));
console.log(JSON.stringify({ loaded: loaded.length }));
process.exit(0);
`;

function run(mode: 'on' | 'off'): Promise<{ loaded: number }> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '-e', SCRIPT, mode],
      { cwd: REPO_ROOT, timeout: SPAWN_TIMEOUT_MS, env: { ...process.env, OTEL_EXPORTER_OTLP_ENDPOINT: '' } },
      (err, stdout, stderr) => {
        if (err !== null) reject(new Error(`${err.message}\n${stderr}`));
        else resolve(JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as { loaded: number });
      },
    );
  });
}

describe('the OpenTelemetry packages', () => {
  it('are not loaded by a serve without an OTLP target, and are with one', { timeout: SPAWN_TIMEOUT_MS }, async () => {
    const [off, on] = await Promise.all([run('off'), run('on')]);
    expect(off.loaded).toBe(0);
    expect(on.loaded).toBeGreaterThan(0);
  });
});
