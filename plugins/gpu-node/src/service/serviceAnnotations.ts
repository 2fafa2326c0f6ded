import { ServiceContext } from './resolveServiceContext';

/** The configured annotations of every object of a service; undefined when there are none. */
export function serviceAnnotations(
  context: ServiceContext,
  own: Record<string, string> = {},
): Record<string, string> | undefined {
  const annotations = { ...context.options.annotations, ...own };
  return Object.keys(annotations).length > 0 ? annotations : undefined;
}
