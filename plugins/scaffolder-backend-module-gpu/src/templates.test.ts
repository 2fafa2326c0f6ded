import { mockServices } from '@backstage/backend-test-utils';
import {
  componentEntityV1alpha1Validator,
  Entity,
} from '@backstage/catalog-model';
import {
  createCatalogRegisterAction as createBuiltinCatalogRegisterAction,
  createCatalogWriteAction,
  createDebugLogAction,
  createFetchTemplateAction,
} from '@backstage/plugin-scaffolder-backend';
import { TemplateAction } from '@backstage/plugin-scaffolder-node';
import {
  demoPlatformConfig,
  parsePlatform,
} from '@internal/backstage-plugin-gpu-common';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import yaml from 'yaml';
import { mockContext } from './__testUtils__/actionContext';
import { fakeCatalog } from './__testUtils__/fakeCatalog';
import { createCatalogRegisterAction } from './actions/catalogRegister';
import { createServiceCreateAction } from './actions/serviceCreate';
import { createServiceDeleteAction } from './actions/serviceDelete';
import { createServiceQuoteAction } from './actions/serviceQuote';
import { createServiceRenderAction } from './actions/serviceRender';

const TEMPLATES = path.resolve(__dirname, '../../../templates');
const EXPRESSION = /\$\{\{(.*?)\}\}/g;

interface JsonSchema {
  properties?: Record<string, JsonSchema>;
  required?: string[];
  anyOf?: JsonSchema[];
  enum?: unknown[];
  type?: string | string[];
}

const deps = { discovery: mockServices.discovery(), auth: mockServices.auth() };
const catalog = fakeCatalog().catalog;
const actions = new Map<string, TemplateAction<any, any, any>>(
  [
    createServiceQuoteAction(deps),
    createServiceCreateAction(deps),
    createServiceRenderAction(deps),
    createServiceDeleteAction({ ...deps, catalog }),
    createCatalogRegisterAction({ catalog }),
    // The scaffolder's built-ins the templates use.
    createFetchTemplateAction({
      reader: mockServices.urlReader.mock(),
      integrations: {} as any,
    }),
    createDebugLogAction(),
    createCatalogWriteAction(),
    createBuiltinCatalogRegisterAction({ catalog, integrations: {} as any }),
  ].map(a => [a.id, a as TemplateAction<any, any, any>]),
);

/** Properties an action input or output schema allows (all branches of a union). */
function propertiesOf(
  schema: JsonSchema | undefined,
): Record<string, JsonSchema> {
  if (!schema) return {};
  return Object.assign(
    {},
    schema.properties,
    ...(schema.anyOf ?? []).map(propertiesOf),
  );
}

function isStatic(value: unknown): boolean {
  return !JSON.stringify(value).includes('${{');
}

function expressionsIn(value: unknown): string[] {
  return [...JSON.stringify(value).matchAll(EXPRESSION)].map(m => m[1].trim());
}

const templateFiles = fs
  .readdirSync(TEMPLATES)
  .map(dir => path.join(TEMPLATES, dir, 'template.yaml'))
  .filter(file => fs.existsSync(file));

describe.each(templateFiles.map(f => [path.relative(TEMPLATES, f), f]))(
  'template %s',
  (_, file) => {
    const template = yaml.parse(fs.readFileSync(file, 'utf8'));
    const parameters: Record<string, JsonSchema> = Object.assign(
      {},
      ...template.spec.parameters.map((page: JsonSchema) => page.properties),
    );
    const steps: {
      id: string;
      action: string;
      input: Record<string, unknown>;
    }[] = template.spec.steps;

    it('is a v1beta3 Template registered by the root catalog-info.yaml', () => {
      expect(template).toMatchObject({
        apiVersion: 'scaffolder.backstage.io/v1beta3',
        kind: 'Template',
      });
      const root = yaml
        .parseAllDocuments(
          fs.readFileSync(path.join(TEMPLATES, '../catalog-info.yaml'), 'utf8'),
        )
        .map(d => d.toJS());
      const targets = root
        .filter(e => e.kind === 'Location')
        .flatMap(e => e.spec.targets);
      expect(targets).toContain(
        `./templates/${path.relative(TEMPLATES, file)}`,
      );
    });

    it('uses only registered actions, with inputs their schemas accept', () => {
      for (const step of steps) {
        const action = actions.get(step.action);
        expect({ step: step.id, found: Boolean(action) }).toEqual({
          step: step.id,
          found: true,
        });
        const allowed = propertiesOf(action!.schema?.input as JsonSchema);
        const unknown = Object.keys(step.input).filter(
          key => !(key in allowed),
        );
        expect({ step: step.id, unknown }).toEqual({
          step: step.id,
          unknown: [],
        });
        const required = (action!.schema?.input as JsonSchema).required ?? [];
        const missing = required.filter(key => !(key in step.input));
        expect({ step: step.id, missing }).toEqual({
          step: step.id,
          missing: [],
        });
        const badValues = Object.entries(step.input).filter(
          ([key, value]) =>
            isStatic(value) &&
            allowed[key].enum &&
            !allowed[key].enum!.includes(value),
        );
        expect({ step: step.id, badValues }).toEqual({
          step: step.id,
          badValues: [],
        });
      }
    });

    it('refers only to declared parameters and to outputs of earlier steps', () => {
      const seen = new Map<string, Record<string, JsonSchema>>();
      for (const step of steps) {
        for (const expression of expressionsIn(step.input)) {
          for (const [, name] of expression.matchAll(/parameters\.(\w+)/g)) {
            expect({
              step: step.id,
              parameter: name,
              declared: name in parameters,
            }).toMatchObject({ declared: true });
          }
          for (const [, id, output] of expression.matchAll(
            /steps\.([\w-]+)\.output\.(\w+)/g,
          )) {
            expect({
              step: step.id,
              refersTo: id,
              earlier: seen.has(id),
            }).toMatchObject({ earlier: true });
            expect({
              step: step.id,
              output,
              known: output in seen.get(id)!,
            }).toMatchObject({ known: true });
          }
        }
        seen.set(
          step.id,
          propertiesOf(actions.get(step.action)!.schema?.output as JsonSchema),
        );
      }
      for (const expression of expressionsIn(template.spec.output)) {
        for (const [, id, output] of expression.matchAll(
          /steps\.([\w-]+)\.output\.(\w+)/g,
        )) {
          const outputs = seen.get(id);
          // Built-in actions without an output schema (debug:log) are not referred to.
          expect({
            refersTo: id,
            output,
            known: Boolean(outputs && output in outputs),
          }).toMatchObject({ known: true });
        }
      }
    });
  },
);

const serviceTemplates = templateFiles.filter(file =>
  yaml
    .parse(fs.readFileSync(file, 'utf8'))
    .spec.steps.some(
      (step: { action: string }) => step.action === 'gpu:service:create',
    ),
);

describe.each(serviceTemplates.map(f => [path.relative(TEMPLATES, f), f]))(
  'service template %s',
  (_, file) => {
    it('offers the platform models and the GpuTierPicker contract of templates/README.md', () => {
      const template = yaml.parse(fs.readFileSync(file, 'utf8'));
      const parameters: Record<string, JsonSchema> = Object.assign(
        {},
        ...template.spec.parameters.map((page: JsonSchema) => page.properties),
      );
      const platform = parsePlatform(demoPlatformConfig);
      expect([...(parameters.model.enum as string[])].sort()).toEqual(
        Object.keys(platform.models).sort(),
      );
      expect(parameters.placement).toMatchObject({
        type: 'object',
        'ui:field': 'GpuTierPicker',
        required: ['tier', 'pool'],
        properties: {
          tier: { enum: ['dedicated', 'mig', 'mps', 'time-sliced'] },
        },
      });
    });
  },
);

describe('catalog-info.yaml skeletons', () => {
  const skeletons = templateFiles
    .map(f => path.join(path.dirname(f), 'skeleton'))
    .filter(dir => fs.existsSync(dir));

  it.each(skeletons.map(s => [path.relative(TEMPLATES, s), s]))(
    '%s renders a valid Component carrying the GPU service annotations',
    async (_, skeleton) => {
      const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'gpu-skeleton-'));
      try {
        const ctx = mockContext(
          {
            url: './skeleton',
            values: {
              name: 'summariser',
              description: 'Summaries: support tickets',
              owner: 'group:default/ml-platform',
              model: 'llama-3.1-8b',
              runtime: 'vllm',
              environment: 'production',
              annotations: {
                'backstage.io/kubernetes-id': 'summariser',
                'backstage.io/kubernetes-namespace': 'ml-serving',
                'gpu.backstage.io/service-id':
                  '6a1f0d52-53f6-4a55-9b8e-0d7e4c0f4d11',
              },
              endpoint: 'http://summariser.ml-serving.svc.cluster.local:8000',
              tier: 'dedicated',
              pool: 'l4-ondemand',
            },
          },
          { workspacePath: workspace },
        );
        (ctx as any).templateInfo = {
          baseUrl: pathToFileURL(
            path.join(path.dirname(skeleton), 'template.yaml'),
          ).href,
          entityRef: 'template:default/gpu-model-service',
        };
        await actions.get('fetch:template')!.handler(ctx);
        const entity: Entity = yaml.parse(
          fs.readFileSync(path.join(workspace, 'catalog-info.yaml'), 'utf8'),
        );
        expect(await componentEntityV1alpha1Validator.check(entity)).toBe(true);
        expect(entity).toMatchObject({
          metadata: {
            name: 'summariser',
            description: 'Summaries: support tickets',
            annotations: {
              'backstage.io/kubernetes-id': 'summariser',
              'backstage.io/kubernetes-namespace': 'ml-serving',
              'gpu.backstage.io/service-id':
                '6a1f0d52-53f6-4a55-9b8e-0d7e4c0f4d11',
            },
          },
          spec: {
            type: 'service',
            lifecycle: 'production',
            owner: 'group:default/ml-platform',
          },
        });
      } finally {
        fs.rmSync(workspace, { recursive: true, force: true });
      }
    },
  );
});
