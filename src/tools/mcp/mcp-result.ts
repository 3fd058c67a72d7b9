/**
 * An MCP `tools/call` result as the model reads it (docs/spec.md §13.3): the text content is the result;
 * other content (images, audio, resources, links) is summarized by type and size, since the kernel's
 * conversation is text; a result with `isError` is a tool error (`ok: false`); a result over
 * RESULT_BYTES_MAX is cut, with a note saying how much there was.
 */
import type { ToolResult } from '../../kernel/index.ts';

/** Result bytes kept, as for command-line tools. */
export const RESULT_BYTES_MAX = 1 << 20;

/**
 * A CallToolResult as the SDK returns it: read field by field, since the SDK's type also admits the
 * protocol's first shape (`toolResult`, kept for old servers) and widens between versions.
 */
export function toToolResult(result: Readonly<Record<string, unknown>>): ToolResult {
  const content = Array.isArray(result['content']) ? (result['content'] as unknown[]) : [];
  const parts = content.map(describeContent);
  // A result that carries only structured content (or the first protocol's `toolResult`) is still an answer.
  const structured = result['structuredContent'] ?? result['toolResult'];
  if (parts.length === 0 && structured !== undefined) parts.push(JSON.stringify(structured));
  return { ok: result['isError'] !== true, output: cut(parts.join('\n')) };
}

function describeContent(block: unknown): string {
  if (typeof block !== 'object' || block === null) return '[content of an unknown shape]';
  const b = block as Record<string, unknown>;
  switch (b['type']) {
    case 'text':
      return typeof b['text'] === 'string' ? b['text'] : '';
    case 'image':
    case 'audio':
      return `[${b['type']} ${mime(b)}, ${base64Bytes(b['data'])} bytes]`;
    case 'resource': {
      const r = (typeof b['resource'] === 'object' && b['resource'] !== null ? b['resource'] : {}) as Record<
        string,
        unknown
      >;
      const size =
        typeof r['text'] === 'string'
          ? `${Buffer.byteLength(r['text'])} bytes of text`
          : `${base64Bytes(r['blob'])} bytes`;
      return `[resource ${String(r['uri'] ?? '')} ${mime(r)}, ${size}]`;
    }
    case 'resource_link':
      return `[resource link ${String(b['uri'] ?? '')} ${mime(b)}]`;
    default:
      return `[${typeof b['type'] === 'string' ? b['type'] : 'unknown'} content]`;
  }
}

function mime(b: Record<string, unknown>): string {
  return typeof b['mimeType'] === 'string' ? b['mimeType'] : 'of unknown type';
}

/** The decoded size of base64 text, without decoding it. */
function base64Bytes(data: unknown): number {
  if (typeof data !== 'string') return 0;
  const padding = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((data.length * 3) / 4) - padding);
}

/** The text within RESULT_BYTES_MAX UTF-8 bytes (never splitting a character), with a note when cut. */
function cut(text: string): string {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= RESULT_BYTES_MAX) return text;
  let end = RESULT_BYTES_MAX;
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end -= 1;
  return `${bytes.subarray(0, end).toString('utf8')}\n[cut: the result had ${bytes.length} bytes; the first ${end} are kept]`;
}
