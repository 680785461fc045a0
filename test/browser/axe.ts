// One axe-core scan for every browser test. It waits for the page's finite animations to end first: a bubble that is
// still fading in has, for that moment, the contrast of a half-transparent text, and axe measures what is drawn. The
// scan judges what the patient reads once the page is still; endless animations (the typing dots) are not waited for.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Frame, Page } from 'playwright-core';

export const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** Runs in the scanned document: serialisable, so it closes over nothing. */
export async function scanWhenStill(): Promise<string[]> {
  const finite = document
    .getAnimations()
    .filter((animation) => Number.isFinite(Number(animation.effect?.getComputedTiming().endTime)));
  await Promise.all(finite.map((animation) => animation.finished.catch(() => undefined)));
  const axe = (
    window as unknown as {
      axe: {
        run(
          context: Document,
          options: object,
        ): Promise<{ violations: Array<{ id: string; nodes: Array<{ target: unknown }> }> }>;
      };
    }
  ).axe;
  const result = await axe.run(document, { resultTypes: ['violations'] });
  return result.violations.map(
    (violation) => `${violation.id}: ${JSON.stringify(violation.nodes.map((node) => node.target))}`,
  );
}

/** The violations axe-core finds in a Playwright page or frame, each with the elements it names. */
export async function axeViolations(target: Page | Frame): Promise<string[]> {
  // axe-core is a large script: compiled once per document, not again for each scan of the same document.
  if (!(await target.evaluate(() => 'axe' in window))) await target.evaluate(AXE_SOURCE);
  return target.evaluate(scanWhenStill);
}
