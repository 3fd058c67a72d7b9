/**
 * The homeagent version, from package.json: a journal records the version that wrote it, and a replay
 * refuses another version's journal (its kernel may trace the same inputs differently).
 */
import { readFileSync } from 'node:fs';

export const HOMEAGENT_VERSION: string = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;
