import { renderInTestApp } from '@backstage/frontend-test-utils';
import { screen } from '@testing-library/react';
import { textContrastOnWhite } from '../../__testUtils__/contrast';
import { rightSizeRecommendation } from '../../__testUtils__/gpuFixtures';
import { RecommendationList } from './RecommendationList';

describe('RecommendationList', () => {
  it('says a warning recommendation in a red readable on white (4.5:1), not the theme error.main (3.7:1)', async () => {
    await renderInTestApp(
      <RecommendationList
        recommendations={[rightSizeRecommendation()]}
        measured
      />,
    );
    const title = screen.getByText('Move to a MIG 1g.10gb slice');
    // The title's line (the strong is inside it) carries the colour.
    expect(textContrastOnWhite(title.parentElement!)).toBeGreaterThanOrEqual(
      4.5,
    );
    const [red, green] = getComputedStyle(title.parentElement!)
      .color.match(/\d+/g)!
      .map(Number);
    expect(red).toBeGreaterThan(green);
  });
});
