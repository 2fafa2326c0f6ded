export * from './GpuNotifier';
export { notifyingStore } from './notifyingStore';
export type { ServiceEventsNotifier } from './notifyingStore';
