import { createFormField } from '@backstage/plugin-scaffolder-react/alpha';
import { GPU_QUOTE_SUMMARY_FIELD } from './fieldName';
import { QuoteSummary } from './QuoteSummary';

/** The live fit and cost summary as a new-frontend-system scaffolder form field (`ui:field: GpuQuoteSummary`). */
export const gpuQuoteSummaryFormField = createFormField({
  name: GPU_QUOTE_SUMMARY_FIELD,
  component: QuoteSummary,
});
