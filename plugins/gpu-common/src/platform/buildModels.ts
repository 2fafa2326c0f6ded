import { z } from 'zod';
import { ConfigIssues } from './configIssues';
import { defaultModels } from './defaultModels';
import { platformConfigSchema } from './platformConfigSchema';
import { ModelSpec } from './types';

type RawModels = NonNullable<z.output<typeof platformConfigSchema>['models']>;

const MODEL_KEY = /^[a-z0-9]([a-z0-9._-]*[a-z0-9])?$/;
const REQUIRED = [
  'huggingFaceId',
  'parametersB',
  'layers',
  'kvHeads',
  'headDim',
  'maxContextLength',
] as const;

/** The default model catalogue, extended and overridden field by field by `gpu.models`. */
export function buildModels(
  raw: RawModels,
  issues: ConfigIssues,
): Record<string, ModelSpec> {
  const models: Record<string, ModelSpec> = structuredClone(defaultModels);
  for (const [key, entry] of Object.entries(raw)) {
    const path = ['gpu', 'models', key];
    if (!MODEL_KEY.test(key)) {
      issues.add(
        path,
        'model names may contain only lowercase letters, digits, ".", "_" and "-", e.g. llama-3.1-8b',
      );
      continue;
    }
    const merged: Partial<ModelSpec> = {
      defaultDtype: 'bf16',
      ...(Object.hasOwn(defaultModels, key) ? models[key] : {}),
      ...entry,
    };
    const missing = REQUIRED.filter(field => merged[field] === undefined);
    if (missing.length > 0) {
      issues.add(
        path,
        `a model that is not built in needs ${missing.join(', ')}`,
      );
      continue;
    }
    models[key] = { ...(merged as ModelSpec), name: key };
  }
  return models;
}
