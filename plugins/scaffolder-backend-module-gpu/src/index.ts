/**
 * Scaffolder actions for GPU model services (`gpu:service:*`), calling the gpu backend on behalf of the user, and
 * `gpu:catalog:write` (catalog-info.yaml from structured inputs) and `gpu:catalog:register` for setups without a Git
 * provider.
 *
 * @packageDocumentation
 */
export { scaffolderModuleGpu as default } from './module';
export { createServiceQuoteAction } from './actions/serviceQuote';
export { createServiceCreateAction } from './actions/serviceCreate';
export { createServiceConfirmAction } from './actions/serviceConfirm';
export { createServiceRenderAction } from './actions/serviceRender';
export { createServiceChangeAction } from './actions/serviceChange';
export { createServiceRetryAction } from './actions/serviceRetry';
export { createServiceDeleteAction } from './actions/serviceDelete';
export { createBatchSubmitAction } from './actions/batchSubmit';
export { createPlatformRenderAction } from './actions/platformRender';
export { createCatalogRegisterAction } from './actions/catalogRegister';
export { createCatalogWriteAction } from './actions/catalogWrite';
export { LocalCatalogDirectory } from './catalog/LocalCatalogDirectory';
export { catalogModuleGpuServiceBinding } from './catalog/catalogModuleGpuServiceBinding';
export { GpuServiceBindingProcessor } from './catalog/GpuServiceBindingProcessor';
export type { GpuServiceBindingLookup } from './catalog/GpuServiceBindingProcessor';
