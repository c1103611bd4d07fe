package digitalocean_test

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/digitalocean/godo"

	"github.com/clusterplane/clusterplane/internal/seed"
	"github.com/clusterplane/clusterplane/pkg/cloud/digitalocean"
	dofacts "github.com/clusterplane/clusterplane/pkg/cloudfacts/digitalocean"
	"github.com/clusterplane/clusterplane/pkg/loopback/fakedo"
)

const defaultPoolToken = "dop_v1_defaultpool-test-token"

// Promise: adopt-refuses-several-default-pools
func TestTheNamedPoolIsTaggedOnlyWhenTheProviderCouldNotImportTheClusterOtherwise(t *testing.T) {
	tests := []struct {
		name    string
		pools   []seed.Pool
		edit    func(*fakedo.DO, string)
		pool    string
		tagged  string // the pool tagged by Ensure or before it; "" none
		wantErr string
	}{
		{name: "a doctl cluster with an extra pool gets its named pool tagged",
			pools: []seed.Pool{{}, {Name: "batch", Count: 2, Tags: []string{"pool-batch"}}}, pool: "web-default-pool", tagged: "web-default-pool"},
		{name: "the pool the manifest names is tagged, not the first",
			pools: []seed.Pool{{}, {Name: "batch", Count: 2}}, pool: "batch", tagged: "batch"},
		{name: "one pool is left to the provider, which tags it itself",
			pools: []seed.Pool{{}}, pool: "web-default-pool"},
		{name: "a pool tagged already is left as it is",
			pools: []seed.Pool{{}, {Name: "batch", Count: 2, Tags: []string{dofacts.DefaultPoolTag}}}, pool: "batch", tagged: "batch"},
		{name: "two pools tagged is an error naming both",
			pools: []seed.Pool{{Tags: []string{dofacts.DefaultPoolTag}}, {Name: "batch", Count: 2, Tags: []string{dofacts.DefaultPoolTag}}},
			pool:  "batch", wantErr: "web-default-pool, batch"},
		{name: "no pool of the manifest's name is an error naming the pools",
			pools: []seed.Pool{{}, {Name: "batch", Count: 2}}, pool: "apps", wantErr: "its pools are web-default-pool, batch"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			token := defaultPoolToken
			do := fakedo.New(t, token)
			id, _, err := fakedo.Seed(context.Background(), seed.Client{URL: do.URL(), Token: token},
				seed.Cluster{Tool: fakedo.Doctl, Name: "web", Region: "fra1", Pools: tt.pools})
			if err != nil {
				t.Fatal(err)
			}
			before, _ := do.Cluster(id)
			do.Reset()
			c := digitalocean.New(do.URL(), token, digitalocean.Options{})
			_, err = c.EnsureDefaultPool(context.Background(), id, tt.pool)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Ensure = %v, want an error saying %q", err, tt.wantErr)
				}
			} else if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(errString(err), token) || strings.Contains(errString(err), do.URL()) {
				t.Errorf("the error holds the token or the URL: %v", err)
			}
			after, _ := do.Cluster(id)
			for i, p := range after.NodePools {
				b := before.NodePools[i]
				want := tt.tagged == p.Name || slices.Contains(b.Tags, dofacts.DefaultPoolTag)
				if got := slices.Contains(p.Tags, dofacts.DefaultPoolTag); got != want {
					t.Errorf("pool %s tagged %s: %t, want %t (tags %v)", p.Name, dofacts.DefaultPoolTag, got, want, p.Tags)
				}
				// Only the tag was added: the pool is otherwise as it was, its own tags kept.
				if p.Size != b.Size || p.Count != b.Count || p.Name != b.Name || p.AutoScale != b.AutoScale {
					t.Errorf("pool %s changed: %+v, was %+v", p.Name, p, b)
				}
				for _, tag := range b.Tags {
					if !slices.Contains(p.Tags, tag) {
						t.Errorf("pool %s lost its tag %s: %v", p.Name, tag, p.Tags)
					}
				}
			}
			puts := do.Requests(http.MethodPut)
			wantPuts := 0
			if tt.wantErr == "" && tt.tagged != "" && !slices.Contains(poolNamed(before, tt.tagged).Tags, dofacts.DefaultPoolTag) {
				wantPuts = 1
			}
			if len(puts) != wantPuts || len(do.Requests(http.MethodPost))+len(do.Requests(http.MethodDelete)) != 0 {
				t.Errorf("the cloud received %d PUTs (%v), want %d and nothing else", len(puts), puts, wantPuts)
			}
			for _, p := range puts {
				if strings.Contains(p.Body, "count") || strings.Contains(p.Body, "name") {
					t.Errorf("the tag update sends more than tags: %s", p.Body)
				}
			}
		})
	}
}

func poolNamed(c godo.KubernetesCluster, name string) godo.KubernetesNodePool {
	for _, p := range c.NodePools {
		if p.Name == name {
			return *p
		}
	}
	return godo.KubernetesNodePool{}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
