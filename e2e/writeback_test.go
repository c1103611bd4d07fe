//go:build e2e

package e2e_test

import (
	"strings"
	"testing"
)

// The advice of a refused removal ("write the VPC's id back, the stack's vpc_uuid output") can be
// followed: the real provider compares a newly written vpc with the VPC it read from the cloud
// (vpc_uuid is Optional, Computed and ForceNew: terraform-provider-digitalocean
// kubernetes_cluster.go), so the cluster's own VPC replaces nothing and up deploys it, while
// another VPC is still refused and the cluster stays.
// Promise: pitfalls-vpc-written-back-asks-the-provider
func TestTheClustersOwnVPCWrittenBackDeploysAndAnotherVPCIsRefused(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	text := example(t, "digitaloceankubernetescluster/minimal.yaml") // deletionProtection on
	if r, code := e.clusterplane("up", e.write("cluster.yaml", text), "--yes"); code != 0 {
		t.Fatalf("up = %d: %s", code, r)
	}
	before := e.doCluster("dev-fra1")
	withVPC := func(id string) string {
		return strings.Replace(text, "  region: fra1\n", "  region: fra1\n  vpc:\n    value: "+id+"\n", 1)
	}

	own := e.write("cluster.yaml", withVPC(before.VPCUUID))
	if r, code := e.clusterplane("preview", own); code != 0 || strings.Contains(r.stdout+r.stderr, "refused") {
		t.Errorf("preview with the cluster's own VPC written back = %d, want 0 and nothing refused: %s", code, r)
	}
	if r, code := e.clusterplane("up", own, "--yes"); code != 0 {
		t.Errorf("up with the cluster's own VPC written back = %d, want 0: %s", code, r)
	}

	const other = "3c6f0d2a-0000-4000-8000-00000000f0a1"
	e.do.Account().SeedVPC(other, "fra1")
	moved := e.write("cluster.yaml", withVPC(other))
	if r, code := e.clusterplane("up", moved, "--yes"); code == 0 || !strings.Contains(r.stdout+r.stderr, "spec.vpc") {
		t.Errorf("up with another VPC = %d, want it refused naming spec.vpc: %s", code, r)
	}
	if after := e.doCluster("dev-fra1"); after.ID != before.ID || after.VPCUUID != before.VPCUUID {
		t.Errorf("the cluster changed: %s in %s before, %s in %s after", before.ID, before.VPCUUID, after.ID, after.VPCUUID)
	}
}
