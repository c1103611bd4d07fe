package instancetype_test

import (
	"testing"

	v1 "github.com/clusterplane/clusterplane/karpenter/pkg/apis/v1"
	"github.com/clusterplane/clusterplane/karpenter/pkg/clouds"
	"github.com/clusterplane/clusterplane/karpenter/pkg/providers/instancetype"
)

// A size without a known price is never offered, whatever selects it: an unknown price must not
// read as free.
// Promise: karpenter-unpriced-size-never-offered
// Promise: karpenter-readme-unpriced-size-never-offered
func TestASizeWithoutAPriceIsNeverOffered(t *testing.T) {
	sizes := []clouds.Size{
		{Name: "g4c.kube.small", Family: "g4c", CPUs: 2, MemoryMiB: 4096},
		{Name: "g4s.kube.small", Family: "g4s", CPUs: 1, MemoryMiB: 2048, MonthlyPrice: 20, HourlyPrice: 0.03},
	}
	for _, terms := range [][]v1.SizeSelectorTerm{nil, {{Families: []string{"g4c"}}}, {{Names: []string{"g4c.kube.small"}}}} {
		got := instancetype.Select(sizes, terms)
		for _, s := range got {
			if s.MonthlyPrice <= 0 {
				t.Errorf("terms %v offer %s, which has no price", terms, s.Name)
			}
		}
		if terms == nil && (len(got) != 1 || got[0].Name != "g4s.kube.small") {
			t.Errorf("no term selects %v, want the priced size alone", got)
		}
	}
}
