/**
 * docs/spec.md §13.4 and §13.1a: where serve sends its spans — `telemetry.otlp` of the config file, else
 * OTEL_EXPORTER_OTLP_ENDPOINT / OTEL_EXPORTER_OTLP_HEADERS, else nowhere — and the collector's headers are
 * secrets: redacted from everything serve writes, only their names in the journal header.
 */
import { describe, expect, it } from 'vitest';
import { publicConfig } from '../../src/server/public-config.ts';
import { Redactor, secretsOf } from '../../src/server/secrets.ts';
import { resolveSettings, type ServeSettings } from '../../src/server/settings.ts';
import { configFiles } from '../support/config-files.ts';

const configFile = configFiles('homeagent-otlp-settings-');

function settings(config: unknown, env: Record<string, string> = {}): ServeSettings {
  const r = resolveSettings({ model: 'demo', config: configFile(config) }, env);
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  return r.settings;
}

function problems(config: unknown, env: Record<string, string> = {}): Array<{ path: string }> {
  const r = resolveSettings({ model: 'demo', config: configFile(config) }, env);
  return r.ok ? [] : r.problems;
}

describe('telemetry settings', () => {
  it('is off unless configured', () => {
    expect(settings({}).telemetry).toBeUndefined();
    expect(settings({}, { OTEL_EXPORTER_OTLP_HEADERS: 'a=b' }).telemetry).toBeUndefined();
  });

  it('telemetry.otlp.endpoint is a base URL: spans go to <endpoint>/v1/traces', () => {
    const t = settings({ telemetry: { otlp: { endpoint: 'http://127.0.0.1:4318/', headers: { 'x-k': 'v' } } } });
    expect(t.telemetry).toEqual({
      endpoint: 'http://127.0.0.1:4318/',
      url: 'http://127.0.0.1:4318/v1/traces',
      headers: { 'x-k': 'v' },
      from: 'telemetry.otlp',
    });
  });

  it('else the standard variables, headers percent-decoded', () => {
    const t = settings(
      {},
      {
        OTEL_EXPORTER_OTLP_ENDPOINT: 'https://otel.example:4318/base',
        OTEL_EXPORTER_OTLP_HEADERS: 'api-key=a%3Db, x=1',
      },
    );
    expect(t.telemetry).toEqual({
      endpoint: 'https://otel.example:4318/base',
      url: 'https://otel.example:4318/base/v1/traces',
      headers: { 'api-key': 'a=b', x: '1' },
      from: 'OTEL_EXPORTER_OTLP_ENDPOINT',
    });
  });

  it('an endpoint that cannot work, an unknown key or a malformed header list is a problem naming where', () => {
    expect(problems({ telemetry: { otlp: { endpoint: 'ftp://x' } } }).map((p) => p.path)).toEqual([
      'telemetry.otlp.endpoint',
    ]);
    expect(problems({ telemetry: { otlp: { endpoint: 'http://x', protocol: 'grpc' } } })[0]?.path).toContain(
      'telemetry.otlp',
    );
    expect(problems({}, { OTEL_EXPORTER_OTLP_ENDPOINT: 'not a url' }).map((p) => p.path)).toEqual([
      'OTEL_EXPORTER_OTLP_ENDPOINT',
    ]);
    const bad = problems({}, { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://x', OTEL_EXPORTER_OTLP_HEADERS: 'secretvalue' });
    expect(bad.map((p) => p.path)).toEqual(['OTEL_EXPORTER_OTLP_HEADERS']);
    expect(JSON.stringify(bad)).not.toContain('secretvalue');
  });

  it('header values and endpoint credentials are secrets; the journal header has the header names only', () => {
    const s = settings({
      telemetry: {
        otlp: { endpoint: 'http://user:pw-9f8e7d6c@127.0.0.1:4318', headers: { authorization: 'Bearer tok-1a2b3c4d' } },
      },
    });
    const redactor = new Redactor(secretsOf(s, {}));
    expect(redactor.redact('sent Bearer tok-1a2b3c4d and pw-9f8e7d6c')).toBe('sent [redacted] and [redacted]');
    const header = JSON.stringify(publicConfig(s));
    expect(header).not.toContain('tok-1a2b3c4d');
    expect(header).not.toContain('pw-9f8e7d6c');
    expect(publicConfig(s)['telemetry']).toEqual({
      otlp: { endpoint: expect.stringContaining('127.0.0.1:4318') as unknown, headers: ['authorization'] },
    });
    expect(publicConfig(settings({}))['telemetry']).toBeUndefined();
  });
});
