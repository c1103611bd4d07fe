package fakecivo

// SetKubeconfig makes the cluster clusterID report kubeconfig (a real API server's, that a test
// runs) as its kubeconfig, instead of the fake's own, whose credentials are made up. It does
// nothing when there is no such cluster.
func (f *Civo) SetKubeconfig(clusterID string, kubeconfig []byte) {
	f.locked(func() {
		if fc, ok := f.clusters[clusterID]; ok {
			fc.c.KubeConfig = string(kubeconfig)
		}
	})
}
