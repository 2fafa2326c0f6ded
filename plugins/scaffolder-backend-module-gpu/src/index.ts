/***/
/**
 * The gpu module for @backstage/plugin-scaffolder-backend.
 *
 * @packageDocumentation
 */

export { scaffolderModule as default } from './module';
