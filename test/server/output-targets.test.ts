/**
 * Where `--journal` and `--trace` may write (src/server/output-targets.ts), on real files: each refusal
 * with its exact message and flag (an empty name, the memory database or a SQLite file beside it — also
 * through a symbolic or hard link —, the config file, the journal's own file for the trace, a directory,
 * a place that cannot be written, another program's file), the files serve may append to (missing,
 * empty, its own header for this data directory), `openOutput` cutting a torn last line, and
 * `canonicalPath` following links, dangling ones and loops included.
 */
import {
  linkSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  canonicalPath,
  openOutput,
  outputTargetProblems,
  ownerProblem,
  type OutputTargets,
} from '../../src/server/output-targets.ts';
import { MemoryFile } from '../support/memory-file.ts';

const root = realpathSync(mkdtempSync(join(tmpdir(), 'homeagent-output-targets-')));
afterAll(() => rmSync(root, { recursive: true, force: true }));

let cases = 0;
/** A fresh directory with a data directory `data` in it. */
function fresh(): { dir: string; dataDir: string } {
  cases += 1;
  const dir = join(root, `case-${cases}`);
  const dataDir = join(dir, 'data');
  mkdirSync(dataDir, { recursive: true });
  return { dir, dataDir };
}

function targets(dataDir: string, extra: Partial<OutputTargets>): OutputTargets {
  return { dataDir, config: null, journal: null, trace: null, ...extra };
}

const header = (type: string, dataDir: string): string => `${JSON.stringify({ type, dataDir })}\n`;

const notOurs = (path: string, kind: string, dataDir: string): string =>
  `${path} exists and was not written by homeagent serve for the data directory ${dataDir} (its first line is not a ${kind} header naming it); serve appends only to its own ${kind} and never overwrites another file: give a new file, or an empty one`;

describe('outputTargetProblems', () => {
  it('has no problem without outputs, or with new files in a writable directory', () => {
    const { dir, dataDir } = fresh();
    expect(outputTargetProblems(targets(dataDir, {}))).toEqual([]);
    expect(
      outputTargetProblems(targets(dataDir, { journal: join(dir, 'j.jsonl'), trace: join(dir, 't.jsonl') })),
    ).toEqual([]);
  });

  it('refuses an empty name, under the flag of its output', () => {
    const { dataDir } = fresh();
    expect(outputTargetProblems(targets(dataDir, { journal: '', trace: '' }))).toEqual([
      { path: '--journal', message: 'must name a file, got an empty string' },
      { path: '--trace', message: 'must name a file, got an empty string' },
    ]);
  });

  it('refuses the memory database and each file SQLite keeps beside it', () => {
    const { dataDir } = fresh();
    for (const name of ['memory.sqlite', 'memory.sqlite-wal', 'memory.sqlite-shm', 'memory.sqlite-journal']) {
      const path = join(dataDir, name);
      expect(outputTargetProblems(targets(dataDir, { journal: path, trace: path }))).toEqual([
        {
          path: '--journal',
          message: `${path} is the memory database (${path}); writing the journal there would destroy it`,
        },
        {
          path: '--trace',
          message: `${path} is the memory database (${path}); writing the trace there would destroy it`,
        },
      ]);
    }
    expect(outputTargetProblems(targets(dataDir, { trace: join(dataDir, 'memory.sqlite-x') }))).toEqual([]);
  });

  it('refuses the memory database reached through a symbolic link, a hard link or a relative data directory', () => {
    const { dir, dataDir } = fresh();
    const memory = join(dataDir, 'memory.sqlite');
    writeFileSync(memory, 'db');
    const soft = join(dir, 'soft.jsonl');
    symlinkSync(memory, soft);
    const hard = join(dir, 'hard.jsonl');
    linkSync(memory, hard);
    const linkedData = join(dir, 'linked-data');
    symlinkSync(dataDir, linkedData);
    expect(outputTargetProblems(targets(linkedData, { journal: soft, trace: hard }))).toEqual([
      {
        path: '--journal',
        message: `${soft} is the memory database (${memory}); writing the journal there would destroy it`,
      },
      {
        path: '--trace',
        message: `${hard} is the memory database (${memory}); writing the trace there would destroy it`,
      },
    ]);
  });

  it('refuses the config file, also through a link', () => {
    const { dir, dataDir } = fresh();
    const config = join(dir, 'homeagent.json');
    writeFileSync(config, '{}');
    const link = join(dir, 'config-link');
    symlinkSync(config, link);
    expect(outputTargetProblems(targets(dataDir, { config: link, journal: config, trace: link }))).toEqual([
      { path: '--journal', message: `${config} is the config file; writing the journal there would overwrite it` },
      { path: '--trace', message: `${link} is the config file; writing the trace there would overwrite it` },
    ]);
    // Without a config file the same file is an ordinary one (here: another program's).
    expect(outputTargetProblems(targets(dataDir, { journal: config }))).toEqual([
      { path: '--journal', message: notOurs(config, 'journal', dataDir) },
    ]);
  });

  it('refuses a trace on the journal’s file, told once, under --trace', () => {
    const { dir, dataDir } = fresh();
    const file = join(dir, 'both.jsonl');
    const link = join(dir, 'both-link.jsonl');
    symlinkSync(file, link);
    const problem = {
      path: '--trace',
      message: `${link} is also the --journal file; give the trace a file of its own`,
    };
    expect(outputTargetProblems(targets(dataDir, { journal: file, trace: link }))).toEqual([problem]);
    expect(outputTargetProblems(targets(dataDir, { journal: file, trace: file }))).toEqual([
      { ...problem, message: `${file} is also the --journal file; give the trace a file of its own` },
    ]);
  });

  it('refuses a directory, and a place that cannot be written', () => {
    const { dir, dataDir } = fresh();
    const missing = join(dir, 'no-such-dir', 'trace.jsonl');
    expect(outputTargetProblems(targets(dataDir, { journal: dir, trace: missing }))).toEqual([
      { path: '--journal', message: `${dir} is a directory; give a file name` },
      {
        path: '--trace',
        message: `cannot write ${missing}: ENOENT: no such file or directory, access '${join(dir, 'no-such-dir')}'`,
      },
    ]);
  });

  it('appends to an empty file and to its own output for this data directory; refuses any other file', () => {
    const { dir, dataDir } = fresh();
    const empty = join(dir, 'empty.jsonl');
    writeFileSync(empty, '');
    const journal = join(dir, 'journal.jsonl');
    writeFileSync(journal, `${header('journal.header', dataDir)}{"type":"input"}\n`);
    const trace = join(dir, 'trace.jsonl');
    writeFileSync(trace, header('trace.header', dataDir));
    expect(outputTargetProblems(targets(dataDir, { journal: empty, trace }))).toEqual([]);
    expect(outputTargetProblems(targets(dataDir, { journal, trace: empty }))).toEqual([]);
    // Each kind's own header only.
    expect(outputTargetProblems(targets(dataDir, { journal: trace, trace: journal }))).toEqual([
      { path: '--journal', message: notOurs(trace, 'journal', dataDir) },
      { path: '--trace', message: notOurs(journal, 'trace', dataDir) },
    ]);
  });
});

describe('ownerProblem', () => {
  it('is null for a missing file, a directory and an empty file', () => {
    const { dir, dataDir } = fresh();
    const empty = join(dir, 'empty');
    writeFileSync(empty, '');
    expect(ownerProblem('journal', join(dir, 'none'), dataDir)).toBeNull();
    expect(ownerProblem('journal', dir, dataDir)).toBeNull();
    expect(ownerProblem('trace', empty, dataDir)).toBeNull();
  });

  it('is null for a first line that is the kind’s header naming the data directory', () => {
    const { dir, dataDir } = fresh();
    const path = join(dir, 'own');
    writeFileSync(path, `${header('trace.header', dataDir)}not json after it\n`);
    expect(ownerProblem('trace', path, dataDir)).toBeNull();
  });

  it('refuses every other first line', () => {
    const { dir, dataDir } = fresh();
    const firstLines = [
      JSON.stringify({ type: 'trace.header', dataDir }),
      `${JSON.stringify({ type: 'trace.header', dataDir: join(dir, 'other') })}\n`,
      `${JSON.stringify({ type: 'journal.header', dataDir })}\n`,
      `${JSON.stringify({ type: 'trace.header' })}\n`,
      'hello\n',
      'null\n',
      '7\n',
      '"trace.header"\n',
      '\n{"type":"trace.header"}\n',
    ];
    firstLines.forEach((text, i) => {
      const path = join(dir, `file-${i}`);
      writeFileSync(path, text);
      expect(ownerProblem('trace', path, dataDir), text).toBe(notOurs(path, 'trace', dataDir));
    });
  });
});

describe('openOutput', () => {
  it('opens a new or own file to append, cutting a torn last line first', () => {
    const { dir, dataDir } = fresh();
    const path = join(dir, 'journal.jsonl');
    const own = header('journal.header', dataDir);
    writeFileSync(path, `${own}{"type":"inp`);
    const linkedData = join(dir, 'data-link');
    symlinkSync(dataDir, linkedData);
    // The data directory is named as the header names it: as the directory it reaches.
    const opened = openOutput('journal', path, linkedData);
    expect(opened.tornBytes).toBe(Buffer.byteLength('{"type":"inp'));
    opened.file.append('{"next":1}\n');
    opened.file.close();
    expect(readFileSync(path, 'utf8')).toBe(`${own}{"next":1}\n`);

    const fresher = openOutput('trace', join(dir, 'new.jsonl'), dataDir);
    expect(fresher.tornBytes).toBe(0);
    fresher.file.close();
  });

  it('throws with the reason for a file that is not serve’s own, opening nothing', () => {
    const { dir, dataDir } = fresh();
    const path = join(dir, 'theirs.txt');
    writeFileSync(path, 'important\n');
    let opens = 0;
    expect(() =>
      openOutput('trace', path, dataDir, () => {
        opens += 1;
        return new MemoryFile();
      }),
    ).toThrow(new Error(notOurs(path, 'trace', dataDir)));
    expect(opens).toBe(0);
    expect(readFileSync(path, 'utf8')).toBe('important\n');
  });

  it('closes the file when its torn line cannot be cut, and throws that error', () => {
    const { dir, dataDir } = fresh();
    const file = new MemoryFile();
    file.text = '{"type":"trace.header"}\n{"torn';
    file.truncateFails = true;
    const opened: string[] = [];
    const path = join(dir, 'memory-twin.jsonl');
    expect(() =>
      openOutput('trace', path, dataDir, (p) => {
        opened.push(p);
        return file;
      }),
    ).toThrow(new Error('EIO: i/o error, ftruncate'));
    expect(opened).toEqual([path]);
    expect(file.closes).toBe(1);
  });
});

describe('canonicalPath', () => {
  it('resolves an existing path through its links', () => {
    const { dir } = fresh();
    mkdirSync(join(dir, 'real'));
    writeFileSync(join(dir, 'real', 'f'), '');
    symlinkSync('real', join(dir, 'alias'));
    expect(canonicalPath(join(dir, 'alias', 'f'))).toBe(join(dir, 'real', 'f'));
    expect(canonicalPath(join(dir, 'alias', '..', 'real', 'f'))).toBe(join(dir, 'real', 'f'));
    expect(canonicalPath('/')).toBe('/');
  });

  it('resolves a name not made yet under its parent, and a relative path from the working directory', () => {
    const { dir } = fresh();
    symlinkSync(dir, join(dir, 'here'));
    expect(canonicalPath(join(dir, 'here', 'new', 'deeper', 'file'))).toBe(join(dir, 'new', 'deeper', 'file'));
    expect(canonicalPath('some-new-name')).toBe(join(realpathSync(process.cwd()), 'some-new-name'));
  });

  it('follows a dangling link, relative to the link’s directory, through a chain', () => {
    const { dir } = fresh();
    mkdirSync(join(dir, 'sub'));
    symlinkSync('../target.jsonl', join(dir, 'sub', 'first'));
    symlinkSync(join(dir, 'sub', 'first'), join(dir, 'second'));
    expect(canonicalPath(join(dir, 'second'))).toBe(join(dir, 'target.jsonl'));
  });

  it('stops following a loop of links after 40, as the system does', () => {
    const { dir } = fresh();
    symlinkSync('b', join(dir, 'a'));
    symlinkSync('a', join(dir, 'b'));
    // a → b → a …: after 40 links, an even number, the name reached is a's again.
    expect(canonicalPath(join(dir, 'a'))).toBe(join(dir, 'a'));
    expect(canonicalPath(join(dir, 'b'))).toBe(join(dir, 'b'));
    symlinkSync('c', join(dir, 'x'));
    symlinkSync('d', join(dir, 'c'));
    symlinkSync('x', join(dir, 'd'));
    // x → c → d → x …: 40 links from x end on c (40 = 3·13 + 1).
    expect(canonicalPath(join(dir, 'x'))).toBe(join(dir, 'c'));
  });
});
