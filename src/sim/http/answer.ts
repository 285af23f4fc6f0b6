/** A handler's answer: status, headers and an optional body produced chunk by chunk. */
export interface ApiResponse {
  status: number;
  headers: Headers;
  body?: Iterable<string> | AsyncIterable<string>;
}

export function bodyOf(text: string): Iterable<string> {
  return [text];
}
