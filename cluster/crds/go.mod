// CRDs the renderer's objects need that the control plane's components do not bring: modules pinned only to read
// their CRD manifests (nothing here is compiled).
module backstage-gpu/cluster/crds

go 1.26.0

require (
	github.com/kedacore/http-add-on v0.12.0
	github.com/kedacore/keda/v2 v2.21.0
	github.com/prometheus-operator/prometheus-operator v0.94.1
	sigs.k8s.io/karpenter v1.14.1
)
