package main

import (
	"strconv"
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/exitcode"
)

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
	}{
		{"a folder of a cluster and its pool", map[string]string{"cluster.yaml": cluster, "pool.yaml": pool}, []string{"."}, exitcode.OK, ""},
		{"a folder whose pool is in another region", map[string]string{"cluster.yaml": cluster, "pool.yaml": elsewhere}, []string{"."},
			exitcode.Invalid, "pool.yaml:22:11: " + says + "cluster.yaml:26:11) (a pool is created in its cluster's region: write fra1)"},
		{"one file of both", map[string]string{"both.yaml": cluster + "---\n" + elsewhere}, []string{"both.yaml"},
			exitcode.Invalid, "both.yaml:" + strconv.Itoa(strings.Count(cluster, "\n")+1+22) + ":11: " + says + "both.yaml:26:11)"},
		{"the two files named", map[string]string{"cluster.yaml": cluster, "pool.yaml": elsewhere}, []string{"pool.yaml", "cluster.yaml"},
			exitcode.Invalid, "pool.yaml:22:11: " + says},
		// The cluster may be deployed from elsewhere: the cloud answers for it then.
		{"the pool alone", map[string]string{"pool.yaml": elsewhere}, []string{"pool.yaml"}, exitcode.OK, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Chdir(writeTree(t, tt.files))
			r := run(t, "", append([]string{"validate"}, tt.args...)...)
			if r.code != tt.code || (tt.says == "") != (r.stderr == "") || !strings.Contains(r.stderr, tt.says) {
				t.Errorf("validate %v: exit %d, want %d saying %q\nstdout:\n%s\nstderr:\n%s", tt.args, r.code, tt.code, tt.says, r.stdout, r.stderr)
			}
		})
	}
}
