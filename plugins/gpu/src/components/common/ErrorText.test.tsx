import { renderInTestApp } from '@backstage/frontend-test-utils';
import { screen } from '@testing-library/react';
import { contrastOnWhite } from '../../__testUtils__/contrast';
import { ErrorText } from './ErrorText';

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
