/** A gate loops wait on while their task is paused; `stop` opens it for good so loops can finish. */
export class PauseGate {
  #paused = false;
  #waiters: (() => void)[] = [];

  get paused(): boolean {
    return this.#paused;
  }

  pause(): void {
    this.#paused = true;
  }

  resume(): void {
    this.#paused = false;
    for (const w of this.#waiters.splice(0)) w();
  }

  /** Resolves at once when not paused, otherwise on resume. */
  wait(): Promise<void> {
    return this.#paused ? new Promise((resolve) => this.#waiters.push(resolve)) : Promise.resolve();
  }
}
