import AxeBuilder from '@axe-core/playwright';
import { Page } from '@playwright/test';

/**
 * Serious and critical axe-core violations inside `selector` of the page (every rule axe-core runs by default: WCAG
 * 2.x A and AA and its best practices), as `rule: target` lines, so a test can
 * `expect(await seriousViolations(page, 'main')).toEqual([])` and read what is wrong.
 */
export async function seriousViolations(
  page: Page,
  selector: string,
): Promise<string[]> {
  const results = await new AxeBuilder({ page }).include(selector).analyze();
  return results.violations
    .filter(v => v.impact === 'serious' || v.impact === 'critical')
    .flatMap(v => v.nodes.map(n => `${v.id}: ${n.target.join(' ')}`));
}
