/**
 * How a refused journal line names what is wrong (src/journal/schema.ts `issueText`): the first
 * issue's path, array indices in brackets and keys after dots, then its message.
 */
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { issueText } from '../../src/journal/schema.ts';

const issue = (path: (string | number)[], message: string): z.core.$ZodIssue => ({
  code: 'custom',
  path,
  message,
  input: undefined,
});

describe('issueText', () => {
  it('names the first issue by its path', () => {
    expect(issueText([issue(['input', 'events', 2, 'at'], 'Expected number'), issue(['other'], 'second')])).toBe(
      'input.events[2].at: Expected number',
    );
    expect(issueText([issue([0, 'kind'], 'Invalid')])).toBe('[0].kind: Invalid');
  });

  it('is the message alone for an issue of the whole line, and "invalid" with no issue', () => {
    expect(issueText([issue([], 'Expected object')])).toBe('Expected object');
    expect(issueText([])).toBe('invalid');
  });
});
