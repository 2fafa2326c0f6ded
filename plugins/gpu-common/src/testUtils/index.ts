/**
 * Test fixtures shared by the gpu plugin packages' tests: seed 004's service requests on the demo platform.
 *
 * @packageDocumentation
 */
export * from './summariserRequest';
