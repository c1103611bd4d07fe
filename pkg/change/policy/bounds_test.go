package policy_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/change/policy"
)

// Promise: policy-kinds-entry-names-a-kind
func TestAKindsEntryThatNamesNoKindIsRefusedAtLoadWithTheKindItWasMeantToBe(t *testing.T) {
	for _, c := range []struct {
		name, kinds string
		want        []string
	}{
		{"a plural", "[DigitalOceanKubernetesClusters]", []string{`policy.yaml:5:13: kinds: "DigitalOceanKubernetesClusters" is no kind`,
			"did you mean DigitalOceanKubernetesCluster?", "CivoKubernetesNodePool"}},
		{"a short name", "[do-cluster]", []string{`policy.yaml:5:13: kinds: "do-cluster" is no kind`}},
		{"a single kind, not a list", "DigitalOceanKubernetesCluster", []string{"policy.yaml:5:12: kinds: a list of kinds"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := policy.Parse("policy.yaml", []byte(`rules:
  - name: r
    message: m
    expression: "true"
    kinds: `+c.kinds+"\n"))
			if err == nil {
				t.Fatal("the policy was accepted")
			}
			if n := strings.Count(err.Error(), "\n") + 1; n != 1 {
				t.Errorf("one mistake got %d errors: %v", n, err)
			}
			for _, want := range c.want {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not say %q", err, want)
				}
			}
		})
	}
	// The kinds of every kind, in any case, are taken.
	mustParse(t, `rules:
  - name: r
    message: m
    expression: "true"
    kinds: [DigitalOceanKubernetesCluster, civokubernetesnodepool, CivoKubernetesCluster, DigitalOceanKubernetesNodePool]
`)
}

// Promise: policy-evaluation-bounded
func TestAPolicyOfManyCostlyRulesStopsWithAnErrorNamingTheRuleNotAfterMinutes(t *testing.T) {
	var b strings.Builder
	b.WriteString("rules:\n")
	for i := range 200 {
		// Each rule loops to just under its own cost limit, and only warns.
		fmt.Fprintf(&b, "  - name: loop-%d\n    level: warn\n    message: m\n    expression: \"[%s].all(x, [%s].all(y, x == y || true))\"\n",
			i, strings.TrimSuffix(strings.Repeat("1,", 400), ","), strings.TrimSuffix(strings.Repeat("1,", 400), ","))
	}
	p := mustParse(t, b.String())
	_, err := p.Evaluate(input(t, ""))
	if err == nil || !strings.Contains(err.Error(), "ran past") || !strings.Contains(err.Error(), `rule "loop-`) ||
		!strings.Contains(err.Error(), "pool.yaml") {
		t.Fatalf("evaluate = %v, want stopped naming the rule and the manifest", err)
	}
}

func TestAPolicyOfMoreRulesThanTheBoundIsRefusedAtLoad(t *testing.T) {
	var b strings.Builder
	b.WriteString("rules:\n")
	for i := range policy.MaxRules + 1 {
		fmt.Fprintf(&b, "  - name: r%d\n    message: m\n    expression: \"true\"\n", i)
	}
	if _, err := policy.Parse("policy.yaml", []byte(b.String())); err == nil || !strings.Contains(err.Error(), "more than the 1000") {
		t.Errorf("parse of %d rules = %v, want refused", policy.MaxRules+1, err)
	}
}
