import { Entity } from '@backstage/catalog-model';
import { GpuServiceBindingProcessor } from './GpuServiceBindingProcessor';

const summariser: Entity = {
  apiVersion: 'backstage.io/v1alpha1',
  kind: 'Component',
  metadata: {
    name: 'summariser',
    annotations: { 'backstage.io/kubernetes-id': 'summariser' },
  },
  spec: { type: 'service', lifecycle: 'production', owner: 'ml-platform' },
};

describe('GpuServiceBindingProcessor', () => {
  it('gives a component its bound service id, keeping its other annotations', async () => {
    const asked: string[] = [];
    const processor = new GpuServiceBindingProcessor({
      lookup: async ref => {
        asked.push(ref);
        return 'svc-1';
      },
    });
    const processed = await processor.preProcessEntity(summariser);
    expect(asked).toEqual(['component:default/summariser']);
    expect(processed.metadata.annotations).toEqual({
      'backstage.io/kubernetes-id': 'summariser',
      'gpu.backstage.io/service-id': 'svc-1',
    });
    expect(summariser.metadata.annotations).not.toHaveProperty(
      'gpu.backstage.io/service-id',
    );
  });

  it('leaves alone an unbound component, another kind and a component that names its service already', async () => {
    const lookup = jest.fn(async (ref: string) =>
      ref === 'component:default/summariser' ? undefined : 'svc-2',
    );
    const processor = new GpuServiceBindingProcessor({ lookup });
    expect(await processor.preProcessEntity(summariser)).toBe(summariser);
    const api = { ...summariser, kind: 'API' };
    expect(await processor.preProcessEntity(api)).toBe(api);
    const annotated = {
      ...summariser,
      metadata: {
        name: 'ticket-summariser',
        annotations: { 'gpu.backstage.io/service-id': 'svc-3' },
      },
    };
    expect(await processor.preProcessEntity(annotated)).toBe(annotated);
    expect(lookup.mock.calls).toEqual([['component:default/summariser']]);
  });

  it('keeps the last answer while the gpu backend cannot answer', async () => {
    let answer: () => Promise<string | undefined> = async () => 'svc-1';
    const processor = new GpuServiceBindingProcessor({
      lookup: () => answer(),
    });
    await processor.preProcessEntity(summariser);
    answer = async () => {
      throw new Error('connect ECONNREFUSED');
    };
    expect(
      (await processor.preProcessEntity(summariser)).metadata.annotations,
    ).toMatchObject({ 'gpu.backstage.io/service-id': 'svc-1' });
    // Decommissioned: the annotation goes with the next answer.
    answer = async () => undefined;
    expect(await processor.preProcessEntity(summariser)).toBe(summariser);
  });
});
