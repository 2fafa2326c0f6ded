export { errorMessage, isNotFound } from './errorMessage';
export {
  formatAge,
  formatGib,
  formatGpuEquivalents,
  formatPercent,
  formatRate,
  formatRelative,
  formatTime,
} from './format';
export { UsageBar } from './UsageBar';
export { WindowSelect } from './WindowSelect';
export { useGpuChanges } from './useGpuChanges';
export { usePlatform } from './usePlatform';
export { ErrorText } from './ErrorText';
