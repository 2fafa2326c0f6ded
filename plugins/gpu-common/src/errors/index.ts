export * from './GpuDomainError';
export * from './listAllowed';
