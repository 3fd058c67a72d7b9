/**
 * The floor the simulator is compared with: a one-await discrete-event loop. 64 agents each keep one
 * pending event in a binary min-heap ordered by (time, sequence); every event is popped, awaited once
 * (the simulator's cheapest possible hand-off to async code) and replaced by the agent's next event at
 * a pseudo-random later time. No kernel, trace, hash or monitor: the events per second it reaches is
 * what a simulator of this shape cannot beat in this process.
 */
export const DES_AGENTS = 64;

interface Pending {
  readonly atMs: number;
  readonly seq: number;
  readonly agent: number;
}

function before(a: Pending, b: Pending): boolean {
  return a.atMs < b.atMs || (a.atMs === b.atMs && a.seq < b.seq);
}

class MinHeap {
  private readonly items: Pending[] = [];

  get size(): number {
    return this.items.length;
  }

  push(p: Pending): void {
    const items = this.items;
    let i = items.length;
    items.push(p);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const up = items[parent] as Pending;
      if (!before(p, up)) break;
      items[i] = up;
      i = parent;
    }
    items[i] = p;
  }

  pop(): Pending | undefined {
    const items = this.items;
    const top = items[0];
    const last = items.pop();
    if (top === undefined || last === undefined || items.length === 0) return top;
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= items.length) break;
      const right = left + 1;
      const child = right < items.length && before(items[right] as Pending, items[left] as Pending) ? right : left;
      if (!before(items[child] as Pending, last)) break;
      items[i] = items[child] as Pending;
      i = child;
    }
    items[i] = last;
    return top;
  }
}

/** Runs `events` events through the loop; returns a checksum so the work cannot be optimised away. */
export async function runDesLoop(events: number): Promise<number> {
  const heap = new MinHeap();
  let seq = 0;
  let state = 1;
  const nextDelay = (): number => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    return 1 + (state % 997);
  };
  for (let agent = 0; agent < DES_AGENTS; agent++) heap.push({ atMs: nextDelay(), seq: seq++, agent });
  let checksum = 0;
  for (let done = 0; done < events; done++) {
    const event = heap.pop() as Pending;
    checksum = (checksum + event.agent * 31 + event.atMs) % 1_000_000_007;
    await handle(event);
    heap.push({ atMs: event.atMs + nextDelay(), seq: seq++, agent: event.agent });
  }
  return checksum;
}

async function handle(event: Pending): Promise<void> {
  if (event.seq < 0) throw new Error('unreachable');
}
