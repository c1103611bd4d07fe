package civo_test

import (
	"context"
	"slices"
	"testing"

	"github.com/civo/civogo"
	"github.com/clusterplane/clusterplane/pkg/cloud/civo"
	"github.com/clusterplane/clusterplane/pkg/loopback/fakecivo"
)

const region = "lon1"

// onFake is a client of a loopback Civo holding one cluster.
func onFake(t *testing.T) *civo.Client {
	t.Helper()
	f := fakecivo.New(t, token, region)
	f.SeedCluster(civogo.KubernetesCluster{Name: "c"})
	return civo.New(f.URL(), token, civo.Options{})
}

func TestSizesReadKubernetesSizesWithTheirShape(t *testing.T) {
	c := onFake(t)
	sizes, err := c.Sizes(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(sizes, func(s civo.Size) bool { return s.Name == "an.g1.l40s.kube.x1" })
	if i < 0 || sizes[i].Type != "kubernetes" || sizes[i].CPUCores != 12 || sizes[i].RAMMB != 65536 || sizes[i].GPUCount != 1 {
		t.Errorf("the L40S size: %+v", sizes)
	}
}
