package main

import (
	"strconv"
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/cli"
	"github.com/clusterplane/clusterplane/pkg/deploy/deploytest"
	"github.com/clusterplane/clusterplane/pkg/exitcode"
	"github.com/clusterplane/clusterplane/pkg/manifest/reference"
)

// Promise: civo-pool-in-another-region-refused
// Promise: civo-pool-region-checked-against-the-deployed-cluster
func TestValidateRefusesACivoPoolInAnotherRegionThanItsClusterInTheSameFolderOrFile(t *testing.T) {
	cluster := frontFile(t, "civokubernetescluster", "production.yaml")
	pool := frontFile(t, "civokubernetesnodepool", "cluster-by-reference.yaml")
	elsewhere := strings.Replace(pool, "region: fra1", "region: lon1", 1)
	says := `spec.region: region "lon1" is not its cluster's: CivoKubernetesCluster platform-fra1 is in "fra1" (`
	tests := []struct {
		name  string
		files map[string]string
		args  []string
		code  int
		// says is what stderr says, "" for nothing.
		says string
		// noted tells whether validate notes that preview and up check the pool's region.
		noted bool
	}{
		{"a folder of a cluster and its pool", map[string]string{"cluster.yaml": cluster, "pool.yaml": pool}, []string{"."}, exitcode.OK, "", false},
		{"a folder whose pool is in another region", map[string]string{"cluster.yaml": cluster, "pool.yaml": elsewhere}, []string{"."},
			exitcode.Invalid, "pool.yaml:22:11: " + says + "cluster.yaml:26:11) (a pool is created in its cluster's region: write fra1)", false},
		{"one file of both", map[string]string{"both.yaml": cluster + "---\n" + elsewhere}, []string{"both.yaml"},
			exitcode.Invalid, "both.yaml:" + strconv.Itoa(strings.Count(cluster, "\n")+1+22) + ":11: " + says + "both.yaml:26:11)", false},
		{"the two files named", map[string]string{"cluster.yaml": cluster, "pool.yaml": elsewhere}, []string{"pool.yaml", "cluster.yaml"},
			exitcode.Invalid, "pool.yaml:22:11: " + says, false},
		// The cluster may be deployed from elsewhere: the cloud answers for it then.
		{"the pool alone", map[string]string{"pool.yaml": elsewhere}, []string{"pool.yaml"}, exitcode.OK, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Chdir(writeTree(t, tt.files))
			r := run(t, "", append([]string{"validate"}, tt.args...)...)
			if r.code != tt.code || (tt.says == "") != (r.stderr == "") || !strings.Contains(r.stderr, tt.says) {
				t.Errorf("validate %v: exit %d, want %d saying %q\nstdout:\n%s\nstderr:\n%s", tt.args, r.code, tt.code, tt.says, r.stdout, r.stderr)
			}
			note := "pool.yaml: valid CivoKubernetesNodePool (" + cli.RegionUncheckedNote + ")\n"
			if strings.Contains(r.stdout, note) != tt.noted {
				t.Errorf("validate %v: notes that preview and up check the region: %t, want %t\nstdout:\n%s", tt.args, !tt.noted, tt.noted, r.stdout)
			}
		})
	}
}

// CI may run preview or up rather than validate: a pool given with its cluster in another region
// is refused before any stack is opened, as validate refuses it.
// Promise: civo-pool-in-another-region-refused
func TestEveryDeployCommandRefusesACivoPoolInAnotherRegionThanItsClusterAndTouchesNoStack(t *testing.T) {
	cluster := frontFile(t, "civokubernetescluster", "production.yaml")
	pool := strings.Replace(frontFile(t, "civokubernetesnodepool", "cluster-by-reference.yaml"), "region: fra1", "region: lon1", 1)
	for _, args := range [][]string{{"preview"}, {"up", "--yes"}, {"drift"}} {
		t.Run(args[0], func(t *testing.T) {
			dir := writeTree(t, map[string]string{"cluster.yaml": cluster, "pool.yaml": pool})
			b := deploytest.New()
			r := deployRun(t, b, strings.NewReader(""), false, append(args, dir)...)
			says := `spec.region: region "lon1" is not its cluster's: CivoKubernetesCluster platform-fra1 is in "fra1"`
			if r.code != exitcode.Invalid || !strings.Contains(r.stderr, says) {
				t.Errorf("%v: exit %d, want %d saying %q\nstdout:\n%s\nstderr:\n%s", args, r.code, exitcode.Invalid, says, r.stdout, r.stderr)
			}
			for _, key := range []string{"civokubernetescluster/" + reference.Stack("platform-fra1", "prod"),
				"civokubernetesnodepool/" + reference.Stack("platform-fra1-batch", "prod")} {
				if b.Has(key) {
					t.Errorf("%v opened stack %s of a fleet it refused", args, key)
				}
			}
		})
	}
}

// A pool given without its cluster is checked against the region the cluster's stack recorded
// at its last up: preview and up refuse it before its stack is opened, as Civo would answer 404.
// Promise: civo-pool-region-checked-against-the-deployed-cluster
// Promise: architecture-pipeline-refuses-before-the-queue
func TestPreviewAndUpRefuseACivoPoolInAnotherRegionThanItsDeployedCluster(t *testing.T) {
	cluster := frontFile(t, "civokubernetescluster", "production.yaml")
	pool := frontFile(t, "civokubernetesnodepool", "cluster-by-reference.yaml")
	poolStack := "civokubernetesnodepool/" + reference.Stack("platform-fra1-batch", "prod")
	tests := []struct {
		name   string
		region string
		code   int
	}{
		{"a pool in its cluster's region deploys", "fra1", exitcode.OK},
		{"a pool in another region is refused", "lon1", exitcode.Invalid},
	}
	for _, tt := range tests {
		for _, args := range [][]string{{"preview"}, {"up", "--yes"}} {
			t.Run(tt.name+" by "+args[0], func(t *testing.T) {
				dir := writeTree(t, map[string]string{"cluster.yaml": cluster,
					"pool.yaml": strings.Replace(pool, "region: fra1", "region: "+tt.region, 1)})
				b := deploytest.New()
				if r := deployRun(t, b, strings.NewReader(""), false, "up", "--yes", dir+"/cluster.yaml"); r.code != exitcode.OK {
					t.Fatalf("up of the cluster: exit %d\n%s", r.code, r.stderr)
				}
				r := deployRun(t, b, strings.NewReader(""), false, append(args, dir+"/pool.yaml")...)
				says := `pool.yaml:22:11: spec.region: region "lon1" is not its cluster's: CivoKubernetesCluster platform-fra1 is in "fra1" ` +
					`(the manifest stack civokubernetescluster/platform-fra1-prod last deployed) (a pool is created in its cluster's region: write fra1)`
				if r.code != tt.code || strings.Contains(r.stderr, "is not its cluster's") != (tt.code != exitcode.OK) ||
					(tt.code != exitcode.OK && !strings.Contains(r.stderr, says)) {
					t.Errorf("%v: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", args, r.code, tt.code, r.stdout, r.stderr)
				}
				if tt.code != exitcode.OK && b.Has(poolStack) {
					t.Errorf("%v opened the pool's stack", args)
				}
			})
		}
	}
}
