package validation_test

import (
	"fmt"
	"os"
	"strings"
	"testing"

	v1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/digitalocean/digitaloceankubernetescluster/v1"
	poolv1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/digitalocean/digitaloceankubernetesnodepool/v1"
	sharedv1 "github.com/clusterplane/clusterplane/apis/clusterplane/shared/v1"
	"github.com/clusterplane/clusterplane/pkg/manifest/stackinput"
	"github.com/clusterplane/clusterplane/pkg/manifest/validation"
)

// BenchmarkValidateProductionCluster measures the rules of the richest example, CEL included
// (subnet overlap, tags, autoscaling bounds).
func BenchmarkValidateProductionCluster(b *testing.B) {
	data, err := os.ReadFile("../../../examples/digitaloceankubernetescluster/production.yaml")
	if err != nil {
		b.Fatal(err)
	}
	input := &v1.DigitalOceanKubernetesClusterStackInput{}
	if err := stackinput.Parse(data, "production.yaml", input); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := validation.Validate(input); err != nil {
			b.Fatal(err)
		}
	}
}

// largestPool is a node pool with as many taints, labels and tags as the rules allow, and
// metadata labels and annotations at their bound: the worst case of every rule.
func largestPool() *poolv1.DigitalOceanKubernetesNodePool {
	p := &poolv1.DigitalOceanKubernetesNodePool{
		ApiVersion: "digitalocean.clusterplane.dev/v1",
		Kind:       "DigitalOceanKubernetesNodePool",
		Metadata:   &sharedv1.CloudResourceMetadata{Name: "largest", Labels: map[string]string{}, Annotations: map[string]string{}},
		Spec: &poolv1.DigitalOceanKubernetesNodePoolSpec{
			NodePoolName: "largest", Cluster: sharedv1.StringValue("b6a1c3d5-e7f9-4a2b-8c4d-6e8f0a1b2c3d"),
			Size: "s-4vcpu-8gb", NodeCount: 3, Labels: map[string]string{},
		},
	}
	for i := range 64 {
		key := fmt.Sprintf("example.com/key-%02d", i)
		p.Metadata.Labels[fmt.Sprintf("label-%02d", i)] = "value"
		p.Metadata.Annotations[key] = "annotation"
		p.Spec.Labels[key] = strings.Repeat("v", 63)
		p.Spec.Tags = append(p.Spec.Tags, fmt.Sprintf("tag-%02d", i))
	}
	for i := range 32 {
		p.Spec.Taints = append(p.Spec.Taints, &sharedv1.Taint{Key: fmt.Sprintf("example.com/taint-%02d", i), Value: "v",
			Effect: sharedv1.TaintEffect_NoSchedule})
	}
	return p
}

func TestTheLargestAllowedPoolIsValidAndOneMoreTaintIsNot(t *testing.T) {
	p := largestPool()
	if err := validation.Validate(p); err != nil {
		t.Fatalf("the largest allowed pool is invalid: %v", err)
	}
	p.Spec.Taints = append(p.Spec.Taints, &sharedv1.Taint{Key: "one-more", Effect: sharedv1.TaintEffect_NoSchedule})
	if v := validation.Violations(validation.Validate(p)); len(v) != 1 || v[0].RuleID != "repeated.max_items" {
		t.Errorf("violations = %v, want repeated.max_items on taints", v)
	}
}

// BenchmarkValidateTheLargestAllowedPool is the worst case of every rule; the goal is under 5 ms.
func BenchmarkValidateTheLargestAllowedPool(b *testing.B) {
	p := largestPool()
	b.ReportAllocs()
	for b.Loop() {
		if err := validation.Validate(p); err != nil {
			b.Fatal(err)
		}
	}
}
