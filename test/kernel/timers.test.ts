import { describe, expect, it } from 'vitest';
import { decodeTimerKey, encodeTimerKey, type TimerKey } from '../../src/kernel/timers.ts';

describe('timer keys (timers.ts)', () => {
  it('encode to the frozen wire ids that commands, journals and golden traces carry', () => {
    expect(encodeTimerKey({ kind: 'cooldown', agent: 'root' })).toBe('cooldown:root');
    expect(encodeTimerKey({ kind: 'model-timeout', callId: 'm12' })).toBe('timeout:m12');
    expect(encodeTimerKey({ kind: 'offload', agent: 'root' })).toBe('offload:root');
  });

  it('decode what they encode, owner ids with colons included', () => {
    const keys: TimerKey[] = [
      { kind: 'cooldown', agent: 'root' },
      { kind: 'cooldown', agent: 'child:a' },
      { kind: 'model-timeout', callId: 'm1' },
      { kind: 'model-timeout', callId: '' },
      { kind: 'offload', agent: 'root' },
    ];
    for (const key of keys) expect(decodeTimerKey(encodeTimerKey(key))).toEqual(key);
  });

  it('decode an id the kernel never issues to null', () => {
    for (const id of ['', 'cooldown', 'timeout', 'offload', 'Offload:root', 'Cooldown:root', ' timeout:m1']) {
      expect(decodeTimerKey(id), id).toBeNull();
    }
  });
});
