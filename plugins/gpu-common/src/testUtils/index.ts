/**
 * Test fixtures shared by the gpu plugin packages' tests: the report summariser's service requests on the demo platform.
 *
 * @packageDocumentation
 */
export * from './summariserRequest';
