import { describeAttribution } from './describeAttribution';

describe('describeAttribution', () => {
  it('says how much of the window was measured when short, once', () => {
    expect(
      describeAttribution({
        value: 0.6,
        method: 'measured',
        confidence: 'medium',
        coverage: 0.5,
      }),
    ).toBe(
      'measured on its own GPUs, medium confidence; measured over 50% of the window',
    );
    expect(
      describeAttribution({
        value: 0.6,
        method: 'measured',
        confidence: 'medium',
        coverage: 0.5,
        note: "DCGM GPU utilisation of the service's 1 GPU; measured over 50% of the window",
      }),
    ).toBe(
      "DCGM GPU utilisation of the service's 1 GPU; measured over 50% of the window",
    );
  });

  it('says nothing of coverage when the window is (nearly) covered or coverage is unknown', () => {
    for (const coverage of [1, 0.95, undefined]) {
      expect(
        describeAttribution({
          value: 0.6,
          method: 'measured',
          confidence: 'high',
          coverage,
        }),
      ).toBe('measured on its own GPUs, high confidence');
    }
  });
});
