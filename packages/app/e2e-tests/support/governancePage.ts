import { Locator, Page } from '@playwright/test';

/** The Paper (table with its title and toolbar) of the governance page's table titled `title`. */
export function tableOf(page: Page, title: string): Locator {
  return page
    .getByRole('heading', { name: title, exact: true })
    .locator('xpath=ancestor::div[contains(@class, "MuiPaper-root")][1]');
}

/** Whether a table scrolls sideways: any of its scrollers (material-table nests one in another around the table). */
export async function scrollsSideways(table: Locator): Promise<boolean> {
  return table.evaluate(paper =>
    [...paper.querySelectorAll('div')].some(
      d =>
        getComputedStyle(d).overflowX === 'auto' &&
        d.scrollWidth > d.clientWidth + 1,
    ),
  );
}

/** Tables of the page that scroll sideways, by title: their columns would be hidden behind an unmarked scroll. */
export async function sidewaysScrolling(page: Page): Promise<string[]> {
  const scrolling: string[] = [];
  // Material UI suffixes its class names in some of the app's style sheets (`MuiPaper-root-864`).
  for (const paper of await page
    .locator('main [class*="MuiPaper-root"]')
    .all()) {
    if (await scrollsSideways(paper)) {
      scrolling.push(
        await paper.evaluate(
          p => p.querySelector('h2, h5, h6')?.textContent ?? '?',
        ),
      );
    }
  }
  return scrolling;
}

/**
 * The header and body cells of a table that are not wholly inside its visible box (cut off at the right, or hidden
 * behind a scroll), by their text: every column of the table should be in view.
 */
export async function cellsOutside(table: Locator): Promise<string[]> {
  return table.evaluate(paper => {
    const box = paper.getBoundingClientRect();
    return [...paper.querySelectorAll('thead th, tbody td')]
      .filter(cell => {
        const rect = cell.getBoundingClientRect();
        return rect.left < box.left - 1 || rect.right > box.right + 1;
      })
      .map(cell => (cell.textContent ?? '?').slice(0, 60));
  });
}

/** The height in pixels of each body row of a table. */
export async function rowHeights(table: Locator): Promise<number[]> {
  return table.evaluate(paper =>
    [...paper.querySelectorAll('tbody tr')].map(
      tr => tr.getBoundingClientRect().height,
    ),
  );
}
