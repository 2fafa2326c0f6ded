export * from './entityRefs';
