package fakedo_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/clusterplane/clusterplane/pkg/cloud/digitalocean"
	"github.com/clusterplane/clusterplane/pkg/loopback/fakedo"
	"github.com/digitalocean/godo"
)

// Setenv is how a test makes the driver's clients, which find DigitalOcean through the
// environment, talk to the fake; when the test ends the environment is as it was.
func TestSetenvPointsTheDriversClientsAtTheFakeUntilTheTestEnds(t *testing.T) {
	t.Setenv(digitalocean.TokenEnv, "the shell's token")
	t.Setenv(digitalocean.APIURLEnv, "")
	t.Run("inside the test", func(t *testing.T) {
		do := fakedo.New(t, "do-token")
		id := do.SeedCluster(godo.KubernetesCluster{Name: "web", RegionSlug: "fra1"})
		do.Setenv(t, digitalocean.Env.TokenEnv, digitalocean.Env.URLEnv)
		token, url, err := digitalocean.Env.Resolve("", "")
		if err != nil || token != "do-token" || url != do.URL() {
			// The tokens are compared, never printed: a test's output is no place for one.
			t.Fatalf("the driver resolves the fake's token: %t, URL %q (%v), want the fake's", token == "do-token", url, err)
		}
		client, err := digitalocean.Godo(token, url, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		clusters, _, err := client.Kubernetes.List(context.Background(), nil)
		if err != nil || len(clusters) != 1 || clusters[0].ID != id {
			t.Errorf("the driver's client lists %v (%v), want the fake's cluster %s", clusters, err, id)
		}
	})
	if token, url := os.Getenv(digitalocean.TokenEnv), os.Getenv(digitalocean.APIURLEnv); token != "the shell's token" || url != "" {
		t.Errorf("after the test the environment holds the token it held before: %t, URL %q, want both as before", token == "the shell's token", url)
	}
}
