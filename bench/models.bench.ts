/**
 * The model adapters' cost per streamed chunk, against parsing the same SSE bytes alone. One
 * node:http server on 127.0.0.1 answers every request with the same prepared stream of CHUNKS text
 * events (OpenAI Chat Completions or Anthropic Messages format), written in one piece, so what is
 * measured is the client side. All in one process, one run (tinybench):
 *
 *   adapter (openai | anthropic)   the Provider's `stream` read to its end: the SDK's request and SSE
 *                                  decoding, the zod check of every event, the kernel chunks.
 *   SDK stream alone               the same request through the SDK, its events read and dropped:
 *                                  the part of the adapter's cost that is the SDK's.
 *   fetch + SSE parse              the lean baseline: a bare fetch of the same URL, the body split
 *                                  into events by hand and each `data:` line JSON.parse'd.
 *   SSE parse in memory            the same hand parse over the bytes already in memory: no HTTP.
 *
 * Every variant is checked to see the same CHUNKS texts. Per chunk = mean time per request / CHUNKS.
 * Goal (judged by a person, never asserted): the adapter's own share (adapter minus SDK alone) well
 * under a microsecond per chunk, far below any model's own time per token.
 *
 * The whole stream arrives in a few large reads. That is the worst case for the openai SDK, whose
 * SSE splitter copies the rest of its buffer after every event (quadratic in events per read), and
 * the best case for everything else: at a real model's pace each read carries an event or two, and
 * the per-read costs of fetch and the streams dominate instead. The comparison holds for both.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { Bench } from 'tinybench';
import type { ModelChunk, ModelRequest, Provider } from '../src/kernel/index.ts';
import { AnthropicMessagesProvider, OpenAIChatProvider } from '../src/models/index.ts';
import { blockStop, messageEnd, messageStart, textDelta } from '../test/models/anthropic-wire.ts';
import { sseEvent } from '../test/models/loopback.ts';
import { chatEnd, chatEvent, chatText } from '../test/models/openai-wire.ts';
import { taskStats } from './task-stats.ts';

export const CHUNKS = 1000;

export interface ModelsBenchOptions {
  readonly timeMs: number;
  readonly warmupTimeMs: number;
}

export interface ModelsBenchRow {
  readonly format: 'openai' | 'anthropic';
  readonly name: string;
  readonly meanMs: number;
  readonly rme: number;
  readonly samples: number;
  readonly perChunkUs: number;
}

const DEFAULT_OPTIONS: ModelsBenchOptions = { timeMs: 1500, warmupTimeMs: 300 };

const REQUEST: ModelRequest = {
  agent: 'root',
  task: 'bench',
  callId: 'c1',
  replyIndex: 0,
  messages: [{ role: 'user', content: 'Count.' }],
  tools: [],
  maxTokens: 4096,
};

function openaiBody(): Buffer {
  const texts = Array.from({ length: CHUNKS }, (_, i) => chatText(`tok${i} `)).join('');
  return Buffer.from(chatEvent({ role: 'assistant', content: '' }) + texts + chatEnd('stop', 5, CHUNKS));
}

function anthropicBody(): Buffer {
  const start = sseEvent(
    { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
    'content_block_start',
  );
  const texts = Array.from({ length: CHUNKS }, (_, i) => textDelta(0, `tok${i} `)).join('');
  return Buffer.from(messageStart(5) + start + texts + blockStop(0) + messageEnd('end_turn', CHUNKS));
}

async function startServer(bodies: { openai: Buffer; anthropic: Buffer }): Promise<{ server: Server; origin: string }> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(req.url === '/v1/messages' ? bodies.anthropic : bodies.openai);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

/** The baseline parser: events split at blank lines, `data:` lines JSON.parse'd, text fields counted. */
class SseParser {
  private rest = '';
  texts = 0;

  feed(text: string): void {
    const all = this.rest + text;
    let start = 0;
    for (let end = all.indexOf('\n\n', start); end >= 0; end = all.indexOf('\n\n', start)) {
      this.event(all.slice(start, end));
      start = end + 2;
    }
    this.rest = all.slice(start);
  }

  private event(block: string): void {
    for (const line of block.split('\n')) {
      if (!line.startsWith('data: ')) continue;
      const data = line.slice(6);
      if (data === '[DONE]') continue;
      const json = JSON.parse(data) as { choices?: { delta?: { content?: string } }[]; delta?: { text?: string } };
      const text = json.choices?.[0]?.delta?.content ?? json.delta?.text;
      if (text !== undefined && text !== '') this.texts += 1;
    }
  }
}

async function fetchAndParse(url: string, body: string): Promise<number> {
  const res = await fetch(url, { method: 'POST', body, headers: { 'content-type': 'application/json' } });
  if (res.body === null) throw new Error('no body');
  const parser = new SseParser();
  const decoder = new TextDecoder();
  for await (const part of res.body) parser.feed(decoder.decode(part, { stream: true }));
  return parser.texts;
}

async function drain(provider: Provider): Promise<number> {
  let texts = 0;
  for await (const chunk of provider.stream(REQUEST, new AbortController().signal) as AsyncIterable<ModelChunk>) {
    if (chunk.type === 'text') texts += 1;
  }
  return texts;
}

export async function runModelsBench(options: ModelsBenchOptions = DEFAULT_OPTIONS): Promise<ModelsBenchRow[]> {
  const bodies = { openai: openaiBody(), anthropic: anthropicBody() };
  const { server, origin } = await startServer(bodies);
  try {
    const openai = new OpenAIChatProvider({ name: 'bench', baseURL: `${origin}/v1`, model: 'm', apiKey: null });
    const anthropic = new AnthropicMessagesProvider({ name: 'bench', baseURL: origin, model: 'm', apiKey: 'k' });
    const openaiSdk = new OpenAI({
      baseURL: `${origin}/v1`,
      apiKey: 'k',
      maxRetries: 0,
      organization: null,
      project: null,
      webhookSecret: null,
    });
    const anthropicSdk = new Anthropic({ baseURL: origin, apiKey: 'k', maxRetries: 0, webhookKey: null });
    const sdkOpenAI = async (): Promise<number> => {
      let n = 0;
      const stream = await openaiSdk.chat.completions.create({
        model: 'm',
        messages: [{ role: 'user', content: 'Count.' }],
        stream: true,
      });
      for await (const event of stream) if (event.choices[0]?.delta.content) n += 1;
      return n;
    };
    const sdkAnthropic = async (): Promise<number> => {
      let n = 0;
      const stream = await anthropicSdk.messages.create({
        model: 'm',
        max_tokens: 4096,
        messages: [{ role: 'user', content: 'Count.' }],
        stream: true,
      });
      for await (const event of stream) if (event.type === 'content_block_delta') n += 1;
      return n;
    };
    const requestBody = JSON.stringify({ model: 'm', messages: REQUEST.messages, stream: true });
    const inMemory = (bytes: Buffer) => (): number => {
      const parser = new SseParser();
      // The same 64 KiB pieces a socket would hand over, decoded the same way.
      const decoder = new TextDecoder();
      for (let i = 0; i < bytes.length; i += 65_536)
        parser.feed(decoder.decode(bytes.subarray(i, i + 65_536), { stream: true }));
      return parser.texts;
    };

    const variants: { format: ModelsBenchRow['format']; name: string; run: () => Promise<number> | number }[] = [
      { format: 'openai', name: 'adapter', run: () => drain(openai) },
      { format: 'openai', name: 'SDK stream alone', run: sdkOpenAI },
      {
        format: 'openai',
        name: 'fetch + SSE parse',
        run: () => fetchAndParse(`${origin}/v1/chat/completions`, requestBody),
      },
      { format: 'openai', name: 'SSE parse in memory', run: inMemory(bodies.openai) },
      { format: 'anthropic', name: 'adapter', run: () => drain(anthropic) },
      { format: 'anthropic', name: 'SDK stream alone', run: sdkAnthropic },
      {
        format: 'anthropic',
        name: 'fetch + SSE parse',
        run: () => fetchAndParse(`${origin}/v1/messages`, requestBody),
      },
      { format: 'anthropic', name: 'SSE parse in memory', run: inMemory(bodies.anthropic) },
    ];
    for (const v of variants) {
      const texts = await v.run();
      if (texts !== CHUNKS) throw new Error(`${v.format} ${v.name} saw ${texts} texts, not ${CHUNKS}`);
    }

    const bench = new Bench({ time: options.timeMs, warmupTime: options.warmupTimeMs });
    let sink = 0; // consumed results, so nothing is dead code
    for (const v of variants) {
      bench.add(`${v.format} ${v.name}`, async () => {
        sink += await v.run();
      });
    }
    await bench.run();
    if (sink === 0) throw new Error('nothing was read');
    return variants.map((v, i) => {
      const task = bench.tasks[i];
      if (task === undefined) throw new Error(`no task for ${v.name}`);
      const s = taskStats(task);
      return {
        format: v.format,
        name: v.name,
        meanMs: s.meanMs,
        rme: s.rme,
        samples: s.samples,
        perChunkUs: (s.meanMs * 1000) / CHUNKS,
      };
    });
  } finally {
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  }
}

export function formatModelsTable(rows: readonly ModelsBenchRow[]): string {
  const lines = [
    `${CHUNKS} text chunks per request, 127.0.0.1`,
    '',
    '| format | variant | per request | ±rme | samples | per chunk | vs fetch + SSE parse |',
    '|:--|:--|--:|--:|--:|--:|--:|',
  ];
  for (const r of rows) {
    const baseline = rows.find((b) => b.format === r.format && b.name === 'fetch + SSE parse');
    const ratio = baseline === undefined ? '' : `${(r.meanMs / baseline.meanMs).toFixed(2)}x`;
    lines.push(
      `| ${r.format} | ${r.name} | ${r.meanMs.toFixed(2)} ms | ${r.rme.toFixed(1)}% | ${r.samples} | ${r.perChunkUs.toFixed(2)} µs | ${ratio} |`,
    );
  }
  return lines.join('\n');
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  console.log(formatModelsTable(await runModelsBench()));
}
