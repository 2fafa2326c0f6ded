// Validates Kubernetes objects (a JSON array on stdin) with the kubernetes-models validators and reports, as JSON on
// stdout, the problems of each: schema errors, and fields the Kubernetes API does not know (found by a round trip
// through @kubernetes/client-node's serializer, which keeps only known fields). Run as a child process because these
// packages are ES modules only, which Jest's CommonJS runtime cannot load.
import { ObjectSerializer } from '@kubernetes/client-node/dist/gen/models/ObjectSerializer.js';

const MODEL_MODULES = {
  'keda.sh/': '@kubernetes-models/keda/',
  '': 'kubernetes-models/',
};

async function modelClass(apiVersion, kind) {
  const prefix = Object.keys(MODEL_MODULES).find(p => apiVersion.startsWith(p));
  const module = await import(`${MODEL_MODULES[prefix]}${apiVersion}/${kind}`);
  return module[kind];
}

function serializerType(apiVersion, kind) {
  if (apiVersion.startsWith('keda.sh/')) return undefined;
  const version = apiVersion.split('/').pop();
  return `${version[0].toUpperCase()}${version.slice(1)}${kind}`;
}

/** Paths present in `original` but missing from `roundTripped`. */
function droppedFields(original, roundTripped, path = '') {
  if (Array.isArray(original)) {
    return original.flatMap((item, i) =>
      droppedFields(
        item,
        Array.isArray(roundTripped) ? roundTripped[i] : undefined,
        `${path}[${i}]`,
      ),
    );
  }
  if (original !== null && typeof original === 'object') {
    return Object.keys(original).flatMap(key => {
      const next = `${path}.${key}`;
      if (
        roundTripped === null ||
        typeof roundTripped !== 'object' ||
        !(key in roundTripped)
      ) {
        return [`unknown field ${next.slice(1)}`];
      }
      return droppedFields(original[key], roundTripped[key], next);
    });
  }
  return [];
}

const input = await new Promise(resolve => {
  let text = '';
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', chunk => (text += chunk));
  process.stdin.on('end', () => resolve(text));
});

const results = [];
for (const object of JSON.parse(input)) {
  const problems = [];
  const Model = await modelClass(object.apiVersion, object.kind).catch(
    () => undefined,
  );
  if (!Model) {
    problems.push(
      `no kubernetes-models schema for ${object.apiVersion} ${object.kind}`,
    );
  } else {
    try {
      new Model(object).validate();
    } catch (error) {
      problems.push(String(error.message ?? error));
    }
  }
  const type = serializerType(object.apiVersion, object.kind);
  if (type) {
    const roundTripped = ObjectSerializer.serialize(
      ObjectSerializer.deserialize(object, type),
      type,
    );
    problems.push(...droppedFields(object, roundTripped));
  }
  results.push(problems);
}
process.stdout.write(JSON.stringify(results));
