package digitalocean_test

import (
	"slices"
	"testing"

	dpv1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/digitalocean/digitaloceankubernetesnodepool/v1"
	sharedv1 "github.com/clusterplane/clusterplane/apis/clusterplane/shared/v1"
	"github.com/clusterplane/clusterplane/pkg/cloud/digitalocean"
)

func TestASurgePoolIsAskedForAsTheManifestWritesThePoolAndWaitedForByItsStartingNodes(t *testing.T) {
	for _, tt := range []struct {
		name      string
		spec      *dpv1.DigitalOceanKubernetesNodePoolSpec
		wantCount int
		wantAuto  bool
		wantMin   int
		wantMax   int
		wantNodes int
	}{
		{name: "a fixed count starts that many nodes",
			spec: &dpv1.DigitalOceanKubernetesNodePoolSpec{Size: "s-2vcpu-4gb", NodeCount: 3}, wantCount: 3, wantNodes: 3},
		{name: "autoscaling starts its minimum",
			spec:     &dpv1.DigitalOceanKubernetesNodePoolSpec{Size: "s-2vcpu-4gb", AutoScale: true, MinNodes: 2, MaxNodes: 5},
			wantAuto: true, wantMin: 2, wantMax: 5, wantNodes: 2},
		{name: "autoscaling from zero waits for one node",
			spec:     &dpv1.DigitalOceanKubernetesNodePoolSpec{Size: "s-2vcpu-4gb", AutoScale: true, MinNodes: 0, MaxNodes: 3},
			wantAuto: true, wantMax: 3, wantNodes: 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tt.spec.Labels = map[string]string{"tier": "web"}
			tt.spec.Taints = []*sharedv1.Taint{{Key: "dedicated", Value: "web", Effect: sharedv1.TaintEffect_NoSchedule}}
			req := digitalocean.SurgePoolRequest(tt.spec, []string{"resource-kind:x"})
			if req.Size != "s-2vcpu-4gb" || int(req.Count) != tt.wantCount || req.AutoScale != tt.wantAuto || int(req.MinNodes) != tt.wantMin || int(req.MaxNodes) != tt.wantMax {
				t.Errorf("request %+v, want size s-2vcpu-4gb count %d autoscale %v %d..%d", req, tt.wantCount, tt.wantAuto, tt.wantMin, tt.wantMax)
			}
			if !slices.Equal(req.Tags, []string{"resource-kind:x"}) || req.Labels["tier"] != "web" {
				t.Errorf("tags %v labels %v, want the module's tags and the manifest's labels", req.Tags, req.Labels)
			}
			if len(req.Taints) != 1 || req.Taints[0].Key != "dedicated" || req.Taints[0].Value != "web" || req.Taints[0].Effect != "NoSchedule" {
				t.Errorf("taints %+v, want dedicated=web:NoSchedule", req.Taints)
			}
			if got := digitalocean.PoolNodes(tt.spec); got != tt.wantNodes {
				t.Errorf("waits for %d nodes, want %d", got, tt.wantNodes)
			}
		})
	}
}
