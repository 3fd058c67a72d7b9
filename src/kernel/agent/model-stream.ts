/**
 * The accumulator of one streaming model call: text deltas and tool-call deltas keyed by index, as
 * the Provider port delivers them (docs/spec.md §11). It lives only while the call is live; a cancelled call
 * drops it whole, so a partial stream never reaches a frame (docs/spec.md §2.4, R5).
 */
import { assertNever } from '../assert.ts';
import type { ModelChunk, ToolCall } from '../ports/provider.ts';
import type { ModelStreamSnapshot } from '../snapshot/agent.ts';

interface PartialCall {
  id: string;
  name: string;
  args: string;
}

export type StreamResult =
  | { readonly ok: true; readonly text: string; readonly calls: ToolCall[] }
  | { readonly ok: false; readonly error: string };

export class ModelStream {
  private readonly text: string[] = [];
  private readonly calls = new Map<number, PartialCall>();

  add(chunk: ModelChunk): void {
    switch (chunk.type) {
      case 'text':
        this.text.push(chunk.text);
        break;
      case 'tool_call': {
        let partial = this.calls.get(chunk.index);
        if (partial === undefined) {
          partial = { id: chunk.id ?? '', name: chunk.name ?? '', args: '' };
          this.calls.set(chunk.index, partial);
        } else {
          // The first delta of an index names the call; later ones only append arguments.
          if (chunk.id !== undefined && partial.id === '') partial.id = chunk.id;
          if (chunk.name !== undefined && partial.name === '') partial.name = chunk.name;
        }
        partial.args += chunk.argsDelta ?? '';
        break;
      }
      case 'done':
        break;
      default:
        assertNever(chunk, 'model chunk');
    }
  }

  /** The stream so far (docs/spec.md §13.2): a restored stream accepts the call's next chunks as this one would. */
  snapshotState(): ModelStreamSnapshot {
    return {
      text: this.text.slice(),
      calls: [...this.calls].map(([index, p]) => ({ index, id: p.id, name: p.name, args: p.args })),
    };
  }

  static restore(s: ModelStreamSnapshot): ModelStream {
    const stream = new ModelStream();
    stream.text.push(...s.text);
    for (const c of s.calls) stream.calls.set(c.index, { id: c.id, name: c.name, args: c.args });
    return stream;
  }

  /** The final text and tool calls in index order; a call without a name makes the stream malformed. */
  finish(callId: string): StreamResult {
    const indexes = [...this.calls.keys()].sort((a, b) => a - b);
    const calls: ToolCall[] = [];
    for (const index of indexes) {
      const p = this.calls.get(index) as PartialCall;
      if (p.name === '') return { ok: false, error: `malformed stream: tool call ${index} has no name` };
      calls.push({ id: p.id === '' ? `${callId}-${index}` : p.id, name: p.name, args: p.args });
    }
    return { ok: true, text: this.text.join(''), calls };
  }
}
