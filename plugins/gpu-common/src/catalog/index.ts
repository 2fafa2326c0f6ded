export * from './entityRefs';
export * from './groupHierarchy';
