export { errorMessage, isNotFound } from './errorMessage';
export {
  formatAge,
  formatGib,
  formatGpuEquivalents,
  formatPercent,
  formatRate,
  formatTime,
} from './format';
export { RelativeTime, useNow } from './RelativeTime';
export { UsageBar } from './UsageBar';
export { WindowSelect } from './WindowSelect';
export { useGpuChanges } from './useGpuChanges';
export { usePlatform } from './usePlatform';
export {
  ErrorText,
  useErrorColorStyles,
  useFieldErrorStyles,
} from './ErrorText';
export { DestructiveButton } from './DestructiveButton';
export { describeServiceState } from './serviceStateWords';
export {
  SimulatedMetricsLabel,
  SIMULATED_METRICS_LABEL,
} from './SimulatedMetricsLabel';
