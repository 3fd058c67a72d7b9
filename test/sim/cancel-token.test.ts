import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../../src/clock/index.ts';
import { CancelToken } from '../../src/sim/cancel-token.ts';

describe('CancelToken (the fakes’ cancellation)', () => {
  it('aborts once: listeners run in order, once, with the reason set; a removed one does not run', () => {
    const token = new CancelToken();
    const seen: string[] = [];
    const removed = (): void => void seen.push('removed');
    token.signal.addEventListener('abort', () => seen.push(`a ${String(token.signal.reason)}`));
    token.signal.addEventListener('abort', removed);
    token.signal.addEventListener('abort', { handleEvent: (e) => seen.push(`b ${e.type}`) });
    token.signal.removeEventListener('abort', removed);
    expect(token.signal.aborted).toBe(false);
    expect(() => token.signal.throwIfAborted()).not.toThrow();
    token.abort('why');
    token.abort('again');
    expect(seen).toEqual(['a why', 'b abort']);
    expect(token.signal.aborted).toBe(true);
    expect(token.signal.reason).toBe('why');
    expect(() => token.signal.throwIfAborted()).toThrow('why');
  });

  it('is accepted where the ports take an AbortSignal', async () => {
    const token = new CancelToken();
    const reason = Object.assign(new Error('stop'), { name: 'AbortError' });
    const clock = new VirtualClock();
    const slept = clock.sleep(1000, token.signal);
    token.abort(reason);
    await expect(slept).rejects.toBe(reason);
    expect(clock.runNext()).toBe(false);
  });
});
