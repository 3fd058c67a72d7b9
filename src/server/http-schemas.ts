/**
 * The request bodies of the HTTP channel (docs/spec.md §13.1), checked with zod at the boundary: an unknown
 * field, a known field of the wrong type or an unknown level is a 400 naming the field. The chat
 * completions body is the exception: OpenAI clients send many parameters this server has no use for,
 * so only the messages are checked and everything else is accepted and ignored.
 */
import { z } from 'zod';
import { check, strictObject, type FieldProblem } from './zod-problems.ts';

const source = z.string().min(1);

const inputBody = strictObject({ text: z.string(), source: source.optional(), channel: source.optional() });

const interruptBody = strictObject({
  text: z.string().optional(),
  level: z.enum(['L1', 'L2', 'L3', 'L4']).optional(),
  source: source.optional(),
  channel: source.optional(),
  stop: z.boolean().optional(),
});

const contentPart = z.looseObject({ type: z.string(), text: z.string().optional() });
const chatBody = z.looseObject({
  model: z.string().optional(),
  stream: z.boolean().nullable().optional(),
  messages: z
    .array(
      z.looseObject({ role: z.string(), content: z.union([z.string(), z.array(contentPart), z.null()]).optional() }),
    )
    .min(1),
});

export type InputBody = z.output<typeof inputBody>;
export type InterruptBody = z.output<typeof interruptBody>;
export type ChatBody = z.output<typeof chatBody>;

export type Checked<T> =
  { readonly ok: true; readonly value: T } | { readonly ok: false; readonly problem: FieldProblem };

export function checkInput(value: unknown): Checked<InputBody> {
  return first(check(inputBody, value));
}

export function checkInterrupt(value: unknown): Checked<InterruptBody> {
  const checked = first(check(interruptBody, value));
  if (checked.ok && checked.value.text === undefined && checked.value.stop !== true) {
    return { ok: false, problem: { path: 'text', message: 'required: a string (only a stop may come without text)' } };
  }
  return checked;
}

/** The body and the text of its last user message. */
export function checkChat(value: unknown): Checked<{ readonly body: ChatBody; readonly text: string }> {
  const checked = first(check(chatBody, value));
  if (!checked.ok) return checked;
  const messages = checked.value.messages;
  for (let i = messages.length - 1; i >= 0; i -= 1) {
    const message = messages[i];
    if (message === undefined || message.role !== 'user') continue;
    const content = message.content;
    const text =
      typeof content === 'string'
        ? content
        : (content ?? []).map((p) => (p.type === 'text' ? (p.text ?? '') : '')).join('');
    return { ok: true, value: { body: checked.value, text } };
  }
  return {
    ok: false,
    problem: {
      path: 'messages',
      message: 'must contain a message with role "user"; its content is what the agent is told',
    },
  };
}

/** One problem is enough for a 400: the message names the field, and the client fixes one at a time anyway. */
function first<T>(
  checked: { readonly ok: true; readonly value: T } | { readonly ok: false; readonly problems: FieldProblem[] },
): Checked<T> {
  if (checked.ok) return checked;
  return { ok: false, problem: checked.problems[0] ?? { path: '', message: 'invalid body' } };
}
