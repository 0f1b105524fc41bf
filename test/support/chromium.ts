// Browser tests drive Debian's chromium through playwright-core (nothing downloads a browser of
// its own). Where it is not installed, each suite says so in its title and is skipped.
import { existsSync } from "node:fs";
import { chromium, type Browser } from "playwright-core";

const CHROMIUM = "/usr/bin/chromium";
export const hasChromium = existsSync(CHROMIUM);

/** The suite's title, marked SKIPPED (with a warning on the console) where chromium is missing. */
export function browserSuite(name: string): string {
  if (hasChromium) return name;
  console.warn(`${name}: skipped because ${CHROMIUM} does not exist; install Debian's chromium package to run it.`);
  return `${name} — SKIPPED: ${CHROMIUM} does not exist (apt-get install chromium)`;
}

/** Headless chromium with the flags a closed network and a root user need. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"] });
}
