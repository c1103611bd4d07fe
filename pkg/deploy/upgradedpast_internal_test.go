package deploy

import (
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/change/partgone"
	"github.com/clusterplane/clusterplane/pkg/deploy/fielddrift"
	"github.com/clusterplane/clusterplane/pkg/deploy/outcome"
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
	"github.com/clusterplane/clusterplane/pkg/kubeversion"
)

// Promise: drift-upgraded-past-minor
// Promise: pitfalls-older-version-refused
func TestDriftSaysAVersionTheCloudUpgradedPastTheManifestIsDrift(t *testing.T) {
	tests := []struct {
		name   string
		err    error
		status outcome.Status
		field  string
	}{
		{"the module's refusal of the older version is drift of that field", stackstate.ModuleRefusal(
			(&kubeversion.UpgradedPastError{Field: "spec.kubernetesVersion", Manifest: "1.31", Live: "1.32.2-do.0",
				Cloud: "DigitalOcean", Want: "1.32"}).Error()), outcome.Drifted, "spec.kubernetesVersion"},
		{"the module's refusal of a cluster whose default pool is gone is drift of that pool", stackstate.ModuleRefusal(
			"error: running program: " + (&partgone.Error{Cloud: "DigitalOcean", Field: "spec.defaultNodePool", Part: "pool",
				Cluster: "platform-prod", Mark: "terraform:default-node-pool"}).Error()), outcome.Drifted, "spec.defaultNodePool"},
		{"any other failure is a failure", &stackstate.EngineError{Command: "preview", Cause: "429 too many requests"}, outcome.Failed, ""},
		{"the engine refusing to replace a protected cluster is drift", &stackstate.ProtectedError{Resources: []string{"KubernetesCluster prod"}}, outcome.Drifted, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, ok := fielddrift.PreviewFailed(tt.err)
			if !ok {
				o = failed(tt.err)
			}
			if o.Status != tt.status || tt.field != "" && (len(o.Drift) != 1 || o.Drift[0].Field != tt.field) {
				t.Errorf("%s %v, want %s naming %q", o.Status, o.Drift, tt.status, tt.field)
			}
			// drift is read-only: it never advises turning protection off as the way out.
			if o.Status == outcome.Drifted && strings.Contains(o.Reason, "first to replace or destroy it on purpose") {
				t.Errorf("drift advises turning protection off: %s", o.Reason)
			}
		})
	}
}
