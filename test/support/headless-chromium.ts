import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BrowserContext, chromium } from "playwright-core";

/** Debian's Chromium (`.ci/run` installs it); `APIFLOW_TEST_CHROMIUM` points elsewhere. */
export const CHROMIUM = process.env.APIFLOW_TEST_CHROMIUM ?? "/usr/bin/chromium";

/**
 * A headless Chromium with a throwaway profile and every background network feature off, so a
 * browser test sends nothing off this machine. Close the context when done.
 *
 * @example const context = await launchHeadlessChromium(); try { … } finally { await context.close(); }
 */
export function launchHeadlessChromium(): Promise<BrowserContext> {
  return chromium.launchPersistentContext(mkdtempSync(join(tmpdir(), "apiflow-chromium-")), {
    executablePath: CHROMIUM,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}

/** Why browser tests cannot run here, or undefined when Chromium is installed (for `skipWithout`). */
export function chromiumMissing(): string | undefined {
  return existsSync(CHROMIUM) ? undefined : `no ${CHROMIUM} (APIFLOW_TEST_CHROMIUM)`;
}
