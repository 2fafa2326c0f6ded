import type { KubernetesObject } from '@kubernetes/client-node';

/**
 * The events a status read summarises: the Warning ones (`fieldSelector=type=Warning`), listed per namespace or
 * followed by the reconciler's informer, which indexes them by the object they are about ({@link eventSubjectKey}).
 */
export const WARNING_EVENTS = {
  apiVersion: 'v1',
  kind: 'Event',
  fieldSelector: 'type=Warning',
} as const;

/** The key of an object events are about: its kind and name (an event's `involvedObject`). */
export function eventSubjectKey(object: { kind?: string; name?: string }) {
  return `${object.kind ?? ''}/${object.name ?? ''}`;
}

/** The index value of an event: the key of the object it is about. */
export function subjectOfEvent(event: KubernetesObject): string | undefined {
  const about = (event as { involvedObject?: { kind?: string; name?: string } })
    .involvedObject;
  return about ? eventSubjectKey(about) : undefined;
}
