/**
 * The names and pools the scenario generator draws from (scenario-draws.ts) and writes into files
 * (scenario-build.ts): tools, sources, levels and steps, output devices and their capabilities,
 * inputch names, plugins and owners, `memory_write` triples, `memory_recall` keywords and the model's
 * answers to kernel tasks.
 */
import type { LevelJson, ReplyJson, StepJson } from './scenario-json.ts';

export const TOOL_NAMES = ['alpha', 'beta', 'gamma', 'delta'] as const;
/** Never declared: its calls end with the tool error "unknown tool nope" (docs/spec.md §3.8). */
export const UNKNOWN_TOOL = 'nope';
/** The generated MCP-shaped server and its tools, each with the arguments schema MCP_SCHEMA. */
export const MCP_SERVER = 'srv';
export const MCP_TOOL_NAMES = ['read', 'write', 'later'] as const;
/** A tool the server never lists. */
export const MCP_UNLISTED_TOOL = 'ghost';
export const MCP_SCHEMA = {
  type: 'object',
  properties: { n: { type: 'integer' } },
  required: ['n'],
} as const;
export const SOURCES = ['cli', 'qq', 'webui/x'] as const;
export const LEVELS: readonly LevelJson[] = ['L1', 'L2', 'L3', 'L4'];
export const STEPS: readonly StepJson[] = ['Prepare', 'Model', 'ToolExec'];

/** Output devices a scenario may declare (docs/spec.md §12.2 `outputs`); a send may also name UNDECLARED_DEVICE. */
export const DEVICES = ['speaker', 'panel', 'lamp'] as const;
export const UNDECLARED_DEVICE = 'ghost-device';
/** Device capabilities: absent (the default, text), with text, and without it (a send is refused). */
export const CAPS: readonly (readonly string[] | null)[] = [
  null,
  null,
  ['text'],
  ['text', 'audio'],
  ['light'],
  ['audio', 'light'],
];
/** Inputch names (registered at t = 0 or by events) and the queued-only consolidation channel (docs/spec.md §3.7). */
export const CHANNEL_NAMES = ['sensor-1', 'sensor-2', 'qq/group'] as const;
export const UNREGISTERED_CHANNEL = 'nowhere';
export const CONSOLIDATION_CHANNEL = '_consolidation_';
export const PLUGINS: readonly (string | null)[] = [null, 'sensors', 'qq'];
/** Owners: absent, unassigned, the root itself, and agents that do not exist (fallback routing, S21). */
export const OWNERS: readonly (string | null)[] = [null, '', 'root', 'ghost', 'gone-child'];

/** Triples for `memory_write`: the first four are valid, the rest well-typed but invalid (docs/spec.md §9: skipped). */
export const TRIPLE_POOL: readonly { readonly [key: string]: string }[] = [
  { subject: 'Alice', relation: 'knows', object: 'Bob', sentence: 'Alice knows Bob.' },
  { subject: 'Bob', relation: 'works_at', object: 'Acme' },
  { subject: 'Carol', relation: 'likes', object: 'Alice' },
  { subject: 'Dan', relation: 'lives_in', object: 'Paris' },
  { subject: 'A', relation: 'is', object: 'Bob' },
  { subject: 'Alice', relation: '', object: 'Bob' },
  { subject: 'Bob', relation: 'likes', object: '!!' },
  { subject: '   ', relation: 'knows', object: 'Carol' },
];
export const RECALL_KEYWORDS = ['Alice', 'Bob', 'Acme', 'Zed'] as const;

/**
 * Model answers for consolidation tasks (docs/spec.md §3.7) — and, since kernel tasks share the numbering
 * `root:<n>`, for panic and overflow notices too: JSON triples, JSON in prose with a fence (one valid
 * triple, one invalid), no triples, malformed text, and a first answer that also calls an output tool
 * (a consolidation must send nothing; a panic notice sends, then answers with the second entry).
 */
export const CONSOLIDATION_ANSWERS: readonly ReplyJson[][] = [
  [
    {
      text: '{"triples": [{"subject": "Alice", "relation": "knows", "object": "Bob", "sentence": "Alice knows Bob."}, {"subject": "Bob", "relation": "works_at", "object": "Acme"}]}',
    },
  ],
  [
    {
      text: 'Facts:\n```json\n{"triples": [{"subject": "Carol", "relation": "likes", "object": "Alice"}, {"subject": "X", "relation": "is", "object": "Y"}]}\n```',
    },
  ],
  [{ text: '{"triples": []}' }],
  [{ text: 'I found nothing worth remembering.' }],
  [{ text: '{"triples": "none"}' }],
  [{ text: '{"triples": [{"subject": "Alice"' }],
  [{ error: 'fail' }],
  [{ error: 'context_full' }, { text: '{"triples": [{"subject": "Erin", "relation": "owns", "object": "Acme"}]}' }],
  [
    {
      text: '{"triples": [{"subject": "Dan", "relation": "lives_in", "object": "Paris"}]}',
      tools: [{ name: `output_send__${DEVICES[0]}`, args: { text: 'a consolidation never sends this' } }],
    },
    { text: 'sent the notice' },
  ],
];
