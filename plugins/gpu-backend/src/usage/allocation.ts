/** The allocation arithmetic lives in gpu-common's cost module; the cost views import it from here. */
export {
  allocationInRange,
  monthlyAllocationAt,
} from '@gpu-platform/backstage-plugin-gpu-common';
export type { AllocationInRange } from '@gpu-platform/backstage-plugin-gpu-common';
