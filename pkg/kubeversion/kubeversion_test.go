package kubeversion_test

import (
	"testing"

	"github.com/clusterplane/clusterplane/pkg/kubeversion"
)

func TestLessComparesTheNumbersInOrder(t *testing.T) {
	cases := []struct {
		a, b     string
		less, ok bool
	}{
		{"1.30.5-do.2", "1.31.1-do.0", true, true},
		{"1.31.1-do.5", "1.31.1-do.4", false, true},
		{"1.31.1-do.4", "1.31.1-do.5", true, true},
		{"1.31.10-do.0", "1.31.9-do.9", false, true},
		{"1.31", "1.31.1-do.5", true, true},
		{"v1.30.5-k3s1", "1.30.5-k3s2", true, true},
		{"talos-v1.7.0", "talos-v1.6.9", false, true},
		{"1.31.1-do.5", "1.31.1-do.5", false, true},
		{"latest", "1.31.1-do.5", false, false},
	}
	for _, c := range cases {
		less, ok := kubeversion.Less(c.a, c.b)
		if less != c.less || ok != c.ok {
			t.Errorf("Less(%q, %q) = %t, %t; want %t, %t", c.a, c.b, less, ok, c.less, c.ok)
		}
	}
}

func TestMinorLinesAndTheirMinors(t *testing.T) {
	if !kubeversion.IsMinorLine("1.31") || kubeversion.IsMinorLine("1.31.1-do.5") || kubeversion.IsMinorLine("1") {
		t.Error("IsMinorLine does not tell 1.31 from a full version")
	}
	if got := kubeversion.Minor("1.31.1-do.5"); got != "1.31" {
		t.Errorf("Minor = %q, want 1.31", got)
	}
	if !kubeversion.SameMinor("1.31", "1.31.9-do.1") || kubeversion.SameMinor("1.31.1-do.0", "1.32.0-do.0") {
		t.Error("SameMinor is wrong")
	}
}

func TestMinorStepsCountsMinorVersionsWithinAMajor(t *testing.T) {
	cases := []struct {
		from, to string
		steps    int
		ok       bool
	}{
		{"1.30.5-do.2", "1.31.1-do.0", 1, true},
		{"1.30.5-do.2", "1.32", 2, true},
		{"1.31.1-do.5", "1.31.9-do.0", 0, true},
		{"1.31.1-do.5", "1.29.1-do.0", -2, true},
		{"1.31.1-do.5", "2.0.0-do.0", 0, false},
		{"latest", "1.31", 0, false},
	}
	for _, c := range cases {
		steps, ok := kubeversion.MinorSteps(c.from, c.to)
		if steps != c.steps || ok != c.ok {
			t.Errorf("MinorSteps(%q, %q) = %d, %t; want %d, %t", c.from, c.to, steps, ok, c.steps, c.ok)
		}
	}
}
