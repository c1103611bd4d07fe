package examples_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/change/policy"
	"github.com/clusterplane/clusterplane/pkg/cloud/clouds"
)

// policyInput loads an example (text is its content, edited) as policy.Input.
func policyInput(t *testing.T, example, text string) policy.Input {
	t.Helper()
	path := filepath.Join(t.TempDir(), filepath.Base(example))
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	input, _, err := kinds[filepath.Dir(example)].load(path)
	if err != nil {
		t.Fatalf("%s, edited, is invalid: %v", example, err)
	}
	in := policy.Input{File: example, Data: []byte(text), Manifest: input}
	// The prices the callers hand in: the manifest's cloud's table, from its driver.
	if d, ok := clouds.OfInput(input); ok {
		prices := d.Prices()
		in.Prices = &prices
	}
	return in
}

func readExample(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func loadPolicy(t *testing.T, name string) *policy.Policy {
	t.Helper()
	p, err := policy.Load(filepath.Join("policy", name))
	if err != nil {
		t.Fatalf("examples/policy/%s: %v", name, err)
	}
	return p
}

func TestEveryExampleKeepsEveryExamplePolicy(t *testing.T) {
	isolate(t)
	policies, err := filepath.Glob(filepath.Join("policy", "*.yaml"))
	if err != nil || len(policies) < 5 {
		t.Fatalf("want at least 5 example policies, found %d (%v)", len(policies), err)
	}
	for _, file := range policies {
		p := loadPolicy(t, filepath.Base(file))
		for _, example := range exampleFiles(t) {
			results, err := p.Evaluate(policyInput(t, example, readExample(t, example)))
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range results {
				if r.Denied() || r.Error != "" {
					t.Errorf("%s refuses %s: %s", file, example, r)
				}
			}
		}
	}
}

func TestEachExamplePolicyRefusesAManifestThatBreaksItAtTheFieldsLine(t *testing.T) {
	isolate(t)
	for _, c := range []struct {
		policy, example, from, to string
		// old is the example the edited one replaces, "" for a create.
		old  string
		rule string
		// at is the line the denial points at: the rule's field, else the kind.
		at string
	}{
		{"production-ha.yaml", "digitaloceankubernetescluster/production.yaml", "highlyAvailable: true", "highlyAvailable: false", "",
			"production-digitalocean-clusters-are-ha", "highlyAvailable: false"},
		{"production-ha.yaml", "civokubernetescluster/production.yaml", "nodeCount: 3", "nodeCount: 2", "",
			"production-civo-clusters-have-three-nodes", "nodeCount: 2"},
		{"production-ha.yaml", "civokubernetescluster/production.stack-input.yaml", "nodeCount: 3", "nodeCount: 2", "",
			"production-civo-clusters-have-three-nodes", "nodeCount: 2"},
		{"production-ha.yaml", "digitaloceankubernetescluster/production.yaml", "highlyAvailable: true",
			"highlyAvailable: true\n  deletionProtection: false", "", "production-clusters-are-protected", "deletionProtection: false"},
		{"pool-size.yaml", "digitaloceankubernetesnodepool/autoscaling.yaml", "maxNodes: 8", "maxNodes: 30", "",
			"pools-have-at-most-20-nodes", "nodeCount: 3"},
		{"pool-size.yaml", "civokubernetescluster/minimal.yaml", "nodeCount: 1", "nodeCount: 21", "",
			"default-pools-have-at-most-20-nodes", "nodeCount: 21"},
		// 50 nodes at $24 and the HA fee: over $1000.
		{"cost.yaml", "digitaloceankubernetescluster/production.yaml", "nodeCount: 3", "nodeCount: 50", "digitaloceankubernetescluster/production.yaml",
			"at-most-1000-a-month", "kind: DigitalOceanKubernetesCluster"},
		// 2 → 14 nodes at $48 adds $576 a month, though $672 is under the ceiling.
		{"cost.yaml", "digitaloceankubernetesnodepool/minimal.yaml", "nodeCount: 2", "nodeCount: 14", "digitaloceankubernetesnodepool/minimal.yaml",
			"no-change-adds-more-than-500-a-month", "kind: DigitalOceanKubernetesNodePool"},
		{"regions.yaml", "civokubernetesnodepool/minimal.yaml", "region: fra1", "region: nyc1", "", "only-our-regions", "region: nyc1"},
		{"regions.yaml", "digitaloceankubernetescluster/production.yaml", "region: ams3", "region: sfo3", "", "only-our-regions", "region: sfo3"},
		{"versions.yaml", "civokubernetescluster/production.yaml", "kubernetesVersion: 1.30.5-k3s1", "kubernetesVersion: 1.29.8-k3s1", "",
			"at-most-one-minor-version-behind", "kubernetesVersion: 1.29.8-k3s1"},
		{"versions.yaml", "digitaloceankubernetescluster/production.yaml", "kubernetesVersion: 1.31.1-do.5", "kubernetesVersion: 1.28.2-do.0", "",
			"at-most-one-minor-version-behind", "kubernetesVersion: 1.28.2-do.0"},
	} {
		t.Run(c.policy+" "+c.rule+" "+c.example, func(t *testing.T) {
			p := loadPolicy(t, c.policy)
			original := readExample(t, c.example)
			if !strings.Contains(original, c.from) {
				t.Fatalf("%s holds no %q", c.example, c.from)
			}
			text := strings.Replace(original, c.from, c.to, 1)
			in := policyInput(t, c.example, text)
			if c.old != "" {
				in.Old = policyInput(t, c.old, readExample(t, c.old)).Manifest
			}
			results, err := p.Evaluate(in)
			if err != nil {
				t.Fatal(err)
			}
			var found *policy.Result
			for i, r := range results {
				if r.Rule == c.rule {
					found = &results[i]
				}
			}
			if found == nil || !found.Denied() || found.Error != "" {
				t.Fatalf("rule %s does not deny the edit %q → %q: %v", c.rule, c.from, c.to, results)
			}
			if line := strings.Split(text, "\n")[max(found.Line, 1)-1]; found.Line == 0 || strings.TrimSpace(line) != c.at {
				t.Errorf("points at line %d %q, want the line %q", found.Line, line, c.at)
			}
			// Unedited, the example keeps the rule.
			unedited := policyInput(t, c.example, original)
			if c.old != "" {
				unedited.Old = in.Old
			}
			again, _ := p.Evaluate(unedited)
			if policy.Denied(again) {
				t.Errorf("the unedited example is denied too: %v", again)
			}
		})
	}
}
