/**
 * Graph memory throughput on a 100 000-triple main store, in a temp directory, all in one process.
 *
 *   load (commit)        100 000 deterministic triples (25 000 entities; every 4th triple has a
 *                        sentence) through `SqliteGraphStore.commit`, in batches of BATCH triples
 *                        (one transaction each), timed once from an empty file.
 *   load (raw)           the same rows into a second file with the same schema and pragmas, through
 *                        bare prepared better-sqlite3 statements, one transaction per batch: an
 *                        entity upsert with RETURNING id (which also counts the mention), a sentence
 *                        upsert, a plain relation INSERT. No validation, no idempotence, no error
 *                        mapping: the lean hand-written baseline. Both files end up with the same
 *                        rows (checked). Both pay the same index and FTS-trigger maintenance, which
 *                        is most of the cost, so the two land close together.
 *   recall …             tinybench, run first so the main file holds exactly the 100k triples: one
 *                        recall per iteration, depth 1, keywords that match a handful of entities
 *                        (`-1234` matches `…-1234` and `…-12340`..`…-12349`), rotating over 1000
 *                        keywords so most pages are not hot in SQLite's cache.
 *   commit / raw batch   tinybench: one batch of BATCH new triples per iteration into the loaded
 *                        files (the store and the raw file respectively), once with synchronous
 *                        FULL (the main store's default: the WAL is synced at every commit) and once
 *                        with NORMAL (synced at checkpoints; what a child's temp store uses), each
 *                        against a raw connection with the same setting.
 *
 * Goals (judged by a person, never asserted): commit within 2x of raw; recall p50 under 1 ms.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { Bench, type Task } from 'tinybench';
import type { Recall, Triple } from '../src/kernel/ports/graph-memory.ts';
import { LightMemory } from '../src/memory/light-memory.ts';
import { SqliteGraphStore } from '../src/memory/sqlite-store.ts';

export const TRIPLE_COUNT = 100_000;
export const ENTITY_COUNT = 25_000;
export const BATCH = 100;
const SESSION = 'bench';
const NOW_MS = 1_700_000_000_000;

const WORDS = [
  'harbor',
  'willow',
  'copper',
  'falcon',
  'meadow',
  'lantern',
  'quartz',
  'ember',
  'summit',
  'orchid',
  'cobalt',
  'tundra',
  'saffron',
  'glacier',
  'juniper',
  'marble',
] as const;
const VERBS = [
  'knows',
  'owns',
  'likes',
  'works_at',
  'lives_in',
  'part_of',
  'made_by',
  'uses',
  'near',
  'follows',
  'mentions',
  'contains',
] as const;

export function entityName(i: number): string {
  return `${WORDS[i % WORDS.length] as string}-${i}`;
}

/**
 * Triple k: subject k mod E; object shifted so that no (subject, object, relation) repeats for
 * k < E² and never equal to the subject; every 4th triple carries a sentence.
 */
export function benchTriple(k: number): Triple {
  const s = k % ENTITY_COUNT;
  const o = (k * 7 + 1 + Math.floor(k / ENTITY_COUNT)) % ENTITY_COUNT;
  const subject = entityName(s);
  // No self-relations: the store counts one mention for them, the raw upserts would count two.
  const object = entityName(o === s ? (o + 1) % ENTITY_COUNT : o);
  const relation = VERBS[k % VERBS.length] as string;
  const triple = { subject, relation, object };
  return k % 4 === 0 ? { ...triple, sentence: `${subject} ${relation} ${object} (#${k}).` } : triple;
}

function batchOf(start: number): Triple[] {
  return Array.from({ length: BATCH }, (_, i) => benchTriple(start + i));
}

/** The raw baseline: bare prepared statements over the same schema. */
class RawInserter {
  private readonly upsertEntity: Database.Statement<[string, string, number, number], number>;
  private readonly upsertSentence: Database.Statement<[string, number], number>;
  private readonly insertRelation: Database.Statement<
    [number, number, string, string, number, number | null, number, number]
  >;
  readonly insertBatch: Database.Transaction<(rows: readonly Triple[], turn: number) => void>;

  constructor(readonly db: Database.Database) {
    this.upsertEntity = db
      .prepare<[string, string, number, number], number>(
        `INSERT INTO entities (name, name_lower, created_at, updated_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (name) DO UPDATE SET mention_count = mention_count + 1, updated_at = excluded.updated_at
         RETURNING id`,
      )
      .pluck();
    this.upsertSentence = db
      .prepare<[string, number], number>(
        `INSERT INTO sentences (text, created_at) VALUES (?, ?)
         ON CONFLICT (text) DO UPDATE SET text = excluded.text RETURNING id`,
      )
      .pluck();
    this.insertRelation = db.prepare(
      `INSERT INTO relations
         (source_id, target_id, relation_type, session_id, turn_id, sentence_id, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.insertBatch = db.transaction((rows: readonly Triple[], turn: number) => {
      for (const t of rows) {
        const s = this.upsertEntity.get(t.subject, t.subject.toLowerCase(), NOW_MS, NOW_MS) as number;
        const o = this.upsertEntity.get(t.object, t.object.toLowerCase(), NOW_MS, NOW_MS) as number;
        const sentence = t.sentence === undefined ? null : (this.upsertSentence.get(t.sentence, NOW_MS) as number);
        this.insertRelation.run(s, o, t.relation, SESSION, turn, sentence, NOW_MS, NOW_MS);
      }
    });
  }
}

export interface MemoryBenchRow {
  readonly name: string;
  /** What one unit is: 'triple' or 'recall'. */
  readonly unit: string;
  readonly perSec: number;
  readonly meanMs: number;
  readonly p50Ms: number;
  readonly rmePct: number;
  readonly samples: number;
  /** perSec relative to the raw row of the same measure (commit rows only). */
  readonly vsRaw?: number;
}

export interface MemoryBenchResult {
  readonly triples: number;
  readonly entities: number;
  readonly fileMb: number;
  readonly recallEntitiesAvg: number;
  readonly recallRelationsAvg: number;
  readonly rows: readonly MemoryBenchRow[];
}

export interface MemoryBenchOptions {
  readonly timeMs: number;
  readonly warmupTimeMs: number;
  readonly quiet: boolean;
}

const DEFAULT_OPTIONS: MemoryBenchOptions = { timeMs: 2000, warmupTimeMs: 300, quiet: false };

function statsOf(task: Task): { meanMs: number; p50Ms: number; rme: number; samples: number } {
  const result = task.result;
  if (result.state !== 'completed') {
    const reason = result.state === 'errored' ? result.error.message : result.state;
    throw new Error(`bench task ${task.name} did not complete: ${reason}`);
  }
  return {
    meanMs: result.latency.mean,
    p50Ms: result.latency.p50 ?? result.latency.mean,
    rme: result.latency.rme,
    samples: task.runs,
  };
}

function timeIt(fn: () => void): number {
  const start = performance.now();
  fn();
  return performance.now() - start;
}

/** Entities and relations of both files, for the "same rows" check. */
function fingerprint(db: Database.Database): string {
  const row = db
    .prepare(
      `SELECT (SELECT count(*) FROM entities) AS e, (SELECT sum(mention_count) FROM entities) AS m,
              (SELECT count(*) FROM relations) AS r, (SELECT count(*) FROM sentences) AS s`,
    )
    .get();
  return JSON.stringify(row);
}

export async function runMemoryBench(partial: Partial<MemoryBenchOptions> = {}): Promise<MemoryBenchResult> {
  const options: MemoryBenchOptions = { ...DEFAULT_OPTIONS, ...partial };
  const dir = mkdtempSync(join(tmpdir(), 'homeagent-memory-bench-'));
  const log = (line: string): void => {
    if (!options.quiet) console.log(line);
  };
  try {
    const mainPath = join(dir, 'main.db');
    const rawPath = join(dir, 'raw.db');
    const store = SqliteGraphStore.openMain(mainPath); // synchronous FULL, the store's default
    const storeNormal = SqliteGraphStore.openMain(mainPath, { synchronous: 'normal' });
    SqliteGraphStore.openMain(rawPath).close(); // the same schema, created by the store
    const openRaw = (synchronous: 'FULL' | 'NORMAL'): RawInserter => {
      const db = new Database(rawPath);
      db.pragma('journal_mode = WAL');
      db.pragma(`synchronous = ${synchronous}`);
      db.pragma('foreign_keys = ON');
      return new RawInserter(db);
    };
    const raw = openRaw('FULL');
    const rawNormal = openRaw('NORMAL');
    const rawDb = raw.db;

    // ---- load 0 → 100k, once each
    let added = 0;
    const loadStoreMs = timeIt(() => {
      for (let k = 0; k < TRIPLE_COUNT; k += BATCH) added += store.commit(batchOf(k), SESSION, k / BATCH, NOW_MS).added;
    });
    if (added !== TRIPLE_COUNT) throw new Error(`store load added ${added} of ${TRIPLE_COUNT} triples`);
    const loadRawMs = timeIt(() => {
      for (let k = 0; k < TRIPLE_COUNT; k += BATCH) raw.insertBatch(batchOf(k), k / BATCH);
    });
    const storeDb = new Database(mainPath, { readonly: true });
    const same = fingerprint(storeDb) === fingerprint(rawDb);
    log(`loaded ${TRIPLE_COUNT} triples: store ${fingerprint(storeDb)}, raw ${fingerprint(rawDb)}`);
    storeDb.close();
    if (!same) throw new Error('the store and the raw baseline stored different rows');

    const entities = Number(rawDb.prepare('SELECT count(*) FROM entities').pluck().get());
    const pageBytes =
      Number(rawDb.pragma('page_size', { simple: true })) * Number(rawDb.pragma('page_count', { simple: true }));

    // ---- tinybench: recalls on the 100k files, then batches
    let storeNext = TRIPLE_COUNT;
    let rawNext = TRIPLE_COUNT;
    let recallIndex = 0;
    const keyword = (): string => `-${1000 + (recallIndex++ % 1000)}`;
    const readOnly = SqliteGraphStore.openReadOnly(mainPath);
    const light = LightMemory.open({ tempPath: join(dir, 'child-temp.db'), mainPath });
    light.commit([{ subject: 'harbor-1000', relation: 'seen_by', object: 'child-agent' }], 'child', 1, NOW_MS);
    let recalled = 0;
    let entitiesSum = 0;
    let relationsSum = 0;
    const countRecall = (r: Recall): void => {
      recalled += 1;
      entitiesSum += r.entities.length;
      relationsSum += r.relations.length;
    };
    const names = {
      commit: `commit batch of ${BATCH} (store, sync FULL)`,
      raw: `raw insert batch of ${BATCH} (sync FULL)`,
      commitNormal: `commit batch of ${BATCH} (store, sync NORMAL)`,
      rawNormal: `raw insert batch of ${BATCH} (sync NORMAL)`,
      recall: 'recall depth 1 (main, read-write)',
      recallRo: 'recall depth 1 (read-only handle)',
      recallLight: 'recall depth 1 (light: temp ∪ main)',
    } as const;
    // Recalls first, while the main file holds exactly the 100k triples; the commit tasks grow it.
    const recallBench = new Bench({ time: options.timeMs, warmupTime: options.warmupTimeMs });
    recallBench
      .add(names.recall, () => countRecall(store.recall([keyword()], 1)))
      .add(names.recallRo, () => countRecall(readOnly.recall([keyword()], 1)))
      .add(names.recallLight, () => countRecall(light.recall([keyword()], 1)));
    await recallBench.run();
    const commitBench = new Bench({ time: options.timeMs, warmupTime: options.warmupTimeMs });
    commitBench
      .add(names.commit, () => {
        const r = store.commit(batchOf(storeNext), SESSION, storeNext / BATCH, NOW_MS);
        if (r.added !== BATCH) throw new Error(`commit added ${r.added} of ${BATCH}`);
        storeNext += BATCH;
      })
      .add(names.raw, () => {
        raw.insertBatch(batchOf(rawNext), rawNext / BATCH);
        rawNext += BATCH;
      })
      .add(names.commitNormal, () => {
        const r = storeNormal.commit(batchOf(storeNext), SESSION, storeNext / BATCH, NOW_MS);
        if (r.added !== BATCH) throw new Error(`commit added ${r.added} of ${BATCH}`);
        storeNext += BATCH;
      })
      .add(names.rawNormal, () => {
        rawNormal.insertBatch(batchOf(rawNext), rawNext / BATCH);
        rawNext += BATCH;
      });
    await commitBench.run();

    const stats = new Map([...recallBench.tasks, ...commitBench.tasks].map((t) => [t.name, statsOf(t)]));
    const get = (name: string): ReturnType<typeof statsOf> => {
      const s = stats.get(name);
      if (s === undefined) throw new Error(`missing bench task ${name}`);
      return s;
    };
    const rawTps = (name: string): number => (BATCH * 1000) / get(name).meanMs;
    const loadRawTps = (TRIPLE_COUNT * 1000) / loadRawMs;
    const oneShot = (name: string, ms: number, vsRaw: number): MemoryBenchRow => ({
      name,
      unit: 'triple',
      perSec: (TRIPLE_COUNT * 1000) / ms,
      meanMs: ms / (TRIPLE_COUNT / BATCH),
      p50Ms: Number.NaN,
      rmePct: Number.NaN,
      samples: TRIPLE_COUNT / BATCH,
      vsRaw,
    });
    const rows: MemoryBenchRow[] = [
      oneShot(`load 0→100k via commit (batches of ${BATCH})`, loadStoreMs, loadRawMs / loadStoreMs),
      oneShot(`load 0→100k raw (batches of ${BATCH})`, loadRawMs, 1),
      ...[
        [names.commit, names.raw],
        [names.raw, names.raw],
        [names.commitNormal, names.rawNormal],
        [names.rawNormal, names.rawNormal],
      ].map(([name, rawName]): MemoryBenchRow => {
        const s = get(name as string);
        const perSec = (BATCH * 1000) / s.meanMs;
        return {
          name: name as string,
          unit: 'triple',
          perSec,
          meanMs: s.meanMs,
          p50Ms: s.p50Ms,
          rmePct: s.rme,
          samples: s.samples,
          vsRaw: perSec / rawTps(rawName as string),
        };
      }),
      ...[names.recall, names.recallRo, names.recallLight].map((name): MemoryBenchRow => {
        const s = get(name);
        return {
          name,
          unit: 'recall',
          perSec: 1000 / s.meanMs,
          meanMs: s.meanMs,
          p50Ms: s.p50Ms,
          rmePct: s.rme,
          samples: s.samples,
        };
      }),
    ];
    log(`load rates: store ${formatRate((TRIPLE_COUNT * 1000) / loadStoreMs)}/s, raw ${formatRate(loadRawTps)}/s`);
    light.discard();
    readOnly.close();
    store.close();
    storeNormal.close();
    rawNormal.db.close();
    rawDb.close();
    return {
      triples: TRIPLE_COUNT,
      entities,
      fileMb: pageBytes / (1024 * 1024),
      recallEntitiesAvg: entitiesSum / Math.max(1, recalled),
      recallRelationsAvg: relationsSum / Math.max(1, recalled),
      rows,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function formatRate(perSec: number): string {
  if (perSec >= 1e6) return `${(perSec / 1e6).toFixed(2)}M`;
  if (perSec >= 1e3) return `${(perSec / 1e3).toFixed(1)}k`;
  return perSec.toFixed(0);
}

function formatMs(ms: number): string {
  if (Number.isNaN(ms)) return '—';
  return ms < 1 ? `${(ms * 1000).toFixed(1)} µs` : `${ms.toFixed(2)} ms`;
}

export function formatMemoryTable(r: MemoryBenchResult): string {
  const header = ['measure', 'rate', 'mean', 'p50', '±rme', 'samples', 'vs raw'];
  const body = r.rows.map((row) => [
    row.name,
    `${formatRate(row.perSec)} ${row.unit}s/s`,
    formatMs(row.meanMs),
    formatMs(row.p50Ms),
    Number.isNaN(row.rmePct) ? '—' : `${row.rmePct.toFixed(2)}%`,
    String(row.samples),
    row.vsRaw === undefined ? '' : `${row.vsRaw.toFixed(2)}x`,
  ]);
  const widths = header.map((h, c) => Math.max(h.length, ...body.map((row) => (row[c] ?? '').length)));
  const line = (cells: readonly string[]): string =>
    `| ${cells.map((cell, c) => (c === 0 ? cell.padEnd(widths[c] ?? 0) : cell.padStart(widths[c] ?? 0))).join(' | ')} |`;
  const rule = `|${widths.map((wd, c) => (c === 0 ? `:${'-'.repeat(wd + 1)}` : `${'-'.repeat(wd + 1)}:`)).join('|')}|`;
  const notes = [
    `store: ${r.triples.toLocaleString('en-US')} triples over ${r.entities.toLocaleString('en-US')} entities, ` +
      `${r.fileMb.toFixed(1)} MB; a recall returned on average ${r.recallEntitiesAvg.toFixed(1)} entities and ` +
      `${r.recallRelationsAvg.toFixed(1)} relations`,
    '(mean/p50 of a commit row = one batch; "vs raw" = rate / raw rate of the same measure)',
  ];
  return [line(header), rule, ...body.map(line), '', ...notes].join('\n');
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  console.log(formatMemoryTable(await runMemoryBench()));
}
