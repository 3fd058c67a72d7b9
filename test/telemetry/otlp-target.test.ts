/**
 * Where serve sends its spans (docs/telemetry.md "Pointing serve at a collector"): `telemetry.otlp` of
 * the config file before OTEL_EXPORTER_OTLP_ENDPOINT, neither is no export; the endpoint is an http(s)
 * base URL and spans go to `<endpoint>/v1/traces`; OTEL_EXPORTER_OTLP_HEADERS is `k=v` pairs, values
 * percent-encoded, the file's headers over the variable's; every unusable value is a problem, named.
 */
import { describe, expect, it } from 'vitest';
import {
  OTLP_ENDPOINT_ENV,
  OTLP_HEADERS_ENV,
  OTLP_TRACES_PATH,
  otlpTarget,
  type TargetProblem,
} from '../../src/telemetry/index.ts';

function target(
  config: Parameters<typeof otlpTarget>[0],
  env: Record<string, string> = {},
): { target: ReturnType<typeof otlpTarget>; problems: TargetProblem[] } {
  const problems: TargetProblem[] = [];
  return { target: otlpTarget(config, env, problems), problems };
}

const ENDPOINT_PROBLEM = 'must be an http:// or https:// base URL, like http://127.0.0.1:4318';

describe('otlpTarget', () => {
  it('names the standard variables and the traces path', () => {
    expect([OTLP_ENDPOINT_ENV, OTLP_HEADERS_ENV, OTLP_TRACES_PATH]).toEqual([
      'OTEL_EXPORTER_OTLP_ENDPOINT',
      'OTEL_EXPORTER_OTLP_HEADERS',
      '/v1/traces',
    ]);
  });

  it('is null when neither the file nor the variable names an endpoint (a blank variable names none)', () => {
    expect(target(undefined)).toEqual({ target: null, problems: [] });
    expect(target(undefined, { [OTLP_ENDPOINT_ENV]: '  ', [OTLP_HEADERS_ENV]: 'a=b' })).toEqual({
      target: null,
      problems: [],
    });
  });

  it('takes the variable, trimmed, and its headers', () => {
    expect(
      target(undefined, { [OTLP_ENDPOINT_ENV]: ' https://collector.example:4318 ', [OTLP_HEADERS_ENV]: 'k=v' }),
    ).toEqual({
      target: {
        endpoint: 'https://collector.example:4318',
        url: 'https://collector.example:4318/v1/traces',
        headers: { k: 'v' },
        from: OTLP_ENDPOINT_ENV,
      },
      problems: [],
    });
  });

  it("prefers the file's endpoint; the file's headers win over the variable's of the same name", () => {
    const r = target(
      { endpoint: 'http://127.0.0.1:4318//', headers: { authorization: 'Bearer file', 'x-file': '1' } },
      { [OTLP_ENDPOINT_ENV]: 'http://elsewhere:1', [OTLP_HEADERS_ENV]: 'authorization=Bearer%20env,x-env=2' },
    );
    expect(r).toEqual({
      target: {
        endpoint: 'http://127.0.0.1:4318//',
        url: 'http://127.0.0.1:4318/v1/traces',
        headers: { authorization: 'Bearer file', 'x-env': '2', 'x-file': '1' },
        from: 'telemetry.otlp',
      },
      problems: [],
    });
  });

  it('a file without headers takes the variable headers alone', () => {
    expect(target({ endpoint: 'http://h:1/base' }, { [OTLP_HEADERS_ENV]: 'a=1' }).target).toEqual({
      endpoint: 'http://h:1/base',
      url: 'http://h:1/base/v1/traces',
      headers: { a: '1' },
      from: 'telemetry.otlp',
    });
  });

  it('refuses an endpoint that is no URL, or not http(s), naming the setting it came from', () => {
    expect(target({ endpoint: 'localhost:4318 ' })).toEqual({
      target: null,
      problems: [{ path: 'telemetry.otlp.endpoint', message: ENDPOINT_PROBLEM }],
    });
    expect(target(undefined, { [OTLP_ENDPOINT_ENV]: 'ftp://h:21' })).toEqual({
      target: null,
      problems: [{ path: OTLP_ENDPOINT_ENV, message: ENDPOINT_PROBLEM }],
    });
    expect(target({ endpoint: 'not a url' }).problems).toEqual([
      { path: 'telemetry.otlp.endpoint', message: ENDPOINT_PROBLEM },
    ]);
    expect(target({ endpoint: 'xhttp://h' }).problems).toHaveLength(1);
    expect(target({ endpoint: 'https://h' }).problems).toEqual([]);
  });

  it('reads header pairs: blanks skipped, keys and values trimmed, values percent-decoded', () => {
    const r = target(undefined, {
      [OTLP_ENDPOINT_ENV]: 'http://h:1',
      [OTLP_HEADERS_ENV]: ' a = x%2Cy , ,b=c=d,bad=%E0%A4%A,empty=',
    });
    expect(r.problems).toEqual([]);
    expect(r.target?.headers).toEqual({ a: 'x,y', b: 'c=d', bad: '%E0%A4%A', empty: '' });
  });

  it('a pair without a key, or without "=", is a problem that names the pair by its place, not its text', () => {
    const r = target(undefined, {
      [OTLP_ENDPOINT_ENV]: 'http://h:1',
      [OTLP_HEADERS_ENV]: 'ok=1,secret-token, =v,k2=2',
    });
    expect(r.problems).toEqual([
      { path: OTLP_HEADERS_ENV, message: 'pair 2 is not key=value; write k1=v1,k2=v2' },
      { path: OTLP_HEADERS_ENV, message: 'pair 3 is not key=value; write k1=v1,k2=v2' },
    ]);
    expect(r.target?.headers).toEqual({ ok: '1', k2: '2' });
  });
});
