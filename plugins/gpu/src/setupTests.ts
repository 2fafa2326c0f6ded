import '@testing-library/jest-dom';
import { configure } from '@testing-library/react';

// Pages load data and permissions in several requests; on a loaded 2-core machine (the full suite runs packages in
// parallel) that can take longer than the 1 s default of findBy*/waitFor.
configure({ asyncUtilTimeout: 5000 });

// jsdom has no ResizeObserver; recharts' ResponsiveContainer needs one. Charts then render at zero size, which is
// all component tests need (they check the figures and the charts' accessible summaries, not pixels).
class NoopResizeObserver {
  observe() {}
  unobserve() {}
  disconnect() {}
}
if (!('ResizeObserver' in globalThis)) {
  (globalThis as any).ResizeObserver = NoopResizeObserver;
}
