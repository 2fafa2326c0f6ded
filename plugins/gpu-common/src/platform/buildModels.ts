import { z } from 'zod';
import { buildCheckpoints } from './buildCheckpoints';
import { ConfigIssues } from './configIssues';
import { defaultModels } from './defaultModels';
import { platformConfigSchema } from './platformConfigSchema';
import { ModelSpec } from './types';

type RawModels = NonNullable<z.output<typeof platformConfigSchema>['models']>;

const MODEL_KEY = /^[a-z0-9]([a-z0-9._-]*[a-z0-9])?$/;
const REQUIRED = [
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
    const builtIn = Object.hasOwn(defaultModels, key) ? models[key] : undefined;
    const {
      huggingFaceId: _legacyRepository,
      ollamaTag: _legacyTag,
      checkpoints: _checkpoints,
      ...figures
    } = entry;
    const merged: Partial<ModelSpec> = {
      defaultDtype: 'bf16',
      ...builtIn,
      ...figures,
    };
    const before = issues.count;
    const checkpoints = buildCheckpoints(
      builtIn?.checkpoints,
      entry,
      merged.defaultDtype!,
      path,
      issues,
    );
    const missing = REQUIRED.filter(field => merged[field] === undefined);
    if (missing.length > 0) {
      issues.add(
        path,
        `a model that is not built in needs ${missing.join(', ')}`,
      );
    }
    if (Object.keys(checkpoints).length === 0) {
      issues.add(
        path,
        'a model that is not built in needs a checkpoint: checkpoints.<dtype>.huggingFaceId or .ollamaTag (or huggingFaceId / ollamaTag for its default dtype)',
      );
    }
    const quantised = Object.entries(checkpoints)
      .filter(([, c]) => c.vllm && c.vllm.format !== 'none')
      .map(([dtype]) => dtype);
    if (merged.embeddingParametersB === undefined && quantised.length > 0) {
      issues.add(
        [...path, 'embeddingParametersB'],
        `is needed to size the quantised ${quantised.join(
          ', ',
        )} checkpoints, which keep the embeddings and output head in 16 bits: vocab_size x hidden_size in billions, twice when tie_word_embeddings is false`,
      );
    }
    if (issues.count > before) {
      continue;
    }
    models[key] = {
      ...(merged as ModelSpec),
      embeddingParametersB: merged.embeddingParametersB ?? 0,
      checkpoints,
      name: key,
    };
  }
  return models;
}
