import { mockServices } from '@backstage/backend-test-utils';
import {
  createCatalogRegisterAction as createBuiltinCatalogRegisterAction,
  createCatalogWriteAction,
  createDebugLogAction,
  createFetchTemplateAction,
} from '@backstage/plugin-scaffolder-backend';
import { ScmIntegrations } from '@backstage/integration';
import { createPublishGithubPullRequestAction } from '@backstage/plugin-scaffolder-backend-module-github';
import {
  createGitlabRepoPushAction,
  createPublishGitlabMergeRequestAction,
} from '@backstage/plugin-scaffolder-backend-module-gitlab';
import { TemplateAction } from '@backstage/plugin-scaffolder-node';
import {
  availableDtypes,
  demoPlatformConfig,
  MAX_LATENCY_BUDGET_SECONDS,
  MIN_LATENCY_BUDGET_SECONDS,
  parsePlatform,
  RUNTIMES,
} from '@gpu-platform/backstage-plugin-gpu-common';
import { batchPools } from '@gpu-platform/backstage-plugin-gpu-node';
import fs from 'node:fs';
import path from 'node:path';
import yaml from 'yaml';
import { fakeCatalog } from './__testUtils__/fakeCatalog';
import { createBatchSubmitAction } from './actions/batchSubmit';
import { createCatalogRegisterAction } from './actions/catalogRegister';
import { createCatalogWriteAction as createGpuCatalogWriteAction } from './actions/catalogWrite';
import { createGiteaPullRequestAction } from './actions/giteaPullRequest';
import { createPlatformRenderAction } from './actions/platformRender';
import { createServiceChangeAction } from './actions/serviceChange';
import { createServiceCreateAction } from './actions/serviceCreate';
import { createServiceConfirmAction } from './actions/serviceConfirm';
import { createServiceDeleteAction } from './actions/serviceDelete';
import { createServiceQuoteAction } from './actions/serviceQuote';
import { createServiceRenderAction } from './actions/serviceRender';
import { createServiceRetryAction } from './actions/serviceRetry';

const TEMPLATES = path.resolve(__dirname, '../../../templates');
const EXPRESSION = /\$\{\{(.*?)\}\}/g;
/** `steps.create.output.x` or `steps['catalog-info'].output.x` (a dashed id needs the brackets in Nunjucks). */
const STEP_OUTPUT =
  /steps(?:\.([\w-]+)|\[\\?['"]([\w-]+)\\?['"]\])\.output\.(\w+)/g;

interface JsonSchema {
  properties?: Record<string, JsonSchema>;
  required?: string[];
  anyOf?: JsonSchema[];
  enum?: unknown[];
  oneOf?: Array<{ const?: unknown; title?: string }>;
  enumNames?: unknown;
  type?: string | string[];
  default?: unknown;
  dependencies?: Record<string, { oneOf?: JsonSchema[] }>;
}

/** The properties a page declares through `dependencies` (fields shown once another field has a given value). */
function dependentProperties(
  page: JsonSchema,
): Array<Record<string, JsonSchema> | undefined> {
  return Object.values(page.dependencies ?? {}).flatMap(dependency =>
    (dependency.oneOf ?? []).map(option => option.properties),
  );
}

/** The values a parameter allows: its `enum`, or the `const` of each labelled `oneOf` option. */
function allowedValues(schema: JsonSchema): unknown[] | undefined {
  return schema.enum ?? schema.oneOf?.map(option => option.const);
}

const deps = { discovery: mockServices.discovery(), auth: mockServices.auth() };
const catalog = fakeCatalog().catalog;
const userInfo = mockServices.userInfo();
const integrations = ScmIntegrations.fromConfig(mockServices.rootConfig());
const actions = new Map<string, TemplateAction<any, any, any>>(
  [
    createServiceQuoteAction(deps),
    createServiceCreateAction({ ...deps, catalog }),
    createServiceRenderAction(deps),
    createServiceConfirmAction(deps),
    createServiceChangeAction(deps),
    createServiceRetryAction(deps),
    createServiceDeleteAction({ ...deps, catalog }),
    createBatchSubmitAction(deps),
    createPlatformRenderAction(deps),
    createGpuCatalogWriteAction({ userInfo }),
    createCatalogRegisterAction({ catalog, userInfo }),
    // The scaffolder's built-ins the templates use.
    createFetchTemplateAction({
      reader: mockServices.urlReader.mock(),
      integrations: {} as any,
    }),
    createDebugLogAction(),
    createCatalogWriteAction(),
    createBuiltinCatalogRegisterAction({ catalog, integrations: {} as any }),
    // The publishers of the GitOps templates (packages/backend installs their modules).
    createPublishGithubPullRequestAction({ integrations }),
    createPublishGitlabMergeRequestAction({ integrations }),
    createGitlabRepoPushAction({ integrations }),
    createGiteaPullRequestAction({ integrations }),
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
      ...template.spec.parameters.flatMap((page: JsonSchema) => [
        page.properties,
        ...dependentProperties(page),
      ]),
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
          for (const [, dotted, bracketed, output] of expression.matchAll(
            STEP_OUTPUT,
          )) {
            const id = dotted ?? bracketed;
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
        for (const [, dotted, bracketed, output] of expression.matchAll(
          STEP_OUTPUT,
        )) {
          const id = dotted ?? bracketed;
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

    it("words its result: no raw status or mode ('pending-approval', 'apply') in the output text", () => {
      // The actions' typed status and mode are for steps and links; the text a person reads takes their words
      // (statusText, modeText), as a result read 'is pending-approval (apply)' before.
      const raw = expressionsIn(template.spec.output?.text ?? [])
        .flatMap(expression => [...expression.matchAll(STEP_OUTPUT)])
        .map(([, , , output]) => output)
        .filter(output => output === 'status' || output === 'mode');
      expect(raw).toEqual([]);
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
      expect([...(allowedValues(parameters.model) as string[])].sort()).toEqual(
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

    it('reviews the placement in words, quotes the sizing step live and picks only teams with GPU quota', () => {
      const template = yaml.parse(fs.readFileSync(file, 'utf8'));
      const parameters: Record<string, any> = Object.assign(
        {},
        ...template.spec.parameters.map((page: JsonSchema) => page.properties),
      );
      const placement = parameters.placement.properties;
      const shown = Object.entries(placement)
        .filter(
          ([, p]: [string, any]) => p['ui:backstage']?.review?.show !== false,
        )
        .map(([key, p]: [string, any]) => [key, p.title]);
      expect(shown).toEqual([
        ['summary', 'Placement'],
        ['cost', 'Monthly cost'],
        ['approval', 'Approval'],
      ]);
      expect(Object.keys(placement).sort()).toEqual(
        [
          'tier',
          'pool',
          'slice',
          'migProfile',
          'gpusPerReplica',
          'needsApproval',
          'chosenBy',
          'recommendedWhenChosen',
          'summary',
          'cost',
          'approval',
        ].sort(),
      );
      expect(parameters.sizingQuote).toMatchObject({
        'ui:field': 'GpuQuoteSummary',
        'ui:backstage': { review: { show: false } },
      });
      expect(parameters.owner['ui:field']).toBe('GpuTeamPicker');
      // The precision follows the runtime (the field offers the catalogue's dtypes of the model for it); the
      // schema admits every dtype a runtime can serve a model in and sets no default another runtime lacks.
      expect(parameters.dtype['ui:field']).toBe('GpuDtypePicker');
      expect(parameters.dtype.default).toBeUndefined();
      const servable = new Set(
        Object.values(parsePlatform(demoPlatformConfig).models).flatMap(m =>
          (['vllm', 'ollama'] as const).flatMap(r => availableDtypes(m, r)),
        ),
      );
      expect([...(allowedValues(parameters.dtype) as string[])].sort()).toEqual(
        [...servable].filter(d => d !== 'fp32').sort(),
      );
      for (const [key, name] of [
        ['model', 'Model'],
        ['runtime', 'Runtime'],
        ['dtype', 'Precision / quantisation'],
      ]) {
        expect(parameters[key]['ui:backstage']).toEqual({ review: { name } });
      }
    });
  },
);

describe.each(serviceTemplates.map(f => [path.relative(TEMPLATES, f), f]))(
  'latency budget of service template %s',
  (_, file) => {
    const template = yaml.parse(fs.readFileSync(file, 'utf8'));
    const pages: Array<JsonSchema & { title: string }> =
      template.spec.parameters;
    const sizing = pages.find(page => page.properties?.runtime)!;

    it('asks for it on the model and sizing page, for vLLM only, within the bounds the backend validates', () => {
      expect(sizing.title).toBe('Model and sizing');
      // A field of the runtime's vLLM branch: the form shows it only while vLLM is chosen.
      const branches = sizing.dependencies?.runtime?.oneOf ?? [];
      const byRuntime = Object.fromEntries(
        branches.map(branch => [
          (branch.properties!.runtime as { const: string }).const,
          branch.properties!,
        ]),
      );
      expect(Object.keys(byRuntime).sort()).toEqual([...RUNTIMES].sort());
      expect(byRuntime.vllm.latencyBudgetSeconds).toMatchObject({
        title: 'Latency budget (p95, seconds)',
        type: 'number',
        minimum: MIN_LATENCY_BUDGET_SECONDS,
        maximum: MAX_LATENCY_BUDGET_SECONDS,
        description: expect.stringMatching(
          /^Optional\. The time within which 95% of requests must be answered, end to end .*e\.g\. 2 /,
        ),
      });
      expect(byRuntime.ollama.latencyBudgetSeconds).toBeUndefined();
      for (const page of pages) {
        expect({
          page: page.title,
          declared: 'latencyBudgetSeconds' in (page.properties ?? {}),
        }).toEqual({ page: page.title, declared: false });
      }
      expect(sizing.required).not.toContain('latencyBudgetSeconds');
    });

    it('sends it to the quote and the create step alike, as latencyBudget.p95Seconds on vLLM only', () => {
      const inputs = (
        template.spec.steps as { action: string; input: Record<string, any> }[]
      )
        .filter(step =>
          ['gpu:service:quote', 'gpu:service:create'].includes(step.action),
        )
        .map(step => step.input.latencyBudget);
      expect(inputs).toEqual([
        '${{ { p95Seconds: parameters.latencyBudgetSeconds } if parameters.runtime == "vllm" and parameters.latencyBudgetSeconds else undefined }}',
        '${{ { p95Seconds: parameters.latencyBudgetSeconds } if parameters.runtime == "vllm" and parameters.latencyBudgetSeconds else undefined }}',
      ]);
    });
  },
);

describe('batch template gpu-batch-job', () => {
  it("offers the platform's batch pools (spot, whole GPUs) and its environments, with defaults among them", () => {
    const template = yaml.parse(
      fs.readFileSync(
        path.join(TEMPLATES, 'gpu-batch-job/template.yaml'),
        'utf8',
      ),
    );
    const parameters: Record<string, JsonSchema> = Object.assign(
      {},
      ...template.spec.parameters.map((page: JsonSchema) => page.properties),
    );
    const platform = parsePlatform(demoPlatformConfig);
    expect(allowedValues(parameters.pool)).toEqual(
      batchPools(platform).map(p => p.name),
    );
    expect(allowedValues(parameters.environment)).toEqual(
      platform.environments.map(e => e.name),
    );
    expect(
      template.spec.steps.map((s: { action: string }) => s.action),
    ).toEqual(['gpu:batch:submit']);
  });
});

/** Every file of a template directory other than its template.yaml. */
function filesBesideTemplate(dir: string): string[] {
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter(e => e.isFile())
    .map(e => path.join(e.parentPath, e.name))
    .filter(f => f !== path.join(dir, 'template.yaml'));
}

describe.each(templateFiles.map(f => [path.relative(TEMPLATES, f), f]))(
  'form labels of %s',
  (_, file) => {
    const template = yaml.parse(fs.readFileSync(file, 'utf8'));
    const parameters: Record<string, JsonSchema> = Object.assign(
      {},
      ...template.spec.parameters.map((page: JsonSchema) => page.properties),
    );

    it('labels choices with oneOf const/title (enumNames is deprecated in the scaffolder form and warns)', () => {
      const withEnumNames = Object.keys(parameters).filter(
        key => parameters[key].enumNames !== undefined,
      );
      expect(withEnumNames).toEqual([]);
    });

    it('every labelled option has a constant and a whole title, and the default is one of them', () => {
      for (const [key, schema] of Object.entries(parameters)) {
        if (!schema.oneOf) continue;
        for (const option of schema.oneOf) {
          expect({ key, option }).toEqual({
            key,
            option: { const: expect.any(String), title: expect.any(String) },
          });
          // A title cut at a comma (a YAML flow sequence) leaves unbalanced parentheses.
          const open = (option.title!.match(/\(/g) ?? []).length;
          const close = (option.title!.match(/\)/g) ?? []).length;
          expect({
            key,
            title: option.title,
            balanced: open === close,
          }).toEqual({
            key,
            title: option.title,
            balanced: true,
          });
        }
        const defaultAllowed =
          schema.default === undefined ||
          allowedValues(schema)!.includes(schema.default);
        expect({ key, defaultAllowed }).toEqual({ key, defaultAllowed: true });
      }
    });
  },
);

describe('generated YAML', () => {
  it('no template generates YAML by templating text (no skeleton YAML, no fetch:template of YAML)', () => {
    for (const file of templateFiles) {
      const dir = path.dirname(file);
      const yamlFiles = filesBesideTemplate(dir).filter(f =>
        /\.(ya?ml|json)(\.njk)?$/.test(f),
      );
      expect({ template: path.relative(TEMPLATES, file), yamlFiles }).toEqual({
        template: path.relative(TEMPLATES, file),
        yamlFiles: [],
      });
      const steps: { id: string; action: string; input: any }[] = yaml.parse(
        fs.readFileSync(file, 'utf8'),
      ).spec.steps;
      for (const step of steps.filter(s => s.action.startsWith('fetch:'))) {
        const skeleton = path.resolve(dir, String(step.input?.url ?? ''));
        const templated = fs.existsSync(skeleton)
          ? filesBesideTemplate(skeleton).filter(f => /\.(ya?ml|json)/.test(f))
          : [];
        expect({ step: step.id, templated }).toEqual({
          step: step.id,
          templated: [],
        });
      }
    }
  });

  it.each(serviceTemplates.map(f => [path.relative(TEMPLATES, f), f]))(
    '%s writes catalog-info.yaml with gpu:catalog:write from the form and the create step, and registers that file',
    (_, file) => {
      const steps: { id: string; action: string; input: any }[] = yaml.parse(
        fs.readFileSync(file, 'utf8'),
      ).spec.steps;
      const index = (action: string) =>
        steps.findIndex(s => s.action === action);
      const write = steps[index('gpu:catalog:write')];
      expect(write).toBeDefined();
      expect(index('gpu:service:create')).toBeLessThan(
        index('gpu:catalog:write'),
      );
      expect(index('gpu:catalog:write')).toBeLessThan(
        index('gpu:catalog:register'),
      );
      expect(write.input).toMatchObject({
        name: '${{ parameters.name }}',
        owner: '${{ parameters.owner }}',
        annotations: '${{ steps.create.output.annotations }}',
      });
      expect(steps[index('gpu:catalog:register')].input).toEqual({
        catalogInfoPath: `\${{ steps['${write.id}'].output.catalogInfoPath }}`,
      });
    },
  );
});

const gitopsTemplates = ['gpu-model-service-gitops', 'gpu-platform-gitops'];

describe.each(gitopsTemplates)('GitOps template %s', name => {
  const template = yaml.parse(
    fs.readFileSync(path.join(TEMPLATES, name, 'template.yaml'), 'utf8'),
  );
  const steps: {
    id: string;
    action: string;
    if?: string;
    input: Record<string, string>;
  }[] = template.spec.steps;
  const parameters: Record<string, any> = Object.assign(
    {},
    ...template.spec.parameters.map((page: JsonSchema) => page.properties),
  );

  it('asks for the repository with a RepoUrlPicker limited to github.com and gitlab.com', () => {
    expect(parameters.repoUrl).toMatchObject({
      type: 'string',
      'ui:field': 'RepoUrlPicker',
      'ui:options': { allowedHosts: ['github.com', 'gitlab.com'] },
    });
  });

  it('publishes exactly the rendered directory, with the publisher of the repository host', () => {
    const render = steps.find(s => s.action.endsWith(':render'))!;
    const publishers = steps.filter(s => s.action.startsWith('publish:'));
    expect(publishers.map(s => ({ action: s.action, if: s.if }))).toEqual([
      {
        action: 'publish:github:pull-request',
        if: "${{ (parameters.repoUrl | parseRepoUrl).host == 'github.com' }}",
      },
      {
        action: 'publish:gitlab:merge-request',
        if: "${{ (parameters.repoUrl | parseRepoUrl).host == 'gitlab.com' }}",
      },
    ]);
    for (const publish of publishers) {
      expect(publish.input).toMatchObject({
        repoUrl: '${{ parameters.repoUrl }}',
        sourcePath: render.input.targetDir,
      });
      expect(steps.indexOf(publish)).toBeGreaterThan(steps.indexOf(render));
    }
  });
});

describe('GitOps lifecycle templates: a change and a decommission are pull or merge requests', () => {
  const load = (name: string) =>
    yaml.parse(
      fs.readFileSync(path.join(TEMPLATES, name, 'template.yaml'), 'utf8'),
    );
  const NAME = "${{ parameters.entity | parseEntityRef | pick('name') }}";
  const HOST_IFS = {
    'publish:github:pull-request':
      "(parameters.repoUrl | parseRepoUrl).host == 'github.com'",
    'publish:gitlab:merge-request':
      "(parameters.repoUrl | parseRepoUrl).host == 'gitlab.com'",
    'gpu:gitea:pull-request':
      "(parameters.repoUrl | parseRepoUrl).host not in ['github.com', 'gitlab.com']",
  };
  type Step = {
    id: string;
    action: string;
    if?: string;
    input: Record<string, any>;
  };
  const publishersOf = (steps: Step[]) =>
    steps.filter(s => s.action in HOST_IFS);

  it.each([
    'change-gpu-model-service-gitops',
    'retry-gpu-model-service-gitops',
    'decommission-gpu-model-service-gitops',
  ])(
    '%s picks a GPU service from the catalog and a repository, and has a publisher per forge',
    name => {
      const template = load(name);
      const parameters: Record<string, any> = Object.assign(
        {},
        ...template.spec.parameters.map((page: JsonSchema) => page.properties),
      );
      expect(parameters.entity).toMatchObject({
        'ui:field': 'EntityPicker',
        'ui:options': {
          allowArbitraryValues: false,
          catalogFilter: [
            {
              kind: 'Component',
              'metadata.annotations.gpu.backstage.io/service-id': {
                exists: true,
              },
            },
          ],
        },
      });
      expect(parameters.repoUrl).toMatchObject({
        'ui:field': 'RepoUrlPicker',
        'ui:options': { allowedHosts: ['github.com', 'gitlab.com'] },
      });
      const publishers = publishersOf(template.spec.steps);
      expect(publishers.map(s => s.action)).toEqual(Object.keys(HOST_IFS));
      for (const publish of publishers) {
        expect(publish.if).toContain(
          HOST_IFS[publish.action as keyof typeof HOST_IFS],
        );
        expect(publish.input).toMatchObject({
          repoUrl: '${{ parameters.repoUrl }}',
          targetPath: `deploy/${NAME}`,
        });
      }
    },
  );

  it('the change writes the manifests gpu:service:change rendered into the directory each forge proposes, described with cost, quota and approvals', () => {
    const steps: Step[] = load('change-gpu-model-service-gitops').spec.steps;
    const [change] = steps;
    expect(change).toMatchObject({
      action: 'gpu:service:change',
      input: {
        entityRef: '${{ parameters.entity }}',
        targetDir: `deploy/${NAME}`,
        layout: 'kustomization',
        // A change waiting for approval has no new manifests to propose.
        whenPendingApproval: 'fail',
      },
    });
    for (const publish of publishersOf(steps)) {
      expect(publish.input).toMatchObject({
        sourcePath: change.input.targetDir,
        description: '${{ steps.change.output.description }}',
      });
    }
  });

  it('the change is pending until its request is merged: confirmed with the request last; GitLab removes removedFiles in a second commit', () => {
    const steps: Step[] = load('change-gpu-model-service-gitops').spec.steps;
    const [change] = steps;
    expect(change.input).toMatchObject({
      provisional: true,
      removedFilesDir: `removed/deploy/${NAME}`,
    });
    expect(steps.at(-1)).toMatchObject({
      action: 'gpu:service:confirm',
      input: {
        serviceId: '${{ steps.change.output.serviceId }}',
        pullRequestUrl:
          "${{ steps['publish-github'].output.remoteUrl or steps['publish-gitlab'].output.mergeRequestUrl or steps['publish-gitea'].output.pullRequestUrl }}",
      },
    });
    const gitlab = steps.find(
      s => s.action === 'publish:gitlab:merge-request',
    )!;
    const removals = steps.find(s => s.action === 'gitlab:repo:push')!;
    expect(steps.indexOf(removals)).toBe(steps.indexOf(gitlab) + 1);
    expect(removals.if).toContain(
      '(steps.change.output.removedFiles | length) > 0',
    );
    expect(removals.input).toMatchObject({
      repoUrl: '${{ parameters.repoUrl }}',
      branchName: gitlab.input.branchName,
      sourcePath: change.input.removedFilesDir,
      targetPath: gitlab.input.targetPath,
      commitAction: 'delete',
    });
    // GitHub deletes them in the same pull request.
    expect(
      steps.find(s => s.action === 'publish:github:pull-request')!.input,
    ).toMatchObject({
      filesToDelete: '${{ steps.change.output.removedFiles }}',
    });
  });

  it('the retry re-reserves with gpu:service:retry first, proposes the directory it rendered on each forge in a branch per retry, described by the action, and confirms the new request last', () => {
    const steps: Step[] = load('retry-gpu-model-service-gitops').spec.steps;
    const [retry] = steps;
    expect(retry).toMatchObject({
      id: 'retry',
      action: 'gpu:service:retry',
      input: {
        entityRef: '${{ parameters.entity }}',
        targetDir: `deploy/${NAME}`,
        layout: 'kustomization',
      },
    });
    // A refused retry fails this first step: no publisher runs, nothing reaches the repository.
    expect(steps.findIndex(s => s.action in HOST_IFS)).toBeGreaterThan(0);
    for (const publish of publishersOf(steps)) {
      expect(publish.input).toMatchObject({
        sourcePath: retry.input.targetDir,
        description: '${{ steps.retry.output.description }}',
        branchName:
          'gpu-service-${{ steps.retry.output.name }}-retry-${{ steps.retry.output.generation }}',
      });
    }
    expect(steps.at(-1)).toMatchObject({
      action: 'gpu:service:confirm',
      input: {
        serviceId: '${{ steps.retry.output.serviceId }}',
        pullRequestUrl:
          "${{ steps['publish-github'].output.remoteUrl or steps['publish-gitlab'].output.mergeRequestUrl or steps['publish-gitea'].output.pullRequestUrl }}",
      },
    });
  });

  it('the decommission records it with gpu:service:delete first, then proposes removing the directory on each forge', () => {
    const steps: Step[] = load('decommission-gpu-model-service-gitops').spec
      .steps;
    expect(steps[0]).toMatchObject({
      action: 'gpu:service:delete',
      input: { entityRef: '${{ parameters.entity }}' },
    });
    const render = steps.find(s => s.action === 'gpu:service:render')!;
    const byAction = Object.fromEntries(
      publishersOf(steps).map(s => [s.action, s.input]),
    );
    expect(byAction['gpu:gitea:pull-request']).toMatchObject({ remove: true });
    expect(byAction['gpu:gitea:pull-request'].sourcePath).toBeUndefined();
    expect(byAction['publish:github:pull-request']).toMatchObject({
      sourcePath: render.input.targetDir,
      filesToDelete: '${{ steps.render.output.files }}',
    });
    expect(byAction['publish:gitlab:merge-request']).toMatchObject({
      sourcePath: render.input.targetDir,
      commitAction: 'delete',
    });
    for (const publish of publishersOf(steps)) {
      expect(publish.input.description).toContain(
        '| Cost per month | ${{ steps.delete.output.deleted[0].monthlyCost }} | $0.00 |',
      );
      expect(publish.input.description).toContain('**Quota:** ');
      expect(publish.input.description).toContain('**Approvals:** none needed');
    }
  });
});
