package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/iac/pulumi/registry"
	"github.com/clusterplane/clusterplane/pkg/cloud/civo"
	"github.com/clusterplane/clusterplane/pkg/cloud/digitalocean"
	"github.com/clusterplane/clusterplane/pkg/exitcode"
	"github.com/clusterplane/clusterplane/pkg/loopback/fakedo"
)

// A rule's cost is always the price table's, never the sizes API's: with a token whose API prices
// a node $2.50 a month dearer, the rule that the table's +$24.00 keeps is still kept, while the
// diff itself is priced by the API.
// Promise: policy-cost-from-the-table
func TestAPolicysCostIsThePriceTablesWithATokenOrWithout(t *testing.T) {
	pool := strings.Replace(readExample(t, "digitaloceankubernetesnodepool/minimal.yaml"), "size: s-4vcpu-8gb", "size: s-2vcpu-4gb", 1)
	dir := writeFiles(t, map[string]string{
		"old.yaml": pool,
		"new.yaml": strings.Replace(pool, "nodeCount: 2", "nodeCount: 3", 1),
		"policy.yaml": "rules:\n  - name: growth\n    message: a change adds at most $25 a month, by the table\n" +
			"    expression: cost.delta.max <= 25.0 && cost.source.contains(\"table\")\n",
	})
	const token = "dop_v1_policy-cost-token"
	do := fakedo.New(t, token)
	do.Account().SetPrice("s-2vcpu-4gb", 26.5)
	for _, tt := range []struct {
		name string
		api  bool
		diff string // what the diff's own cost line says
	}{
		{"without a token", false, "monthly cost: +$24.00/month"},
		{"with a token whose sizes API prices differently", true, "monthly cost: +$26.50/month"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			for _, env := range []string{digitalocean.TokenEnv, digitalocean.APIURLEnv, civo.TokenEnv, civo.APIURLEnv} {
				t.Setenv(env, "")
			}
			if tt.api {
				t.Setenv(digitalocean.TokenEnv, token)
				t.Setenv(digitalocean.APIURLEnv, do.URL())
			}
			var stdout, stderr bytes.Buffer
			code := newApp(registry.Kinds(), strings.NewReader(""), &stdout, &stderr).run([]string{"diff",
				"--policy", filepath.Join(dir, "policy.yaml"), filepath.Join(dir, "old.yaml"), filepath.Join(dir, "new.yaml")})
			if code != exitcode.OK || strings.Contains(stderr.String(), "growth") {
				t.Fatalf("exit %d, want 0 with the rule kept\nstdout:\n%s\nstderr:\n%s", code, stdout.String(), stderr.String())
			}
			if !strings.Contains(stdout.String(), tt.diff) {
				t.Errorf("the diff does not say %q, so the test does not price what it means to:\n%s", tt.diff, stdout.String())
			}
		})
	}
}
