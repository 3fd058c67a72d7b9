/**
 * A FIFO with O(1) push and shift: a ring buffer whose capacity doubles when full. The scheduler's
 * queues sit on the hot path, where `Array.prototype.shift` (O(n)) and resetting emptied arrays cost.
 */
export class Deque<T> {
  private items: (T | undefined)[] = new Array<T | undefined>(16);
  private head = 0;
  private size = 0;
  private mask = 15;

  get length(): number {
    return this.size;
  }

  push(item: T): void {
    if (this.size === this.items.length) this.grow();
    this.items[(this.head + this.size) & this.mask] = item;
    this.size += 1;
  }

  peek(): T | undefined {
    // Stryker disable next-line ConditionalExpression: an empty deque holds undefined at its head (shift and drain clear the slots)
    return this.size === 0 ? undefined : this.items[this.head];
  }

  shift(): T | undefined {
    if (this.size === 0) return undefined;
    const item = this.items[this.head];
    this.items[this.head] = undefined;
    this.head = (this.head + 1) & this.mask;
    this.size -= 1;
    return item;
  }

  /** Removes and returns every item, oldest first. */
  drain(): T[] {
    const all = this.toArray();
    this.items.fill(undefined);
    this.head = 0;
    this.size = 0;
    return all;
  }

  /** The item `index` places behind the head (0 = the head); the caller keeps 0 <= index < length. */
  at(index: number): T {
    return this.items[(this.head + index) & this.mask] as T;
  }

  toArray(): T[] {
    const out: T[] = [];
    for (let i = 0; i < this.size; i++) out.push(this.items[(this.head + i) & this.mask] as T);
    return out;
  }

  private grow(): void {
    const items = this.toArray() as (T | undefined)[];
    const capacity = this.items.length * 2;
    items.length = capacity;
    this.items = items;
    this.head = 0;
    this.mask = capacity - 1;
  }
}
