package body_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/serve/body"
)

func TestAManifestsFieldIsNamedAsTheBodyWroteIt(t *testing.T) {
	tests := []struct{ manifest, want string }{
		{"spec.size", "spec.platform.digitalocean.size"},
		{"spec.defaultNodePool.nodeCount", "spec.platform.digitalocean.defaultNodePool.nodeCount"},
		{"spec.nodeCount", "spec.nodeCount"},
		{"spec.autoScale", "spec.autoscaling.enabled"},
		{"spec.minNodes", "spec.autoscaling.minNodes"},
		{"spec.maxNodes", "spec.autoscaling.maxNodes"},
		{"spec.nodePoolName", "name"},
		{"spec.clusterName", "name"},
		{"metadata.name", "name"},
		{"spec.cluster.valueFrom.name", "cluster_id"},
		{"spec.taints[0].effect", "spec.platform.digitalocean.taints[0].effect"},
	}
	for _, tt := range tests {
		t.Run(tt.manifest, func(t *testing.T) {
			if got := body.Field(tt.manifest, "digitalocean"); got != tt.want {
				t.Errorf("got %s, want %s", got, tt.want)
			}
		})
	}
}

func TestAPoolsManifestTakesTheSeedsFieldsAndReadsItsClusterFromItsStack(t *testing.T) {
	b, err := body.Parse([]byte(`{"name": "workers", "cluster_id": "c", "spec": {"platform": {"type": "civo",
		"civo": {"size": "g4s.kube.medium"}}, "autoscaling": {"enabled": true, "minNodes": 1, "maxNodes": 4}, "nodeCount": 2}}`))
	if err != nil {
		t.Fatal(err)
	}
	data, err := body.PoolManifest(b, body.Cluster{Name: "dev", Platform: "civo", Region: "lon1"})
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Kind     string
		Metadata map[string]any
		Spec     map[string]any
	}
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	ref, _ := m.Spec["cluster"].(map[string]any)["valueFrom"].(map[string]any)
	checks := []struct {
		what string
		got  any
		want any
	}{
		{"kind", m.Kind, "CivoKubernetesNodePool"},
		{"metadata.name", m.Metadata["name"], "dev-workers"},
		{"nodePoolName", m.Spec["nodePoolName"], "workers"},
		{"nodeCount", m.Spec["nodeCount"], float64(2)},
		{"autoScale", m.Spec["autoScale"], true},
		{"minNodes", m.Spec["minNodes"], float64(1)},
		{"maxNodes", m.Spec["maxNodes"], float64(4)},
		{"region (the cluster's)", m.Spec["region"], "lon1"},
		{"the cluster's kind", ref["kind"], "CivoKubernetesCluster"},
		{"the cluster's name", ref["name"], "dev"},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s: got %v, want %v", c.what, c.got, c.want)
		}
	}
}

// Promise: api-cluster-spec-top-level-counts-refused
func TestABodyThatDoesNotFitItsPlatformIsRefusedBeforeAnyManifest(t *testing.T) {
	tests := []struct {
		name, body string
		pool       bool
		want       string
	}{
		{"a block of the other cloud", `{"name": "a", "spec": {"platform": {"type": "civo", "digitalocean": {}}}}`, false, "spec.platform.digitalocean"},
		{"the seed's gcp", `{"name": "a", "spec": {"platform": {"type": "gcp"}}}`, false, "spec.platform.type"},
		{"a cluster's nodeCount outside its default pool", `{"name": "a", "spec": {"platform": {"type": "civo", "civo": {}}, "nodeCount": 3}}`, false, "spec.nodeCount"},
		{"a cluster's autoscaling outside its default pool", `{"name": "a", "spec": {"platform": {"type": "civo", "civo": {}}, "autoscaling": {"enabled": true, "minNodes": 1, "maxNodes": 3}}}`, false, "spec.autoscaling"},
		{"a pool's nodeCount inside the block", `{"name": "a", "spec": {"platform": {"type": "civo", "civo": {"nodeCount": 3}}}}`, true, "spec.platform.civo.nodeCount"},
		{"a pool on another platform than its cluster", `{"name": "a", "spec": {"platform": {"type": "digitalocean", "digitalocean": {}}}}`, true, "spec.platform.type"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := body.Parse([]byte(tt.body))
			if err != nil {
				t.Fatal(err)
			}
			if tt.pool {
				_, err = body.PoolManifest(b, body.Cluster{Name: "c", Platform: "civo"})
			} else {
				_, err = body.ClusterManifest(b)
			}
			if err == nil || !strings.Contains(err.Error(), tt.want+":") {
				t.Errorf("want a problem naming %s, got %v", tt.want, err)
			}
		})
	}
}

func TestAStoredSpecSaysItsRegionNodesAndProtection(t *testing.T) {
	tests := []struct {
		name      string
		body      string
		region    string
		nodes     int64
		hasNodes  bool
		protected bool
	}{
		{"a DigitalOcean cluster, protected by default", `{"name": "a", "spec": {"platform": {"type": "digitalocean", "digitalocean": {"region": "fra1", "defaultNodePool": {"nodeCount": 2}}}}}`, "fra1", 2, true, true},
		{"a Civo cluster unprotected", `{"name": "a", "spec": {"platform": {"type": "civo", "civo": {"region": "lon1", "deletionProtection": false, "defaultNodePool": {"nodeCount": 1}}}}}`, "lon1", 1, true, false},
		{"a cluster protected in so many words", `{"name": "a", "spec": {"platform": {"type": "civo", "civo": {"deletionProtection": true}}}}`, "", 0, false, true},
		{"a pool's nodes are its nodeCount", `{"name": "p", "spec": {"platform": {"type": "digitalocean", "digitalocean": {"size": "s-2vcpu-4gb"}}, "nodeCount": 3}}`, "", 3, true, true},
		{"an autoscaled pool may name no nodes", `{"name": "p", "spec": {"platform": {"type": "civo", "civo": {}}, "autoscaling": {"enabled": true, "minNodes": 1, "maxNodes": 3}}}`, "", 0, false, true},
		{"the other cloud's block is not read", `{"name": "a", "spec": {"platform": {"type": "digitalocean", "civo": {"region": "lon1", "deletionProtection": false}}}}`, "", 0, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b body.Body
			if err := json.Unmarshal([]byte(tt.body), &b); err != nil {
				t.Fatal(err)
			}
			if got := b.Spec.Region(); got != tt.region {
				t.Errorf("Region() = %q, want %q", got, tt.region)
			}
			if n, ok := b.Spec.DesiredNodes(); n != tt.nodes || ok != tt.hasNodes {
				t.Errorf("DesiredNodes() = %d, %v, want %d, %v", n, ok, tt.nodes, tt.hasNodes)
			}
			if got := b.Spec.Protected(); got != tt.protected {
				t.Errorf("Protected() = %v, want %v", got, tt.protected)
			}
		})
	}
}
