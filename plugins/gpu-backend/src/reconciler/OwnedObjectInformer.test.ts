import { mockServices } from '@backstage/backend-test-utils';
import type { KubernetesObject } from '@kubernetes/client-node';
import {
  KubernetesRequestError,
  KubernetesWatchClient,
  WatchEnd,
  WatchEvent,
  WatchOptions,
} from '../cluster';
import { byLabel, OwnedObjectInformer } from './OwnedObjectInformer';

function pod(name: string, resourceVersion: string): KubernetesObject {
  return {
    metadata: { name, namespace: 'team', resourceVersion },
  };
}

/** One step of a scripted watch: events to send, then how it ends (or `hang` until stopped). */
type WatchStep = { events: WatchEvent[]; end: WatchEnd | 'hang' };

/**
 * A list and watch client answering from a script, recording what it was asked; discovery answers from `served` in
 * turn (the last answer repeated), or says the kind is served.
 */
function scriptedClient(script: {
  lists: Array<{ items: KubernetesObject[]; resourceVersion: string } | Error>;
  watches: WatchStep[];
  served?: boolean[];
}) {
  const asked = {
    lists: 0,
    serves: 0,
    watchedFrom: [] as string[],
    calls: [] as string[],
  };
  const client: KubernetesWatchClient = {
    async serves() {
      const answers = script.served ?? [true];
      const served = answers[Math.min(asked.serves++, answers.length - 1)];
      asked.calls.push(`serves: ${served}`);
      return served;
    },
    async list() {
      asked.calls.push('list');
      const answer = script.lists[asked.lists++];
      if (!answer) throw new Error('no more lists scripted');
      if (answer instanceof Error) throw answer;
      return answer;
    },
    async watch(
      options: WatchOptions,
      onEvent: (event: WatchEvent) => void,
      signal: AbortSignal,
    ) {
      asked.watchedFrom.push(options.resourceVersion);
      asked.calls.push('watch');
      const step = script.watches.shift() ?? { events: [], end: 'hang' };
      for (const event of step.events) onEvent(event);
      if (step.end !== 'hang') return step.end;
      return new Promise<WatchEnd>(resolve => {
        if (signal.aborted) resolve({ outcome: 'closed' });
        signal.addEventListener('abort', () => resolve({ outcome: 'closed' }));
      });
    },
  };
  return { client, asked };
}

async function until(check: () => boolean) {
  for (let i = 0; i < 2000 && !check(); i++) {
    await new Promise(r => setTimeout(r, 5));
  }
  expect(check()).toBe(true);
}

describe('OwnedObjectInformer', () => {
  const logger = mockServices.logger.mock();

  function informer(client: KubernetesWatchClient) {
    const changes: string[] = [];
    let reconnects = 0;
    const informed = new OwnedObjectInformer({
      onReconnected: () => {
        reconnects += 1;
      },
      cluster: 'local',
      client,
      kind: { apiVersion: 'v1', kind: 'Pod', labelSelector: 'a=b' },
      logger,
      backoffMs: () => 1,
      watchTimeoutSeconds: () => 300,
      onChange: (object, type) =>
        changes.push(`${type} ${object.metadata?.name}`),
    });
    return { informed, changes, reconnected: () => reconnects };
  }

  it('lists, then watches from the list’s version and reports each event; the first list reports nothing', async () => {
    const { client, asked } = scriptedClient({
      lists: [{ items: [pod('a', '5')], resourceVersion: '10' }],
      watches: [
        {
          events: [
            { type: 'ADDED', object: pod('b', '11') },
            { type: 'MODIFIED', object: pod('a', '12') },
            { type: 'BOOKMARK', object: pod('', '13') },
            { type: 'DELETED', object: pod('b', '14') },
          ],
          end: 'hang',
        },
      ],
    });
    const { informed, changes } = informer(client);
    informed.start();
    await informed.hasSynced();
    await until(() => changes.length === 3);
    expect(changes).toEqual(['added b', 'changed a', 'deleted b']);
    expect(asked.watchedFrom).toEqual(['10']);
    expect(informed.objects().map(o => o.metadata?.name)).toEqual(['a']);
    await informed.stop();
  });

  it('a watch closed by the API server starts again from the last version seen, a bookmark’s included', async () => {
    const { client, asked } = scriptedClient({
      lists: [{ items: [], resourceVersion: '10' }],
      watches: [
        {
          events: [
            { type: 'ADDED', object: pod('a', '11') },
            { type: 'BOOKMARK', object: pod('', '20') },
          ],
          end: { outcome: 'closed' },
        },
        {
          events: [{ type: 'MODIFIED', object: pod('a', '21') }],
          end: 'hang',
        },
      ],
    });
    const { informed, changes } = informer(client);
    informed.start();
    await until(() => changes.length === 2);
    expect(asked.watchedFrom).toEqual(['10', '20']);
    expect(asked.lists).toBe(1);
    expect(changes).toEqual(['added a', 'changed a']);
    await informed.stop();
  });

  it('a cut watch or a failed list starts over with a list after a pause, which reports what changed meanwhile and says the cluster is back', async () => {
    const refused = () =>
      new KubernetesRequestError('connect ECONNREFUSED', 'network');
    const { client, asked } = scriptedClient({
      lists: [
        refused(),
        { items: [], resourceVersion: '10' },
        { items: [pod('a', '11')], resourceVersion: '12' },
        refused(),
        { items: [], resourceVersion: '20' },
      ],
      watches: [
        {
          events: [{ type: 'ADDED', object: pod('a', '11') }],
          end: {
            outcome: 'failed',
            error: new KubernetesRequestError('socket hang up', 'network'),
          },
        },
        { events: [], end: { outcome: 'failed', error: refused() } },
        { events: [], end: 'hang' },
      ],
    });
    const { informed, changes, reconnected } = informer(client);
    informed.start();
    await until(() => asked.watchedFrom.length === 3);
    expect(asked.lists).toBe(5);
    expect(asked.watchedFrom).toEqual(['10', '12', '20']);
    // Pod a, added and then deleted while the watch was away, each reported once.
    expect(changes).toEqual(['added a', 'deleted a']);
    expect(informed.counts.failures).toBe(4);
    expect(reconnected()).toBe(3);
    await informed.stop();
  });

  it('410 Gone lists again and reports what changed, appeared or disappeared meanwhile', async () => {
    const { client, asked } = scriptedClient({
      lists: [
        {
          items: [pod('same', '1'), pod('edited', '2'), pod('gone', '3')],
          resourceVersion: '10',
        },
        {
          items: [pod('same', '1'), pod('edited', '7'), pod('new', '8')],
          resourceVersion: '30',
        },
      ],
      watches: [
        // As an ERROR event in the stream ...
        {
          events: [
            {
              type: 'ERROR',
              object: { code: 410, message: 'too old resource version' },
            },
          ],
          end: { outcome: 'closed' },
        },
        // ... and as the status of the request.
        { events: [], end: { outcome: 'expired' } },
      ],
    });
    const { informed, changes } = informer(client);
    informed.start();
    await until(() => asked.lists >= 3);
    expect(asked.watchedFrom).toEqual(['10', '30']);
    expect(changes).toEqual(['changed edited', 'added new', 'deleted gone']);
    await informed.stop();
  });

  it('lists an add-on’s kind only once the cluster serves it, and forgets it when the cluster no longer does', async () => {
    const { client, asked } = scriptedClient({
      // Not served, then installed; after a cut watch, its CRD is gone.
      served: [false, false, true, false],
      lists: [{ items: [pod('a', '5')], resourceVersion: '10' }],
      watches: [
        {
          events: [],
          end: {
            outcome: 'failed',
            error: new KubernetesRequestError(
              'the server could not find the requested resource',
              'http',
              404,
            ),
          },
        },
      ],
    });
    const changes: string[] = [];
    const informed = new OwnedObjectInformer({
      cluster: 'local',
      client,
      kind: {
        apiVersion: 'keda.sh/v1alpha1',
        kind: 'ScaledObject',
        addOn: true,
      },
      logger,
      backoffMs: () => 1,
      unservedRecheckMs: 20,
      onChange: (object, type) =>
        changes.push(`${type} ${object.metadata?.name}`),
    });
    informed.start();
    // Not served: synced with nothing to list, and no view (its objects are read instead).
    await informed.hasSynced();
    expect(asked.lists).toBe(0);
    expect(informed.view('team', 'a')).toBeUndefined();
    // Asked again after the pause: served now, listed and watched. The watch failed and discovery says it is served
    // no more: nothing listed again, nothing known, nothing reported.
    await until(() => asked.serves >= 5);
    expect(asked.calls.slice(0, 7)).toEqual([
      'serves: false',
      'serves: false',
      'serves: true',
      'list',
      'watch',
      'serves: false',
      'serves: false',
    ]);
    expect(informed.objects()).toEqual([]);
    expect(informed.view('team', 'a')).toBeUndefined();
    expect(changes).toEqual([]);
    await informed.stop();
  });

  it('indexes the objects by a label: what a list and each event add, relabel or delete', async () => {
    const labelled = (
      name: string,
      service: string,
      rv: string,
      namespace = 'team',
    ) => ({
      metadata: { name, namespace, resourceVersion: rv, labels: { service } },
    });
    const { client } = scriptedClient({
      lists: [
        {
          items: [
            labelled('a-1', 'a', '1'),
            labelled('a-2', 'a', '2'),
            labelled('a-3', 'a', '3', 'other-team'),
            labelled('b-1', 'b', '4'),
          ],
          resourceVersion: '10',
        },
      ],
      watches: [
        {
          events: [
            { type: 'DELETED', object: labelled('a-1', 'a', '11') },
            { type: 'MODIFIED', object: labelled('b-1', 'a', '12') },
            { type: 'ADDED', object: labelled('c-1', 'c', '13') },
          ],
          end: 'hang',
        },
      ],
    });
    let events = 0;
    const informed = new OwnedObjectInformer({
      cluster: 'local',
      client,
      kind: { apiVersion: 'v1', kind: 'Pod' },
      indexBy: byLabel('service'),
      logger,
      onChange: () => {
        events += 1;
      },
    });
    const names = (service: string) =>
      informed
        .indexed('team', service)
        ?.map(o => o.metadata?.name)
        .sort();
    expect(informed.indexed('team', 'a')).toBeUndefined(); // not listed yet
    informed.start();
    await until(() => events === 3);
    expect(names('a')).toEqual(['a-2', 'b-1']);
    expect(names('b')).toEqual([]);
    expect(names('c')).toEqual(['c-1']);
    expect(
      informed.indexed('other-team', 'a')?.map(o => o.metadata?.name),
    ).toEqual(['a-3']);
    await informed.stop();
  });

  it('keeps and reports what its transform makes of each listed and watched object', async () => {
    const withFields = (name: string, rv: string) => ({
      metadata: {
        ...pod(name, rv).metadata,
        managedFields: [{ manager: 'kubelet', operation: 'Update' }],
      },
    });
    const { client } = scriptedClient({
      lists: [{ items: [withFields('a', '5')], resourceVersion: '10' }],
      watches: [
        {
          events: [{ type: 'ADDED', object: withFields('b', '11') }],
          end: 'hang',
        },
      ],
    });
    const reported: KubernetesObject[] = [];
    const informed = new OwnedObjectInformer({
      cluster: 'local',
      client,
      kind: { apiVersion: 'v1', kind: 'Pod' },
      transform: object => ({
        ...object,
        metadata: { ...object.metadata, managedFields: undefined },
      }),
      logger,
      onChange: object => reported.push(object),
    });
    informed.start();
    await until(() => reported.length === 1);
    expect(reported[0].metadata?.managedFields).toBeUndefined();
    for (const name of ['a', 'b']) {
      expect(informed.view('team', name)?.object?.metadata).toMatchObject({
        name,
        managedFields: undefined,
      });
    }
    // The versions come from the objects as sent, before the transform.
    expect(informed.view('team', 'b')?.resourceVersion).toBe('11');
    await informed.stop();
  });

  it('stops without waiting for a list or discovery request in flight', async () => {
    for (const addOn of [false, true]) {
      let asked = 0;
      const never = () => {
        asked += 1;
        return new Promise<never>(() => undefined);
      };
      const informed = new OwnedObjectInformer({
        cluster: 'local',
        client: { list: never, serves: never, watch: never },
        kind: { apiVersion: 'keda.sh/v1alpha1', kind: 'ScaledObject', addOn },
        logger,
        onChange: () => undefined,
      });
      informed.start();
      await until(() => asked === 1);
      const stopping = Date.now();
      await informed.stop();
      expect(Date.now() - stopping).toBeLessThan(1_000);
    }
  });

  it('stops while waiting to try again', async () => {
    const { client } = scriptedClient({
      lists: [new KubernetesRequestError('connect ECONNREFUSED', 'network')],
      watches: [],
    });
    const informed = new OwnedObjectInformer({
      cluster: 'local',
      client,
      kind: { apiVersion: 'v1', kind: 'Pod' },
      logger,
      backoffMs: () => 60_000,
      onChange: () => undefined,
    });
    informed.start();
    await until(() => informed.counts.failures === 1);
    const stopping = Date.now();
    await informed.stop();
    expect(Date.now() - stopping).toBeLessThan(1_000);
  });
});
