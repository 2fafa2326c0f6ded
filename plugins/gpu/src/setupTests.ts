import '@testing-library/jest-dom';

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
