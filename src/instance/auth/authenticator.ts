/** How the client obtains the Authorization header of each request. */
export interface Authenticator {
  /** The Authorization header value for the next request (may fetch a token first). */
  authorization(signal?: AbortSignal): Promise<string>;
  /**
   * The instance answered 401 to a request sent with `used`. Returns true when a fresh credential is now
   * available and one resend is worth making (OAuth); false when resending cannot help (basic).
   */
  refreshAfter401(used: string): boolean;
}
