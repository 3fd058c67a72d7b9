/**
 * The kernel's memory parsers (the MemoryParsers port): what models write into graph memory
 * (consolidation answers, `memory_write` / `memory_recall` arguments), checked by this folder's zod
 * parsers (consolidation.ts); and `memoryPorts`, which pairs them with a GraphMemory.
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
