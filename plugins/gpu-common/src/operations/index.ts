export * from './parsePlatformOperations';
export * from './readPlatformOperations';
export * from './types';
export * from './checkOperations';
