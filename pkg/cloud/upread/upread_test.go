package upread_test

import (
	"context"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/cloud/upread"
)

func TestAReadIsFoundByTypeAndNameAndAContextWithoutOneCarriesNothing(t *testing.T) {
	if got := upread.Of(context.Background()); got != nil {
		t.Errorf("a context carrying nothing: Of = %v, want nil", got)
	}
	read := upread.Read{
		{Type: "pool", Outputs: map[string]any{"name": "dev"}},
		{Type: "cluster", Outputs: map[string]any{"name": "other", "version": "1.30.1-do.0"}},
		{Type: "cluster", Outputs: map[string]any{"name": "dev", "version": "1.31.1-do.5"}},
	}
	if out, ok := read.Named("cluster", "dev"); !ok || out["version"] != "1.31.1-do.5" {
		t.Errorf("Named(cluster, dev) = %v, %t; want the version 1.31.1-do.5", out, ok)
	}
	if out, ok := read.Named("cluster", "gone"); ok {
		t.Errorf("Named(cluster, gone) = %v, want none", out)
	}
}
