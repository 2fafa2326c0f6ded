export interface Config {
  /**
   * GPU model services: the platform's GPU pools, prices, sharing tiers, environments, team quotas and model
   * catalogue. Every field is optional; without this section the platform has the built-in GPU and model catalogues
   * and the dev/staging/production environments, but no pools or teams. The browser reads
   * the platform through the gpu backend's `/platform` route, not from config.
   */
  gpu?: {
    /**
     * GPU models added to or overriding the built-in ones (T4, A10G, L4, L40S, A30-24GB, A100-40GB, A100-80GB,
     * H100-80GB, H100-NVL-94GB, H200-141GB), keyed by catalogue name such as `A100-80GB`. For a built-in model only
     * the fields given are replaced.
     */
    gpuModels?: {
      [name: string]: {
        /** Memory of the card in GiB (2^30 bytes). Required for a new GPU model. */
        memoryGiB?: number;
        /** Value of the `nvidia.com/gpu.product` node label, e.g. `NVIDIA-L4`. Required for a new GPU model. */
        productLabel?: string;
        /**
         * The name NVML reports, e.g. `NVIDIA A100-SXM4-80GB`: what DRA claims select on (the NVIDIA DRA driver's
         * `productName` attribute). Default: the built-in model's, else the product label with `-` read as spaces.
         */
        productName?: string;
        /** Compute slices a MIG-enabled GPU splits into: 7, or 4 on an A30. 0 (the default) means no MIG. */
        migComputeSlices?: number;
        /** MIG profiles of the GPU; replaces the built-in list when given. */
        migProfiles?: Array<{
          /** NVIDIA profile name such as `3g.40gb` (`<compute slices>g.<GB>gb`). */
          name: string;
          /** Most instances of this profile one GPU holds when it holds only this profile. */
          maxInstances: number;
          /** Compute slices; read from the name when absent. */
          computeSlices?: number;
          /** Memory in GB (10^9 bytes); read from the name when absent. */
          memoryGb?: number;
          /** Streaming multiprocessors (SMs) of one instance, 1 to 1000; what a dynamic MIG slice weighs. */
          multiprocessors?: number;
        }>;
      };
    };

    /**
     * Models added to or overriding the built-in catalogue (llama-3.1-8b, llama-3.1-70b, llama-3.2-3b, mistral-7b,
     * mixtral-8x7b, qwen2.5-7b, phi-3-mini), keyed by a lowercase catalogue name. A new model needs the figures
     * (parametersB, layers, kvHeads, headDim, maxContextLength) and at least one checkpoint; a dtype with no
     * checkpoint for a runtime is unavailable on it.
     */
    models?: {
      [name: string]: {
        /** The default dtype's Hugging Face repository (configs written before `checkpoints`). */
        huggingFaceId?: string;
        /** The default dtype's Ollama tag (configs written before `checkpoints`). */
        ollamaTag?: string;
        /**
         * What each runtime loads per dtype, laid over the built-in checkpoints dtype by dtype; a dtype without a
         * checkpoint for a runtime is unavailable on it. `format` is vLLM's `--quantization` of the repository:
         * `none` (default for fp32/bf16/fp16), `fp8` (default for fp8: quantised on load), `awq`, `gptq` or
         * `compressed-tensors` (int8 and int4 must name theirs). `ollamaFormat` is the tag's GGUF type: `f16`
         * (bf16/fp16), `q8_0` (int8), `q4_K_M` (int4 default) or `q4_0`.
         */
        checkpoints?: {
          fp32?: GpuModelCheckpointConfig;
          bf16?: GpuModelCheckpointConfig;
          fp16?: GpuModelCheckpointConfig;
          fp8?: GpuModelCheckpointConfig;
          int8?: GpuModelCheckpointConfig;
          int4?: GpuModelCheckpointConfig;
        };
        /** Parameters in billions, e.g. 8.03. */
        parametersB?: number;
        /**
         * Token-embedding and output-head parameters in billions (vocab_size x hidden_size, twice when not tied),
         * which vLLM's quantised checkpoints keep in 16 bits; needed for a new model with a quantised checkpoint.
         */
        embeddingParametersB?: number;
        /** Transformer layers (`num_hidden_layers`). */
        layers?: number;
        /** Key/value heads (`num_key_value_heads`). */
        kvHeads?: number;
        /** Dimension of one attention head. */
        headDim?: number;
        /** Weight dtype used when a request names none (default bf16). */
        defaultDtype?: 'fp32' | 'bf16' | 'fp16' | 'fp8' | 'int8' | 'int4';
        /** Longest context the model supports, in tokens. */
        maxContextLength?: number;
      };
    };

    /** GPU node pools. Each becomes a Kueue ResourceFlavor and, when shared, a named device-plugin config. */
    pools?: Array<{
      /** DNS-1123 label; also the ResourceFlavor name. */
      name: string;
      /** Key into the GPU models, e.g. `L4` or `A100-80GB`. */
      gpuModel: string;
      /** GPUs on one node (1 to 16). */
      gpusPerNode: number;
      /** Nodes the pool may grow to; pool capacity for quotas and placement. */
      maxNodes: number;
      /** Labels selecting the pool's nodes (at most 8, Kueue's limit), injected into admitted pods. */
      nodeLabels?: { [key: string]: string };
      /** Taints on the pool's nodes; workloads get matching tolerations. */
      nodeTaints?: Array<{
        /** Taint key, e.g. `nvidia.com/gpu`. */
        key: string;
        /** Taint value. */
        value?: string;
        /** Taint effect. */
        effect: 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute';
      }>;
      /** How the nodes are bought (default on-demand). */
      capacityType?: 'on-demand' | 'spot';
      /** USD per node-hour: a decimal from 0 to 10000, e.g. 0.8048 or "27.447" (strings keep money exact). */
      pricePerNodeHour: number | string;
      /**
       * How the pool's GPUs are shared (default `{ type: none }`, whole GPUs): `mig` with a layout of MIG profile to
       * instances per GPU (mixed strategy), or `mps` / `time-slicing` with 2 to 48 replicas per GPU.
       */
      sharing?:
        | {
            /** Whole GPUs: the dedicated tier. */
            type: 'none';
          }
        | {
            /** MIG slices: the mig tier. */
            type: 'mig';
            /**
             * Instances of each MIG profile on every GPU, e.g. `{ 1g.10gb: 2, 2g.20gb: 1, 3g.40gb: 1 }`. With
             * `partitioning: dynamic`, the profiles services may ask for, each with the most instances of it one GPU
             * may hold (the driver carves any mix a GPU holds).
             */
            layout: { [profile: string]: number };
            /**
             * `static` (default): the layout is fixed on every GPU. `dynamic`: the NVIDIA DRA driver (with its
             * `DynamicMIG` feature gate, Kubernetes 1.36 partitionable devices) carves the MIG devices on demand;
             * needs `allocation: dra` and a GPU model whose MIG profiles' SMs are catalogued (A100-80GB, H100-80GB,
             * or `multiprocessors` in `gpu.gpuModels`). A slice then weighs its SMs' share of the GPU, and Kueue
             * charges `gpu.backstage.io/mig-multiprocessors` (SMs).
             */
            partitioning?: 'static' | 'dynamic';
          }
        | {
            /** CUDA MPS shares: the mps tier. */
            type: 'mps';
            /** Shares per GPU, 2 to 48. */
            replicas: number;
          }
        | {
            /** Time-sliced shares: the time-sliced tier. */
            type: 'time-slicing';
            /** Shares per GPU, 2 to 48. */
            replicas: number;
          };
      /** Advertise shared GPUs as `nvidia.com/gpu.shared` (device plugin `renameByDefault`); mps and time-slicing only. */
      renameByDefault?: boolean;
      /**
       * How the pool's GPUs reach pods (default `device-plugin`): the NVIDIA device plugin's extended resources, or
       * `dra`, Dynamic Resource Allocation (`resource.k8s.io/v1`, Kubernetes 1.34 or later) through the NVIDIA DRA
       * driver's DeviceClasses `gpu.nvidia.com` (dedicated) and `mig.nvidia.com` (static MIG; one profile per pool),
       * or `mig-dynamic.gpu.backstage.io` (`sharing.partitioning: dynamic`). MPS and time-slicing pools stay on the
       * device plugin: Kueue refuses pods that share a ResourceClaim.
       */
      allocation?: 'device-plugin' | 'dra';
      /**
       * The `gpu.clusters[].name` whose nodes the pool is. May be omitted when at most one cluster is configured (the
       * pool is then that cluster's); required with several. Services on the pool run on that cluster, and its Kueue
       * ResourceFlavor and quotas are delivered there only.
       */
      cluster?: string;
      /** The pool's Karpenter NodePool (gpu-node `renderNodePools`); overrides `gpu.karpenter`. */
      karpenter?: {
        /** `false`: the pool's nodes are not Karpenter's, no NodePool is rendered (default `true`). */
        managed?: boolean;
        /** EC2 instance families, e.g. `[g6, g6e]`: a `karpenter.k8s.aws/instance-family In [...]` requirement. */
        instanceFamilies?: string[];
        /** Node class of this pool's NodePool instead of `gpu.karpenter.nodeClassRef`. */
        nodeClassRef?: {
          /** e.g. `karpenter.k8s.aws`. */
          group: string;
          /** e.g. `EC2NodeClass`. */
          kind: string;
          /** e.g. `gpu`. */
          name: string;
        };
        /** `spec.disruption.consolidateAfter` of this pool's NodePool, e.g. `15m` or `Never`. */
        consolidateAfter?: string;
      };
    }>;

    /**
     * Environments and the tiers they allow. Replaces the defaults (dev: all tiers; staging: dedicated, mig, mps;
     * production: dedicated, mig with a PodDisruptionBudget); an entry named dev, staging or production takes its
     * unset fields from that default.
     */
    environments?: Array<{
      /** DNS-1123 label, e.g. `production`. */
      name: string;
      /** Tiers services may use here; required for an environment other than dev, staging and production. */
      allowedTiers?: Array<'dedicated' | 'mig' | 'mps' | 'time-sliced'>;
      /** Dedicated GPUs of all replicas above which a request needs approval (default 2, production 4). */
      maxDedicatedGpus?: number;
      /** Kueue WorkloadPriorityClass of the environment's workloads (default `gpu-<name>`). */
      priorityClass?: string;
      /** Render a PodDisruptionBudget for services here (default: production only). */
      podDisruptionBudget?: boolean;
      /**
       * Clusters the environment's services may run on: names, or patterns with `*` such as `prod-*` (default: every
       * cluster). Each must match a configured cluster with at least one pool, or the backend does not start.
       */
      clusters?: string[];
    }>;

    /** Teams (catalog groups) with their namespaces, quotas and budgets. */
    teams?: Array<{
      /** Catalog group name, a DNS-1123 label, e.g. `ml-platform`. */
      name: string;
      /** Namespaces the team deploys to, the first being the default; default `[name]`. Each belongs to one team. */
      namespaces?: string[];
      /** GPU-equivalents per pool name (MIG slices and shared replicas count by their share). A pool not listed has no quota. */
      gpuQuota?: { [pool: string]: number };
      /** USD per month: a decimal from 0 to 10^9, e.g. 4000 or "4000.00". */
      monthlyBudget: number | string;
    }>;

    /** Kueue settings. */
    kueue?: {
      /** Kueue API version of rendered objects (default `kueue.x-k8s.io/v1beta2`; v1beta1 for clusters before Kueue 0.16). */
      apiVersion?: 'kueue.x-k8s.io/v1beta2' | 'kueue.x-k8s.io/v1beta1';
      /** Cohort every team ClusterQueue joins for borrowing (default `gpu`). */
      cohort?: string;
      /**
       * How team ClusterQueues count MIG quota. `gpu-units` (default; what the local cluster scripts configure): one
       * `gpu.backstage.io/gpu-units` resource per MIG pool flavor, which needs Kueue's resource transformations from
       * `renderResourceTransformations` in the Kueue Configuration. `profile-counts`: a count of instances per
       * `nvidia.com/mig-<profile>` (floor(units / weight)), for a Kueue without those transformations.
       */
      migQuota?: 'gpu-units' | 'profile-counts';
    };

    /** Hours in a billing month for projections (default 730). */
    hoursPerMonth?: number;

    /** Karpenter NodePools, one per pool unless the pool says `karpenter.managed: false`. */
    karpenter?: {
      /** `false`: no NodePools (a cluster without Karpenter). Default `true`. */
      enabled?: boolean;
      /** Node class every NodePool references (default `{ group: karpenter.k8s.aws, kind: EC2NodeClass, name: gpu }`). */
      nodeClassRef?: {
        /** e.g. `karpenter.k8s.aws`. */
        group: string;
        /** e.g. `EC2NodeClass`. */
        kind: string;
        /** e.g. `gpu`. */
        name: string;
      };
      /** How long a node stays empty or underutilised before Karpenter consolidates it (default `5m`; or `Never`). */
      consolidateAfter?: string;
    };

    /** Prometheus operator `PrometheusRule`s with the DCGM and vLLM alerts. */
    alerts?: {
      /** `false`: no alert rules. Default `true`. */
      enabled?: boolean;
      /** `cluster` (default): one rule in `namespace`; `team`: one per team in its first namespace, for its namespaces. */
      scope?: 'cluster' | 'team';
      /** Namespace of the cluster-wide rule (default `monitoring`). */
      namespace?: string;
      /** Labels on every PrometheusRule, e.g. what the Prometheus `ruleSelector` matches (`release: kube-prometheus-stack`). */
      labels?: { [key: string]: string };
      /** Environments whose cards the low-utilisation alert watches (default `[production]`). */
      productionEnvironments?: string[];
      /** The vLLM queue alert fires above this many waiting requests (default 10) ... */
      queueWaitingAbove?: number;
      /** ... held this long (default `5m`). */
      queueFor?: string;
    };

    /**
     * Clusters the gpu backend deploys to. Without any, services are rendered and stored only (dry-run).
     * An `apply` cluster takes its credentials from a kubeconfig file or from the `kubernetes` section's
     * cluster of the same name (service account).
     */
    clusters?: Array<{
      /** Cluster name; matches `kubernetes.clusterLocatorMethods[].clusters[].name` when no kubeconfig is given. */
      name: string;
      /** `apply` (default) applies with server-side apply, `gitops` hands manifests on, `dry-run` only stores them. */
      mode?: 'apply' | 'gitops' | 'dry-run';
      /**
       * Path of a kubeconfig file with the credentials.
       * @visibility secret
       */
      kubeconfig?: string;
      /** Context of the kubeconfig to use; its current context when omitted. */
      context?: string;
      /** Labels the governance page and the overview filter by, and the quote shows beside the cluster's options. */
      labels?: {
        /** e.g. `eu-west-1`. */
        region?: string;
        /** e.g. `aws`, `azure`, `gcp`, `on-prem`. */
        cloud?: string;
        /** e.g. `production` or `non-production`. */
        environmentClass?: string;
      };
      /**
       * Makes this `apply` cluster a Kueue MultiKueue manager: batch jobs on a batch pool of one of its workers are
       * submitted here (the Job managed by `kueue.x-k8s.io/multikueue`) and Kueue runs each on whichever worker
       * admits it; the reservation and cost follow the worker it ran on. The backend applies the AdmissionCheck,
       * MultiKueueConfig, one MultiKueueCluster and kubeconfig Secret (in `kueue-system`, from the worker's
       * credentials) per worker, and the team's ClusterQueue (with the admission check) and LocalQueues here.
       */
      multiKueue?: {
        /** Names of other `apply` clusters of `gpu.clusters` that run the manager's Jobs; at least one. */
        workers: string[];
      };
    }>;

    /** The approval queue. */
    approvals?: {
      /**
       * Requests of one team that may wait for approval at once (default 20). One more is refused (409) until some
       * are decided or withdrawn, so no team can bury the queue.
       */
      maxPendingPerTeam?: number;
    };

    /** How the gpu backend admits requests. */
    admission?: {
      /**
       * What happens to a request that fits its team's quota and budget but not its pool's free capacity (what every
       * team holds there against the pool's physical capacity, nodes x GPUs at `maxNodes`), at create and at change.
       * `approval` (default): it is recorded and waits for an approver, with the reason `over-pool-capacity`; the
       * approver can grant it once capacity is free, never beyond it. `refuse`: 409 with the pool's figures, and
       * nothing is reserved. Quotas may oversubscribe a pool either way; the governance page flags the pools whose
       * quotas do.
       */
      whenOverPoolCapacity?: 'refuse' | 'approval';
      /**
       * What a service that autoscales reserves against its team's quota and is priced at, in the quote, at create
       * and at change. `maximum` (default): its maximum replicas, so every replica KEDA or the HPA may start is held.
       * `minimum-plus-burst`: its minimum replicas (at least 1, so a service scaled to zero can always wake); the
       * replicas above run within the team's quota that nothing reserves: Kueue admits them while it has room, and
       * they wait otherwise. The quote says which (`scaling.basis`) and, for the burst, what it would add a month and
       * how many burst replicas the quota has room for.
       */
      autoscaledReplicas?: 'maximum' | 'minimum-plus-burst';
    };

    /** Who governs the GPU platform, as the shipped permission policy and the notifications read it. */
    permissions?: {
      /**
       * Group entity refs whose members administer the platform: approve requests outside policy, change quotas and
       * budgets, act on every team's services and read every team's costs and audit. They are also the recipients
       * of "request waiting for approval" notifications. Default `['group:default/platform-team']`.
       */
      platformGroups?: string[];
    };

    /**
     * The scheduled task that keeps each `apply` cluster's platform objects (GPU Operator ConfigMaps, Kueue objects,
     * Karpenter NodePools, alert PrometheusRules, node config labels) as the platform and quota table render them.
     */
    reconcile?: {
      /**
       * The parts it delivers; default all of them. Leave out a part the platform team manages elsewhere:
       * `gpuOperator` (the device-plugin and MIG Manager ConfigMaps), `kueue` (ResourceFlavors, Cohort, priority
       * classes, ClusterQueues, LocalQueues), `nodePools` (Karpenter NodePools), `alerts` (PrometheusRules),
       * `nodeLabels` (`nvidia.com/device-plugin.config` and `nvidia.com/mig.config` on the nodes of pools Karpenter
       * does not manage).
       */
      deliver?: Array<
        'gpuOperator' | 'kueue' | 'nodePools' | 'alerts' | 'nodeLabels'
      >;
      /**
       * How often it runs (one backend replica at a time): an object such as `{ minutes: 10 }`, or a string such as
       * `10m` or `PT10M`. Default 10 minutes.
       */
      frequency?:
        | string
        | {
            days?: number;
            hours?: number;
            minutes?: number;
            seconds?: number;
          };
    };

    /**
     * The scheduled task that reads, from each service's cluster, whether its Deployment is available: `starting`
     * becomes `ready` once it is, `ready` goes back to `starting` when it is not, and a service waiting for Kueue
     * records Kueue's reason.
     */
    statusRefresh?: {
      /**
       * How often it runs (one backend replica at a time): `{ seconds: 15 }` (the default), `15s` or `PT15S`. Also
       * how often services stuck in `applying` are looked for.
       */
      frequency?:
        | string
        | {
            days?: number;
            hours?: number;
            minutes?: number;
            seconds?: number;
          };
      /**
       * Longest wait for the cluster when reading one service's status, e.g. for `GET /services/:id` (default
       * 5 seconds).
       */
      timeout?:
        | string
        | {
            minutes?: number;
            seconds?: number;
            milliseconds?: number;
          };
    };

    /** Applying services to `apply` clusters. */
    apply?: {
      /**
       * A service still `applying` this long after its last change was interrupted (e.g. the backend stopped): one
       * replica claims it and applies it again (default 2 minutes: `{ minutes: 2 }`, `2m` or `PT2M`).
       */
      resumeAfter?:
        | string
        | {
            hours?: number;
            minutes?: number;
            seconds?: number;
          };
      /** How often an interrupted apply is resumed before the service becomes `failed` (default 3). */
      resumeAttempts?: number;
      /**
       * How long the reconciler keeps trying an apply the cluster could not take for a passing reason (no answer, a
       * conflict, throttling, a server error), with growing pauses, before the service becomes `failed` with reason
       * `ApplyFailed` (default 5 minutes). Errors the cluster will repeat (an invalid object, a refused permission)
       * fail at once.
       */
      retryFor?:
        | string
        | {
            hours?: number;
            minutes?: number;
            seconds?: number;
          };
      /**
       * Whether the reconciler watches the Deployments, pods and Kueue Workloads of services on the cluster (default
       * `true`): a change there (a Deployment deleted or scaled by hand, a pod ready or failing) reaches its service in
       * a second instead of at the next status refresh. Turn it off only where the API server cannot serve watches.
       */
      watch?: boolean;
    };

    /** Services requested provisionally (`provisional: true`, as the templates do). */
    services?: {
      /**
       * How long a provisional service waits for its confirmation (`POST /services/:id/confirm`, the template's last
       * step) before it is deleted and its quota released (default 1 hour: `{ hours: 1 }`, `1h` or `PT1H`). A
       * template run that fails after creating the service therefore leaves nothing reserved.
       */
      confirmWithin?:
        | string
        | {
            days?: number;
            hours?: number;
            minutes?: number;
            seconds?: number;
          };
      /**
       * How often the backend looks for provisional services past their `confirmWithin` and deletes them (default
       * once a minute: `{ minutes: 1 }`). A service is therefore released between `confirmWithin` and
       * `confirmWithin` plus this after it was created.
       */
      confirmationCheckFrequency?:
        | string
        | {
            days?: number;
            hours?: number;
            minutes?: number;
            seconds?: number;
          };
    };

    /**
     * GitOps services (mode `gitops`): their reservations follow their pull (merge) requests, read from the forges of
     * `integrations` (gitea, github with a token, gitlab), and their clusters' objects, read with the credential of a
     * `gpu.clusters[]` entry in mode `gitops` (kubeconfig, or a `kubernetes` cluster of its name: give it read-only
     * RBAC).
     */
    gitops?: {
      /**
       * How long an open pull request holds its service's reservation (default 7 days: `{ days: 7 }`, `7d` or `P7D`).
       * Not merged by then, Backstage closes it, deletes the service, releases its quota and notifies the platform
       * team. A request closed without merging rolls the reservation back at once.
       */
      mergeWithin?:
        | string
        | {
            days?: number;
            hours?: number;
            minutes?: number;
            seconds?: number;
          };
      /**
       * How often the backend reads the open pull requests and the clusters of decommissions waiting for their objects
       * to be pruned (default once a minute: `{ minutes: 1 }`).
       */
      checkFrequency?:
        | string
        | {
            days?: number;
            hours?: number;
            minutes?: number;
            seconds?: number;
          };
    };

    /**
     * A managed inference API to compare self-hosting with: each service's cost card shows its own price per 1M input
     * and output tokens next to the API's, and the requests a day above which self-hosting costs less.
     */
    managedApi?: {
      /** What to call it on the card, e.g. `Hosted Llama 3.1 8B`. */
      name: string;
      /** USD per 1,000,000 input (prompt) tokens, decimal, e.g. '0.20'. */
      inputPricePerMillionTokens: string | number;
      /** USD per 1,000,000 output (generated) tokens, decimal, e.g. '0.60'. */
      outputPricePerMillionTokens: string | number;
    };

    /**
     * Prometheus that scrapes the DCGM exporter and vLLM, the source of usage metrics. Without it, cost is
     * allocation cost only and the usage routes say that no metrics source is configured.
     */
    prometheus?: {
      /** Base URL of the Prometheus HTTP API, e.g. `http://prometheus.monitoring:9090`. */
      baseUrl: string;
      /**
       * The series this Prometheus holds are simulated (the `./scripts/start --cluster` demo's generated DCGM and vLLM
       * series), not measured: every metrics status says so (`simulated: true`) and the UI labels the figures.
       * Default false.
       * @visibility frontend
       */
      simulated?: boolean;
      /** Optional authentication: a bearer token, or basic user and password. */
      auth?:
        | {
            /**
             * Bearer token sent as `Authorization: Bearer <token>`.
             * @visibility secret
             */
            token: string;
          }
        | {
            username: string;
            /**
             * Password of basic authentication.
             * @visibility secret
             */
            password: string;
          };
      /** Per-query timeout in milliseconds (default 5000). */
      timeout?: number;
      /**
       * Milliseconds within which one API request (a usage or cost card, a team's cost) answers, however
       * Prometheus behaves (default 8000; at least `timeout`). Its queries, waiting for a slot included, share this
       * time less an eighth (at most 1000 ms) kept for computing the answer; the queries still open then are cut and
       * the request answers with what it has, allocation cost at least, and says why usage is missing.
       */
      requestDeadline?: number;
      /**
       * After `failures` consecutive queries without an answer (timed out or not connected; default 5), queries are
       * refused at once for `openFor` milliseconds (default 30000); then one probe query decides whether to close.
       */
      circuitBreaker?: {
        failures?: number;
        openFor?: number;
      };
      /**
       * PromQL HTTP requests in flight at once: `overall` for the whole backend process (default 16), shared between
       * API requests with `perRequest` as each one's fair share (default 4). A request with fewer than `perRequest`
       * in flight takes any free slot; with more, only while more than `perRequest` slots are free, so a request
       * alone uses up to `overall - perRequest` and the next request starts at once. When queries wait, a freed slot
       * goes to the waiting request with the fewest in flight. With `perRequest` equal to `overall`, a request alone
       * may take every slot and none is kept for the next one.
       */
      concurrency?: {
        perRequest?: number;
        overall?: number;
      };
      /**
       * Label names of the DCGM exporter series. Defaults: `pod` and `namespace` (queries also accept the
       * `exported_pod`/`exported_namespace` that a ServiceMonitor without honorLabels produces), `Hostname`, `gpu`,
       * `GPU_I_ID`, `GPU_I_PROFILE`.
       */
      labels?: {
        pod?: string;
        namespace?: string;
        hostname?: string;
        gpu?: string;
        migInstance?: string;
        migProfile?: string;
      };
    };
    /**
     * How services render on a real cluster (gpu-node's render options), overridable per pool and per environment:
     * `byPool.<pool>` over these defaults, `byEnvironment.<env>` over both. Images, model cache, labels and
     * annotations merge key by key; every other setting is replaced whole.
     */
    serviceDefaults?: GpuServiceSettingsConfig & {
      /** Overrides for services on a pool, keyed by pool name. */
      byPool?: { [pool: string]: GpuServiceSettingsConfig };
      /** Overrides for services in an environment, keyed by environment name; win over `byPool`. */
      byEnvironment?: { [environment: string]: GpuServiceSettingsConfig };
    };
  };
}

/** The checkpoints of one dtype of a model (`gpu.models.<name>.checkpoints.<dtype>`). */
interface GpuModelCheckpointConfig {
  /** Hugging Face repository vLLM loads as `--model`, e.g. `hugging-quants/Meta-Llama-3.1-8B-Instruct-AWQ-INT4`. */
  huggingFaceId?: string;
  /** vLLM `--quantization` of the repository (`none` for weights stored in the dtype). */
  format?: 'none' | 'fp8' | 'awq' | 'gptq' | 'compressed-tensors';
  /** Ollama tag, e.g. `llama3.1:8b-instruct-q4_K_M`. */
  ollamaTag?: string;
  /** GGUF type of the tag. */
  ollamaFormat?: 'f16' | 'q8_0' | 'q4_0' | 'q4_K_M';
}

/** One level of `gpu.serviceDefaults` (the defaults, or a pool's or environment's override). */
interface GpuServiceSettingsConfig {
  /** Secret with a Hugging Face token for gated models; vLLM gets it as `HF_TOKEN` from a secretKeyRef. */
  huggingFaceTokenSecret?: { name: string; key: string };
  /**
   * Images: `registry` is a mirror prefix put before each reference (e.g. `registry.example.com/dockerhub`); `vllm`
   * and `ollama` are pinned references, a tag or `@sha256:` digest (default `vllm/vllm-openai:v0.18.0`,
   * `ollama/ollama:0.20.6`), without the registry when one is set.
   */
  images?: { registry?: string; vllm?: string; ollama?: string };
  /**
   * Model cache: `storageClassName` of the claim rendered per service, or `existingClaim`, a shared ReadWriteMany
   * weights cache mounted instead (no claim is rendered). Not both.
   */
  modelCache?: { storageClassName?: string; existingClaim?: string };
  /** Pod `runtimeClassName`, e.g. `nvidia` where the NVIDIA container runtime is not the node default. */
  runtimeClassName?: string;
  /** Pod security context. */
  podSecurityContext?: {
    runAsNonRoot?: boolean;
    runAsUser?: number;
    runAsGroup?: number;
    fsGroup?: number;
    seccompProfile?: { type: 'RuntimeDefault' | 'Unconfined' | 'Localhost' };
  };
  /** Security context of the serving container (and Ollama's pull container). */
  containerSecurityContext?: {
    runAsNonRoot?: boolean;
    runAsUser?: number;
    runAsGroup?: number;
    allowPrivilegeEscalation?: boolean;
    readOnlyRootFilesystem?: boolean;
    capabilities?: { add?: string[]; drop?: string[] };
  };
  /** Prometheus the KEDA trigger queries (default `http://prometheus-operated.monitoring.svc:9090`). */
  prometheusServerAddress?: string;
  /** Labels added to every object of a service and its pods (never to the selector; the renderer's own win). */
  labels?: { [key: string]: string };
  /** Annotations added to every object of a service and its pods. */
  annotations?: { [key: string]: string };
  /**
   * Roll out with a surge pod (`maxSurge: 1, maxUnavailable: 0`); default on in production and staging. The surge
   * pod needs one more replica's GPU share of the team's quota during a rollout; when quota cannot hold it, the
   * rollout replaces pods one at a time and the Deployment's `gpu.backstage.io/rollout` annotation says why.
   */
  zeroDowntimeRollouts?: boolean;
  /** PodDisruptionBudget (where the environment renders one): `maxUnavailable`, default 1. */
  podDisruptionBudget?: { maxUnavailable: number };
  /** Render a PodMonitor (monitoring.coreos.com/v1) for vLLM's metrics: `true`, or the labels Prometheus selects. */
  podMonitor?: boolean | { labels?: { [key: string]: string } };
  /**
   * What wakes a service scaled to zero (`autoscaling.minReplicas: 0` is refused without it): KEDA's HTTP add-on
   * (`httpAddOn`, an HTTPScaledObject; clients call through the add-on's interceptor), or `wakeQuery`, PromQL on a
   * gateway or queue metric outside the pods with `{{service}}` (and `{{namespace}}`) for the service.
   */
  scaleToZero?:
    | {
        httpAddOn: {
          scaledownPeriodSeconds?: number;
          /**
           * The interceptor's proxy URL users call, given as the service's endpoint (default
           * `http://keda-add-ons-http-interceptor-proxy.keda.svc.cluster.local:8080`, the add-on chart's Service).
           */
          interceptorUrl?: string;
        };
      }
    | { wakeQuery: string };
  /**
   * Seconds the queue must stay low before an autoscaled service gives replicas (and their GPUs) back, and, with
   * KEDA, before it scales to zero (default 300).
   */
  scaleDownStabilizationSeconds?: number;
}
