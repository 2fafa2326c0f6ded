import { renderInTestApp } from '@backstage/frontend-test-utils';
import { screen } from '@testing-library/react';
import { ErrorText } from './ErrorText';

/** WCAG relative luminance of `rgb(r, g, b)`. */
function luminance(rgb: string): number {
  const [r, g, b] = rgb
    .match(/\d+/g)!
    .slice(0, 3)
    .map(v => {
      const c = Number(v) / 255;
      return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
    });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

function contrastOnWhite(rgb: string): number {
  return 1.05 / (luminance(rgb) + 0.05);
}

describe('ErrorText', () => {
  it('says an error as an alert in a red with at least 4.5:1 contrast on white (the theme error.main has 3.7:1)', async () => {
    await renderInTestApp(<ErrorText>Could not save: over quota</ErrorText>);
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('Could not save: over quota');
    const color = getComputedStyle(alert).color;
    expect(color).toMatch(/^rgb/);
    expect(contrastOnWhite(color)).toBeGreaterThanOrEqual(4.5);
    expect(contrastOnWhite('rgb(244, 67, 54)')).toBeLessThan(4.5);
  });
});
