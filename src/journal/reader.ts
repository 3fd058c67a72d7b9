/**
 * A journal file as a sequence of checked items: the header first, then the body lines, each validated
 * (schema.ts). What cannot be read is a problem with the line it is on; a last line cut short
 * (a crash while it was written) is an item of its own, so the replay can go on with the complete
 * prefix and warn. A later header starts another run (serve appends each start's run to the file): it
 * is an item of its own too, checked like the first.
 *
 * The header is checked in two steps: the format version and the homeagent version first, so that a
 * journal of another version gets that answer rather than a list of fields it does not have.
 */
import type { Problem } from '../validation/problem.ts';
import { JOURNAL_VERSION, type JournalHeader } from './format.ts';
import { headerSchema, issueText, parseBodyLine, type BodyLine } from './schema.ts';
import { LineTooLongError, readLines, type FileLine, type ReadFrom } from './lines.ts';

export type JournalItem =
  | { readonly kind: 'line'; readonly number: number; readonly line: BodyLine }
  /** The header of a later run: the server was started again with the same file. */
  | { readonly kind: 'run'; readonly number: number; readonly header: JournalHeader }
  /** The last line has no newline and does not parse: the writer was cut off in the middle of it. */
  | { readonly kind: 'cut'; readonly number: number; readonly bytes: number }
  /** The journal cannot be read on from here. */
  | { readonly kind: 'problem'; readonly problem: Problem };

export type OpenedJournal =
  | {
      readonly ok: true;
      readonly header: JournalHeader;
      readonly items: Iterator<JournalItem, void, undefined>;
      /** Lets the file go; needed unless `items` was read to its end. Idempotent. */
      close(): void;
    }
  | { readonly ok: false; readonly problems: Problem[] };

/**
 * Opens the journal and checks its header; the body is read lazily through `items`, and the file is
 * held open until they end or `close` is called. `version` is the homeagent version of this process:
 * only its own journals replay to the same hash. A journal refused here holds nothing open.
 */
export function openJournal(path: string, version: string, resumeAt?: ReadFrom): OpenedJournal {
  let lines: Generator<FileLine, void, undefined>;
  let first: IteratorResult<FileLine, void>;
  try {
    lines = readLines(path);
    first = lines.next();
    // After a snapshot's place the body is read from there; the header is still checked.
    if (resumeAt !== undefined) {
      lines.return();
      lines = readLines(path, resumeAt);
    }
  } catch (err) {
    return { ok: false, problems: [{ path: '', message: `cannot read ${path}: ${errorText(err)}` }] };
  }
  if (first.done === true)
    return { ok: false, problems: [{ path: '', message: `${path} is empty; a journal starts with its header line` }] };
  const header = checkHeader(first.value, version);
  if (!header.ok) {
    lines.return();
    return { ok: false, problems: [header.problem] };
  }
  const items = bodyItems(lines, version);
  // Both: `items` may not have started, and then returning it does not reach the lines it reads.
  const close = (): void => {
    items.return();
    lines.return();
  };
  return { ok: true, header: header.header, items, close };
}

type HeaderCheck =
  { readonly ok: true; readonly header: JournalHeader } | { readonly ok: false; readonly problem: Problem };

function checkHeader(first: FileLine, version: string): HeaderCheck {
  return checkHeaderValue(parseJson(first.text), first.number, version);
}

function checkHeaderValue(value: unknown, number: number, version: string): HeaderCheck {
  const fail = (path: string, message: string): HeaderCheck => ({ ok: false, problem: { path, message } });
  // The first run's header is "the header"; a later run's is named by its line.
  const field = (name: string): string => (number === 1 ? `header.${name}` : `line ${number} header.${name}`);
  if (!isHeader(value)) {
    return fail(
      `line ${number}`,
      'not a homeagent journal: the first line must be its {"type":"journal.header",…} line (serve --journal writes one)',
    );
  }
  const record = value as Readonly<Record<string, unknown>>;
  if (record.journalVersion !== JOURNAL_VERSION) {
    return fail(
      field('journalVersion'),
      `the journal is format version ${JSON.stringify(record.journalVersion)}; this homeagent reads version ${JOURNAL_VERSION} only`,
    );
  }
  if (record.homeagent !== version) {
    return fail(
      field('homeagent'),
      `the journal was written by homeagent ${JSON.stringify(record.homeagent)} and this is ${version}; ` +
        'replay it with the version that wrote it (another kernel may trace the same inputs differently)',
    );
  }
  const parsed = headerSchema.safeParse(value);
  if (!parsed.success) return fail(`line ${number}`, `bad header: ${issueText(parsed.error.issues)}`);
  // The header's own JSON, not zod's copy (see schema.ts): the kernel config is handed on as written.
  return { ok: true, header: value as JournalHeader };
}

function* bodyItems(
  lines: Generator<FileLine, void, undefined>,
  version: string,
): Generator<JournalItem, void, undefined> {
  try {
    for (const { number, text, complete } of lines) {
      const value = parseJson(text);
      if (value === undefined) {
        if (!complete) {
          yield { kind: 'cut', number, bytes: Buffer.byteLength(text) };
          return;
        }
        yield { kind: 'problem', problem: { path: `line ${number}`, message: 'not a JSON line' } };
        return;
      }
      if (isHeader(value)) {
        const header = checkHeaderValue(value, number, version);
        yield header.ok ? { kind: 'run', number, header: header.header } : { kind: 'problem', problem: header.problem };
        if (!header.ok) return;
        continue;
      }
      const parsed = parseBodyLine(value);
      if (!parsed.ok) {
        yield { kind: 'problem', problem: { path: `line ${number}`, message: parsed.error } };
        return;
      }
      yield { kind: 'line', number, line: parsed.line };
    }
  } catch (err) {
    const message = err instanceof LineTooLongError ? err.message : `cannot read on: ${errorText(err)}`;
    yield { kind: 'problem', problem: { path: '', message } };
  }
}

/** A parsed line (or undefined: not JSON) that is a header; a number, a string or an array has no `type`. */
function isHeader(value: unknown): boolean {
  return (value as { type?: unknown } | null | undefined)?.type === 'journal.header';
}

/** The parsed value, or undefined when the text is not JSON. */
function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
