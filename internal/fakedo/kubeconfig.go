package fakedo

import (
	"net/http"
	"slices"
)

// SetKubeconfig makes GET /v2/kubernetes/clusters/{clusterID}/kubeconfig answer kubeconfig (a
// real API server's, that a test runs) instead of the fake's own, which points at an endpoint
// nothing serves. nil goes back to the fake's own.
func (d *DO) SetKubeconfig(clusterID string, kubeconfig []byte) {
	d.set(func() {
		if kubeconfig == nil {
			delete(d.kubeconfigs, clusterID)
			return
		}
		if d.kubeconfigs == nil {
			d.kubeconfigs = map[string][]byte{}
		}
		d.kubeconfigs[clusterID] = slices.Clone(kubeconfig)
	})
}

// setKubeconfig answers the kubeconfig SetKubeconfig set for an existing cluster; false when there
// is none, and the fake's own is to be served.
func (d *DO) setKubeconfig(w http.ResponseWriter, id string) bool {
	kc, ok := d.kubeconfigs[id]
	if _, exists := d.clusters[id]; !ok || !exists {
		return false
	}
	w.Header().Set("Content-Type", "text/yaml")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(kc)
	return true
}
