/** A start-up failure the user can fix (a bad key variable, a port in use): exit 2 with the message. */
export class StartError extends Error {
  override readonly name = 'StartError';
}
