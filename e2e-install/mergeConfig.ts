import { Document, isMap, isSeq } from 'yaml';

type Value = unknown;

function isPlainObject(value: Value): value is Record<string, Value> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function mergeAt(doc: Document, path: string[], value: Value) {
  const existing = doc.getIn(path, true);
  if (isPlainObject(value) && isMap(existing)) {
    for (const [key, child] of Object.entries(value)) {
      mergeAt(doc, [...path, key], child);
    }
  } else if (Array.isArray(value) && isSeq(existing)) {
    for (const item of value) doc.addIn(path, item);
  } else {
    doc.setIn(path, value);
  }
}

/**
 * Adds `additions` to an app-config document the way a person edits it: maps are merged key by key, lists get the
 * new items appended (e.g. catalog locations), other values are set. The document keeps its comments.
 */
export function mergeConfig(
  doc: Document,
  additions: Record<string, Value>,
): Document {
  for (const [key, value] of Object.entries(additions)) {
    mergeAt(doc, [key], value);
  }
  return doc;
}
