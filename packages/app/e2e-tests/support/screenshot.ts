import { Page } from '@playwright/test';

/** Where the suite's screenshots land (kept as test artifacts). */
export const SCREENSHOTS = 'test-results/screenshots';

/** Tallest screenshot taken, in CSS pixels (a governance page with every table is a few thousand). */
const MAX_HEIGHT = 16_000;

/**
 * A screenshot of the whole screen as `test-results/screenshots/<name>.png` at the current width. Backstage scrolls
 * its content inside the page rather than the document, so Playwright's `fullPage` alone stops at the viewport: the
 * viewport is made as tall as the content for the shot, then set back.
 */
export async function screenshot(page: Page, name: string) {
  const viewport = page.viewportSize()!;
  const hidden = await page.evaluate(() =>
    Math.max(
      0,
      ...[...document.querySelectorAll('*')].map(element => {
        const { overflowY } = getComputedStyle(element);
        return /auto|scroll/.test(overflowY)
          ? element.scrollHeight - element.clientHeight
          : 0;
      }),
    ),
  );
  await page.setViewportSize({
    width: viewport.width,
    height: Math.min(viewport.height + hidden, MAX_HEIGHT),
  });
  await page.screenshot({ path: `${SCREENSHOTS}/${name}.png`, fullPage: true });
  await page.setViewportSize(viewport);
}
