package deploy_test

import (
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/iac/pulumi/registry"
	"github.com/clusterplane/clusterplane/pkg/deploy/deploytarget"
)

// The service reads manifests through Read: a region written as its place's name is refused there
// with the region it means, as validate refuses it.
func TestAManifestReadForTheServiceNamesTheRegionAPlacesNameMeans(t *testing.T) {
	k, _ := registry.Kinds().ByName("DigitalOceanKubernetesCluster")
	data := strings.Replace(manifest(t, "digitaloceankubernetescluster/minimal.yaml"), "region: fra1", "region: amsterdam3", 1)
	_, err := deploytarget.Read(k, "cluster.yaml", []byte(data), "")
	want := "spec.region: must be a region code: 2 to 5 lower-case letters, then a digit or two, e.g. fra1 " +
		"(`clusterplane regions digitalocean` lists them) (did you mean ams3?)"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Read = %v, want an error saying %q", err, want)
	}
}
