export { GPU_QUOTE_SUMMARY_FIELD } from './fieldName';
export { QuoteSummary } from './QuoteSummary';
