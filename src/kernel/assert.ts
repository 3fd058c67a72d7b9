/**
 * Assertions for invariants. An assertion failure is a bug in the kernel or a caller that broke a
 * rule, never an operating outcome: it is thrown, not handled. The message starts with the rule's
 * name (STACK, LIFO, LEVEL, ...) so a failing property or scenario says which rule broke.
 */
export class AssertionError extends Error {
  override readonly name = 'AssertionError';
}

export function assert(condition: boolean, message: string): asserts condition {
  if (!condition) throw new AssertionError(message);
}

/**
 * Throws an AssertionError. Hot paths write `if (!cond) fail(`…`)` instead of `assert(cond, `…`)`
 * so the message is only built when the rule is actually broken.
 */
export function fail(message: string): never {
  throw new AssertionError(message);
}

/** Exhaustiveness check for discriminated unions: the compiler proves this is unreachable. */
export function assertNever(value: never, what: string): never {
  throw new AssertionError(`unreachable: unexpected ${what}: ${JSON.stringify(value)}`);
}
