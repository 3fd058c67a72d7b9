/** Reads a provider stream to its end, keeping the chunks and the error it ended with, if any. */
import type { ModelChunk } from '../../src/kernel/index.ts';

export interface Collected {
  readonly chunks: ModelChunk[];
  readonly error: unknown;
}

export async function collect(
  stream: AsyncIterable<ModelChunk>,
  onChunk?: (chunk: ModelChunk, n: number) => void,
): Promise<Collected> {
  const chunks: ModelChunk[] = [];
  try {
    for await (const chunk of stream) {
      chunks.push(chunk);
      onChunk?.(chunk, chunks.length);
    }
    return { chunks, error: null };
  } catch (error) {
    return { chunks, error };
  }
}

/** The text and the assembled tool calls of a chunk list, as the kernel's accumulator would see them. */
export function assemble(chunks: readonly ModelChunk[]): {
  text: string;
  calls: { id: string; name: string; args: string }[];
} {
  let text = '';
  const calls = new Map<number, { id: string; name: string; args: string }>();
  for (const c of chunks) {
    if (c.type === 'text') text += c.text;
    if (c.type !== 'tool_call') continue;
    const call = calls.get(c.index) ?? { id: '', name: '', args: '' };
    if (c.id !== undefined) call.id = c.id;
    if (c.name !== undefined) call.name = c.name;
    call.args += c.argsDelta ?? '';
    calls.set(c.index, call);
  }
  return { text, calls: [...calls.entries()].sort((a, b) => a[0] - b[0]).map((e) => e[1]) };
}
