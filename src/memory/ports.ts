/**
 * The composition of the kernel's memory port: a GraphMemory plus the zod boundary parsers for what
 * models write into it (consolidation answers, `memory_write` / `memory_recall` arguments).
 */
import type { GraphMemory, MemoryParsers, MemoryPorts } from '../kernel/index.ts';
import { parseConsolidationAnswer, parseMemoryRecallArgs, parseMemoryWriteArgs } from './consolidation.ts';

export const MEMORY_PARSERS: MemoryParsers = {
  consolidationAnswer(text) {
    const parsed = parseConsolidationAnswer(text);
    return parsed.ok ? { ok: true, value: parsed.triples } : parsed;
  },
  memoryWriteArgs: (args) => parseMemoryWriteArgs(args),
  memoryRecallArgs: (args) => parseMemoryRecallArgs(args),
};

export function memoryPorts(store: GraphMemory): MemoryPorts {
  return { store, parsers: MEMORY_PARSERS };
}
