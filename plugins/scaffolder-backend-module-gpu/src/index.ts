/**
 * Scaffolder actions for GPU model services (`gpu:service:*`), calling the gpu backend on behalf of the user.
 *
 * @packageDocumentation
 */
export { scaffolderModuleGpu as default } from './module';
export { createServiceQuoteAction } from './actions/serviceQuote';
export { createServiceCreateAction } from './actions/serviceCreate';
