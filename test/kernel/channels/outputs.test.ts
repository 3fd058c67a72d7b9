import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { ChannelRegistry } from '../../../src/kernel/channels/registry.ts';
import {
  OUTPUT_SEND_PREFIX,
  checkOutputSend,
  isAuthorized,
  outputChannelOfTool,
  OUTPUT_LIST_SPEC,
  outputListView,
  outputToolSpecs,
  type OutputDevice,
} from '../../../src/kernel/channels/outputs.ts';
import { routeInput } from '../../../src/kernel/channels/routing.ts';

const DEVICES: readonly OutputDevice[] = [
  { name: 'qq', caps: ['text', 'image'] },
  { name: 'webui', caps: ['text'] },
  { name: 'speaker', caps: ['text', 'voice'] },
];

const sendTools = (devices: readonly OutputDevice[], allowed: readonly string[]): string[] =>
  outputToolSpecs(devices, allowed).map((s) => s.name);

/** The device names listed by output_list_channels. */
const listed = (devices: readonly OutputDevice[], allowed: readonly string[]): string[] =>
  outputListView(devices, allowed, new ChannelRegistry())
    .split('\n')
    .filter((l) => l.startsWith('  - '))
    .map((l) => l.slice(4, l.indexOf(': [')));

const accepted = (devices: readonly OutputDevice[], allowed: readonly string[], names: readonly string[]): string[] =>
  names.filter((n) => checkOutputSend(devices, allowed, n, { text: 'hi' }).ok);

describe('output authorization (docs/spec.md §8.4)', () => {
  it('isAuthorized: an empty grant allows everything, otherwise membership', () => {
    expect(isAuthorized([], 'anything')).toBe(true);
    expect(isAuthorized(['qq'], 'qq')).toBe(true);
    expect(isAuthorized(['qq'], 'webui')).toBe(false);
  });

  it('S2 narrowed grant: only listed outputs are offered and listed; the call site refuses others', () => {
    const allowed = ['webui'];
    expect(sendTools(DEVICES, allowed)).toEqual(['output_send__webui']);
    expect(outputListView(DEVICES, allowed, new ChannelRegistry())).toBe(
      ['output channels authorised for this agent (1):', '  - webui: [text]'].join('\n'),
    );
    expect(checkOutputSend(DEVICES, allowed, 'webui', { text: 'hi' })).toEqual({ ok: true, text: 'hi' });
    expect(checkOutputSend(DEVICES, allowed, 'qq', { text: 'hi' })).toEqual({
      ok: false,
      error: 'channel qq is not authorised for this agent; see output_list_channels',
    });
    // A grant naming a channel with no device authorises nothing extra.
    expect(sendTools(DEVICES, ['nowhere'])).toEqual([]);
    expect(outputListView(DEVICES, ['nowhere'], new ChannelRegistry())).toBe(
      'no output channel is authorised for this agent',
    );
  });

  it('S3 full default grant: an empty allowedOutputs authorises every device at all three points', () => {
    expect(sendTools(DEVICES, [])).toEqual(['output_send__qq', 'output_send__webui', 'output_send__speaker']);
    expect(listed(DEVICES, [])).toEqual(['qq', 'webui', 'speaker']);
    expect(accepted(DEVICES, [], ['qq', 'webui', 'speaker'])).toEqual(['qq', 'webui', 'speaker']);
  });

  it("S1 an agent's channel assignment and output grant apply together", () => {
    const r = new ChannelRegistry();
    r.register({ name: 'qq/device-1', plugin: 'qq', output: 'qq' });
    r.assign('qq/device-1', 'r1');
    r.bindOutputTarget('qq', 'r1', 'qq/device-1');
    const r1Allowed = ['qq'];
    // Input on its inputch reaches r1, and r1 may answer on its granted output only.
    expect(routeInput(r, 'qq/device-1', 'root', new Set(['r1']))).toEqual({ kind: 'child', agent: 'r1' });
    expect(sendTools(DEVICES, r1Allowed)).toEqual(['output_send__qq']);
    expect(outputListView(DEVICES, r1Allowed, r)).toBe(
      [
        'output channels authorised for this agent (1):',
        '  - qq: [text, image] (target: r1 / inputch qq/device-1)',
      ].join('\n'),
    );
    expect(checkOutputSend(DEVICES, r1Allowed, 'webui', '{"text":"x"}').ok).toBe(false);
    expect(checkOutputSend(DEVICES, r1Allowed, 'qq', '{"text":"x"}')).toEqual({ ok: true, text: 'x' });
  });

  it('S1 the three points agree for random devices × grants', () => {
    const name = fc.constantFrom('qq', 'webui', 'speaker', 'tv', 'mail', 'qq/2');
    const device = fc.record({ name, caps: fc.subarray(['text', 'image', 'voice']) });
    const devicesArb = fc.array(device, { maxLength: 6 });
    const grantArb = fc.subarray(['qq', 'webui', 'tv', 'ghost']);
    fc.assert(
      fc.property(devicesArb, grantArb, (devices, allowed) => {
        const names = [...new Set(devices.map((d) => d.name)), 'ghost'];
        const firstOf = (n: string): OutputDevice | undefined => devices.find((d) => d.name === n);
        const tools = sendTools(devices, allowed).map((t) => t.slice(OUTPUT_SEND_PREFIX.length));
        const shown = listed(devices, allowed);
        const shownTextCapable = shown.filter((n) => firstOf(n)?.caps.includes('text') === true);
        // Point 1 (tool list) = point 3 (call site) = the text-capable part of point 2 (listing).
        expect(new Set(tools)).toEqual(new Set(accepted(devices, allowed, names)));
        expect(new Set(tools)).toEqual(new Set(shownTextCapable));
        for (const n of names) {
          const d = firstOf(n);
          // Listed exactly when the device exists with some capability and is authorised.
          expect(shown.includes(n)).toBe(d !== undefined && d.caps.length > 0 && isAuthorized(allowed, n));
          if (!isAuthorized(allowed, n)) {
            const refusal = checkOutputSend(devices, allowed, n, { text: 'hi' });
            expect(refusal.ok === false && refusal.error.includes('not authorised')).toBe(true);
          }
        }
      }),
      { numRuns: 200 },
    );
  });

  it('the call site refuses unknown devices, non-text devices and bad arguments', () => {
    const devices: OutputDevice[] = [...DEVICES, { name: 'lamp', caps: ['light'] }];
    expect(checkOutputSend(devices, [], 'ghost', { text: 'x' })).toEqual({
      ok: false,
      error: 'no output channel named "ghost"; see output_list_channels',
    });
    expect(checkOutputSend(devices, [], 'lamp', { text: 'x' })).toMatchObject({
      ok: false,
      error: expect.stringContaining('cannot send text'),
    });
    const bad: unknown[] = [
      {},
      { text: 3 },
      { text: '' },
      { text: 'x', type: 'image' },
      null,
      [],
      'not json',
      '"x"',
      5,
    ];
    for (const args of bad) {
      const out = checkOutputSend(devices, [], 'qq', args);
      expect(out.ok, JSON.stringify(args)).toBe(false);
    }
    expect(checkOutputSend(devices, [], 'qq', { text: 'x', type: 'text' })).toEqual({ ok: true, text: 'x' });
    expect(checkOutputSend(devices, [], 'qq', { text: 3 })).toMatchObject({
      error: expect.stringContaining('text must be a string'),
    });
    expect(checkOutputSend(devices, [], 'qq', { text: 'x', type: 'image' })).toMatchObject({
      error: expect.stringContaining('type must be "text"'),
    });
  });

  it('a device repeated by name counts once (first wins) at every point', () => {
    const devices: OutputDevice[] = [
      { name: 'qq', caps: ['text'] },
      { name: 'qq', caps: ['image'] },
    ];
    expect(sendTools(devices, [])).toEqual(['output_send__qq']);
    expect(outputListView(devices, [], new ChannelRegistry())).toContain('  - qq: [text]');
    expect(checkOutputSend(devices, [], 'qq', { text: 'x' }).ok).toBe(true);
  });

  it('tool specs: send tools are not parallel-safe and require text; the list tool is', () => {
    const [spec] = outputToolSpecs(DEVICES, ['qq']);
    expect(spec?.parallelSafe).toBe(false);
    expect(spec?.parameters).toMatchObject({
      type: 'object',
      properties: { text: { type: 'string' }, type: { type: 'string', enum: ['text'] } },
      required: ['text'],
    });
    expect(OUTPUT_LIST_SPEC).toEqual({
      name: 'output_list_channels',
      description: expect.stringContaining('output_send__<channel>'),
      parameters: { type: 'object', properties: {}, additionalProperties: false },
      parallelSafe: true,
    });
    expect(outputChannelOfTool('output_send__qq/2')).toBe('qq/2');
    expect(outputChannelOfTool('output_send__')).toBeNull();
    expect(outputChannelOfTool('memory_write')).toBeNull();
  });
});
