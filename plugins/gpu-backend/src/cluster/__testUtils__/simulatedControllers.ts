import { createHash } from 'node:crypto';
import type { fakeKubernetesApi } from './fakeKubernetesApi';

type FakeApi = ReturnType<typeof fakeKubernetesApi>;
type Json = Record<string, any>;

/** A fixed clock of the simulated controllers' timestamps. */
export const SIMULATED_NOW = '2026-12-01T10:00:00Z';

function hash(text: string, length: number): string {
  return createHash('sha256').update(text).digest('hex').slice(0, length);
}

/**
 * What Kubernetes' and Kueue's controllers would write for an applied service's Deployment, into the fake API, in
 * the shapes a real API server (1.36) and Kueue (v0.19, pod integration) return them: the Deployment's status, its
 * ReplicaSet, pods (gated by `kueue.x-k8s.io/admission` until admitted), one Workload per pod owned by it, and
 * events as the kubelet (core/v1: count, lastTimestamp) and the scheduler (events.k8s.io: eventTime, series) record
 * them.
 */
export function simulatedControllers(
  api: FakeApi,
  deployment: { namespace: string; name: string },
) {
  const deploymentPath = `/apis/apps/v1/namespaces/${deployment.namespace}/deployments/${deployment.name}`;
  const live = (): Json => {
    const found = api.live(deploymentPath);
    if (!found) throw new Error(`No Deployment at ${deploymentPath}`);
    return found;
  };
  const templateHash = () => hash(JSON.stringify(live().spec.template), 10);
  const replicaSetName = () => `${deployment.name}-${templateHash()}`;

  function replicaSet(): Json {
    const d = live();
    return api.put({
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: {
        name: replicaSetName(),
        namespace: deployment.namespace,
        labels: {
          ...d.spec.template.metadata.labels,
          'pod-template-hash': templateHash(),
        },
        annotations: {
          'deployment.kubernetes.io/desired-replicas': String(
            d.spec.replicas ?? 1,
          ),
          'deployment.kubernetes.io/revision': '1',
        },
        ownerReferences: [
          {
            apiVersion: 'apps/v1',
            kind: 'Deployment',
            name: deployment.name,
            uid: d.metadata.uid,
            controller: true,
            blockOwnerDeletion: true,
          },
        ],
      },
      spec: {
        replicas: d.spec.replicas ?? 1,
        selector: d.spec.selector,
        template: d.spec.template,
      },
      status: { replicas: d.spec.replicas ?? 1, observedGeneration: 1 },
    });
  }

  /** The Deployment controller's status for the given counts (as it writes it with maxUnavailable 1). */
  function deploymentStatus(counts: {
    updated?: number;
    ready?: number;
    available?: number;
    replicas?: number;
    observedGeneration?: number;
    progressDeadlineExceeded?: boolean;
  }) {
    const d = live();
    const wanted = d.spec.replicas ?? 1;
    const updated = counts.updated ?? wanted;
    const available = counts.available ?? 0;
    const maxUnavailable = d.spec.strategy?.rollingUpdate?.maxUnavailable ?? 1;
    const minimum = available >= wanted - maxUnavailable;
    const rs = replicaSetName();
    const status: Json = {
      observedGeneration: counts.observedGeneration ?? d.metadata.generation,
      replicas: counts.replicas ?? updated,
      updatedReplicas: updated,
      ...(counts.ready ? { readyReplicas: counts.ready } : {}),
      ...(available ? { availableReplicas: available } : {}),
      ...(wanted - available > 0
        ? { unavailableReplicas: wanted - available }
        : {}),
      conditions: [
        {
          type: 'Available',
          status: minimum ? 'True' : 'False',
          lastUpdateTime: SIMULATED_NOW,
          lastTransitionTime: SIMULATED_NOW,
          reason: minimum
            ? 'MinimumReplicasAvailable'
            : 'MinimumReplicasUnavailable',
          message: minimum
            ? 'Deployment has minimum availability.'
            : 'Deployment does not have minimum availability.',
        },
        counts.progressDeadlineExceeded
          ? {
              type: 'Progressing',
              status: 'False',
              lastUpdateTime: SIMULATED_NOW,
              lastTransitionTime: SIMULATED_NOW,
              reason: 'ProgressDeadlineExceeded',
              message: `ReplicaSet "${rs}" has timed out progressing.`,
            }
          : {
              type: 'Progressing',
              status: 'True',
              lastUpdateTime: SIMULATED_NOW,
              lastTransitionTime: SIMULATED_NOW,
              reason:
                available >= wanted
                  ? 'NewReplicaSetAvailable'
                  : 'ReplicaSetUpdated',
              message:
                available >= wanted
                  ? `ReplicaSet "${rs}" has successfully progressed.`
                  : `ReplicaSet "${rs}" is progressing.`,
            },
      ],
    };
    return api.put({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: deployment.name, namespace: deployment.namespace },
      status,
    });
  }

  /**
   * Pod `index` of the current ReplicaSet: `gated` (created, Kueue's admission gate on), `unschedulable` (admitted,
   * the scheduler found no node), `running` (bound to `node`, containers `ready` or not), `crashing`
   * (CrashLoopBackOff) or `image-pull` (ErrImagePull).
   */
  function pod(
    index: number,
    state: 'gated' | 'unschedulable' | 'running' | 'crashing' | 'image-pull',
    options: { node?: string; ready?: boolean; restarts?: number } = {},
  ): Json {
    const rs =
      api.live(
        api.pathOf({
          apiVersion: 'apps/v1',
          kind: 'ReplicaSet',
          metadata: { name: replicaSetName(), namespace: deployment.namespace },
        }),
      ) ?? replicaSet();
    const d = live();
    const name = `${rs.metadata.name}-${hash(
      `${rs.metadata.name}/${index}`,
      5,
    )}`;
    const container = d.spec.template.spec.containers[0].name;
    const node = options.node ?? 'kwok-gpu-l4-ondemand-0';
    const scheduled = state !== 'gated' && state !== 'unschedulable';
    const ready = state === 'running' && options.ready !== false;
    let containerState: Json = { running: { startedAt: SIMULATED_NOW } };
    if (state === 'crashing') {
      containerState = {
        waiting: {
          reason: 'CrashLoopBackOff',
          message: `back-off 40s restarting failed container=${container} pod=${name}_${
            deployment.namespace
          }(${hash(name, 8)})`,
        },
      };
    } else if (state === 'image-pull') {
      containerState = {
        waiting: {
          reason: 'ErrImagePull',
          message:
            'rpc error: code = NotFound desc = failed to pull and unpack image "vllm/vllm-openai:v0.0.0-missing": not found',
        },
      };
    }
    const conditions: Json[] = scheduled
      ? [
          {
            type: 'PodReadyToStartContainers',
            status: 'True',
            lastTransitionTime: SIMULATED_NOW,
          },
          {
            type: 'Initialized',
            status: 'True',
            lastTransitionTime: SIMULATED_NOW,
          },
          {
            type: 'Ready',
            status: ready ? 'True' : 'False',
            lastTransitionTime: SIMULATED_NOW,
            ...(ready
              ? {}
              : {
                  reason: 'ContainersNotReady',
                  message: `containers with unready status: [${container}]`,
                }),
          },
          {
            type: 'ContainersReady',
            status: ready ? 'True' : 'False',
            lastTransitionTime: SIMULATED_NOW,
            ...(ready
              ? {}
              : {
                  reason: 'ContainersNotReady',
                  message: `containers with unready status: [${container}]`,
                }),
          },
          {
            type: 'PodScheduled',
            status: 'True',
            lastTransitionTime: SIMULATED_NOW,
          },
        ]
      : [
          {
            type: 'PodScheduled',
            status: 'False',
            lastTransitionTime: SIMULATED_NOW,
            ...(state === 'gated'
              ? {
                  reason: 'SchedulingGated',
                  message:
                    'Scheduling is blocked due to non-empty scheduling gates',
                }
              : {
                  reason: 'Unschedulable',
                  message:
                    '0/4 nodes are available: 4 Insufficient nvidia.com/gpu. preemption: 0/4 nodes are available: 4 No preemption victims found for incoming pod.',
                }),
          },
        ];
    return api.put({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name,
        generateName: `${rs.metadata.name}-`,
        namespace: deployment.namespace,
        labels: {
          ...d.spec.template.metadata.labels,
          'kueue.x-k8s.io/managed': 'true',
          'pod-template-hash': templateHash(),
        },
        annotations: {
          ...(d.spec.template.metadata.annotations ?? {}),
          'kueue.x-k8s.io/pod-suspending-parent': 'deployment',
        },
        finalizers: ['kueue.x-k8s.io/managed'],
        ownerReferences: [
          {
            apiVersion: 'apps/v1',
            kind: 'ReplicaSet',
            name: rs.metadata.name,
            uid: rs.metadata.uid,
            controller: true,
            blockOwnerDeletion: true,
          },
        ],
      },
      spec: {
        ...d.spec.template.spec,
        ...(scheduled ? { nodeName: node } : {}),
        ...(state === 'gated'
          ? { schedulingGates: [{ name: 'kueue.x-k8s.io/admission' }] }
          : {}),
        schedulerName: 'default-scheduler',
        restartPolicy: 'Always',
      },
      status: {
        phase: scheduled ? 'Running' : 'Pending',
        conditions,
        qosClass: 'Burstable',
        ...(scheduled
          ? {
              hostIP: '10.0.0.7',
              podIP: `10.244.0.${10 + index}`,
              startTime: SIMULATED_NOW,
              containerStatuses: [
                {
                  name: container,
                  ready,
                  started: state === 'running',
                  restartCount:
                    options.restarts ?? (state === 'crashing' ? 4 : 0),
                  image: d.spec.template.spec.containers[0].image,
                  imageID: '',
                  state: containerState,
                },
              ],
            }
          : {}),
      },
    });
  }

  /**
   * The Workload Kueue's pod integration makes for a pod (name `pod-<pod>-<hash>`, label
   * `kueue.x-k8s.io/job-uid=<pod uid>`, owned by the pod): pending with Kueue's message, or admitted by
   * `clusterQueue` with `flavor` for every resource.
   */
  function workload(
    podObject: Json,
    state:
      | { admitted: false; reason?: string; message: string }
      | { admitted: true; clusterQueue: string; flavor: string },
  ): Json {
    const podName = podObject.metadata.name;
    const resources = podObject.spec.containers[0].resources?.requests ?? {};
    const conditions: Json[] = state.admitted
      ? [
          {
            type: 'QuotaReserved',
            status: 'True',
            reason: 'QuotaReserved',
            message: `Quota reserved in ClusterQueue ${state.clusterQueue}`,
            lastTransitionTime: SIMULATED_NOW,
            observedGeneration: 1,
          },
          {
            type: 'Admitted',
            status: 'True',
            reason: 'Admitted',
            message: 'The workload is admitted',
            lastTransitionTime: SIMULATED_NOW,
            observedGeneration: 1,
          },
        ]
      : [
          {
            type: 'QuotaReserved',
            status: 'False',
            reason: state.reason ?? 'Pending',
            message: state.message,
            lastTransitionTime: SIMULATED_NOW,
            observedGeneration: 1,
          },
        ];
    return api.put({
      apiVersion: 'kueue.x-k8s.io/v1beta2',
      kind: 'Workload',
      metadata: {
        name: `pod-${podName}-${hash(podObject.metadata.uid, 5)}`,
        namespace: deployment.namespace,
        labels: { 'kueue.x-k8s.io/job-uid': podObject.metadata.uid },
        finalizers: ['kueue.x-k8s.io/resource-in-use'],
        ownerReferences: [
          {
            apiVersion: 'v1',
            kind: 'Pod',
            name: podName,
            uid: podObject.metadata.uid,
            controller: true,
            blockOwnerDeletion: true,
          },
        ],
      },
      spec: {
        active: true,
        queueName: podObject.metadata.labels['kueue.x-k8s.io/queue-name'],
        podSets: [
          {
            name: 'main',
            count: 1,
            template: { spec: podObject.spec },
          },
        ],
        priority: 100,
      },
      status: {
        conditions,
        ...(state.admitted
          ? {
              admission: {
                clusterQueue: state.clusterQueue,
                podSetAssignments: [
                  {
                    name: 'main',
                    count: 1,
                    flavors: Object.fromEntries(
                      Object.keys(resources).map(r => [r, state.flavor]),
                    ),
                    resourceUsage: resources,
                  },
                ],
              },
            }
          : {}),
        resourceRequests: [{ name: 'main', resources }],
      },
    });
  }

  /**
   * A Warning event about `object`, as the kubelet or a controller records it through core/v1 (`count`,
   * `firstTimestamp`/`lastTimestamp`), or with `eventsApi` as the scheduler and Kueue do through events.k8s.io
   * (read back through core/v1: `eventTime`, `series`, no `count` nor timestamps).
   */
  function warning(
    object: Json,
    event: {
      reason: string;
      message: string;
      count?: number;
      lastSeen?: string;
      eventsApi?: boolean;
      component?: string;
    },
  ): Json {
    const about = {
      kind: object.kind,
      namespace: object.metadata.namespace,
      name: object.metadata.name,
      uid: object.metadata.uid,
      apiVersion: object.apiVersion,
      resourceVersion: object.metadata.resourceVersion,
    };
    const lastSeen = event.lastSeen ?? SIMULATED_NOW;
    const name = `${object.metadata.name}.${hash(
      `${event.reason}/${event.message}/${lastSeen}`,
      16,
    )}`;
    const timing = event.eventsApi
      ? {
          firstTimestamp: null,
          lastTimestamp: null,
          eventTime: lastSeen.replace('Z', '.000000Z'),
          ...(event.count && event.count > 1
            ? { series: { count: event.count, lastObservedTime: lastSeen } }
            : {}),
          action: 'Scheduling',
          reportingComponent: event.component ?? 'default-scheduler',
          reportingInstance: `${event.component ?? 'default-scheduler'}-local`,
          source: {},
        }
      : {
          firstTimestamp: lastSeen,
          lastTimestamp: lastSeen,
          count: event.count ?? 1,
          eventTime: null,
          reportingComponent: event.component ?? 'kubelet',
          reportingInstance: 'kwok-gpu-l4-ondemand-0',
          source: {
            component: event.component ?? 'kubelet',
            host: 'kwok-gpu-l4-ondemand-0',
          },
        };
    return api.put({
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name, namespace: object.metadata.namespace },
      involvedObject: about,
      reason: event.reason,
      message: event.message,
      type: 'Warning',
      ...timing,
    });
  }

  return {
    deployment: live,
    replicaSet,
    deploymentStatus,
    pod,
    workload,
    warning,
    /** Removes a pod and its Workload (the ReplicaSet replaced it). */
    removePod(podObject: Json) {
      api.remove(api.pathOf(podObject as any));
    },
  };
}
