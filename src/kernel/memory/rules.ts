/**
 * The pure rules of graph memory (docs/spec.md §9): which names and triples are valid, how two
 * recalls merge into one, and the text the `memory_recall` tool returns. Every store applies the
 * same rules, so a child's temp ∪ main recall and a single store's recall read alike.
 *
 * Orderings are total and use code-unit comparison (never `localeCompare`, whose result depends on
 * the ICU data of the machine), so the same stores give the same text everywhere.
 */
import type { CommitResult, Recall, RecallEntity, RecallRelation, Triple } from '../ports/graph-memory.ts';

/** Entity names are 2..50 code points (2..50 runes). */
export const ENTITY_NAME_MIN = 2;
export const ENTITY_NAME_MAX = 50;
/** Relation names are 1..50 code points. */
export const RELATION_NAME_MAX = 50;
/** A sentence is kept up to this many code points; a longer one makes its triple invalid. */
export const SENTENCE_MAX = 4000;
/** One `memory_write` call or consolidation answer commits at most this many triples; the rest are skipped. */
export const TRIPLES_PER_CALL_MAX = 256;
/** Recall walks 1..RECALL_DEPTH_MAX hops from the matched entities. */
export const RECALL_DEPTH_MAX = 3;

/** A letter or digit in any script (CJK included), or `-` / `_`. */
const MEANINGFUL = /[\p{L}\p{N}_-]/u;

function codePoints(s: string): number {
  let n = 0;
  for (const _ of s) n += 1;
  return n;
}

/** Trimmed, 2..50 code points, with at least one letter, digit, `-` or `_` (not punctuation only). */
export function validEntityName(name: string): boolean {
  const trimmed = name.trim();
  const length = codePoints(trimmed);
  return length >= ENTITY_NAME_MIN && length <= ENTITY_NAME_MAX && MEANINGFUL.test(trimmed);
}

/**
 * No empty field after trimming, valid subject and object names, and a relation of 1..50 code
 * points. `sentence` is optional; an empty or blank sentence means "no sentence", not an invalid
 * triple.
 */
export function validTriple(t: Triple): boolean {
  const relation = t.relation.trim();
  return (
    validEntityName(t.subject) &&
    validEntityName(t.object) &&
    relation.length > 0 &&
    codePoints(relation) <= RELATION_NAME_MAX &&
    (t.sentence === undefined || codePoints(t.sentence) <= SENTENCE_MAX)
  );
}

/**
 * Commits at most TRIPLES_PER_CALL_MAX triples of one call; the excess counts as skipped, like any
 * triple that stores nothing (a limit on everything, without refusing a well-typed call).
 */
export function commitCapped(
  store: { commit(triples: readonly Triple[], session: string, turn: number, nowMs: number): CommitResult },
  triples: readonly Triple[],
  session: string,
  turn: number,
  nowMs: number,
): CommitResult {
  const kept = triples.slice(0, TRIPLES_PER_CALL_MAX);
  const result = store.commit(kept, session, turn, nowMs);
  return { added: result.added, skipped: result.skipped + (triples.length - kept.length) };
}

/** The key entities are de-duplicated by: the lower-cased trimmed name. */
export function entityKey(name: string): string {
  return name.trim().toLowerCase();
}

function relationKey(r: RecallRelation): string {
  // U+0000 cannot occur in a stored name's meaningful part and keeps the three parts apart.
  return `${entityKey(r.source)}\u0000${entityKey(r.relation)}\u0000${entityKey(r.target)}`;
}

function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Entity order, total: name, then type, then mentions (descending). */
function compareEntities(a: RecallEntity, b: RecallEntity): number {
  // Stryker disable next-line ArithmeticOperator: reached only for identical entities (one name and type, equal mentions)
  return compareStrings(a.name, b.name) || compareStrings(a.type, b.type) || b.mentions - a.mentions;
}

/** Relation order, total: source, relation, target, then confidence (descending). */
function compareRelations(a: RecallRelation, b: RecallRelation): number {
  return (
    compareStrings(a.source, b.source) ||
    compareStrings(a.relation, b.relation) ||
    compareStrings(a.target, b.target) ||
    // Stryker disable next-line ArithmeticOperator: reached only for identical relations (one triple, equal confidence)
    b.confidence - a.confidence
  );
}

/** Of two entities with one key, the one with more mentions; ties go to the first in entity order. */
function preferEntity(a: RecallEntity, b: RecallEntity): RecallEntity {
  // Stryker disable next-line EqualityOperator: `>=` differs from `>` only for equal counts, which this line never sees
  if (a.mentions !== b.mentions) return a.mentions > b.mentions ? a : b;
  // Stryker disable next-line EqualityOperator: `< 0` differs only when the order ties, i.e. for identical entities
  return compareEntities(a, b) <= 0 ? a : b;
}

/** Of two relations with one key, the more confident; ties go to the first in relation order. */
function preferRelation(a: RecallRelation, b: RecallRelation): RecallRelation {
  // Stryker disable next-line EqualityOperator: `>=` differs from `>` only for equal confidences, which this line never sees
  if (a.confidence !== b.confidence) return a.confidence > b.confidence ? a : b;
  // Stryker disable next-line EqualityOperator: `< 0` differs only when the order ties, i.e. for identical relations
  return compareRelations(a, b) <= 0 ? a : b;
}

/**
 * The union of two recalls (docs/spec.md §9): entities de-duplicated by lower-cased trimmed
 * name keeping the larger mention count; relations de-duplicated by lower-cased (source, relation,
 * target) keeping the larger confidence; entities sorted by name and relations by (source,
 * relation, target). The choice between duplicates depends only on their contents, so the merge is
 * commutative, and `mergeRecall(r, EMPTY_RECALL)` normalises a single store's recall.
 */
export function mergeRecall(a: Recall, b: Recall): Recall {
  const entities = new Map<string, RecallEntity>();
  for (const e of [...a.entities, ...b.entities]) {
    const key = entityKey(e.name);
    const seen = entities.get(key);
    entities.set(key, seen === undefined ? e : preferEntity(seen, e));
  }
  const relations = new Map<string, RecallRelation>();
  for (const r of [...a.relations, ...b.relations]) {
    const key = relationKey(r);
    const seen = relations.get(key);
    relations.set(key, seen === undefined ? r : preferRelation(seen, r));
  }
  return {
    entities: [...entities.values()].sort(compareEntities),
    relations: [...relations.values()].sort(compareRelations),
  };
}

export const EMPTY_RECALL: Recall = { entities: [], relations: [] };

/**
 * The text the `memory_recall` tool returns:
 *
 *   entities:
 *     - Alice (Person, 3 mentions)
 *   relations:
 *     - Alice —works_at→ Acme
 *
 * A section with nothing in it is left out; an empty recall reads "nothing recalled".
 */
export function formatRecall(r: Recall): string {
  if (r.entities.length === 0 && r.relations.length === 0) return 'nothing recalled';
  const lines: string[] = [];
  if (r.entities.length > 0) {
    lines.push('entities:');
    for (const e of r.entities) {
      lines.push(`  - ${e.name} (${e.type}, ${e.mentions} ${e.mentions === 1 ? 'mention' : 'mentions'})`);
    }
  }
  if (r.relations.length > 0) {
    lines.push('relations:');
    for (const rel of r.relations) lines.push(`  - ${rel.source} —${rel.relation}→ ${rel.target}`);
  }
  return lines.join('\n');
}
