/**
 * The name templates use for the live fit and cost summary of the sizing step: `ui:field: GpuQuoteSummary`.
 *
 * @public
 */
export const GPU_QUOTE_SUMMARY_FIELD = 'GpuQuoteSummary';
