/**
 * Scratch copies of the tree for `npm run planted`: the tracked files plus the untracked ones git does
 * not ignore, as they are in the working tree now (so a catalogue entry being written is planted against
 * the code it names), with node_modules linked from the repository. They live under the OS temp
 * directory, outside the repository, and are removed when the campaign ends or is interrupted.
 */
import { execFileSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  realpathSync,
  rmSync,
  symlinkSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

export function treeFiles(repo: string): string[] {
  const out = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: repo,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  // Deleted but still tracked files, and node_modules (a symlink in a worktree), are not copied.
  return [...new Set(out.split('\0'))].filter(
    (f) => f !== '' && f !== 'node_modules' && existsSync(join(repo, f)) && !lstatSync(join(repo, f)).isDirectory(),
  );
}

export function makeScratchRoot(): string {
  return mkdtempSync(join(tmpdir(), 'homeagent-planted-'));
}

export function makeCopy(repo: string, files: readonly string[], dir: string): void {
  mkdirSync(dir, { recursive: true });
  for (const f of files) {
    const to = join(dir, f);
    mkdirSync(dirname(to), { recursive: true });
    copyFileSync(join(repo, f), to);
  }
  symlinkSync(realpathSync(join(repo, 'node_modules')), join(dir, 'node_modules'), 'dir');
}

export function removeScratch(root: string): void {
  rmSync(root, { recursive: true, force: true, maxRetries: 3 });
}
