/**
 * The two placeholder texts of docs/spec.md §3.6, word for word as the model reads them. The tests compare
 * requests with these literals rather than with the kernel's own strings, so a changed text fails them.
 */
export const PLACEHOLDER_CONTINUE = 'continue based on the tool results above';
export const PLACEHOLDER_FINISH = 'if your reply is complete, return plain text to finish';
