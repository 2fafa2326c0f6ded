export * from './checkPlatformConfig';
