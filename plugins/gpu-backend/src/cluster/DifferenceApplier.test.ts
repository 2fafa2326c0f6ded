import type { KubernetesObject } from '@kubernetes/client-node';
import { DifferenceApplier, liveSignature } from './DifferenceApplier';
import { refOf } from './objectRef';
import { ApplyResult, ClusterApplier, LiveObjectView } from './types';

const OURS = {
  manager: 'backstage-gpu',
  operation: 'Apply',
  apiVersion: 'apps/v1',
  fieldsV1: { 'f:spec': { 'f:replicas': {} } },
};

function deployment(replicas = 1): KubernetesObject & { spec: unknown } {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'chat', namespace: 'team' },
    spec: { replicas },
  };
}

/** A cluster of one resource version counter: every apply writes the object and returns it. */
function cluster() {
  let version = 10;
  const requests: string[] = [];
  const live = new Map<string, KubernetesObject>();
  const inner: ClusterApplier = {
    cluster: 'local',
    async apply(objects) {
      const results: ApplyResult[] = [];
      for (const object of objects) {
        requests.push(object.metadata!.name!);
        await new Promise(r => setTimeout(r, 5));
        const written = {
          ...object,
          metadata: {
            ...object.metadata,
            uid: live.get(object.metadata!.name!)?.metadata?.uid ?? 'uid-1',
            generation: 1,
            resourceVersion: String(++version),
            managedFields: [OURS],
          },
        };
        live.set(object.metadata!.name!, written);
        results.push({
          ref: refOf(object),
          attempts: 1,
          resourceVersion: written.metadata.resourceVersion,
          applied: written,
        });
      }
      return results;
    },
    deleteByOwnership: async () => [],
    async deleteObjects(refs) {
      for (const ref of refs) live.delete(ref.name);
      return refs.map(ref => ({ ref, outcome: 'deleted' as const }));
    },
    diff: async () => ({ inSync: true, drifted: [] }),
    read: async () => undefined,
    list: async () => [],
    serves: async () => true,
  };
  /** What the informer saw: undefined while it is not watching. */
  const informer: { view?: LiveObjectView } = {};
  const seeAll = () => {
    informer.view = {
      object: live.get('chat'),
      resourceVersion: String(version),
    };
  };
  return { inner, requests, live, informer, seeAll, bump: () => ++version };
}

describe('DifferenceApplier', () => {
  function applierOn(c: ReturnType<typeof cluster>, now = () => 0) {
    return new DifferenceApplier({
      inner: c.inner,
      live: () => c.informer.view,
      now,
    });
  }

  it('does not apply an object again while the informer sees it as the last apply left it', async () => {
    const c = cluster();
    const applier = applierOn(c);
    await applier.apply([deployment()]);
    c.seeAll();
    // Status updates change the resource version and the status subresource's managed fields, not what counts.
    const withStatus = structuredClone(c.live.get('chat')!);
    withStatus.metadata!.resourceVersion = String(c.bump());
    withStatus.metadata!.managedFields = [
      OURS,
      {
        manager: 'kube-controller-manager',
        operation: 'Update',
        subresource: 'status',
      },
    ];
    c.informer.view = {
      object: withStatus,
      resourceVersion: withStatus.metadata!.resourceVersion!,
    };
    const results = await applier.apply([deployment()]);
    expect(results).toEqual([
      { ref: refOf(deployment()), attempts: 0, unchanged: true },
    ]);
    expect(c.requests).toEqual(['chat']);
    expect(applier.counts).toEqual({ applied: 1, unchanged: 1 });
  });

  it('applies again an object deleted or scaled by hand, a changed manifest, and a kind no informer follows', async () => {
    const c = cluster();
    const applier = applierOn(c);
    await applier.apply([deployment()]);

    // Deleted: the informer has seen everything up to now, and no such object.
    c.informer.view = { resourceVersion: String(c.bump()) };
    await applier.apply([deployment()]);
    expect(c.requests).toHaveLength(2);

    // Scaled by hand: a new generation and kubectl's entry in the managed fields.
    const scaled = structuredClone(c.live.get('chat')!);
    scaled.metadata!.generation = 2;
    scaled.metadata!.managedFields = [
      OURS,
      { manager: 'kubectl', operation: 'Update', subresource: 'scale' },
    ];
    scaled.metadata!.resourceVersion = String(c.bump());
    c.informer.view = {
      object: scaled,
      resourceVersion: scaled.metadata!.resourceVersion!,
    };
    await applier.apply([deployment()]);
    expect(c.requests).toHaveLength(3);

    // The manifest changed.
    c.seeAll();
    await applier.apply([deployment(2)]);
    expect(c.requests).toHaveLength(4);

    // No informer view (not watching, or a kind not followed).
    c.informer.view = undefined;
    await applier.apply([deployment(2)]);
    expect(c.requests).toHaveLength(5);
    c.seeAll();
    await applier.apply([deployment(2)]);
    expect(c.requests).toHaveLength(5);
  });

  it('forgets the objects it deletes: one applied again is sent, though the informer has not seen the delete yet', async () => {
    const c = cluster();
    const applier = applierOn(c);
    await applier.apply([deployment()]);
    c.seeAll();
    const seenBeforeDelete = c.informer.view;
    expect(await applier.deleteObjects([refOf(deployment())])).toEqual([
      { ref: refOf(deployment()), outcome: 'deleted' },
    ]);
    c.informer.view = seenBeforeDelete;
    await applier.apply([deployment()]);
    expect(c.requests).toEqual(['chat', 'chat']);
  });

  it('trusts an apply the informer has not seen yet for a while, then applies again', async () => {
    const c = cluster();
    let now = 0;
    const applier = applierOn(c, () => now);
    c.informer.view = { resourceVersion: '5' }; // before the apply: no such object yet
    await applier.apply([deployment()]);
    await applier.apply([deployment()]);
    expect(c.requests).toHaveLength(1);
    now = 31_000;
    await applier.apply([deployment()]);
    expect(c.requests).toHaveLength(2);
  });

  it('sends the same object once when several services carry it at the same time', async () => {
    const c = cluster();
    const applier = applierOn(c);
    c.informer.view = { resourceVersion: '5' };
    await Promise.all([1, 2, 3].map(() => applier.apply([deployment()])));
    expect(c.requests).toEqual(['chat']);
  });

  it('signs what others than the status writers change', () => {
    const base = c0();
    expect(liveSignature(base)).toBe(liveSignature(structuredClone(base)));
    const status = structuredClone(base);
    status.metadata!.managedFields!.push({
      manager: 'kube-controller-manager',
      operation: 'Update',
      subresource: 'status',
      time: new Date(),
    });
    expect(liveSignature(status)).toBe(liveSignature(base));
    const recreated = structuredClone(base);
    recreated.metadata!.uid = 'uid-2';
    expect(liveSignature(recreated)).not.toBe(liveSignature(base));
    const labelled = structuredClone(base);
    labelled.metadata!.managedFields!.push({
      manager: 'kubectl-label',
      operation: 'Update',
    });
    expect(liveSignature(labelled)).not.toBe(liveSignature(base));

    function c0(): KubernetesObject {
      return {
        metadata: {
          name: 'chat',
          uid: 'uid-1',
          generation: 1,
          managedFields: [{ ...OURS }],
        },
      };
    }
  });
});
