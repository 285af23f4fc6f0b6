/**
 * A real headless browser for tests: Debian's chromium (installed by scripts/bootstrap) driven with playwright-core.
 * Never a downloaded browser: the executable is /usr/bin/chromium, and the flags keep it off the network.
 */
import { type Browser, chromium } from "playwright-core";

export const CHROMIUM = "/usr/bin/chromium";

const FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

export async function launchChromium(): Promise<Browser & AsyncDisposable> {
  try {
    await Deno.stat(CHROMIUM);
  } catch {
    throw new Error(`${CHROMIUM} is missing: run scripts/bootstrap (it installs Debian's chromium)`);
  }
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS, headless: true });
  return Object.assign(browser, { [Symbol.asyncDispose]: () => browser.close() });
}
