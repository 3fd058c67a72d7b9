/**
 * What the model is shown of the output channels and what it is told when a send is refused
 * (docs/spec.md §8.4, §9.1): the send tool's description and schema, the list view's bound targets, and the
 * exact refusals of the call site, one per kind of bad argument.
 */
import { describe, expect, it } from 'vitest';
import { ChannelRegistry } from '../../../src/kernel/channels/registry.ts';
import {
  checkOutputSend,
  outputChannelOfTool,
  outputListView,
  outputToolSpecs,
  type OutputDevice,
} from '../../../src/kernel/channels/outputs.ts';

const QQ: OutputDevice = { name: 'qq', caps: ['text', 'image'] };
const USAGE = 'output_send__qq arguments must be a JSON object {"text": "..."}';

describe('the output_send__<channel> tool as the model sees it (docs/spec.md §8.4)', () => {
  it('its description names the channel, every capability and what a send returns', () => {
    const [spec] = outputToolSpecs([QQ], []);
    expect(spec?.name).toBe('output_send__qq');
    expect(spec?.description).toBe(
      'Send a message on the output channel "qq" (caps: text, image). Returns "ok" once sent.',
    );
  });

  it('its schema takes a required text, an optional type that can only be text, and nothing else', () => {
    const [spec] = outputToolSpecs([QQ], []);
    expect(spec?.parameters).toEqual({
      type: 'object',
      properties: {
        text: { type: 'string', description: 'The message to send.' },
        type: { type: 'string', enum: ['text'], description: 'The payload type (default text).' },
      },
      required: ['text'],
      additionalProperties: false,
    });
  });

  it('only a tool name with the send prefix names a channel, whatever its length', () => {
    expect(outputChannelOfTool('input_channels')).toBeNull();
    expect(outputChannelOfTool('output_list_channels')).toBeNull();
    expect(outputChannelOfTool('xoutput_send__qq')).toBeNull();
    expect(outputChannelOfTool('output_send__q')).toBe('q');
  });
});

describe('output_list_channels shows where a bound channel goes (docs/spec.md §8.4)', () => {
  it('a target bound without an inputch goes to the inputch of the same name; an explicit one is shown as bound', () => {
    const r = new ChannelRegistry();
    r.bindOutputTarget('qq', 'kid');
    r.bindOutputTarget('webui', 'kid', 'webui/panel');
    const devices: OutputDevice[] = [QQ, { name: 'webui', caps: ['text'] }, { name: 'speaker', caps: ['voice'] }];
    expect(outputListView(devices, [], r).split('\n')).toEqual([
      'output channels authorised for this agent (3):',
      '  - qq: [text, image] (target: kid / inputch qq)',
      '  - webui: [text] (target: kid / inputch webui/panel)',
      '  - speaker: [voice]',
    ]);
  });
});

describe('the call site refuses a bad send with a message that says what was wrong (docs/spec.md §9.1)', () => {
  it('a device that cannot carry text is named with its capabilities', () => {
    const devices: OutputDevice[] = [
      { name: 'lamp', caps: ['light', 'colour'] },
      { name: 'mute', caps: [] },
    ];
    expect(checkOutputSend(devices, [], 'lamp', { text: 'x' })).toEqual({
      ok: false,
      error: 'channel lamp cannot send text (caps: light, colour)',
    });
    expect(checkOutputSend(devices, [], 'mute', { text: 'x' })).toEqual({
      ok: false,
      error: 'channel mute cannot send text (caps: none)',
    });
  });

  it.each([
    ['JSON text that does not parse', '{"text": '],
    ['the JSON null', 'null'],
    ['a JSON array', '["hi"]'],
    ['a JSON string', '"hi"'],
    ['a number', 5],
    ['null', null],
    ['an array', ['hi']],
  ])('arguments that are not an object (%s) get the usage', (_what, args) => {
    expect(checkOutputSend([QQ], [], 'qq', args)).toEqual({ ok: false, error: USAGE });
  });

  it('an object without a string text gets the usage behind what is missing', () => {
    expect(checkOutputSend([QQ], [], 'qq', '{"type":"text"}')).toEqual({
      ok: false,
      error: `text must be a string; ${USAGE}`,
    });
  });

  it('JSON text of a good object is sent as parsed', () => {
    expect(checkOutputSend([QQ], [], 'qq', '{"text":"hello","type":"text"}')).toEqual({ ok: true, text: 'hello' });
  });
});
