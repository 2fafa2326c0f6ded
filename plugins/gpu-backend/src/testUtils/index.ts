/**
 * Test utilities for packages that test against the gpu backend: a real Prometheus loaded with generated DCGM and
 * vLLM history (used by this package's integration tests and the app's end-to-end tests).
 *
 * @packageDocumentation
 */
export * from './prometheus';
