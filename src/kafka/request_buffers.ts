/**
 * Request buffers to reuse. A request's buffer is free again once the broker answered it (it had read every byte
 * by then); a request that gets no answer (acks=0, a timeout, a lost connection) leaves its buffer to the garbage
 * collector. A fresh buffer of 1 MB costs page faults on first touch (with the daemon's malloc tuning, every one
 * above 128 KB is a fresh mapping); a reused one does not.
 */
import { Buffer } from "node:buffer";

class RequestBuffers {
  #free: Buffer[] = [];
  /** Buffers kept: the driver has one request in flight at a time, the bench's bare loop a few. */
  static readonly KEPT = 4;
  /** Sizes are rounded up to this, so one buffer fits requests of about the same size. */
  static readonly UNIT = 256 * 1024;

  take(size: number): Buffer {
    for (let i = 0; i < this.#free.length; i++) {
      if (this.#free[i].length >= size) return this.#free.splice(i, 1)[0];
    }
    return Buffer.allocUnsafe(Math.ceil(size / RequestBuffers.UNIT) * RequestBuffers.UNIT);
  }

  give(buffer: Buffer): void {
    if (this.#free.length < RequestBuffers.KEPT) this.#free.push(buffer);
  }
}

export const requestBuffers = new RequestBuffers();
