/**
 * An error whose message says everything an operator needs (what, where, and the fix), such as a topic the
 * broker will not create. Its status trace is that one line: a stack of the client library's frames under it
 * would only bury the sentence.
 */
export function plainTaskError(message: string): Error {
  const error = new Error(message);
  error.stack = message;
  return error;
}
