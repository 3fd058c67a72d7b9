/**
 * src/server/secrets.ts piece by piece: where secrets are found (MCP servers, telemetry, URLs that do
 * not parse or hold malformed percent-encoding), the order secrets are searched in, and which inputs
 * the Redactor screens at the kernel's door, each kept as the same object when nothing in it changed.
 */
import { describe, expect, it } from 'vitest';
import type { KernelInput } from '../../src/kernel/index.ts';
import { publicURL, Redactor, REDACTED, secretsOf, shortSecretWarnings } from '../../src/server/secrets.ts';
import type { ServeSettings } from '../../src/server/settings.ts';
import type { OtlpTarget } from '../../src/telemetry/index.ts';

const SECRET = 'key/12345';
const redactor = new Redactor([{ where: 'k', value: SECRET }]);

function settingsWith(fields: Partial<ServeSettings>): ServeSettings {
  return { token: null, mcpServers: [], model: { kind: 'demo' }, ...fields } as unknown as ServeSettings;
}

describe('secretsOf', () => {
  it("finds every MCP server's env and header values and its URL's credentials, with where each is", () => {
    const found = secretsOf(
      settingsWith({
        mcpServers: [
          {
            name: 'files',
            transport: { kind: 'stdio', command: 'x', args: [], env: { API: 'env-value-1' }, cwd: null },
            tools: null,
            parallelSafe: false,
            timeoutMs: 1000,
          },
          {
            name: 'web',
            transport: {
              kind: 'http',
              url: 'https://u:p@mcp.example/x?token=tok-value-1&page=2&secret=',
              headers: { authorization: 'Bearer header-1' },
            },
            tools: null,
            parallelSafe: false,
            timeoutMs: 1000,
          },
        ],
      }),
      {},
    );
    expect(found).toEqual([
      { where: 'mcpServers "files" env API', value: 'env-value-1' },
      { where: 'mcpServers "web" header authorization', value: 'Bearer header-1' },
      { where: 'mcpServers "web" url userinfo', value: 'u' },
      { where: 'mcpServers "web" url userinfo', value: 'p' },
      { where: 'mcpServers "web" url token', value: 'tok-value-1' },
    ]);
  });

  it("finds the telemetry headers and the collector endpoint's credentials", () => {
    const found = secretsOf(
      settingsWith({
        telemetry: {
          endpoint: 'https://collector.example:4318?api_key=otlp-key-1',
          headers: { 'x-honeycomb-team': 'team-key-1' },
        } as unknown as OtlpTarget,
      }),
      {},
    );
    expect(found).toEqual([
      { where: 'telemetry header x-honeycomb-team', value: 'team-key-1' },
      { where: 'telemetry.otlp.endpoint api_key', value: 'otlp-key-1' },
    ]);
  });

  it('a URL that does not parse holds no credentials, and publicURL does not show it at all', () => {
    const providers = (baseURL: string): ServeSettings =>
      settingsWith({
        model: { kind: 'providers', providers: [{ name: 'p', kind: 'openai', model: 'm', baseURL }] },
      } as unknown as Partial<ServeSettings>);
    expect(secretsOf(providers('not a url with secret-1234'), {})).toEqual([]);
    expect(publicURL('not a url with secret-1234')).toBe(REDACTED);
    // Malformed percent-encoding in the userinfo: the value as written is the secret.
    expect(secretsOf(providers('https://user:ab%E0%A4%Azz@h/v1'), {}).map((s) => s.value)).toEqual([
      'user',
      'ab%E0%A4%Azz',
    ]);
  });

  it('warns once per place of a secret too short to search for, never with the value', () => {
    const warnings = shortSecretWarnings([
      { where: 'the token', value: 'abc' },
      { where: 'the token', value: 'abd' },
      { where: 'long', value: 'long-enough-1' },
    ]);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('the token');
    expect(warnings[0]).not.toContain('abc');
  });
});

describe('Redactor', () => {
  it('searches the longer secret first, so a secret inside another leaves no piece of it', () => {
    const r = new Redactor([
      { where: 'a', value: 'abcdefgh' },
      { where: 'b', value: 'abcdefgh-longer' },
    ]);
    expect(r.redact('x abcdefgh-longer y abcdefgh')).toBe('x [redacted] y [redacted]');
  });

  it('orders secrets of one length by their text, whatever order they were configured in', () => {
    const overlapping = 'aaaaaaabc';
    for (const order of [
      ['aaaaaabc', 'aaaaaaab'],
      ['aaaaaaab', 'aaaaaabc'],
    ])
      expect(new Redactor(order.map((value) => ({ where: 'w', value }))).redact(overlapping)).toBe('[redacted]c');
  });

  it('screens submissions, queued after a task too, model and tool failures, and streamed tool arguments', () => {
    const submission = { id: 't', cls: 'queued', text: `say ${SECRET}`, source: 'http' } as const;
    const cases: [KernelInput, KernelInput][] = [
      [
        { type: 'submit', submission },
        { type: 'submit', submission: { ...submission, text: 'say [redacted]' } },
      ],
      [
        { type: 'submit.after', task: 'p', submission },
        { type: 'submit.after', task: 'p', submission: { ...submission, text: 'say [redacted]' } },
      ],
      [
        { type: 'model.failed', callId: 'c', failure: 'error', error: `401 for ${SECRET}` },
        { type: 'model.failed', callId: 'c', failure: 'error', error: '401 for [redacted]' },
      ],
      [
        { type: 'tool.failed', callId: 'c', error: `threw ${SECRET}` },
        { type: 'tool.failed', callId: 'c', error: 'threw [redacted]' },
      ],
      [
        { type: 'model.chunk', callId: 'c', chunk: { type: 'tool_call', index: 0, argsDelta: `{"k":"${SECRET}"}` } },
        { type: 'model.chunk', callId: 'c', chunk: { type: 'tool_call', index: 0, argsDelta: '{"k":"[redacted]"}' } },
      ],
    ];
    for (const [input, screened] of cases) expect(redactor.input(input)).toEqual(screened);
  });

  it('keeps an input that holds no secret, or carries no text from outside, as the same object', () => {
    const inputs: KernelInput[] = [
      { type: 'submit', submission: { id: 't', cls: 'queued', text: 'hello', source: 'http' } },
      { type: 'submit.after', task: 'p', submission: { id: 't', cls: 'queued', text: 'hello', source: 'http' } },
      { type: 'model.failed', callId: 'c', failure: 'error', error: '500' },
      { type: 'tool.failed', callId: 'c', error: 'threw' },
      { type: 'tool.done', callId: 'c', result: { ok: true, output: 'fine' } },
      { type: 'model.chunk', callId: 'c', chunk: { type: 'tool_call', index: 0, argsDelta: '{}' } },
      { type: 'model.chunk', callId: 'c', chunk: { type: 'tool_call', index: 0, id: 'x', name: SECRET } },
      {
        type: 'model.chunk',
        callId: 'c',
        chunk: { type: 'done', finishReason: 'stop', usage: { inputTokens: 1, outputTokens: 1 } },
      },
      { type: 'model.done', callId: 'c', usage: { inputTokens: 1, outputTokens: 1 } },
      { type: 'timer.fired', id: SECRET },
      { type: 'stop' },
    ];
    for (const input of inputs) expect(redactor.input(input)).toBe(input);
  });

  it("keeps a tool's schema as the same object when no string in it, arrays and nulls included, changed", () => {
    const parameters = { type: 'object', properties: { n: { enum: [1, null, 'a'], default: null } }, required: ['n'] };
    const tool = { name: 's__t', description: 'd', parameters, parallelSafe: false };
    const input: KernelInput = { type: 'tools.set', tools: [tool] };
    expect(redactor.input(input)).toBe(input);
    const leaky: KernelInput = {
      type: 'tools.set',
      tools: [{ ...tool, parameters: { ...parameters, required: ['n', SECRET] } }],
    };
    const screened = redactor.input(leaky);
    expect(screened).toEqual({
      type: 'tools.set',
      tools: [{ ...tool, parameters: { ...parameters, required: ['n', '[redacted]'] } }],
    });
    if (screened.type !== 'tools.set') throw new Error('not a tools.set');
    expect(screened.tools[0]?.parameters.properties).toBe(parameters.properties);
  });
});
