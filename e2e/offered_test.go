//go:build e2e

package e2e_test

import (
	"strings"
	"testing"
)

func TestPreviewAndUpRefuseWhatTheCloudDoesNotOfferBeforeTheEngine(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.do.Account().SetSizes("s-4vcpu-8gb", "s-2vcpu-2gb")
	cluster := example(t, "digitaloceankubernetescluster/minimal.yaml")
	cluster = strings.Replace(withSpec(cluster, "  deletionProtection: false\n"), "1.31.1-do.5", "1.31.1-do.6", 1)
	file := e.write("cluster.yaml", cluster)
	e.do.Reset()
	for _, args := range [][]string{{"preview", file}, {"up", file, "--yes"}} {
		r, code := e.clusterplane(args...)
		for _, want := range []string{
			file + `:17:22: spec.kubernetesVersion: version "1.31.1-do.6" is not offered by DigitalOcean now: did you mean 1.31.1-do.5?`,
			file + `:19:11: spec.defaultNodePool.size: size "s-2vcpu-4gb" is not offered by DigitalOcean now: did you mean s-2vcpu-2gb?`,
		} {
			if code != 1 || !strings.Contains(r.stderr, want) {
				t.Errorf("%s: exit %d, want 1 and %q\n%s", args[0], code, want, r)
			}
		}
	}
	// Each run asked the options once, and nothing else reached the cloud.
	for _, req := range e.do.Requests("") {
		if req.Path != "/v2/kubernetes/options" {
			t.Errorf("a refused manifest reached the cloud: %s %s", req.Method, req.Path)
		}
	}
	if n := len(e.do.Requests("")); n != 2 {
		t.Errorf("%d requests for two runs, want one options call each", n)
	}
}
